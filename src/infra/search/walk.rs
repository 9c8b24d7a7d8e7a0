//! A search of one list's names (`Names::search`): the matches of `q` (`name_folded LIKE
//! '%q%' OR q <% name_folded`, pg_trgm's word similarity at 0.6) in the list's order, a page of
//! them, and how many there are up to a cap, without scoring every match.
//!
//! How: every name is counted the trigrams of `q` it holds (its *tier*, walking `q`'s posting
//! lists once). A name holding `c` of `q`'s `k` trigrams has a similarity of at most `c / k`
//! (pg_trgm's `count / (k + extent - count)` with the extent at least `count`), so the tiers are
//! walked from the highest, each one in name order (the order of the slots), and a tier stops
//! as soon as its next name could no longer enter the page: ranked, a later name of the tier
//! at the tier's bound would still come after the page's last; by name, every later name
//! does. Only the names a page or the count can still take are scored exactly. Names holding
//! under `0.6 k` of the trigrams match only by containing `q`, so they are looked for among
//! the names holding every trigram inside `q`'s words (all of them when `q` has no word of
//! three letters or more).

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::names::{Entry, Hit, Names, Order};
use super::trgm::{self, Trgm};

/// One search: the folded text, a tag the names must carry, the order, the keys of the last
/// row of the page before (negated score, name, id; the score is ignored by name), how many
/// matches to skip and take after them, and the count's cap (0: not counted).
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub folded: &'a str,
    pub tag: Option<u16>,
    pub order: Order,
    pub after: Option<(f32, &'a str, i64)>,
    pub skip: usize,
    pub take: usize,
    pub count_to: usize,
}

/// Buffers a thread reuses between searches: the trigram counts of every slot (all zero
/// between searches) and the tiers.
#[derive(Default)]
struct Scratch {
    counts: Vec<u8>,
    tiers: Vec<Vec<u32>>,
    low: Vec<Vec<u32>>,
    like: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A match on its way to the page; the smaller comes first (key descending, then name, then
/// id; the key is the score when ranked, 0 by name).
struct Cand<'n> {
    key: f32,
    score: f32,
    name: &'n [u8],
    id: i64,
}

impl Ord for Cand<'_> {
    fn cmp(&self, o: &Self) -> Ordering {
        o.key
            .total_cmp(&self.key)
            .then_with(|| self.name.cmp(o.name))
            .then(self.id.cmp(&o.id))
    }
}

impl PartialOrd for Cand<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Cand<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Cand<'_> {}

/// A search under way: the best matches so far (the worst of them on top) and the count.
struct Walk<'n, 'q> {
    names: &'n Names,
    q: &'q Query<'q>,
    trigrams: Vec<Trgm>,
    /// `skip + take`: how many of the best matches after the cursor the page needs.
    want: usize,
    top: BinaryHeap<Cand<'n>>,
    count: usize,
    seq: Vec<Trgm>,
    sim: trgm::Scratch,
}

impl<'n> Walk<'n, '_> {
    fn full(&self) -> bool {
        self.top.len() >= self.want
    }

    fn counted(&self) -> bool {
        self.count >= self.q.count_to
    }

    fn key(&self, score: f32) -> f32 {
        match self.q.order {
            Order::Ranked => score,
            Order::Named => 0.0,
        }
    }

    /// Whether a name with this key would enter the page.
    fn enters(&self, key: f32, e: &Entry) -> bool {
        if !self.full() {
            return true;
        }
        let c = Cand {
            key,
            score: key,
            name: e.name.as_bytes(),
            id: e.id,
        };
        self.top.peek().is_some_and(|worst| c < *worst)
    }

    /// Whether no name of a key up to `bound` can enter the page any more.
    fn ranked_out(&self, bound: f32) -> bool {
        self.full() && self.top.peek().is_none_or(|w| w.key > self.key(bound))
    }

    /// Whether the row comes after the last row of the page before.
    fn after_cursor(&self, score: f32, e: &Entry) -> bool {
        let Some((neg, name, id)) = self.q.after else {
            return true;
        };
        let by_name = (e.name.as_bytes(), e.id).cmp(&(name.as_bytes(), id));
        match self.q.order {
            Order::Ranked => (-score).total_cmp(&neg).then(by_name) == Ordering::Greater,
            Order::Named => by_name == Ordering::Greater,
        }
    }

    fn score(&mut self, e: &Entry) -> f32 {
        trgm::sequence(&e.folded, self.names.words, &mut self.seq);
        trgm::word_similarity(&self.trigrams, &self.seq, &mut self.sim)
    }

    /// Looks at one slot whose similarity is at most `bound` (`sim`: it may pass `q <%`
    /// name). Returns whether a name of its key could still enter the page (`false` also for
    /// every later ordered slot of its tier).
    fn visit(&mut self, slot: u32, bound: f32, sim: bool, may_rank: bool) -> bool {
        let names = self.names;
        let Some(e) = names.slots[slot as usize].as_ref() else {
            return may_rank;
        };
        if self.q.tag.is_some_and(|t| t != e.tag) {
            return may_rank;
        }
        let rank = may_rank && self.enters(self.key(bound), e);
        if !rank && self.counted() {
            return false;
        }
        let contains = e.folded.contains(self.q.folded);
        let score = if rank || (sim && !contains) {
            self.score(e)
        } else {
            0.0
        };
        if !(contains || (sim && trgm::passes(score))) {
            return rank;
        }
        if !self.counted() {
            self.count += 1;
        }
        if rank && self.after_cursor(score, e) {
            let c = Cand {
                key: self.key(score),
                score,
                name: e.name.as_bytes(),
                id: e.id,
            };
            self.top.push(c);
            if self.top.len() > self.want {
                self.top.pop();
            }
        }
        rank
    }

    /// Looks at the slots of one tier (ascending), whose similarity is at most `bound`: the
    /// fresh ones all, the ordered ones until neither the page nor the count takes more.
    fn tier(&mut self, slots: &[u32], bound: f32, sim: bool) {
        let mut may_rank = !self.ranked_out(bound);
        if !may_rank && self.counted() {
            return;
        }
        let split = slots.partition_point(|&s| s < self.names.ordered);
        for &s in &slots[split..] {
            self.visit(s, bound, sim, may_rank);
        }
        for &s in &slots[..split] {
            if !may_rank && self.counted() {
                return;
            }
            may_rank = self.visit(s, bound, sim, may_rank) && may_rank;
        }
    }

    /// Looks at the slots `pick` takes (`Some(sim)`: `sim` says whether it may pass `q <%
    /// name`), in slot order with the fresh ones first, until neither the page nor the count
    /// takes more. Their similarity is not bounded: used by name, and ranked for the names
    /// holding no trigram of `q` (similarity 0).
    fn every(&mut self, n: usize, mut pick: impl FnMut(usize) -> Option<bool>) {
        let ordered = self.names.ordered as usize;
        let mut may_rank = !self.ranked_out(0.0);
        for s in ordered..n {
            if let Some(sim) = pick(s) {
                self.visit(s as u32, 0.0, sim, may_rank);
            }
        }
        for s in 0..ordered {
            if !may_rank && self.counted() {
                return;
            }
            if let Some(sim) = pick(s) {
                may_rank = self.visit(s as u32, 0.0, sim, may_rank) && may_rank;
            }
        }
    }

    /// The page (after `skip`) and the count.
    fn finish(self) -> (Vec<Hit>, usize) {
        let skip = self.q.skip;
        let hits = self
            .top
            .into_sorted_vec()
            .into_iter()
            .skip(skip)
            .map(|c| Hit {
                id: c.id,
                name: String::from_utf8_lossy(c.name).into_owned(),
                score: c.score,
            })
            .collect();
        (hits, self.count)
    }
}

impl Names {
    /// The page and the count of one search (see the module's note).
    pub fn search(&self, q: &Query) -> (Vec<Hit>, usize) {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut s) => self.search_with(q, &mut s),
            Err(_) => self.search_with(q, &mut Scratch::default()),
        })
    }

    fn search_with(&self, q: &Query, s: &mut Scratch) -> (Vec<Hit>, usize) {
        let trigrams = trgm::set(q.folded, self.words);
        let k = trigrams.len();
        let bound = |c: usize| if k == 0 { 0.0 } else { c as f32 / k as f32 };
        // The fewest trigrams of `q` a name passing `q <% name` holds.
        let need = (1..=k).find(|&c| trgm::passes(bound(c))).unwrap_or(k + 1);
        let n = self.slots.len();
        if s.counts.len() < n {
            s.counts.resize(n, 0);
        }
        for t in &trigrams {
            for &slot in self.postings.get(t).map_or(&[][..], Vec::as_slice) {
                s.counts[slot as usize] += 1;
            }
        }
        tiers(&s.counts[..n], k, &mut s.tiers);
        let inner = trgm::inner(q.folded, self.words);
        if !inner.is_empty() {
            self.holding_all(&inner, &mut s.like);
        }
        let like = (!inner.is_empty()).then_some(&s.like[..]);
        let mut w = Walk {
            names: self,
            q,
            trigrams,
            want: q.skip.saturating_add(q.take),
            top: BinaryHeap::new(),
            count: 0,
            seq: Vec::new(),
            sim: trgm::Scratch::default(),
        };
        let counts = &s.counts[..n];
        match q.order {
            Order::Ranked => {
                for c in (need..=k).rev() {
                    w.tier(&s.tiers[c], bound(c), true);
                }
                // Below `need`, a name matches only by containing `q`.
                match like {
                    Some(like) => {
                        s.low.resize_with(need, Vec::new);
                        s.low.iter_mut().for_each(Vec::clear);
                        for &slot in like {
                            let c = usize::from(counts[slot as usize]);
                            if c < need {
                                s.low[c].push(slot);
                            }
                        }
                        for c in (0..need).rev() {
                            w.tier(&s.low[c], bound(c), false);
                        }
                    }
                    None => {
                        for c in (1..need.min(k + 1)).rev() {
                            w.tier(&s.tiers[c], bound(c), false);
                        }
                        w.every(n, |s| (counts[s] == 0).then_some(false));
                    }
                }
            }
            Order::Named => {
                let sim = |s: usize| usize::from(counts[s]) >= need;
                match like {
                    Some(like) => {
                        let mut member = Member { list: like, at: 0 };
                        w.every(n, |s| {
                            let sim = sim(s);
                            (sim || member.has(s as u32)).then_some(sim)
                        });
                    }
                    None => w.every(n, |s| Some(sim(s))),
                }
            }
        }
        let out = w.finish();
        // Every count back to zero for the next search.
        for tier in &s.tiers {
            for &slot in tier {
                s.counts[slot as usize] = 0;
            }
        }
        out
    }

    /// The slots holding every trigram of `inner`, ascending, into `out`.
    fn holding_all(&self, inner: &[Trgm], out: &mut Vec<u32>) {
        let mut lists: Vec<&[u32]> = inner
            .iter()
            .map(|t| self.postings.get(t).map_or(&[][..], Vec::as_slice))
            .collect();
        lists.sort_by_key(|l| l.len());
        out.clear();
        out.extend_from_slice(lists[0]);
        for l in &lists[1..] {
            out.retain(|s| l.binary_search(s).is_ok());
        }
    }
}

/// Membership in an ascending list, asked mostly in ascending order.
struct Member<'a> {
    list: &'a [u32],
    at: usize,
}

impl Member<'_> {
    fn has(&mut self, s: u32) -> bool {
        if self.at > 0 && self.list[self.at - 1] >= s {
            self.at = self.list.partition_point(|&x| x < s);
        }
        while self.at < self.list.len() && self.list[self.at] < s {
            self.at += 1;
        }
        self.list.get(self.at) == Some(&s)
    }
}

/// The slots holding at least one trigram, by how many (`tiers[c]`, ascending).
fn tiers(counts: &[u8], k: usize, tiers: &mut Vec<Vec<u32>>) {
    tiers.resize_with(k + 1, Vec::new);
    tiers.iter_mut().for_each(Vec::clear);
    let mut base = 0u32;
    let mut chunks = counts.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_ne_bytes(chunk.try_into().expect("eight bytes"));
        if word != 0 {
            for (i, &c) in chunk.iter().enumerate() {
                if c != 0 {
                    tiers[usize::from(c)].push(base + i as u32);
                }
            }
        }
        base += 8;
    }
    for (i, &c) in chunks.remainder().iter().enumerate() {
        if c != 0 {
            tiers[usize::from(c)].push(base + i as u32);
        }
    }
}
