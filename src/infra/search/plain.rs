//! A list read without a search text (`Names::plain`): every name (of a tag, if asked) in name
//! order, then id, as the players' list shows it with no `q`. The ordered slots are already in
//! that order, so a page after a cursor starts at a binary search, not at the list's first
//! name; the fresh slots (names added or renamed since the list was ordered) are sorted and
//! merged in. The count is the live names' (of the tag), as `Names` keeps it.

use std::cmp::Ordering;

use super::names::{Hit, Names, DEAD};
use super::walk::Query;

/// Fresh slots past which a list without a search text is left to PostgreSQL
/// ([`Names::plain_is_cheap`]): every page selects its rows among those after its cursor, and
/// the keeper orders the list again only past an eighth of it (125,000 fresh slots at a
/// million names, a few milliseconds a page).
const PLAIN_FRESH: usize = 4096;

impl Names {
    /// Whether a page without a search text costs little here: at most [`PLAIN_FRESH`] fresh
    /// slots (else [`Names::search_shown`] leaves it to PostgreSQL, until the list is ordered
    /// again).
    pub(super) fn plain_is_cheap(&self) -> bool {
        self.slots.len() - self.ordered as usize <= PLAIN_FRESH
    }

    /// The page of `q` (no text, by name) with the hits' slots, and the count up to
    /// `q.count_to`: rows after `q.after` (its name and id; the score is ignored), `q.skip`
    /// of them skipped and `q.take` taken.
    pub(super) fn plain(&self, q: &Query) -> (Vec<(Hit, u32)>, usize) {
        let want = q.skip.saturating_add(q.take);
        let shown = |s: u32| {
            let mark = self.marks[s as usize];
            mark != DEAD && q.tag.is_none_or(|t| t == mark)
        };
        let after = |s: u32| match q.after {
            None => true,
            Some((_, name, id)) => self.key(s).cmp(&(name.as_bytes(), id)) == Ordering::Greater,
        };
        let mut fresh: Vec<u32> = (self.ordered..self.slots.len() as u32)
            .filter(|&s| shown(s) && after(s))
            .collect();
        // Only the first `want` of them can be on the page.
        let by_key = |a: &u32, b: &u32| self.key(*a).cmp(&self.key(*b));
        if fresh.len() > want {
            fresh.select_nth_unstable_by(want, by_key);
            fresh.truncate(want);
        }
        fresh.sort_unstable_by(by_key);
        let mut fresh = fresh.into_iter().peekable();
        let mut page = Vec::with_capacity(want.min(1024));
        // The first ordered slot whose name is not below the cursor's; those of the cursor's
        // own name are then passed over up to its id.
        let mut s = q
            .after
            .map_or(0, |(_, name, _)| self.first_named(name.as_bytes()));
        let mut past = q.after.is_none();
        while page.len() < want {
            // The next ordered slot the list shows.
            while s < self.ordered && !(shown(s) && (past || after(s))) {
                s += 1;
            }
            past = past || s < self.ordered;
            let from_fresh = match (s < self.ordered, fresh.peek()) {
                (_, None) => false,
                (false, Some(_)) => true,
                (true, Some(&f)) => self.key(f) < self.key(s),
            };
            if from_fresh {
                page.extend(fresh.next());
            } else if s < self.ordered {
                page.push(s);
                s += 1;
            } else {
                break;
            }
        }
        let hits = page
            .into_iter()
            .skip(q.skip)
            .map(|s| {
                let hit = Hit {
                    id: self.id(s),
                    name: self.name(s).to_string(),
                    score: 0.0,
                };
                (hit, s)
            })
            .collect();
        let count = match q.tag {
            None => self.len(),
            Some(t) => self.tagged(t),
        };
        (hits, count.min(q.count_to))
    }

    /// The first ordered slot whose name is not below `name` (dead slots keep their names
    /// until the list is ordered again, so the ordered slots stay sorted by name).
    fn first_named(&self, name: &[u8]) -> u32 {
        let (mut lo, mut hi) = (0, self.ordered);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.name(mid).as_bytes() < name {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}
