//! One list's names in memory (players' or tournaments'): the folded names, a trigram index
//! over them, and the search the list's `q` makes (`name_folded LIKE '%q%' OR q <% name_folded`,
//! ranked by `word_similarity`, then name, then id), answered as PostgreSQL answers it.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::trgm::{self, Scratch, Trgm, Words};

/// A name as the index holds it.
struct Entry {
    id: i64,
    name: Box<str>,
    folded: Box<str>,
    /// A filter field the index answers itself (a player's country), packed; 0: none.
    tag: u16,
}

/// A name the index is given (a row of the list's table).
#[derive(Debug, Clone, PartialEq)]
pub struct NameRow {
    pub id: i64,
    pub name: String,
    /// `tourney_fold(name)` as the database stored it.
    pub folded: String,
    /// A two-letter code (a player's country), if any.
    pub tag: Option<String>,
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

/// The names of one list and their trigram index.
#[derive(Default)]
pub struct Names {
    slots: Vec<Option<Entry>>,
    free: Vec<u32>,
    by_id: HashMap<i64, u32>,
    postings: HashMap<Trgm, Vec<u32>>,
    /// What pg_trgm takes for a word in this database.
    words: Words,
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
        let mut n = Self::default();
        for r in rows {
            n.upsert(r);
        }
        n
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.by_id.len()
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
            .map(|e| e.name.len() + e.folded.len())
            .sum();
        let postings: usize = self.postings.values().map(|p| p.capacity() * 4 + 48).sum();
        entries
            + self.slots.capacity() * std::mem::size_of::<Option<Entry>>()
            + self.by_id.capacity() * 24
            + postings
    }

    /// Adds or replaces the row with `r.id`.
    pub fn upsert(&mut self, r: NameRow) {
        self.remove(r.id);
        let entry = Entry {
            id: r.id,
            name: r.name.into(),
            folded: r.folded.into(),
            tag: tag(r.tag.as_deref()),
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(entry);
                s
            }
            None => {
                self.slots.push(Some(entry));
                (self.slots.len() - 1) as u32
            }
        };
        let folded = &self.slots[slot as usize].as_ref().expect("just set").folded;
        for t in trgm::set(folded, self.words) {
            self.postings.entry(t).or_default().push(slot);
        }
        self.by_id.insert(r.id, slot);
    }

    /// Removes the row with `id` (if held).
    pub fn remove(&mut self, id: i64) {
        let Some(slot) = self.by_id.remove(&id) else {
            return;
        };
        let Some(entry) = self.slots[slot as usize].take() else {
            return;
        };
        for t in trgm::set(&entry.folded, self.words) {
            if let Some(p) = self.postings.get_mut(&t) {
                if let Some(at) = p.iter().position(|s| *s == slot) {
                    p.swap_remove(at);
                }
                if p.is_empty() {
                    self.postings.remove(&t);
                }
            }
        }
        self.free.push(slot);
    }

    /// The ids it holds, sorted (for comparisons with the database).
    pub fn ids(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.by_id.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// The slots whose folded name may contain `folded` (a superset, checked by the caller).
    fn containing(&self, folded: &str) -> Vec<u32> {
        let inner = trgm::inner(folded, self.words);
        let rarest = inner
            .iter()
            .map(|t| self.postings.get(t).map_or(&[][..], Vec::as_slice))
            .min_by_key(|p| p.len());
        match rarest {
            Some(p) => p.to_vec(),
            // Under three letters in a row: every name is a candidate.
            None => (0..self.slots.len() as u32).collect(),
        }
    }

    /// Every match of the folded search text `folded` whose tag is `tag` (any with `None`),
    /// with its similarity, unordered.
    pub fn matches(&self, folded: &str, tag: Option<u16>) -> Vec<(u32, f32)> {
        let q = trgm::set(folded, self.words);
        // `q <% name` needs at least 0.6 of the query's trigrams in the name.
        let need = (q.len() * 3).div_ceil(5).max(1);
        let mut shared: HashMap<u32, u16> = HashMap::new();
        if !q.is_empty() {
            for t in &q {
                for s in self.postings.get(t).map_or(&[][..], Vec::as_slice) {
                    *shared.entry(*s).or_insert(0) += 1;
                }
            }
        }
        let mut out = Vec::new();
        let (mut seq, mut scratch) = (Vec::new(), Scratch::default());
        let mut consider = |slot: u32, like: bool, out: &mut Vec<(u32, f32)>| {
            let Some(e) = &self.slots[slot as usize] else {
                return;
            };
            if tag.is_some_and(|t| t != e.tag) {
                return;
            }
            trgm::sequence(&e.folded, self.words, &mut seq);
            let score = trgm::word_similarity(&q, &seq, &mut scratch);
            if like || trgm::passes(score) {
                out.push((slot, score));
            }
        };
        let mut seen = std::collections::HashSet::new();
        for slot in self.containing(folded) {
            let Some(e) = &self.slots[slot as usize] else {
                continue;
            };
            if e.folded.contains(folded) {
                seen.insert(slot);
                consider(slot, true, &mut out);
            }
        }
        for (slot, n) in shared {
            if usize::from(n) >= need && !seen.contains(&slot) {
                consider(slot, false, &mut out);
            }
        }
        out
    }

    fn entry(&self, slot: u32) -> &Entry {
        self.slots[slot as usize].as_ref().expect("a matched slot")
    }

    /// The list's order between two matches.
    fn cmp(&self, order: Order, a: &(u32, f32), b: &(u32, f32)) -> Ordering {
        let (ea, eb) = (self.entry(a.0), self.entry(b.0));
        let by_name = ea
            .name
            .as_bytes()
            .cmp(eb.name.as_bytes())
            .then(ea.id.cmp(&eb.id));
        match order {
            Order::Ranked => b.1.total_cmp(&a.1).then(by_name),
            Order::Named => by_name,
        }
    }

    /// Whether a match comes after the keys `(negated score, name, id)` (ranked) or `(name,
    /// id)` (named) of the last row of the page before.
    fn after(&self, order: Order, m: &(u32, f32), keys: &(f32, &str, i64)) -> bool {
        let e = self.entry(m.0);
        let by_name = e
            .name
            .as_bytes()
            .cmp(keys.1.as_bytes())
            .then(e.id.cmp(&keys.2));
        match order {
            Order::Ranked => (-m.1).total_cmp(&keys.0).then(by_name) == Ordering::Greater,
            Order::Named => by_name == Ordering::Greater,
        }
    }

    /// The matches in the list's order, from the first after `after` (the last row's keys:
    /// negated score, name, id; the score is ignored when named), skipping `offset`, at most
    /// `limit`; and how many matches there are in all.
    pub fn page(
        &self,
        mut matches: Vec<(u32, f32)>,
        order: Order,
        after: Option<(f32, &str, i64)>,
        (offset, limit): (usize, usize),
    ) -> (Vec<Hit>, usize) {
        let total = matches.len();
        if let Some(keys) = &after {
            matches.retain(|m| self.after(order, m, keys));
        }
        let end = offset.saturating_add(limit).min(matches.len());
        if end < matches.len() && end > 0 {
            matches.select_nth_unstable_by(end - 1, |a, b| self.cmp(order, a, b));
            matches.truncate(end);
        }
        matches.sort_unstable_by(|a, b| self.cmp(order, a, b));
        let hits = matches
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(slot, score)| {
                let e = self.entry(slot);
                Hit {
                    id: e.id,
                    name: e.name.to_string(),
                    score,
                }
            })
            .collect();
        (hits, total)
    }

    /// Every match in the list's order (the candidates a filter in the database then narrows).
    pub fn ordered(&self, folded: &str, order: Order) -> Vec<Hit> {
        let m = self.matches(folded, None);
        let n = m.len();
        self.page(m, order, None, (0, n)).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, name: &str) -> NameRow {
        NameRow {
            id,
            name: name.into(),
            folded: name.to_lowercase(),
            tag: None,
        }
    }

    fn ids(n: &Names, q: &str) -> Vec<i64> {
        n.ordered(q, Order::Ranked).iter().map(|h| h.id).collect()
    }

    #[test]
    fn prefixes_near_matches_order_and_changes() {
        let mut n = Names::build([
            row(1, "Kari Nordmann"),
            row(2, "Karin Nilsen"),
            row(3, "Ola Nordmann"),
            row(4, "Oystein Odegard"),
        ]);
        // Prefixes as people type: any part of the name, across words.
        assert_eq!(ids(&n, "kar"), vec![1, 2]);
        // `kari n` is in Kari Nordmann; Karin Nilsen is no near match (0.56, under 0.6).
        assert_eq!(ids(&n, "kari n"), vec![1]);
        assert_eq!(ids(&n, "k"), vec![1, 2]);
        // A near match of a word (a typo) and the best match first.
        assert_eq!(ids(&n, "oysten"), vec![4]);
        assert_eq!(ids(&n, "nordman"), vec![1, 3]);
        // Renamed, removed, added.
        n.upsert(row(3, "Ola Berg"));
        assert_eq!(ids(&n, "nordman"), vec![1]);
        n.remove(1);
        assert_eq!(ids(&n, "nordman"), Vec::<i64>::new());
        n.upsert(row(9, "Nora Nordmann"));
        assert_eq!(ids(&n, "nordmann"), vec![9]);
        assert_eq!(n.len(), 4);
    }

    #[test]
    fn pages_follow_the_keys_of_the_page_before() {
        let n = Names::build((1..=30).map(|i| row(i, &format!("Name {:02}", 31 - i))));
        let m = n.matches("name", None);
        let (first, total) = n.page(m.clone(), Order::Ranked, None, (0, 10));
        assert_eq!(total, 30);
        assert_eq!(first[0].name, "Name 01");
        let last = first.last().unwrap();
        let (next, _) = n.page(
            m.clone(),
            Order::Ranked,
            Some((-last.score, &last.name, last.id)),
            (0, 10),
        );
        assert_eq!(next[0].name, "Name 11");
        let (by_offset, _) = n.page(m, Order::Ranked, None, (10, 10));
        assert_eq!(by_offset, next);
        // A tag narrows.
        let mut t = Names::default();
        t.upsert(NameRow {
            tag: Some("SE".into()),
            ..row(1, "Anna")
        });
        t.upsert(row(2, "Anna"));
        assert_eq!(t.matches("anna", Some(tag(Some("SE")))).len(), 1);
        assert_eq!(t.matches("anna", None).len(), 2);
    }
}
