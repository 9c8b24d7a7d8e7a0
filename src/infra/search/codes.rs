//! Each name's trigrams as 16-bit codes, a cache line a slot in slot order (`Codes`), and a
//! search's table from a code to the trigram's place among the text's (`Coded`): a name a
//! search decides is read as its codes (two bytes a trigram, each found by one read of a
//! table in the first cache levels) instead of its trigrams made again from its folded
//! text and each looked for by a hash. Most names a typed search decides fail (six in ten of
//! those a keystroke decides at a million names), and their codes tell it without the
//! folded text: a name lacking a trigram the text implies cannot contain it.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use super::trgm::{Finds, Trgm};

/// A map keyed by trigrams (an index's postings, bitmaps and codes), hashed by one folded
/// multiplication with a seed drawn once a map: SipHash's rounds cost about a tenth of a
/// build at a million names, a trigram is a number, and the seed keeps the names that would
/// collide from being worked out ahead (a name is anyone's to register).
pub(super) type TrgmMap<V> = HashMap<Trgm, V, Seeded>;

/// The [`TrgmMap`]s' hasher: a seed drawn from the standard library's random keys.
#[derive(Clone, Copy)]
pub(super) struct Seeded(u64);

impl Default for Seeded {
    fn default() -> Self {
        Self(RandomState::new().hash_one(0x7472_676d_u64))
    }
}

impl BuildHasher for Seeded {
    type Hasher = Folded;

    fn build_hasher(&self) -> Folded {
        Folded(self.0)
    }
}

/// What [`Seeded`] hashes with: the seed, then each word folded in.
pub(super) struct Folded(u64);

impl Hasher for Folded {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        // The high and low halves of the 128-bit product, folded: every bit of `x` moves
        // both ends of the hash (the table's index and its tag).
        let p = u128::from(self.0 ^ x) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (p as u64) ^ (p >> 64) as u64;
    }
}

/// The code of a trigram met once every code was given ([`Codes::LIMIT`]): a name holding
/// one is decided from its folded text (two such trigrams would look equal).
pub(super) const OTHER: u16 = u16::MAX;

/// How many codes a slot holds at most: a slot's codes are one cache line (a length and 31
/// codes), found from the slot alone (no table of offsets to read first, where a search asks
/// memory for a name's codes ahead of deciding it).
const WIDTH: usize = 32;

/// A slot's length entry where its name is decided from its folded text: it holds more than
/// `WIDTH - 1` trigrams, or one met once every code was given.
const UNCODED: u16 = u16::MAX;

/// Every slot's trigrams as codes (a line of [`WIDTH`] a slot, in slot order), and the code of
/// each trigram met.
#[repr(align(64))]
#[derive(Clone, Copy)]
struct Line([u16; WIDTH]);

pub(super) struct Codes {
    of: TrgmMap<u16>,
    lines: Vec<Line>,
    /// How many codes may be given (at most [`Codes::LIMIT`]; fewer in tests).
    limit: usize,
}

impl Default for Codes {
    fn default() -> Self {
        Self::with_limit(Self::LIMIT)
    }
}

impl Codes {
    /// Codes 0 to 65,534: every trigram of ASCII words (37 characters with the blank: 50,653
    /// trigrams) has one, and so do most of a Unicode registry's.
    pub(super) const LIMIT: usize = OTHER as usize;

    pub(super) fn with_limit(limit: usize) -> Self {
        Self {
            of: TrgmMap::default(),
            lines: Vec::new(),
            limit: limit.min(Self::LIMIT),
        }
    }

    /// How many codes are given.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.of.len()
    }

    /// How many codes may be given.
    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    /// Room for `n` more slots (a list built whole: its lines are not copied as they grow).
    pub(super) fn reserve(&mut self, n: usize) {
        self.lines.reserve_exact(n);
    }

    /// Adds the next slot's trigram sequence.
    pub(super) fn push(&mut self, trigrams: &[Trgm]) {
        let mut line = Line([0; WIDTH]);
        line.0[0] = trigrams.len() as u16;
        if trigrams.len() >= WIDTH {
            line.0[0] = UNCODED;
        }
        for (i, &t) in trigrams.iter().enumerate() {
            let given = self.of.len();
            let code = match self.of.get(&t) {
                Some(&c) => c,
                None if given < self.limit => {
                    self.of.insert(t, given as u16);
                    given as u16
                }
                None => OTHER,
            };
            if code == OTHER {
                line.0[0] = UNCODED;
            }
            if let Some(at) = line.0.get_mut(i + 1) {
                *at = code;
            }
        }
        self.lines.push(line);
    }

    /// The code of `t`, if it has one.
    pub(super) fn code(&self, t: Trgm) -> Option<u16> {
        self.of.get(&t).copied()
    }

    /// Every trigram given a code, by its code.
    pub(super) fn trigrams(&self) -> Vec<Trgm> {
        let mut by_code = vec![0; self.of.len()];
        for (&t, &c) in &self.of {
            by_code[usize::from(c)] = t;
        }
        by_code
    }

    /// Gives back what the lines hold beyond the slots (once a list is built whole).
    pub(super) fn shrink(&mut self) {
        self.lines.shrink_to_fit();
    }

    /// The codes of `slot`'s trigrams, where it is decided by them.
    #[inline]
    pub(super) fn get(&self, slot: usize) -> Option<&[u16]> {
        let line = &self.lines[slot].0;
        let n = line[0];
        (n != UNCODED).then(|| &line[1..=usize::from(n)])
    }

    /// Where `slot`'s codes lie, for the cache to bring in.
    #[inline]
    pub(super) fn at(&self, slot: usize) -> *const u16 {
        self.lines.as_ptr().wrapping_add(slot).cast()
    }

    pub(super) fn bytes(&self) -> usize {
        self.lines.capacity() * WIDTH * 2 + self.of.capacity() * 17
    }
}

/// No place: the entry of a code that is none of the text's trigrams.
const NONE: u8 = u8::MAX;

/// A search text's trigrams by their codes: `table[code]` is the trigram's place among the
/// text's (sorted, as `trgm::Text` numbers them), [`NONE`] for any other code; and the places
/// of the trigrams the text implies (`trgm::inner`), which a name containing it holds.
/// A thread keeps one between searches: its table is as long as the codes given, and only
/// the entries of the last search are cleared.
#[derive(Default)]
pub(super) struct Coded {
    table: Vec<u8>,
    set: Vec<u16>,
    k: usize,
    inner: [u64; 4],
}

impl Coded {
    /// Readies the table for a text of sorted distinct `trigrams`, `inner` of them implied;
    /// `false` where names cannot be decided by their codes (more than 254 trigrams).
    pub(super) fn fill(&mut self, codes: &Codes, trigrams: &[Trgm], inner: &[Trgm]) -> bool {
        for &c in &self.set {
            self.table[c as usize] = NONE;
        }
        self.set.clear();
        self.inner = [0; 4];
        if trigrams.len() >= usize::from(NONE) {
            return false;
        }
        if self.table.len() < codes.of.len() {
            self.table.resize(codes.of.len(), NONE);
        }
        self.k = trigrams.len();
        for (j, t) in trigrams.iter().enumerate() {
            if let Some(&c) = codes.of.get(t) {
                self.table[c as usize] = j as u8;
                self.set.push(c);
            }
        }
        for t in inner {
            // Every trigram the text implies is one of its own.
            let Ok(j) = trigrams.binary_search(t) else {
                return false;
            };
            self.inner[j / 64] |= 1 << (j % 64);
        }
        true
    }

    /// Whether a name of these codes holds every trigram the text implies (it may contain
    /// the text); always, where the text implies none.
    #[inline]
    pub(super) fn may_contain(&self, seq: &[u16]) -> bool {
        if self.inner == [0; 4] {
            return true;
        }
        let mut held = [0u64; 4];
        for &c in seq {
            if let Some(j) = self.find(c) {
                held[j / 64] |= 1 << (j % 64);
            }
        }
        (0..4).all(|i| held[i] & self.inner[i] == self.inner[i])
    }
}

impl Finds for Coded {
    type T = u16;

    #[inline]
    fn find(&self, c: u16) -> Option<usize> {
        match self.table.get(c as usize) {
            Some(&j) if j != NONE => Some(usize::from(j)),
            _ => None,
        }
    }

    #[inline]
    fn k(&self) -> usize {
        self.k
    }

    #[inline]
    fn places(&self, seq: &[u16]) -> Option<u32> {
        // A slot's codes are fewer than 32 (`WIDTH`).
        if seq.len() > 32 {
            return None;
        }
        let held = |c: u16| u32::from(self.find(c).is_some());
        Some(
            seq.iter()
                .enumerate()
                .fold(0u32, |m, (i, &c)| m | held(c) << i),
        )
    }
}
