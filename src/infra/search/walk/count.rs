//! Which names hold enough of a search's trigrams to be looked at (`Names::candidates`), the
//! lists they are counted in, and the names that may contain the text: the counting under
//! [`super`]'s walk.

use super::super::lists::{ascending, List};
use super::super::names::Names;
use super::super::trgm::Trgm;
use super::Scratch;

impl Names {
    pub(super) fn list_of(&self, t: &Trgm) -> List<'_> {
        List {
            slots: self.postings.get(t).map_or(&[][..], Vec::as_slice),
            bitmap: self.dense.get(t).map(Vec::as_slice),
        }
    }

    /// The names holding at least `need` trigrams of the search (`s.high`: slot and count,
    /// ascending). Either the first `m` lists are counted slot by slot and the others looked
    /// up (a bit of a dense list's bitmap, a gallop through another) for the names counted to
    /// `need - (k - m)` there (which hold every name holding `need`), or, where that would
    /// cost more, every list is counted, in bit planes. Returns
    /// how many lists were counted (the counts of the names not in `s.high` hold only those).
    // Not inlined into `search_with`: inlined, its count slot by slot came out about 7%
    // slower a full name (measured at a million names), the loop compiled otherwise.
    #[inline(never)]
    pub(super) fn candidates(
        &self,
        lists: &[List],
        m: usize,
        need: usize,
        s: &mut Scratch,
    ) -> usize {
        let (k, n) = (lists.len(), self.slots.len());
        s.cands.clear();
        s.high.clear();
        s.words.clear();
        if k == 0 {
            s.counts.bytes(n);
            return 0;
        }
        // A name holding `need` in all holds at least `first` in the first `m`.
        let first = (need + m - k) as u8;
        // Counting the first `m` slot by slot, then looking the names counted `first` there
        // up in the others, only where `first` is 3 or more: counted to 1 or 2, most of the
        // lists' slots are candidates, and the planes cost less (with the bitmaps at 1/64,
        // at a million names: a typed keystroke 0.87x, a full name 0.9x of counting from 1
        // with the bitmaps at 1/32). Lists of up to 1/16 of the names are counted so (the
        // last list a full name of the load counts held 3.5% of a million).
        let short = |l: &List| l.slots.len() * 16 < n;
        if m < k && first >= 3 && lists[..m].iter().all(short) {
            s.counts.bytes(n);
            for l in &lists[..m] {
                for &slot in l.slots {
                    if s.counts.add(slot) == first {
                        s.cands.push(slot);
                    }
                }
            }
            // Looking the candidates up in the other lists (a bit each in a dense one's
            // bitmap), against counting every list in planes and reading the planes.
            let per_candidate: usize = lists[m..].iter().map(List::look_up_cost).sum();
            let planes = lists.iter().map(|l| l.planes_cost(n)).sum::<usize>() + n.div_ceil(64);
            if s.cands.len() * per_candidate < planes {
                self.look_up(&lists[m..], need, s);
                return m;
            }
            s.cands.clear();
        }
        s.counts.count_planes((n, k), lists, need, &mut s.words);
        k
    }

    /// The candidates `s.cands` counted in the lists before `rest`, looked up in `rest`:
    /// those holding `need` in all, with their counts, into `s.high`.
    fn look_up(&self, rest: &[List], need: usize, s: &mut Scratch) {
        ascending(&mut s.cands, self.slots.len(), &mut s.sorting);
        s.high
            .extend(s.cands.iter().map(|&c| (c, s.counts.get(c as usize))));
        for (i, l) in rest.iter().enumerate() {
            let left = rest.len() - i - 1;
            let mut at = 0;
            for h in s.high.iter_mut() {
                if l.holds(&mut at, h.0) {
                    h.1 += 1;
                }
            }
            s.high.retain(|h| usize::from(h.1) + left >= need);
        }
    }

    /// How many trigrams of the search each name of `like` holds (`s.like_counts`): its
    /// count in the lists counted slot by slot, and the `rest` looked up.
    pub(super) fn count_like(&self, like: &[u32], rest: &[List], s: &mut Scratch) {
        s.like_counts.clear();
        s.like_counts
            .extend(like.iter().map(|&x| s.counts.get(x as usize)));
        for l in rest {
            let mut at = 0;
            for (i, &x) in like.iter().enumerate() {
                if l.holds(&mut at, x) {
                    s.like_counts[i] += 1;
                }
            }
        }
    }

    /// The slots holding every trigram of `inner`, ascending, into `out`.
    pub(super) fn holding_all(&self, inner: &[Trgm], out: &mut Vec<u32>) {
        let mut lists: Vec<List> = inner.iter().map(|t| self.list_of(t)).collect();
        lists.sort_by_key(|l| l.slots.len());
        out.clear();
        out.extend_from_slice(lists[0].slots);
        for l in &lists[1..] {
            let mut at = 0;
            out.retain(|&x| l.holds(&mut at, x));
        }
    }
}
