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

// By its path: the bench including this file by path finds it beside it too.
#[path = "walk/count.rs"]
mod count;

use super::codes::Coded;
use super::lists::{Counts, List};
use super::names::{Hit, Names, Order, ShownRow, DEAD};
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

impl<'a> Query<'a> {
    /// The first `take` matches of `folded` in `order`, untagged, counted to `count_to`.
    pub fn first(folded: &'a str, order: Order, take: usize, count_to: usize) -> Self {
        Self {
            folded,
            tag: None,
            order,
            after: None,
            skip: 0,
            take,
            count_to,
        }
    }
}

/// A page of hits, each with what the list shows of its row, and the count
/// ([`Names::search_shown`]).
pub type ShownPage = (Vec<(Hit, Option<ShownRow>)>, usize);

/// How many slots ahead of the one decided a mark (and where its folded name lies) is asked
/// of memory (`Walk::ordered`), and a batch of a tier read from the planes.
const BATCH: usize = 32;
/// How many slots ahead the folded name itself is asked for (its place in the cache by then).
const AHEAD: usize = 4;

/// Buffers a thread reuses between searches.
#[derive(Default)]
struct Scratch {
    counts: Counts,
    cands: Vec<u32>,
    /// A bitmap of the slots, sorting many candidates (`ascending`).
    sorting: Vec<u64>,
    high: Vec<(u32, u8)>,
    /// Where every list was counted in planes: the words holding a name counted `need` or
    /// more, and those names' bits, ascending (`s.high` is then filled only by name).
    words: Vec<(u32, u64)>,
    tiers: Vec<Vec<u32>>,
    low: Vec<Vec<u32>>,
    like: Vec<u32>,
    like_counts: Vec<u8>,
    union: Vec<u32>,
    coded: Coded,
}

impl Scratch {
    /// `high` (slot and count, ascending) from the words counted in planes.
    fn high_of_words(&mut self) {
        self.high.clear();
        for &(w, bits) in &self.words {
            let mut b = bits;
            while b != 0 {
                let slot = w as usize * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                self.high.push((slot as u32, self.counts.get(slot)));
            }
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Whether a name looked at may pass `q <% name`, and what its tier says of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sim {
    /// It holds too few of `q`'s trigrams: it matches only by containing `q`.
    No,
    /// It holds this many of them (scored with `trgm::tier_similarity`).
    Holds(usize),
    /// It may (how many it holds is not at hand).
    May,
}

impl Sim {
    fn may(may: bool) -> Self {
        if may {
            Sim::May
        } else {
            Sim::No
        }
    }
}

/// Where the names holding fewer than `need` of the text's trigrams that contain it are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Below {
    /// Any slot (the text implies no trigram): each is taken by its count.
    ByCount,
    /// Among the names holding every trigram the text implies.
    Like,
    /// Nowhere: the text implies `need` trigrams or more, so they are all in a counted tier.
    None,
}

/// A match on its way to the page; the smaller comes first (key descending, then name, then
/// id; the key is the score when ranked, 0 by name).
struct Cand<'n> {
    key: f32,
    score: f32,
    name: &'n [u8],
    id: i64,
    slot: u32,
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
    trigrams: trgm::Text,
    /// The text's trigrams by their codes, where names are decided by theirs (`by_codes`).
    coded: Coded,
    by_codes: bool,
    /// `q` as a substring (`LIKE '%q%'`), searched for without a call per candidate place.
    finder: memchr::memmem::Finder<'q>,
    /// `skip + take`: how many of the best matches after the cursor the page needs.
    want: usize,
    top: BinaryHeap<Cand<'n>>,
    count: usize,
    seq: Vec<Trgm>,
    sim: trgm::Scratch,
}

impl<'n, 'q> Walk<'n, 'q> {
    /// A search of `names` for `q`, whose distinct sorted trigrams are `trigrams`, `inner` of
    /// them implied (`trgm::inner`); `coded` is the thread's table of codes, readied here.
    fn new(
        names: &'n Names,
        q: &'q Query<'q>,
        (trigrams, inner): (Vec<Trgm>, &[Trgm]),
        mut coded: Coded,
    ) -> Self {
        let by_codes = coded.fill(&names.codes, &trigrams, inner);
        Walk {
            names,
            q,
            coded,
            by_codes,
            trigrams: trgm::Text::new(trigrams),
            finder: memchr::memmem::Finder::new(q.folded.as_bytes()),
            want: q.skip.saturating_add(q.take),
            top: BinaryHeap::new(),
            count: 0,
            seq: Vec::new(),
            sim: trgm::Scratch::default(),
        }
    }

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

    /// Whether the name in `slot` would enter the page with this key.
    fn enters(&self, key: f32, slot: u32) -> bool {
        if !self.full() {
            return true;
        }
        let c = Cand {
            key,
            score: key,
            name: self.names.name(slot).as_bytes(),
            id: self.names.id(slot),
            slot,
        };
        self.top.peek().is_some_and(|worst| c < *worst)
    }

    /// Whether no name of a key up to `bound` can enter the page any more.
    fn ranked_out(&self, bound: f32) -> bool {
        self.full() && self.top.peek().is_none_or(|w| w.key > self.key(bound))
    }

    /// Whether the row comes after the last row of the page before.
    fn after_cursor(&self, score: f32, slot: u32) -> bool {
        let Some((neg, name, id)) = self.q.after else {
            return true;
        };
        let by_name = self.names.key(slot).cmp(&(name.as_bytes(), id));
        match self.q.order {
            Order::Ranked => (-score).total_cmp(&neg).then(by_name) == Ordering::Greater,
            Order::Named => by_name == Ordering::Greater,
        }
    }

    /// The codes of the name in `slot`, where it is decided by them.
    fn codes(&self, slot: u32) -> Option<&'n [u16]> {
        let names = self.names;
        self.by_codes
            .then(|| names.codes.get(slot as usize))
            .flatten()
    }

    /// Whether the name in `slot` contains `q` (`LIKE '%q%'`): not where its codes show it
    /// lacks a trigram `q` implies (its folded name is then not read).
    fn contains(&self, slot: u32) -> bool {
        if self
            .codes(slot)
            .is_some_and(|seq| !self.coded.may_contain(seq))
        {
            return false;
        }
        self.finder
            .find(self.names.folded(slot).as_bytes())
            .is_some()
    }

    /// The trigrams of the folded name in `slot`, into `self.seq`.
    fn sequence(&mut self, slot: u32) {
        trgm::sequence(self.names.folded(slot), self.names.words, &mut self.seq);
    }

    fn score(&mut self, slot: u32) -> f32 {
        if let Some(seq) = self.codes(slot) {
            return trgm::word_similarity(&self.coded, seq, &mut self.sim);
        }
        self.sequence(slot);
        trgm::word_similarity(&self.trigrams, &self.seq, &mut self.sim)
    }

    /// The name's score where it may pass `q <% name`; `None` where it cannot (then its score
    /// counts only if it contains `q`).
    fn tier_score(&mut self, slot: u32, sim: Sim) -> Option<f32> {
        match sim {
            Sim::No => None,
            Sim::May => Some(self.score(slot)),
            Sim::Holds(c) => {
                if let Some(seq) = self.codes(slot) {
                    return trgm::tier_similarity(&self.coded, seq, c, &mut self.sim);
                }
                self.sequence(slot);
                trgm::tier_similarity(&self.trigrams, &self.seq, c, &mut self.sim)
            }
        }
    }

    /// Whether the name passes `q <% name` (its score is not needed: pg_trgm's loop stops at
    /// the first extent that passes).
    fn tier_passes(&mut self, slot: u32, sim: Sim) -> bool {
        if sim == Sim::No {
            return false;
        }
        if let Some(seq) = self.codes(slot) {
            return match sim {
                Sim::Holds(c) => trgm::tier_passes(&self.coded, seq, c, &mut self.sim),
                _ => trgm::word_passes(&self.coded, seq, &mut self.sim),
            };
        }
        self.sequence(slot);
        match sim {
            Sim::Holds(c) => trgm::tier_passes(&self.trigrams, &self.seq, c, &mut self.sim),
            _ => trgm::word_passes(&self.trigrams, &self.seq, &mut self.sim),
        }
    }

    /// Looks at one slot whose similarity is at most `bound` (`sim`: whether it may pass `q <%`
    /// name). Returns whether a name of its key could still enter the page (`false` also for
    /// every later ordered slot of its tier).
    fn visit(&mut self, slot: u32, bound: f32, sim: Sim, may_rank: bool) -> bool {
        let names = self.names;
        // The mark, not the entry: most names decided are only counted.
        let mark = names.marks[slot as usize];
        if mark == DEAD || self.q.tag.is_some_and(|t| t != mark) {
            return may_rank;
        }
        let rank = may_rank && self.enters(self.key(bound), slot);
        if !rank && self.counted() {
            return false;
        }
        // Whether it matches, and its score where the page needs it: a name the page may take
        // is scored first (then `LIKE` only if the score fails), one only counted is looked
        // for `q` in first (then scored only if it may pass `<%`).
        let (score, matches) = if rank {
            match self.tier_score(slot, sim) {
                Some(score) if trgm::passes(score) => (score, true),
                Some(score) => (score, self.contains(slot)),
                None if self.contains(slot) => (self.score(slot), true),
                None => (0.0, false),
            }
        } else if self.contains(slot) {
            (0.0, true)
        } else {
            (0.0, self.tier_passes(slot, sim))
        };
        if !matches {
            return rank;
        }
        if !self.counted() {
            self.count += 1;
        }
        if rank && self.after_cursor(score, slot) {
            let c = Cand {
                key: self.key(score),
                score,
                name: names.name(slot).as_bytes(),
                id: names.id(slot),
                slot,
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
    fn tier(&mut self, slots: &[u32], bound: f32, sim: impl Fn(u32) -> Sim) {
        let mut may_rank = !self.ranked_out(bound);
        if !may_rank && self.counted() {
            return;
        }
        let split = slots.partition_point(|&s| s < self.names.ordered);
        for &s in &slots[split..] {
            self.visit(s, bound, sim(s), may_rank);
        }
        self.ordered(&slots[..split], bound, &sim, &mut may_rank);
    }

    /// Looks at ordered slots of one tier (ascending) until neither the page nor the count
    /// takes more (returns whether it stopped there), asking memory for what deciding each
    /// reads before it is needed (at a million names most of it is in no cache): marks and
    /// where their folded names lie [`BATCH`] ahead, the folded names [`AHEAD`] ahead.
    fn ordered(
        &mut self,
        slots: &[u32],
        bound: f32,
        sim: impl Fn(u32) -> Sim,
        may_rank: &mut bool,
    ) -> bool {
        for &next in slots.iter().take(BATCH) {
            self.names.prefetch_mark(next);
        }
        for (i, &s) in slots.iter().enumerate() {
            if !*may_rank && self.counted() {
                return true;
            }
            if let Some(&next) = slots.get(i + BATCH) {
                self.names.prefetch_mark(next);
            }
            if let Some(&next) = slots.get(i + AHEAD) {
                self.names.prefetch_folded(next);
            }
            *may_rank = self.visit(s, bound, sim(s), *may_rank) && *may_rank;
        }
        false
    }

    /// [`Walk::tier`] for the names counted exactly `c` of the `k` trigrams in bit planes, read
    /// from `counts` a word at a time among `words` (those holding a name counted `need` or
    /// more, ascending): the fresh slots all, then the ordered ones until neither the page nor
    /// the count takes more.
    fn counted_tier(
        &mut self,
        counts: &Counts,
        words: &[(u32, u64)],
        (c, k): (usize, usize),
        bound: f32,
    ) {
        let mut may_rank = !self.ranked_out(bound);
        if !may_rank && self.counted() {
            return;
        }
        let exact = |i: usize, bits: u64| bits & counts.exactly(i, c, k);
        let ordered = self.names.ordered as usize;
        // The words holding an ordered slot, and the first holding a fresh one.
        let split = words.partition_point(|&(w, _)| (w as usize) * 64 < ordered);
        let fresh_from = words[..split]
            .last()
            .filter(|&&(w, _)| (w as usize + 1) * 64 > ordered)
            .map_or(split, |_| split - 1);
        for (i, &(w, bits)) in words.iter().enumerate().skip(fresh_from) {
            let base = w as usize * 64;
            let mut b = exact(i, bits);
            if base < ordered {
                b &= !0u64 << (ordered - base);
            }
            while b != 0 {
                let slot = (base + b.trailing_zeros() as usize) as u32;
                b &= b - 1;
                self.visit(slot, bound, Sim::Holds(c), may_rank);
            }
        }
        // The ordered slots a batch at a time (`Walk::ordered` asks memory for them ahead).
        let mut rest = words[..split].iter().enumerate();
        let (mut base, mut b) = (0usize, 0u64);
        let mut batch = [0u32; BATCH];
        loop {
            let mut len = 0;
            while len < BATCH {
                if b == 0 {
                    let Some((i, &(w, bits))) = rest.next() else {
                        break;
                    };
                    base = w as usize * 64;
                    b = exact(i, bits);
                    if base + 64 > ordered {
                        b &= (1u64 << (ordered - base)) - 1;
                    }
                    continue;
                }
                batch[len] = (base + b.trailing_zeros() as usize) as u32;
                b &= b - 1;
                len += 1;
            }
            let sim = |_| Sim::Holds(c);
            if len == 0 || self.ordered(&batch[..len], bound, sim, &mut may_rank) {
                return;
            }
        }
    }

    /// Looks at the slots `pick` takes (`Some(sim)`: `sim` says whether it may pass `q <%
    /// name`), in slot order with the fresh ones first, until neither the page nor the count
    /// takes more; their similarity is at most `bound` (used ranked for the names holding
    /// as many trigrams of `q`, and by name with any bound).
    fn every(&mut self, n: usize, bound: f32, mut pick: impl FnMut(usize) -> Option<Sim>) {
        let ordered = self.names.ordered as usize;
        let mut may_rank = !self.ranked_out(bound);
        if !may_rank && self.counted() {
            return;
        }
        for s in ordered..n {
            if let Some(sim) = pick(s) {
                self.visit(s as u32, bound, sim, may_rank);
            }
        }
        for s in 0..ordered {
            if !may_rank && self.counted() {
                return;
            }
            if let Some(sim) = pick(s) {
                may_rank = self.visit(s as u32, bound, sim, may_rank) && may_rank;
            }
        }
    }

    /// Whether nothing of a similarity up to `bound` is wanted any more.
    fn over(&self, bound: f32) -> bool {
        self.ranked_out(bound) && self.counted()
    }

    /// The page (after `skip`, each hit with its slot) and the count.
    fn finish(mut self, s: &mut Scratch) -> (Vec<(Hit, u32)>, usize) {
        s.coded = std::mem::take(&mut self.coded);
        let skip = self.q.skip;
        let hits = self
            .top
            .into_sorted_vec()
            .into_iter()
            .skip(skip)
            .map(|c| {
                let hit = Hit {
                    id: c.id,
                    name: String::from_utf8_lossy(c.name).into_owned(),
                    score: c.score,
                };
                (hit, c.slot)
            })
            .collect();
        (hits, self.count)
    }
}

impl Names {
    /// The page and the count of one search (see the module's note).
    pub fn search(&self, q: &Query) -> (Vec<Hit>, usize) {
        let (hits, count) = self.search_slots(q);
        (hits.into_iter().map(|(h, _)| h).collect(), count)
    }

    /// [`Names::search`], each hit with what the list shows of its row (`None` where the
    /// index does not hold it): read by the hits' slots, every entry asked of memory before
    /// the first is read (at a million names each is a read from memory, not a cache). `None`
    /// where the index leaves the answer to PostgreSQL: a list without text while it is not
    /// cheap here ([`Names::plain_is_cheap`]).
    pub fn search_shown(&self, q: &Query) -> Option<ShownPage> {
        if q.folded.is_empty() && q.order == Order::Named && !self.plain_is_cheap() {
            return None;
        }
        let (hits, count) = self.search_slots(q);
        hits.iter().for_each(|&(_, slot)| self.prefetch_shown(slot));
        let shown = hits
            .into_iter()
            .map(|(h, slot)| (h, self.shown_at(slot)))
            .collect();
        Some((shown, count))
    }

    /// The page with the hits' slots, and the count; its processor time is counted for the
    /// request that asked (`infra::charge`).
    fn search_slots(&self, q: &Query) -> (Vec<(Hit, u32)>, usize) {
        let _timed = crate::infra::charge::Timed::start();
        if q.folded.is_empty() && q.order == Order::Named {
            // Every name matches: the list in its own order.
            return self.plain(q);
        }
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut s) => self.search_with(q, &mut s),
            Err(_) => self.search_with(q, &mut Scratch::default()),
        })
    }

    fn search_with(&self, q: &Query, s: &mut Scratch) -> (Vec<(Hit, u32)>, usize) {
        let trigrams = trgm::set(q.folded, self.words);
        let k = trigrams.len();
        let bound = |c: usize| if k == 0 { 0.0 } else { c as f32 / k as f32 };
        // The fewest trigrams of `q` a name passing `q <% name` holds.
        let need = (1..=k).find(|&c| trgm::passes(bound(c))).unwrap_or(k + 1);
        let n = self.slots.len();
        let inner = trgm::inner(q.folded, self.words);
        let mut lists: Vec<List> = trigrams.iter().map(|t| self.list_of(t)).collect();
        lists.sort_by_key(|l| l.slots.len());
        // The shortest lists are counted slot by slot: enough that a name holding `need`
        // holds 3 of them (`candidates`; fewer sent 4 full names in 10 to the planes at a
        // million), and all under 1/32 of the names. Every list when `q` has no word of
        // three letters (its tiers below `need` are walked by their counts).
        let m = if inner.is_empty() {
            k
        } else {
            let short = lists.iter().take_while(|l| l.slots.len() * 32 < n).count();
            (k + 3 - need).max(short).min(k)
        };
        let m = self.candidates(&lists, m, need, s);
        // Counted in planes, the ranked tiers are read from the planes as they are walked (a
        // broad prefix's lowest tier can hold a tenth of the names, and the walk most often
        // stops early in it); by name, the page needs them all.
        let planes = m == k && k > 0;
        if planes && q.order == Order::Named {
            s.high_of_words();
        }
        s.tiers.resize_with(k + 1, Vec::new);
        s.tiers.iter_mut().for_each(Vec::clear);
        for &(slot, c) in &s.high {
            s.tiers[usize::from(c)].push(slot);
        }
        // A name containing `q` holds every trigram of `inner` (all of them trigrams of `q`):
        // with `need` of them or more, it is in a tier, and no name below `need` matches.
        let below_need = if inner.is_empty() {
            Below::ByCount
        } else if inner.len() < need {
            Below::Like
        } else {
            Below::None
        };
        let mut like = std::mem::take(&mut s.like);
        like.clear();
        let mut w = Walk::new(self, q, (trigrams, &inner), std::mem::take(&mut s.coded));
        let is_high = |slots: &[(u32, u8)], x: u32| slots.binary_search_by_key(&x, |h| h.0).is_ok();
        match q.order {
            Order::Ranked => {
                for c in (need..=k).rev() {
                    if planes {
                        w.counted_tier(&s.counts, &s.words, (c, k), bound(c));
                    } else {
                        w.tier(&s.tiers[c], bound(c), |_| Sim::Holds(c));
                    }
                }
                // Below `need`, a name matches only by containing `q`.
                let below = bound(need.saturating_sub(1));
                match below_need {
                    // The page and the count are whole.
                    _ if w.over(below) => {}
                    Below::None => {}
                    Below::ByCount => {
                        let counts = &s.counts;
                        for c in (1..need.min(k + 1)).rev() {
                            w.every(n, bound(c), |x| {
                                (usize::from(counts.get(x)) == c).then_some(Sim::No)
                            });
                        }
                        w.every(n, 0.0, |x| (counts.get(x) == 0).then_some(Sim::No));
                    }
                    Below::Like => {
                        // The names that may contain `q`: those holding every trigram of `inner`.
                        self.holding_all(&inner, &mut like);
                        self.count_like(&like, &lists[m..], s);
                        s.low.resize_with(need, Vec::new);
                        s.low.iter_mut().for_each(Vec::clear);
                        for (&slot, &c) in like.iter().zip(&s.like_counts) {
                            if usize::from(c) < need {
                                s.low[usize::from(c)].push(slot);
                            }
                        }
                        for c in (0..need).rev() {
                            w.tier(&s.low[c], bound(c), |_| Sim::No);
                        }
                    }
                }
            }
            Order::Named => {
                let high = &s.high;
                if below_need == Below::ByCount {
                    let mut at = 0;
                    w.every(n, 0.0, |x| Some(Sim::may(member(high, &mut at, x as u32))));
                } else {
                    if below_need == Below::Like {
                        self.holding_all(&inner, &mut like);
                    }
                    s.union.clear();
                    s.union.extend(high.iter().map(|h| h.0));
                    s.union.extend_from_slice(&like);
                    s.union.sort_unstable();
                    s.union.dedup();
                    w.tier(&s.union, 0.0, |x| Sim::may(is_high(high, x)));
                }
            }
        }
        let found = w.finish(s);
        s.like = like;
        found
    }
}

/// Whether the ascending `list` of (slot, count) holds slot `x`, asked mostly in ascending
/// order (`at` kept between asks).
fn member(list: &[(u32, u8)], at: &mut usize, x: u32) -> bool {
    if *at > 0 && list[*at - 1].0 >= x {
        *at = list.partition_point(|h| h.0 < x);
    }
    while *at < list.len() && list[*at].0 < x {
        *at += 1;
    }
    list.get(*at).is_some_and(|h| h.0 == x)
}
