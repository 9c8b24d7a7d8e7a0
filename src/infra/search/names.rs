//! One list's names in memory (players' or tournaments'): the folded names, a trigram index
//! over them, and the search the list's `q` makes (`name_folded LIKE '%q%' OR q <% name_folded`,
//! ranked by `word_similarity`, then name, then id), answered as PostgreSQL answers it.
//!
//! The names are kept in slots **in the list's name order** (name bytewise, then id), so that
//! a posting list (the slots holding a trigram, ascending) walks its names in that order and a
//! search can stop as soon as its page is full (`walk`). A name added or renamed after the
//! slots were ordered goes into a slot past the ordered ones (a *fresh* slot, always looked
//! at in full); a removed one leaves a dead slot. When fresh and dead slots grow past a share
//! of the list, the keeper orders the list again (`wants_ordering`, `ordered_again`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::codes::{Codes, TrgmMap};
use super::trgm::{self, Trgm, Words};
pub use super::walk::Query;

/// A name as the index holds it (the name and its folded form are in `Names::names` and
/// `Names::folded`).
pub(super) struct Entry {
    pub(super) id: i64,
    /// A filter field the index answers itself (a player's country), packed; 0: none.
    pub(super) tag: u16,
    /// What the list shows of the row beyond its name, when the index holds it.
    pub(super) shown: Held,
}

/// [`Shown`] as an entry holds it, inline (a player's club, linked account and times; the
/// times in microseconds): 40 bytes and the club's, where a boxed `Shown` took 88.
#[derive(Clone, Default)]
pub(super) struct Held {
    held: bool,
    club: Option<Box<str>>,
    /// 0: none (ids start at 1).
    user_id: i64,
    created_us: i64,
    updated_us: i64,
}

impl Held {
    fn of(s: Option<Shown>) -> Self {
        match s {
            None => Self::default(),
            Some(s) => Self {
                held: true,
                club: s.club.map(Into::into),
                user_id: s.user_id.unwrap_or(0),
                created_us: s.created_at.timestamp_micros(),
                updated_us: s.updated_at.timestamp_micros(),
            },
        }
    }

    fn get(&self) -> Option<Shown> {
        let at = chrono::DateTime::from_timestamp_micros;
        self.held.then(|| Shown {
            club: self.club.as_deref().map(str::to_string),
            user_id: (self.user_id != 0).then_some(self.user_id),
            created_at: at(self.created_us).unwrap_or_default(),
            updated_at: at(self.updated_us).unwrap_or_default(),
        })
    }
}

/// What a list shows of a row beyond its name and tag (a player's club, linked account and
/// times), held so that a search is answered without reading the rows (`Names::row`).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub club: Option<String>,
    pub user_id: Option<i64>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

/// What the list shows of a held row: its tag's code, and the rest ([`Names::row`]).
pub type ShownRow = (Option<String>, Shown);

/// A name the index is given (a row of the list's table).
#[derive(Debug, Clone, PartialEq)]
pub struct NameRow {
    pub id: i64,
    pub name: String,
    /// `tourney_fold(name)` as the database stored it.
    pub folded: String,
    /// A two-letter code (a player's country), if any.
    pub tag: Option<String>,
    /// What the list shows beyond the name (`None`: read from the database).
    pub shown: Option<Shown>,
}

impl Entry {
    /// The entry of `r`, its name and its folded name.
    fn of(r: NameRow) -> Row {
        // Held only when the tag gives the code back as it is (two ASCII letters, or none).
        let code = tag(r.tag.as_deref());
        let exact = r.tag.is_none() || code != 0;
        let entry = Self {
            id: r.id,
            tag: code,
            shown: Held::of(r.shown.filter(|_| exact)),
        };
        (entry, r.name, r.folded)
    }
}

/// An entry, its name and its folded name.
type Row = (Entry, String, String);

/// Texts one after another in one string, and where each ends: a slot's name or folded name,
/// in slot order (a search reads a tier's names in that order, so it reads them forward; a
/// dead slot's stays until the list is ordered again).
#[derive(Default)]
struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    /// Where text `i` begins in `text`.
    #[inline]
    fn offset(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1]
        }
    }

    #[inline]
    fn get(&self, i: usize) -> &str {
        &self.text[self.offset(i)..self.ends[i]]
    }

    /// Where text `i` starts (not read: slicing the text would read it to check the
    /// character boundary).
    #[inline]
    fn start(&self, i: usize) -> *const u8 {
        self.text.as_ptr().wrapping_add(self.offset(i))
    }

    fn reserve(&mut self, texts: usize, bytes: usize) {
        self.ends.reserve(texts);
        self.text.reserve(bytes);
    }

    fn bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 8
    }
}

/// Hashes a row's id by one multiplication (Fibonacci hashing), where the default hasher
/// (SipHash) showed in the profile of typed searches (each row of a page is looked up by id):
/// the ids are the database's, not a caller's, so no one chooses them to collide.
#[derive(Default)]
pub(super) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_i64(&mut self, id: i64) {
        self.0 = (id as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(32);
    }
}

/// Asks the processor to bring the line holding `p` into its caches, without waiting for it
/// (a hint: no effect on what the program computes).
#[inline]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults, whatever the
    // address; `sse` is part of every x86-64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The code a packed tag holds (`None`: none).
pub fn untag(tag: u16) -> Option<String> {
    (tag != 0).then(|| String::from_utf8_lossy(&tag.to_be_bytes()).into_owned())
}

/// A two-letter code packed (0: none or not two ASCII letters).
pub fn tag(code: Option<&str>) -> u16 {
    match code.map(str::as_bytes) {
        Some([a, b]) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            u16::from_be_bytes([*a, *b])
        }
        _ => 0,
    }
}

/// A match: the row's id, its name and its similarity to the search text.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: i64,
    pub name: String,
    pub score: f32,
}

/// The order of a list's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Similarity (highest first), then name, then id.
    Ranked,
    /// Name, then id.
    Named,
}

/// A trigram held by more than one name in this many has a bitmap beside its slots
/// (`Names::dense`). At 1/64 rather than 1/32, a search makes fewer bitmaps of lists for its
/// planes: at a million names 169 bitmaps instead of 88 (21 MB instead of 11), and a typed
/// keystroke's search 0.9x (docs/performance.md, 2026-11-27, sixth session).
const DENSE: usize = 64;

/// A dead slot's mark (no tag is: a tag is two ASCII letters).
pub(super) const DEAD: u16 = u16::MAX;

/// The names of one list and their trigram index.
#[derive(Default)]
pub struct Names {
    pub(super) slots: Vec<Option<Entry>>,
    /// Each slot's tag, or [`DEAD`]: what a search asks of every name it decides, two bytes a
    /// slot, where the entry (64 bytes, mostly in no cache at a million names) is read only
    /// for a name the page may take.
    pub(super) marks: Vec<u16>,
    /// The slots' names, and their folded forms.
    names: Texts,
    folded: Texts,
    /// The slots' trigram sequences, as codes (what a search decides a name by).
    pub(super) codes: Codes,
    by_id: HashMap<i64, u32, BuildHasherDefault<IdHasher>>,
    /// How many live names carry each tag (0: none), for a list's count by tag.
    tags: HashMap<u16, usize>,
    /// The slots holding each trigram, ascending.
    pub(super) postings: TrgmMap<Vec<u32>>,
    /// The same as bitmaps (bit `s % 64` of word `s / 64`) for the trigrams held by more than
    /// 1/[`DENSE`] of the names when the list was ordered: a search counts them 64 slots at a
    /// time.
    pub(super) dense: TrgmMap<Vec<u64>>,
    /// Slots below this one are in name order; the others are fresh.
    pub(super) ordered: u32,
    /// Dead slots (removed or replaced names) among the ordered ones.
    dead: usize,
    /// What pg_trgm takes for a word in this database.
    pub(super) words: Words,
}

impl Names {
    /// An empty index whose words are `words`.
    pub fn new(words: Words) -> Self {
        Self {
            words,
            ..Self::default()
        }
    }

    /// The index of `rows` (ASCII words).
    pub fn build(rows: impl IntoIterator<Item = NameRow>) -> Self {
        Self::of(rows, Words::Ascii)
    }

    /// The index of `rows` whose words are `words`, in name order.
    pub fn of(rows: impl IntoIterator<Item = NameRow>, words: Words) -> Self {
        let entries = rows.into_iter().map(Entry::of).collect();
        Self::of_entries(entries, words, Codes::LIMIT)
    }

    /// [`Names::of`] over rows read in batches (a list read from the database whole): the
    /// entries made a batch at a time into one vector of their number, each batch freed as
    /// it goes. Gathered into one growing vector first, a million rows were copied as it
    /// doubled, into memory the system had to clear first (docs/performance.md, fourteenth session).
    pub fn of_batches(batches: Vec<Vec<NameRow>>, words: Words) -> Self {
        let mut entries = Vec::with_capacity(batches.iter().map(Vec::len).sum());
        for batch in batches {
            entries.extend(batch.into_iter().map(Entry::of));
        }
        Self::of_entries(entries, words, Codes::LIMIT)
    }

    /// [`Names::build`] giving at most `limit` codes (the names holding another trigram are
    /// decided from their folded text).
    #[cfg(test)]
    fn coded_to(rows: impl IntoIterator<Item = NameRow>, limit: usize) -> Self {
        let entries = rows.into_iter().map(Entry::of).collect();
        Self::of_entries(entries, Words::Ascii, limit)
    }

    /// The index of `entries` (the last of one id kept), in name order, giving at most
    /// `codes` codes.
    fn of_entries(mut entries: Vec<Row>, words: Words, codes: usize) -> Self {
        entries.reverse();
        entries.sort_by_key(|e| e.0.id);
        entries.dedup_by_key(|e| e.0.id);
        entries.sort_unstable_by(|(a, an, _), (b, bn, _)| {
            (an.as_bytes(), a.id).cmp(&(bn.as_bytes(), b.id))
        });
        let mut n = Self::new(words);
        n.codes = Codes::with_limit(codes);
        n.codes.reserve(entries.len());
        n.slots.reserve(entries.len());
        n.marks.reserve(entries.len());
        let bytes = |f: fn(&Row) -> usize| entries.iter().map(f).sum();
        n.names.reserve(entries.len(), bytes(|e| e.1.len()));
        n.folded.reserve(entries.len(), bytes(|e| e.2.len()));
        let mut set = Vec::new();
        for (e, name, folded) in entries {
            n.place(e, (&name, &folded), &mut set);
        }
        n.postings = n.postings_of_all();
        n.ordered = n.slots.len() as u32;
        n.codes.shrink();
        let words = n.slots.len().div_ceil(64);
        for (t, list) in &n.postings {
            if list.len() * DENSE > n.slots.len() {
                let mut bitmap = vec![0u64; words];
                for &s in list {
                    bitmap[s as usize / 64] |= 1 << (s % 64);
                }
                n.dense.insert(*t, bitmap);
            }
        }
        n
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// How many names it holds that carry `tag`.
    pub fn tagged(&self, tag: u16) -> usize {
        self.tags.get(&tag).copied().unwrap_or(0)
    }

    /// Whether it holds no name.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// An estimate of the bytes it holds (names, folded names, entries, postings, maps).
    pub fn bytes(&self) -> usize {
        let entries: usize = self
            .slots
            .iter()
            .flatten()
            .map(|e| e.shown.club.as_ref().map_or(0, |c| c.len()))
            .sum();
        let postings: usize = self.postings.values().map(|p| p.capacity() * 4 + 48).sum();
        let bitmaps: usize = self.dense.values().map(|b| b.capacity() * 8 + 48).sum();
        entries
            + self.names.bytes()
            + self.folded.bytes()
            + self.codes.bytes()
            + bitmaps
            + self.slots.capacity() * std::mem::size_of::<Option<Entry>>()
            + self.marks.capacity() * 2
            + self.by_id.capacity() * 24
            + postings
    }

    /// The name of `slot`.
    #[inline]
    pub(super) fn name(&self, slot: u32) -> &str {
        self.names.get(slot as usize)
    }

    /// The folded name of `slot`.
    #[inline]
    pub(super) fn folded(&self, slot: u32) -> &str {
        self.folded.get(slot as usize)
    }

    /// Asks for the mark of `slot` and its codes to be brought into the cache (a search
    /// decides it soon).
    #[inline]
    pub(super) fn prefetch_mark(&self, slot: u32) {
        prefetch(self.marks.as_ptr().wrapping_add(slot as usize));
        prefetch(self.codes.at(slot as usize));
    }

    /// What a list by name orders `slot` by: its name's bytes, then its id (the tie order of
    /// every list, and its cursors' keys).
    #[inline]
    pub(super) fn key(&self, slot: u32) -> (&[u8], i64) {
        (self.name(slot).as_bytes(), self.id(slot))
    }

    /// The id of the live `slot`'s row (0 for a dead one, which no caller asks).
    #[inline]
    pub(super) fn id(&self, slot: u32) -> i64 {
        self.slots[slot as usize].as_ref().map_or(0, |e| e.id)
    }

    /// Asks for the folded name of `slot` to be brought into the cache, where the search
    /// decides it by its folded name (it has no codes).
    #[inline]
    pub(super) fn prefetch_folded(&self, slot: u32) {
        if self.codes.get(slot as usize).is_none() {
            prefetch(self.folded.start(slot as usize));
        }
    }

    /// Puts `e`, named `name` and folded `folded`, in a new slot at the end, in its trigrams'
    /// postings too (a row added to a built list).
    fn push(&mut self, e: Entry, name: &str, folded: &str) {
        let mut set = Vec::new();
        let slot = self.place(e, (name, folded), &mut set);
        set.sort_unstable();
        set.dedup();
        for t in set {
            self.postings.entry(t).or_default().push(slot);
            if let Some(bitmap) = self.dense.get_mut(&t) {
                let w = slot as usize / 64;
                if bitmap.len() <= w {
                    bitmap.resize(w + 1, 0);
                }
                bitmap[w] |= 1 << (slot % 64);
            }
        }
    }

    /// Puts `e` in a new slot at the end, all but its postings; its trigram sequence left in
    /// `set`. Returns the slot.
    fn place(&mut self, e: Entry, (name, folded): (&str, &str), set: &mut Vec<Trgm>) -> u32 {
        let slot = self.slots.len() as u32;
        self.names.push(name);
        self.folded.push(folded);
        trgm::sequence(folded, self.words, set);
        self.codes.push(set);
        self.by_id.insert(e.id, slot);
        *self.tags.entry(e.tag).or_default() += 1;
        self.marks.push(e.tag);
        self.slots.push(Some(e));
        slot
    }

    /// The postings of every slot (a list built whole), each made at its length: counted by
    /// code, then filled, a coded slot read from its line and its codes' lists found by
    /// index (no trigram hashed again, no list copied as it grows); the others from their
    /// folded names.
    fn postings_of_all(&self) -> TrgmMap<Vec<u32>> {
        let trigrams = self.codes.trigrams();
        let mut counts = vec![0usize; trigrams.len()];
        let mut by_code: Vec<Vec<u32>> = Vec::new();
        let mut other: TrgmMap<Vec<u32>> = TrgmMap::default();
        let (mut codes, mut set) = (Vec::new(), Vec::new());
        for fill in [false, true] {
            if fill {
                by_code = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
            }
            for slot in 0..self.slots.len() as u32 {
                codes.clear();
                if let Some(line) = self.codes.get(slot as usize) {
                    codes.extend_from_slice(line);
                } else {
                    trgm::sequence(self.folded(slot), self.words, &mut set);
                    set.sort_unstable();
                    set.dedup();
                    for &t in &set {
                        match self.codes.code(t) {
                            Some(c) => codes.push(c),
                            None if fill => other.entry(t).or_default().push(slot),
                            None => {}
                        }
                    }
                }
                codes.sort_unstable();
                codes.dedup();
                for &c in &codes {
                    match fill {
                        true => by_code[usize::from(c)].push(slot),
                        false => counts[usize::from(c)] += 1,
                    }
                }
            }
        }
        let mut postings = TrgmMap::default();
        postings.reserve(trigrams.len() + other.len());
        let coded = trigrams.into_iter().zip(by_code);
        postings.extend(coded.filter(|(_, l)| !l.is_empty()));
        postings.extend(other);
        postings
    }

    /// Adds or replaces the row with `r.id` (in a fresh slot).
    pub fn upsert(&mut self, r: NameRow) {
        self.remove(r.id);
        let (e, name, folded) = Entry::of(r);
        self.push(e, &name, &folded);
    }

    /// Removes the row with `id` (if held): its slot dies, its postings stay until the list is
    /// ordered again (a search passes over dead slots).
    pub fn remove(&mut self, id: i64) {
        let Some(slot) = self.by_id.remove(&id) else {
            return;
        };
        self.slots[slot as usize] = None;
        let tag = std::mem::replace(&mut self.marks[slot as usize], DEAD);
        if let Some(n) = self.tags.get_mut(&tag) {
            *n -= 1;
        }
        if slot < self.ordered {
            self.dead += 1;
        }
    }

    /// Whether fresh and dead slots have grown enough that the list should be ordered again
    /// (past 4,096 and past an eighth of the list).
    pub fn wants_ordering(&self) -> bool {
        let unordered = self.slots.len() - self.ordered as usize + self.dead;
        unordered > 4096 && unordered > self.len() / 8
    }

    /// The same names in name order, with no fresh or dead slot.
    pub fn ordered_again(&self) -> Self {
        let entries = self.slots.iter().enumerate().filter_map(|(slot, e)| {
            let e = e.as_ref()?;
            let entry = Entry {
                id: e.id,
                tag: e.tag,
                shown: e.shown.clone(),
            };
            let slot = slot as u32;
            Some((
                entry,
                self.name(slot).to_string(),
                self.folded(slot).to_string(),
            ))
        });
        Self::of_entries(entries.collect(), self.words, self.codes.limit())
    }

    /// The name of row `id` and what the list shows of it beyond its name (its tag's code, and
    /// the rest): the row whole, when the index holds it.
    pub fn row(&self, id: i64) -> Option<(&str, ShownRow)> {
        let slot = *self.by_id.get(&id)?;
        Some((self.name(slot), self.shown_at(slot)?))
    }

    /// What the list shows of the row in `slot` ([`Names::row`]).
    pub(super) fn shown_at(&self, slot: u32) -> Option<ShownRow> {
        let e = self.slots.get(slot as usize)?.as_ref()?;
        Some((untag(e.tag), e.shown.get()?))
    }

    /// Asks for the entry of `slot` to be brought into the cache.
    #[inline]
    pub(super) fn prefetch_shown(&self, slot: u32) {
        prefetch(self.slots.as_ptr().wrapping_add(slot as usize));
    }

    /// The ids it holds, sorted (for comparisons with the database).
    pub fn ids(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.by_id.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Every match of the folded search text `folded`, in the list's order (the candidates a
    /// filter in the database then narrows), at most `take` of them.
    pub fn ordered(&self, folded: &str, order: Order, take: usize) -> Vec<Hit> {
        self.search(&Query::first(folded, order, take, 0)).0
    }
}

#[cfg(test)]
mod tests;
