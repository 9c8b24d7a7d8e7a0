//! The current leaderboard of a rating pool, ranked in memory and cached per pool.
//!
//! A [`Board`] is every player of a pool's `rating_standings` with at least one rated game,
//! joined with the player's name, club and country, in leaderboard order (rating descending,
//! then more games, then lower player id). It is read in one snapshot together with the pool's
//! `version` and `leaderboard_version`, and a page of any listing (threshold, country, club,
//! limit, offset) is cut from it without going back to the database.
//!
//! The [`LeaderboardCache`] keeps the boards of a few pools, keyed by the pool and both
//! versions. Every change that shows on the leaderboard bumps one of them in the transaction
//! that makes it: a change of the rating log (`refresh_standings`), a change of a listed
//! player's name, club or country (`PATCH /players/{id}`), a change of the pool (its `version`,
//! which carries `min_games_listed`). The handler reads both versions from the database on
//! every request and uses a board only if it was read at exactly those versions, so a board is
//! never stale, and several service instances sharing one database need no invalidation
//! between them: each one's cache is checked against the database on every request.
//!
//! (Versions only grow. A database restored to an older copy under a running service could
//! bring back a version pair the cache holds with other contents: restart the service after a
//! restore.)

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use crate::db::models::RatingPoolRow;
use crate::db::ratings::leaderboard as store;
pub use crate::db::ratings::leaderboard::BoardRow;
use crate::db::PgConnection;
use crate::domain::ids::PoolId;
use crate::error::ApiError;

/// How many pools' boards the cache keeps by default (the least recently used goes first).
pub const DEFAULT_POOLS: usize = 4;

/// Listings for thresholds other than the pool's own and "everyone" kept per board.
const EXTRA_LISTINGS: usize = 4;

/// The versions of a pool a board was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardVersion {
    /// `rating_pools.version`: the pool's name, parameters, seasons.
    pub pool: i32,
    /// `rating_pools.leaderboard_version`: the standings and the listed players.
    pub leaderboard: i64,
}

/// `float8` order as PostgreSQL has it: NaN equals NaN and is above every number; -0 = 0.
fn pg_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Leaderboard order: rating descending, then more games, then lower player id.
fn board_order(a: &BoardRow, b: &BoardRow) -> Ordering {
    pg_cmp(b.rating, a.rating)
        .then(b.games.cmp(&a.games))
        .then(a.player_id.cmp(&b.player_id))
}

/// The sort keys of a leaderboard line, which a leaderboard cursor names: the exact rating (as
/// its bits, so it comes back exactly), rated games and player id. Lines compare in
/// leaderboard order (rating descending, more games first, lower id first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardKey(u64, i64, i64);

impl BoardKey {
    pub fn new(rating: f64, games: i64, player_id: i64) -> Self {
        BoardKey(rating.to_bits(), games, player_id)
    }

    /// Whether a line with the keys `line` comes after this key, ratings compared by `cmp`
    /// (the order the listing was sorted with).
    pub fn precedes(&self, line: &BoardKey, cmp: impl Fn(&f64, &f64) -> Ordering) -> bool {
        cmp(&f64::from_bits(self.0), &f64::from_bits(line.0))
            .then(self.1.cmp(&line.1))
            .then(line.2.cmp(&self.2))
            == Ordering::Greater
    }

    /// The keys of a board line.
    pub fn of(r: &BoardRow) -> Self {
        BoardKey::new(r.rating, r.games, r.player_id.0)
    }
}

/// The players listed at one threshold, in board order, with their ranks among them.
#[derive(Debug)]
struct Listing {
    /// Positions in [`Board::rows`].
    rows: Vec<u32>,
    /// Competition rank on the exact rating (1, 2, 2, 4), as SQL's `rank()`.
    ranks: Vec<u32>,
}

impl Listing {
    fn new(rows: &[BoardRow], threshold: i64) -> Self {
        let mut out = Listing {
            rows: Vec::new(),
            ranks: Vec::new(),
        };
        let mut previous: Option<(f64, u32)> = None;
        for (i, r) in rows.iter().enumerate() {
            if r.games < threshold {
                continue;
            }
            let rank = match previous {
                Some((rating, rank)) if pg_cmp(rating, r.rating) == Ordering::Equal => rank,
                _ => out.rows.len() as u32 + 1,
            };
            previous = Some((r.rating, rank));
            out.rows.push(i as u32);
            out.ranks.push(rank);
        }
        out
    }
}

/// What a page of the board shows.
#[derive(Debug, Clone, Copy)]
pub struct BoardQuery<'a> {
    /// Players with fewer rated games are not listed (0 or 1: everyone with a rated game).
    pub threshold: i64,
    /// Only players of this country (exact); filtered after ranking, so ranks stay.
    pub country: Option<&'a str>,
    /// Only players of this club, in any case; filtered after ranking.
    pub club: Option<&'a str>,
    pub limit: i64,
    /// Lines skipped after the start.
    pub offset: i64,
    /// The page starts after the line with these keys (a cursor), wherever it is now; found
    /// by binary search, so a deep page costs what the first does.
    pub after: Option<BoardKey>,
}

/// A page of the board: the number of lines of the whole listing, (rank, line) of the page,
/// and whether more lines follow it.
pub struct BoardPage<'a> {
    pub total: i64,
    pub items: Vec<(u32, &'a BoardRow)>,
    pub more: bool,
}

/// The current standings of one pool, in leaderboard order, at one pair of versions.
#[derive(Debug)]
pub struct Board {
    /// The pool row in the board's snapshot (its parameters decide the default threshold).
    pub pool: RatingPoolRow,
    pub version: BoardVersion,
    rows: Vec<BoardRow>,
    /// Country and lowercased club of each row, interned (0: none) for quick filtering.
    country_of: Vec<u32>,
    club_of: Vec<u32>,
    countries: HashMap<String, u32>,
    clubs: HashMap<String, u32>,
    /// The pool's own threshold and the listing of everyone, made with the board.
    default_threshold: i64,
    default_listing: Listing,
    everyone: Listing,
    /// Other thresholds asked for, made on first use (the latest few).
    extra: Mutex<Vec<(i64, Arc<Listing>)>>,
}

/// Numbers the distinct values of `key` over `rows` (0: none); `norm` makes the value that is
/// matched (computed once per distinct value).
fn intern(
    rows: &[BoardRow],
    key: impl Fn(&BoardRow) -> Option<&str>,
    norm: impl Fn(&str) -> String,
) -> (Vec<u32>, HashMap<String, u32>) {
    let mut seen: HashMap<&str, u32> = HashMap::new();
    let mut keys: HashMap<String, u32> = HashMap::new();
    let of = rows
        .iter()
        .map(|r| match key(r) {
            None => 0,
            Some(v) => *seen.entry(v).or_insert_with(|| {
                let next = keys.len() as u32 + 1;
                *keys.entry(norm(v)).or_insert(next)
            }),
        })
        .collect();
    (of, keys)
}

impl Board {
    /// The pool's own threshold of rated games (fewer: provisional).
    pub fn default_threshold(&self) -> i64 {
        self.default_threshold
    }

    /// A board of `rows` (players without a rated game are dropped); `default_threshold` is the
    /// pool's `min_games_listed`.
    pub fn new(
        pool: RatingPoolRow,
        leaderboard_version: i64,
        mut rows: Vec<BoardRow>,
        default_threshold: i64,
    ) -> Self {
        rows.retain(|r| r.games > 0);
        rows.sort_unstable_by(board_order);
        let (country_of, countries) = intern(&rows, |r| r.country.as_deref(), str::to_string);
        let (club_of, clubs) = intern(&rows, |r| r.club.as_deref(), str::to_lowercase);
        let default_threshold = default_threshold.max(1);
        Board {
            version: BoardVersion {
                pool: pool.version,
                leaderboard: leaderboard_version,
            },
            pool,
            default_listing: Listing::new(&rows, default_threshold),
            everyone: Listing::new(&rows, 1),
            default_threshold,
            rows,
            country_of,
            club_of,
            countries,
            clubs,
            extra: Mutex::new(Vec::new()),
        }
    }

    /// Players with at least one rated game.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn with_listing<T>(&self, threshold: i64, f: impl FnOnce(&Listing) -> T) -> T {
        let threshold = threshold.max(1);
        if threshold == 1 {
            return f(&self.everyone);
        }
        if threshold == self.default_threshold {
            return f(&self.default_listing);
        }
        let found = lock(&self.extra)
            .iter()
            .find(|(t, _)| *t == threshold)
            .map(|(_, l)| l.clone());
        let listing = match found {
            Some(l) => l,
            None => {
                // Made outside the lock; two requests may both make it, one is kept.
                let made = Arc::new(Listing::new(&self.rows, threshold));
                let mut extra = lock(&self.extra);
                if !extra.iter().any(|(t, _)| *t == threshold) {
                    if extra.len() >= EXTRA_LISTINGS {
                        extra.remove(0);
                    }
                    extra.push((threshold, made.clone()));
                }
                made
            }
        };
        f(&listing)
    }

    /// One page of a listing, with the listing's total.
    pub fn page(&self, q: &BoardQuery<'_>) -> BoardPage<'_> {
        let offset = usize::try_from(q.offset.max(0)).unwrap_or(usize::MAX);
        let limit = usize::try_from(q.limit.max(0)).unwrap_or(usize::MAX);
        let empty = BoardPage {
            total: 0,
            items: Vec::new(),
            more: false,
        };
        // A filter value no listed player has matches nobody.
        let country = match q.country {
            None => None,
            Some(c) => match self.countries.get(c) {
                Some(&k) => Some(k),
                None => return empty,
            },
        };
        let club = match q.club {
            None => None,
            Some(c) => match self.clubs.get(&c.to_lowercase()) {
                Some(&k) => Some(k),
                None => return empty,
            },
        };
        self.with_listing(q.threshold, |listing| {
            let item = |j: usize| (listing.ranks[j], &self.rows[listing.rows[j] as usize]);
            let start = q.after.map_or(0, |k| {
                listing.rows.partition_point(|&i| {
                    !k.precedes(&BoardKey::of(&self.rows[i as usize]), |a, b| pg_cmp(*a, *b))
                })
            });
            if country.is_none() && club.is_none() {
                let n = listing.rows.len();
                let from = start.saturating_add(offset).min(n);
                let to = from.saturating_add(limit).min(n);
                return BoardPage {
                    total: n as i64,
                    items: (from..to).map(item).collect(),
                    more: to < n,
                };
            }
            // Filtered: the total is a count over the listing (interned numbers compared in
            // memory); the page is the matches from `start` on.
            let (mut total, mut seen, mut more) = (0usize, 0usize, false);
            let mut items = Vec::new();
            for (j, &i) in listing.rows.iter().enumerate() {
                let i = i as usize;
                if country.is_some_and(|k| self.country_of[i] != k)
                    || club.is_some_and(|k| self.club_of[i] != k)
                {
                    continue;
                }
                total += 1;
                if j < start {
                    continue;
                }
                if seen >= offset {
                    if items.len() < limit {
                        items.push(item(j));
                    } else {
                        more = true;
                    }
                }
                seen += 1;
            }
            BoardPage {
                total: total as i64,
                items,
                more,
            }
        })
    }
}

/// Reads pool `pool_id`'s board: the pool row, its leaderboard version and the standings, in
/// one read-only snapshot so the board is exactly what the versions name.
pub fn load_board(conn: &mut PgConnection, pool_id: i64) -> Result<Board, ApiError> {
    let started = std::time::Instant::now();
    let (pool, lb_version, rows) = store::snapshot(conn, PoolId(pool_id))?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {pool_id}")))?;
    let read = started.elapsed();
    let params = super::pool_params(&pool)?;
    let board = Board::new(pool, lb_version, rows, i64::from(params.min_games_listed));
    tracing::debug!(
        pool = pool_id,
        rows = board.len(),
        read_ms = read.as_secs_f64() * 1000.0,
        total_ms = started.elapsed().as_secs_f64() * 1000.0,
        "read the leaderboard board"
    );
    Ok(board)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Slot {
    board: Option<Arc<Board>>,
    /// Held while this pool's board is read, so concurrent misses read it once.
    loading: Arc<Mutex<()>>,
    used: u64,
}

struct Slots {
    pools: HashMap<i64, Slot>,
    clock: u64,
    capacity: usize,
}

/// The boards of the most recently read pools (see the module documentation for why they are
/// never stale). Cloning shares the cache. Its lock is held only to look up or store a board,
/// never while one is read from the database or a page is cut.
#[derive(Clone)]
pub struct LeaderboardCache {
    slots: Arc<Mutex<Slots>>,
}

impl Default for LeaderboardCache {
    fn default() -> Self {
        Self::new(DEFAULT_POOLS)
    }
}

impl LeaderboardCache {
    /// A cache of at most `pools` boards (at least one).
    pub fn new(pools: usize) -> Self {
        LeaderboardCache {
            slots: Arc::new(Mutex::new(Slots {
                pools: HashMap::new(),
                clock: 0,
                capacity: pools.max(1),
            })),
        }
    }

    /// The board of `pool_id` read at exactly `version`, if held.
    pub fn get(&self, pool_id: i64, version: BoardVersion) -> Option<Arc<Board>> {
        let mut slots = lock(&self.slots);
        slots.clock += 1;
        let now = slots.clock;
        let slot = slots.pools.get_mut(&pool_id)?;
        let board = slot
            .board
            .as_ref()
            .filter(|b| b.version == version)?
            .clone();
        slot.used = now;
        Some(board)
    }

    /// The board of `pool_id` at `version`, or `load`'s (which is stored). Concurrent misses
    /// of one pool wait for one load. The loaded board may be newer than `version` if the pool
    /// changed meanwhile: callers answer from `board.version`.
    pub fn get_or_load<E>(
        &self,
        pool_id: i64,
        version: BoardVersion,
        load: impl FnOnce() -> Result<Board, E>,
    ) -> Result<Arc<Board>, E> {
        if let Some(b) = self.get(pool_id, version) {
            return Ok(b);
        }
        let loading = {
            let mut slots = lock(&self.slots);
            slots.clock += 1;
            let now = slots.clock;
            slots
                .pools
                .entry(pool_id)
                .or_insert_with(|| Slot {
                    board: None,
                    loading: Arc::new(Mutex::new(())),
                    used: now,
                })
                .loading
                .clone()
        };
        let _loading = lock(&loading);
        if let Some(b) = self.get(pool_id, version) {
            return Ok(b);
        }
        let board = Arc::new(load()?);
        self.store(pool_id, board.clone(), loading.clone());
        Ok(board)
    }

    /// Stores `board` as the pool's, evicting the least recently used pools beyond capacity.
    /// The boards it lets go are dropped after the lock is released (freeing one takes time).
    fn store(&self, pool_id: i64, board: Arc<Board>, loading: Arc<Mutex<()>>) {
        let mut released: Vec<Arc<Board>> = Vec::new();
        {
            let mut slots = lock(&self.slots);
            slots.clock += 1;
            let now = slots.clock;
            let slot = slots.pools.entry(pool_id).or_insert_with(|| Slot {
                board: None,
                loading,
                used: now,
            });
            released.extend(slot.board.replace(board));
            slot.used = now;
            while slots.pools.len() > slots.capacity {
                let oldest = slots
                    .pools
                    .iter()
                    .filter(|(id, _)| **id != pool_id)
                    .min_by_key(|(_, s)| s.used)
                    .map(|(id, _)| *id);
                match oldest.and_then(|id| slots.pools.remove(&id)) {
                    Some(evicted) => released.extend(evicted.board),
                    None => break,
                }
            }
        }
        drop(released);
    }

    /// The pools whose boards are held.
    pub fn pools(&self) -> Vec<i64> {
        let slots = lock(&self.slots);
        let mut ids: Vec<i64> = slots
            .pools
            .iter()
            .filter(|(_, s)| s.board.is_some())
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }
}

#[cfg(test)]
mod tests;
