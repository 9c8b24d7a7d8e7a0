//! How many of a search's trigrams each slot holds (`Counts`, in bytes or bit planes), a
//! trigram's posting list as a search asks it (`List`), and slots put in order: the counting
//! under `walk`.

/// How many trigrams of the search each slot holds (among the lists counted): a byte a slot
/// (lists counted slot by slot), or bit planes (the count's bits of 64 slots a word each, so
/// that a dense trigram's bitmap adds to 64 slots at once).
#[derive(Default)]
pub(super) struct Counts {
    marks: Vec<u8>,
    planes: Vec<u64>,
    /// How many planes (0: counted in bytes).
    depth: usize,
}

impl Counts {
    /// A new search over `n` slots counted in bytes: every count is 0 (a megabyte cleared for a
    /// million names, cheaper than walking the lists again to clear what was counted).
    pub(super) fn bytes(&mut self, n: usize) {
        self.depth = 0;
        self.marks.clear();
        self.marks.resize(n, 0);
    }

    /// A new search over `n` slots counted in planes, for counts up to `k`, with `lists`
    /// counted: the other lists slot by slot, then the bitmaps 64 slots at a time, each
    /// word's count summed in registers (`sum_into`) and written once. The words holding a
    /// slot counted `need` or more go into `words` (their index and those slots' bits,
    /// ascending).
    pub(super) fn count_planes(
        &mut self,
        (n, k): (usize, usize),
        lists: &[List],
        need: usize,
        words: &mut Vec<(u32, u64)>,
    ) {
        self.depth = (usize::BITS - k.leading_zeros()) as usize;
        let depth = self.depth;
        let count = n.div_ceil(64);
        self.planes.clear();
        self.planes.resize(count * depth, 0);
        for l in lists.iter().filter(|l| l.bitmap.is_none()) {
            for &s in l.slots {
                self.add_word(s as usize / 64, 1 << (s % 64));
            }
        }
        let maps: Vec<&[u64]> = lists.iter().filter_map(|l| l.bitmap).collect();
        let planes = &mut self.planes;
        // The planes of a word in registers: as many as the counts take (the lists' searches
        // take at most 200 characters: about 200 trigrams, 8 planes).
        debug_assert!(depth <= 8, "{k} trigrams");
        match depth {
            1 => sum_maps::<1>(planes, &maps, need, words),
            2 => sum_maps::<2>(planes, &maps, need, words),
            3 => sum_maps::<3>(planes, &maps, need, words),
            4 => sum_maps::<4>(planes, &maps, need, words),
            5 => sum_maps::<5>(planes, &maps, need, words),
            6 => sum_maps::<6>(planes, &maps, need, words),
            7 => sum_maps::<7>(planes, &maps, need, words),
            _ => sum_maps::<8>(planes, &maps, need, words),
        }
    }

    /// Counts one more trigram for `slot` (in bytes); its count now.
    #[inline]
    pub(super) fn add(&mut self, slot: u32) -> u8 {
        let m = &mut self.marks[slot as usize];
        *m = m.wrapping_add(1);
        *m
    }

    /// Counts one more trigram for the slots of word `w` whose bits are set (in planes).
    #[inline]
    fn add_word(&mut self, w: usize, bits: u64) {
        let planes = &mut self.planes[w * self.depth..(w + 1) * self.depth];
        let mut carry = bits;
        for p in planes {
            let x = *p;
            *p = x ^ carry;
            carry &= x;
            if carry == 0 {
                break;
            }
        }
    }

    /// The slots of word `w` whose count is at least `c` (in planes).
    pub(super) fn at_least(&self, w: usize, c: usize) -> u64 {
        at_least(&self.planes[w * self.depth..(w + 1) * self.depth], c)
    }

    #[inline]
    pub(super) fn get(&self, slot: usize) -> u8 {
        if self.depth == 0 {
            return self.marks[slot];
        }
        let (planes, i) = (&self.planes[(slot / 64) * self.depth..], slot % 64);
        (0..self.depth).fold(0, |c, p| c | (((planes[p] >> i) & 1) as u8) << p)
    }
}

/// The slots of one word whose count (bit `p` of each in `planes[p]`) is at least `c`.
fn at_least(planes: &[u64], c: usize) -> u64 {
    let (mut gt, mut eq) = (0u64, !0u64);
    for (p, &x) in planes.iter().enumerate().rev() {
        if (c >> p) & 1 == 1 {
            eq &= x;
        } else {
            gt |= eq & x;
            eq &= !x;
        }
    }
    gt | eq
}

/// Adds the bitmaps `maps` to the counts in `planes` (`D` a word), a word at a time, and
/// puts the words holding a slot counted `need` or more into `words`.
fn sum_maps<const D: usize>(
    planes: &mut [u64],
    maps: &[&[u64]],
    need: usize,
    words: &mut Vec<(u32, u64)>,
) {
    // Every bitmap holds the first `whole` words (a bitmap grows as fresh slots take its
    // trigram, so it may end before the slots do).
    let count = planes.len() / D;
    let whole = maps.iter().map(|m| m.len()).min().unwrap_or(0).min(count);
    for (w, word) in planes.chunks_exact_mut(D).enumerate() {
        let word: &mut [u64; D] = word.try_into().expect("D planes a word");
        if w < whole {
            sum_into(word, maps.iter().map(|m| m[w]));
        } else {
            sum_into(word, maps.iter().map(|m| m.get(w).copied().unwrap_or(0)));
        }
        let bits = at_least(word, need);
        if bits != 0 {
            words.push((w as u32, bits));
        }
    }
}

/// Adds the bits of `xs` to one word's counts (bit `p` of each slot's count in `planes[p]`)
/// in registers, as Harley and Seal's vertical counter does: two inputs of one weight and
/// the plane of that weight give, through a carry-save adder (5 operations), that plane and
/// one input of the next weight; an input left alone at a weight is added at the end. About
/// 5 operations an input, where adding each input through the planes takes 3 a plane.
#[inline]
fn sum_into<const D: usize>(planes: &mut [u64; D], xs: impl Iterator<Item = u64>) {
    let mut acc = *planes;
    let mut pending: [Option<u64>; D] = [None; D];
    for x in xs {
        let (mut x, mut j) = (x, 0);
        // A carry past the top plane is 0: no count exceeds `k`.
        while j < D {
            match pending[j].take() {
                None => {
                    pending[j] = Some(x);
                    break;
                }
                Some(y) => {
                    let a = acc[j];
                    let u = a ^ x;
                    acc[j] = u ^ y;
                    x = (a & x) | (u & y);
                    j += 1;
                }
            }
        }
    }
    for j in 0..D {
        if let Some(mut c) = pending[j] {
            for a in &mut acc[j..] {
                let t = *a & c;
                *a ^= c;
                c = t;
            }
        }
    }
    *planes = acc;
}

/// A trigram's slots, and its bitmap when it is dense.
#[derive(Clone, Copy)]
pub(super) struct List<'a> {
    pub(super) slots: &'a [u32],
    pub(super) bitmap: Option<&'a [u64]>,
}

impl List<'_> {
    /// Whether the list holds `slot`, asked in ascending order (`at` kept between asks): a bit
    /// of the bitmap, or a gallop through the slots.
    #[inline]
    pub(super) fn holds(&self, at: &mut usize, slot: u32) -> bool {
        match self.bitmap {
            Some(b) => b
                .get(slot as usize / 64)
                .is_some_and(|w| (w >> (slot % 64)) & 1 == 1),
            None => gallop(self.slots, at, slot),
        }
    }

    /// What asking it for one slot costs, in slots counted: a bit of the bitmap, or about 16
    /// for a gallop.
    pub(super) fn look_up_cost(&self) -> usize {
        if self.bitmap.is_some() {
            1
        } else {
            16
        }
    }

    /// What counting it in bit planes costs, in slots counted: its bitmap a word at a time
    /// (about two slots' worth a word), or its slots.
    pub(super) fn planes_cost(&self, n: usize) -> usize {
        match self.bitmap {
            Some(_) => n.div_ceil(64) * 2,
            None => self.slots.len(),
        }
    }
}

/// Sorts the distinct `slots` (each below `n`): many of them through a bitmap of the `n` slots
/// (`bits`, reused), which reads them back in order at a word's cost for 64 slots, few of
/// them by sorting.
pub(super) fn ascending(slots: &mut Vec<u32>, n: usize, bits: &mut Vec<u64>) {
    let words = n.div_ceil(64);
    if slots.len() * 8 < words {
        slots.sort_unstable();
        return;
    }
    bits.clear();
    bits.resize(words, 0);
    for &x in slots.iter() {
        bits[x as usize / 64] |= 1 << (x % 64);
    }
    slots.clear();
    for (w, &b) in bits.iter().enumerate() {
        let mut b = b;
        while b != 0 {
            slots.push(w as u32 * 64 + b.trailing_zeros());
            b &= b - 1;
        }
    }
}

/// Whether the ascending `list` holds `x`, looking from `*at` on (left at the first element
/// not below `x`): exponential steps, then a binary search.
fn gallop(list: &[u32], at: &mut usize, x: u32) -> bool {
    let (mut lo, mut step) = (*at, 1usize);
    let mut hi = lo;
    while hi < list.len() && list[hi] < x {
        lo = hi + 1;
        hi = lo + step;
        step <<= 1;
    }
    let hi = hi.min(list.len());
    *at = lo + list[lo..hi].partition_point(|&y| y < x);
    list.get(*at) == Some(&x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The planes count what counting each list slot by slot counts, for every depth the
    /// searches take, with bitmaps ending before the slots do and lists of slots among them;
    /// and the words listed are those holding a slot counted `need` or more.
    #[test]
    fn the_planes_count_every_list() {
        let mut x = 2463534242u64;
        let mut below = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let n = 1000;
        for k in [1, 2, 3, 5, 8, 13, 21, 40, 100, 200] {
            let mut slots: Vec<Vec<u32>> = Vec::new();
            let mut maps: Vec<Option<Vec<u64>>> = Vec::new();
            for i in 0..k {
                let mut l: Vec<u32> = (0..n as u32).filter(|_| below(3) == 0).collect();
                let dense = i % 3 != 2;
                // Some bitmaps end early: their later slots are not held.
                let end = if dense && below(4) == 0 { 600 } else { n };
                l.retain(|&s| (s as usize) < end);
                maps.push(dense.then(|| {
                    let mut b = vec![0u64; end.div_ceil(64)];
                    l.iter().for_each(|&s| b[s as usize / 64] |= 1 << (s % 64));
                    b
                }));
                slots.push(l);
            }
            let lists: Vec<List> = slots
                .iter()
                .zip(&maps)
                .map(|(s, m)| List {
                    slots: s,
                    bitmap: m.as_deref(),
                })
                .collect();
            let mut expected = vec![0usize; n];
            slots
                .iter()
                .flatten()
                .for_each(|&s| expected[s as usize] += 1);
            let need = 1 + below(k as u64) as usize;
            let (mut counts, mut words) = (Counts::default(), Vec::new());
            counts.count_planes((n, k), &lists, need, &mut words);
            for (slot, &e) in expected.iter().enumerate() {
                assert_eq!(usize::from(counts.get(slot)), e, "k {k}, slot {slot}");
            }
            let listed: Vec<(u32, u64)> = (0..n.div_ceil(64))
                .map(|w| {
                    let bits = (0..64)
                        .filter(|i| expected.get(w * 64 + i).is_some_and(|&c| c >= need))
                        .fold(0u64, |b, i| b | 1 << i);
                    (w as u32, bits)
                })
                .filter(|&(_, b)| b != 0)
                .collect();
            assert_eq!(words, listed, "k {k}, need {need}");
        }
    }
}
