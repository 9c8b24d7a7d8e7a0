//! The instance's search index of the registry's names (issue 42): the players', the
//! tournaments' and the rating pools' folded names in memory with a trigram index (`names`), answering the lists'
//! `q` as PostgreSQL answers it (`trgm`: pg_trgm's word similarity, same ranks, same order),
//! without scoring every match in the database.
//!
//! PostgreSQL stays the source of truth, and a search sees every name change committed before
//! it, whoever made it (through this instance, another one, or straight into the tables):
//! every transaction that changes a searched name moves the database's search stamp on by one
//! at commit and announces it after the rows it changed (migration `search_stamp`: gapless, in
//! commit order). A search reads the stamp (one primary-key read) and is answered from the
//! index only once the index has applied that stamp: it waits up to [`WAIT`] for the
//! listener to bring it, and is otherwise answered by PostgreSQL.
//!
//! The players' index holds what their list shows of each player (club, linked account,
//! times; any change to a player row moves the stamp), so an anonymous search of the players
//! is answered from memory on the worker's own thread, with no connection
//! ([`SearchIndex::current`], then [`SearchIndex::held_players`]): the stamp it needs is read
//! by one thread for every search that asked meanwhile (`stamps`). A tournaments' search reads
//! its rows from PostgreSQL (their filters are applied there), and so does a pools' search.
//!
//! The index is built on a thread of its own with its own connection, from one snapshot of
//! the tables and the stamp they are at, once the listener listens (every later commit is
//! then announced to it), and built again whenever the listener has listened anew (changes
//! may have gone unannounced meanwhile), a stamp arrives out of order, or a table was emptied.
//! Between builds it reads again the rows named by `player:<id>`, `tournament-name:<id>` and
//! `pool-name:<id>` (`infra::live`) and counts as having applied the last stamp that arrived in order. Until it
//! is built, and in a database whose character type is neither `C` nor UTF-8, every search is
//! answered by PostgreSQL. Any collation will do: the lists order names by their bytes.

mod codes;
mod lists;
pub mod names;
mod plain;
mod stamps;
pub mod trgm;
mod walk;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use crate::db::PgConnection;

use crate::db::search as store;
use crate::infra::live::{LiveHub, NameChange};
use crate::infra::metrics::CacheMeter;
pub use names::{Hit, NameRow, Names, Order, Query};
pub use trgm::Words;

/// How long the index waits for announcements before it looks at the listener again.
const TICK: Duration = Duration::from_millis(20);
/// How long a search answered from memory waits for the stamp's read before PostgreSQL answers
/// it (a read takes one round trip; longer only when the database is slow or gone).
const STAMP_WAIT: Duration = Duration::from_secs(1);
/// How long a search waits for the index to apply the stamp it read before PostgreSQL answers
/// it (the listener looks for announcements every 10 ms).
pub const WAIT: Duration = Duration::from_millis(50);
/// Rows read per query while building.
const BATCH: i64 = 50_000;

#[derive(Default)]
struct Shared {
    players: RwLock<Names>,
    tournaments: RwLock<Names>,
    pools: RwLock<Names>,
    /// The search stamp the names are at (or past); `None`: not built (or not usable).
    applied: Mutex<Option<i64>>,
    /// Signalled whenever `applied` moves.
    moved: Condvar,
    /// Milliseconds the last full build took (0: none yet).
    build_ms: AtomicU64,
    /// Searches answered by the index (hits) and by PostgreSQL (misses).
    meter: OnceLock<CacheMeter>,
    /// The searches waiting for a read of the database's stamp ([`SearchIndex::current`]).
    stamps: stamps::Stamps,
}

/// The instance's search index (cheap to clone; the thread that keeps it ends with the last
/// clone).
#[derive(Clone, Default)]
pub struct SearchIndex {
    shared: Arc<Shared>,
}

/// What the index holds, for the logs and the measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub players: usize,
    pub tournaments: usize,
    pub pools: usize,
    pub bytes: usize,
    pub build_ms: u64,
    /// The search stamp it has applied (`None`: not built).
    pub stamp: Option<i64>,
}

impl SearchIndex {
    /// The tournaments' names, once the index has applied the database's search stamp (read
    /// by `stamp` only when the index is built); `None`: ask PostgreSQL. Counted in
    /// `tourney_cache_reads_total{cache="search"}`.
    pub fn tournaments<E>(
        &self,
        stamp: impl FnOnce() -> Result<i64, E>,
    ) -> Result<Option<RwLockReadGuard<'_, Names>>, E> {
        Ok(self.reached(stamp)?.then(|| read(&self.shared.tournaments)))
    }

    /// The rating pools' names, once the index has applied the database's search stamp, as
    /// [`SearchIndex::tournaments`] gives the tournaments'.
    pub fn pools<E>(
        &self,
        stamp: impl FnOnce() -> Result<i64, E>,
    ) -> Result<Option<RwLockReadGuard<'_, Names>>, E> {
        Ok(self.reached(stamp)?.then(|| read(&self.shared.pools)))
    }

    /// Whether the index is built (and usable): until it is, PostgreSQL answers every search.
    pub fn built(&self) -> bool {
        self.applied().is_some()
    }

    /// A search of the players' names in one round trip while the index is current: `search`
    /// ranks the names as the index holds them now (`None`: it cannot, PostgreSQL answers),
    /// and `read` fetches what the answer needs (the page's rows) with the database's search
    /// stamp, in one statement. The answer stands when the index had already applied that
    /// stamp as it searched: every name change committed before the read is in it. Else the
    /// index waits for that stamp (up to [`WAIT`]), then searches and reads again, and that
    /// answer stands as [`SearchIndex::tournaments`]' does (the index is at a stamp read
    /// after the search began). `None`: ask PostgreSQL. Counted as `tournaments` counts.
    pub fn answer_players<H, T, E>(
        &self,
        search: impl Fn(&Names) -> Option<H>,
        mut read: impl FnMut(H) -> Result<(T, i64), E>,
    ) -> Result<Option<T>, E> {
        let names = &self.shared.players;
        // Copied out: the lock is not held while searching (nor while waiting).
        let applied = *self.applied();
        // The names are at `applied` or past it.
        let searched = applied.and_then(|a| Some((a, search(&self::read(names))?)));
        let answer = match searched {
            None => None,
            Some((applied, hits)) => {
                let (first, stamp) = read(hits)?;
                if stamp <= applied {
                    Some(first)
                } else if self.wait_for(stamp, WAIT) {
                    match search(&self::read(names)) {
                        Some(hits) => Some(read(hits)?.0),
                        None => None,
                    }
                } else {
                    None
                }
            }
        };
        self.count(answer.is_some());
        Ok(answer)
    }

    /// Whether the index has applied every name change committed before this call: the
    /// database's stamp, read after the call began (one read for every search asking
    /// meanwhile, `stamps`), is one the index has applied. `false`: not built, the stamp not
    /// read within [`STAMP_WAIT`], or not yet applied (PostgreSQL answers, waiting for it as
    /// [`SearchIndex::answer_players`] does). Takes no connection and blocks no thread.
    pub async fn current(&self) -> bool {
        if !self.built() {
            return false;
        }
        let asked = self.shared.stamps.ask();
        match tokio::time::timeout(STAMP_WAIT, asked).await {
            Ok(Ok(stamp)) => self.applied().is_some_and(|a| a >= stamp),
            _ => false,
        }
    }

    /// A search of the players answered from the names as the index holds them now, with
    /// every row it shows (`f` gives `None` where the index cannot: PostgreSQL answers, and
    /// counts it). Call it once [`SearchIndex::current`] says so. Counted as a hit.
    pub fn held_players<T>(&self, f: impl FnOnce(&Names) -> Option<T>) -> Option<T> {
        let answer = f(&read(&self.shared.players));
        if answer.is_some() {
            self.count(true);
        }
        answer
    }

    /// Counts a search: answered by the index (a hit) or by PostgreSQL (a miss).
    fn count(&self, hit: bool) {
        if let Some(m) = self.shared.meter.get() {
            if hit { &m.hits } else { &m.misses }.inc();
        }
    }

    /// Whether the index is at the stamp `stamp` reads (waiting up to [`WAIT`]), counted.
    fn reached<E>(&self, stamp: impl FnOnce() -> Result<i64, E>) -> Result<bool, E> {
        let built = self.applied().is_some();
        let reached = built && self.wait_for(stamp()?, WAIT);
        self.count(reached);
        Ok(reached)
    }

    /// Whether the index has applied `stamp`, waiting for it at most `wait`.
    fn wait_for(&self, stamp: i64, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        let mut applied = self.applied();
        loop {
            match *applied {
                None => return false,
                Some(a) if a >= stamp => return true,
                Some(_) => {}
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            applied = match self.shared.moved.wait_timeout(applied, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// Counts its searches on `meter` (hits: answered by the index).
    pub fn meter(&self, meter: CacheMeter) {
        let _ = self.shared.meter.set(meter);
    }

    /// What it holds now.
    pub fn stats(&self) -> Stats {
        let (p, t) = (read(&self.shared.players), read(&self.shared.tournaments));
        let pools = read(&self.shared.pools);
        Stats {
            players: p.len(),
            tournaments: t.len(),
            pools: pools.len(),
            bytes: p.bytes() + t.bytes() + pools.bytes(),
            build_ms: self.shared.build_ms.load(Ordering::Acquire),
            stamp: *self.applied(),
        }
    }

    /// What it holds, for `GET /metrics` (`tourney_cache_bytes{cache="search"}`, its names in
    /// `tourney_cache_entries`; no budget).
    pub fn sample(&self) -> crate::infra::metrics::CacheSample {
        let s = self.stats();
        crate::infra::metrics::CacheSample {
            cache: "search",
            bytes: s.bytes as u64,
            entries: (s.players + s.tournaments + s.pools) as u64,
            budget: 0,
        }
    }

    fn applied(&self) -> MutexGuard<'_, Option<i64>> {
        self.shared
            .applied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the thread that builds the index and keeps it current from `live`'s
    /// announcements.
    pub fn start(&self, live: &LiveHub) {
        let (weak, live) = (Arc::downgrade(&self.shared), live.clone());
        let names = live.names();
        let (stamps, url) = (weak.clone(), live.database_url().to_string());
        let spawned = std::thread::Builder::new()
            .name("tourney-search".into())
            .spawn(move || keep(weak, live, names))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name("tourney-stamps".into())
                    .spawn(move || stamps::serve(stamps, url))
            });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the search index");
        }
    }
}

impl Shared {
    /// The index is at `stamp` (`None`: not usable until built again).
    fn set_applied(&self, stamp: Option<i64>) {
        *self.applied.lock().unwrap_or_else(|e| e.into_inner()) = stamp;
        self.moved.notify_all();
    }
}

fn read(lock: &RwLock<Names>) -> RwLockReadGuard<'_, Names> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

fn write(lock: &RwLock<Names>) -> std::sync::RwLockWriteGuard<'_, Names> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

/// The folded form of an ASCII search text (`tourney_fold` leaves ASCII as it is but for
/// case and the backtick, which it makes an apostrophe); `None` for any other text (ask the
/// database: `db::search::fold`).
pub fn fold_ascii(q: &str) -> Option<String> {
    q.is_ascii().then(|| {
        q.chars()
            .map(|c| match c {
                '`' => '\'',
                c => c.to_ascii_lowercase(),
            })
            .collect()
    })
}

/// Rows of a ranked page, each with its similarity (and the count), and the count.
pub type Ranked<T> = (Vec<(T, f32, Option<i64>)>, Option<i64>);

/// The rows read for `hits` (by id, in any order) in the hits' order, each with its hit's
/// similarity and `total`, as a list's page from PostgreSQL carries them; a hit whose row is
/// gone (removed since the search) is left out.
pub fn in_hits_order<T>(
    hits: &[Hit],
    rows: Vec<T>,
    id: impl Fn(&T) -> i64,
    total: Option<i64>,
) -> Vec<(T, f32, Option<i64>)> {
    let mut rows: std::collections::HashMap<i64, T> =
        rows.into_iter().map(|r| (id(&r), r)).collect();
    hits.iter()
        .filter_map(|h| rows.remove(&h.id).map(|r| (r, h.score, total)))
        .collect()
}

/// A tournament or a rating pool as the index holds it: its name.
fn named_row((id, name, folded): store::NameRow) -> NameRow {
    NameRow {
        id,
        folded: folded.unwrap_or_else(|| name.to_lowercase()),
        name,
        tag: None,
        shown: None,
    }
}

/// A player as the index holds it: its name, country, and what else the players' list shows.
fn player_row((p, folded): (crate::db::models::Player, Option<String>)) -> NameRow {
    NameRow {
        id: p.id.0,
        folded: folded.unwrap_or_else(|| p.name.to_lowercase()),
        name: p.name,
        tag: p.country,
        shown: Some(names::Shown {
            club: p.club,
            user_id: p.user_id.map(|u| u.0),
            created_at: p.created_at,
            updated_at: p.updated_at,
        }),
    }
}

/// The rows `rows` of `list` as the index holds them.
fn rows(
    conn: &mut PgConnection,
    list: store::List,
    rows: store::Rows,
) -> store::Answer<Vec<NameRow>> {
    Ok(match list {
        store::List::Players => store::players_whole(conn, rows)?
            .into_iter()
            .map(player_row)
            .collect(),
        store::List::Tournaments => store::tournament_names(conn, rows)?
            .into_iter()
            .map(named_row)
            .collect(),
        store::List::Pools => store::pool_names(conn, rows)?
            .into_iter()
            .map(named_row)
            .collect(),
    })
}

/// Reads a whole list by id, in batches.
fn load(conn: &mut PgConnection, list: store::List, words: Words) -> store::Answer<Names> {
    let (mut batches, mut after) = (Vec::new(), 0);
    loop {
        let batch = rows(conn, list, store::Rows::After(after, BATCH))?;
        let Some(last) = batch.last() else {
            return Ok(Names::of_batches(batches, words));
        };
        after = last.id;
        batches.push(batch);
    }
}

/// The changes announced and not yet read again.
#[derive(Default)]
struct Pending {
    players: HashSet<i64>,
    tournaments: HashSet<i64>,
    pools: HashSet<i64>,
}

/// The keeper's state between rounds.
struct Keeper {
    live: LiveHub,
    changes: Receiver<NameChange>,
    conn: Option<PgConnection>,
    pending: Pending,
    /// The listener's `listens` the index was built under.
    built_under: Option<u64>,
    /// The last stamp announced in order since the build (`None`: not built).
    seen: Option<i64>,
    /// An announcement was missed (a stamp out of order) or a table emptied: build again.
    stale: bool,
    /// The database's order is not bytewise: the index stays unused.
    unusable: bool,
}

/// Builds the index and keeps it current until the last handle is dropped.
fn keep(weak: Weak<Shared>, live: LiveHub, changes: Receiver<NameChange>) {
    let mut k = Keeper {
        live,
        changes,
        conn: None,
        pending: Pending::default(),
        built_under: None,
        seen: None,
        stale: false,
        unusable: false,
    };
    loop {
        match k.changes.recv_timeout(TICK) {
            Ok(c) => k.take(c),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        while let Ok(c) = k.changes.try_recv() {
            k.take(c);
        }
        let Some(shared) = weak.upgrade() else {
            return;
        };
        if k.unusable {
            continue;
        }
        if let Err(e) = k.round(&shared) {
            tracing::warn!(error = %e, "search index: catching up failed; PostgreSQL answers meanwhile");
            shared.set_applied(None);
            (k.conn, k.built_under, k.seen) = (None, None, None);
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

impl Keeper {
    /// Takes one announcement: a row to read again, or a stamp (in order, or missed ones).
    fn take(&mut self, change: NameChange) {
        match change {
            NameChange::Player(id) => {
                self.pending.players.insert(id);
            }
            NameChange::Tournament(id) => {
                self.pending.tournaments.insert(id);
            }
            NameChange::Pool(id) => {
                self.pending.pools.insert(id);
            }
            NameChange::Stamp(n) => match self.seen {
                Some(s) if n == s + 1 => self.seen = Some(n),
                // Committed before the build's snapshot: already in it.
                Some(s) if n <= s => {}
                Some(_) => self.stale = true,
                None => {}
            },
            NameChange::Reset => self.stale = true,
        }
    }

    /// One round: build when needed, read again the rows announced, and say which stamp the
    /// index is at.
    fn round(&mut self, shared: &Shared) -> Result<(), String> {
        let listens = self.live.listens();
        if listens == 0 {
            // Not listened yet: a change committed after the build could go unannounced.
            return Ok(());
        }
        if self.conn.is_none() {
            let url = self.live.database_url().to_string();
            self.conn = Some(crate::db::connect(&url).map_err(|e| e.to_string())?);
        }
        if self.built_under != Some(listens) || self.stale {
            self.build(shared)?;
            self.built_under = Some(listens);
        }
        let Some(seen) = self.seen else {
            return Ok(());
        };
        let applied = *shared.applied.lock().unwrap_or_else(|e| e.into_inner());
        let p = &self.pending;
        let empty = p.players.is_empty() && p.tournaments.is_empty() && p.pools.is_empty();
        if empty && applied == Some(seen) {
            return Ok(());
        }
        // Every row changed up to `seen` was announced before it: read them again.
        self.apply(shared)?;
        shared.set_applied(Some(seen));
        Ok(())
    }

    fn conn(&mut self) -> &mut PgConnection {
        self.conn.as_mut().expect("connected in round")
    }

    /// Reads the three lists whole, and the stamp they are at, in one snapshot, and puts them
    /// in place of the index's.
    fn build(&mut self, shared: &Shared) -> Result<(), String> {
        let started = Instant::now();
        let err = |e: store::Error| e.to_string();
        let ctype = store::character_type(self.conn()).map_err(err)?;
        let Some(words) = words_of(&ctype) else {
            tracing::warn!(
                ctype,
                "search index: the database's character type is neither C nor UTF-8; \
                 PostgreSQL answers every search"
            );
            self.unusable = true;
            return Ok(());
        };
        // What was announced before the snapshot is in it.
        (self.pending, self.stale) = (Pending::default(), false);
        let (stamp, players, tournaments, pools) = store::in_snapshot(self.conn(), |c| {
            let stamp = store::stamp(c)?;
            let players = load(c, store::List::Players, words)?;
            let tournaments = load(c, store::List::Tournaments, words)?;
            Ok((
                stamp,
                players,
                tournaments,
                load(c, store::List::Pools, words)?,
            ))
        })
        .map_err(err)?;
        *write(&shared.players) = players;
        *write(&shared.tournaments) = tournaments;
        *write(&shared.pools) = pools;
        self.seen = Some(stamp);
        shared.set_applied(Some(stamp));
        let ms = started.elapsed().as_millis() as u64;
        shared.build_ms.store(ms, Ordering::Release);
        tracing::info!(
            players = read(&shared.players).len(),
            tournaments = read(&shared.tournaments).len(),
            pools = read(&shared.pools).len(),
            bytes = read(&shared.players).bytes()
                + read(&shared.tournaments).bytes()
                + read(&shared.pools).bytes(),
            stamp,
            ms,
            "search index built"
        );
        Ok(())
    }

    /// Reads the pending rows again: present ones replace the index's, missing ones leave it.
    fn apply(&mut self, shared: &Shared) -> Result<(), String> {
        let pending = std::mem::take(&mut self.pending);
        let lists = [
            (pending.players, store::List::Players, &shared.players),
            (
                pending.tournaments,
                store::List::Tournaments,
                &shared.tournaments,
            ),
            (pending.pools, store::List::Pools, &shared.pools),
        ];
        for (ids, list, names) in lists {
            let ids: Vec<i64> = ids.into_iter().collect();
            for chunk in ids.chunks(1000) {
                let rows =
                    rows(self.conn(), list, store::Rows::Ids(chunk)).map_err(|e| e.to_string())?;
                let mut names = write(names);
                let found: HashSet<i64> = rows.iter().map(|r| r.id).collect();
                for id in chunk.iter().filter(|id| !found.contains(id)) {
                    names.remove(*id);
                }
                for r in rows {
                    names.upsert(r);
                }
            }
            // Names added or renamed since the list was ordered are looked at in full by every
            // search: past a share of the list, order it again (off the lock, then swapped).
            if read(names).wants_ordering() {
                let again = read(names).ordered_again();
                *write(names) = again;
            }
        }
        Ok(())
    }
}

/// What pg_trgm takes for a word under the database's `LC_CTYPE`, if the index can answer as
/// the database does at all. The collation does not matter: the lists order names by their
/// bytes in any database (`COLLATE "C"`, `db::named::Named::name`), as the index does.
fn words_of(ctype: &str) -> Option<Words> {
    if ctype == "C" || ctype == "POSIX" {
        return Some(Words::Ascii);
    }
    let lower = ctype.to_ascii_lowercase();
    (lower.ends_with(".utf-8") || lower.ends_with(".utf8")).then_some(Words::Unicode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_known_character_type() {
        assert_eq!(words_of("C"), Some(Words::Ascii));
        assert_eq!(words_of("POSIX"), Some(Words::Ascii));
        assert_eq!(words_of("C.UTF-8"), Some(Words::Unicode));
        assert_eq!(words_of("en_US.utf8"), Some(Words::Unicode));
        assert_eq!(words_of("tr_TR.ISO-8859-9"), None);
    }

    #[test]
    fn ascii_folds_here_and_the_rest_in_the_database() {
        assert_eq!(fold_ascii("Kari N`s").as_deref(), Some("kari n's"));
        assert_eq!(fold_ascii("Øystein"), None);
    }

    #[test]
    fn an_index_answers_only_at_the_stamp_it_has_applied() {
        let s = SearchIndex::default();
        let never = || -> Result<i64, ()> { panic!("not read while the index is not built") };
        assert!(s.tournaments(never).unwrap().is_none());
        s.shared.set_applied(Some(4));
        let at = |n: i64| move || Ok::<_, ()>(n);
        assert!(s.tournaments(at(3)).unwrap().is_some());
        assert!(s.tournaments(at(4)).unwrap().is_some());
        // A stamp committed after what it applied: waits, then PostgreSQL answers.
        assert!(s.tournaments(at(5)).unwrap().is_none());
        assert_eq!(s.tournaments(|| Err::<i64, _>("down")).err(), Some("down"));
        assert!(s.pools(at(4)).unwrap().is_some());
        assert!(s.pools(at(5)).unwrap().is_none());
        // Applied while a reader waits.
        let (waiting, keeper) = (s.clone(), s.clone());
        let reader = std::thread::spawn(move || waiting.wait_for(6, Duration::from_secs(60)));
        keeper.shared.set_applied(Some(6));
        assert!(reader.join().unwrap());
        s.shared.set_applied(None);
        assert!(!s.wait_for(1, Duration::ZERO));
    }

    /// `answer_players` with a read that answers the stamps `stamps` gives, one a read.
    fn answered(
        s: &SearchIndex,
        declines: bool,
        stamps: &mut dyn Iterator<Item = Result<i64, &'static str>>,
    ) -> (Result<Option<usize>, &'static str>, usize) {
        let mut reads = 0;
        let answer = s.answer_players(
            |_names| (!declines).then_some(()),
            |()| {
                reads += 1;
                stamps.next().expect("a stamp a read").map(|st| (reads, st))
            },
        );
        (answer, reads)
    }

    #[test]
    fn an_answer_in_one_read_stands_only_at_a_stamp_the_index_had_applied() {
        let s = SearchIndex::default();
        let none = &mut std::iter::empty();
        // Not built, or the search declines: PostgreSQL answers, nothing read.
        assert_eq!(answered(&s, false, none), (Ok(None), 0));
        s.shared.set_applied(Some(4));
        assert_eq!(answered(&s, true, none), (Ok(None), 0));
        // Read at a stamp applied (or older: a replica): the first answer stands.
        assert_eq!(
            answered(&s, false, &mut [Ok(4)].into_iter()),
            (Ok(Some(1)), 1)
        );
        assert_eq!(
            answered(&s, false, &mut [Ok(2)].into_iter()),
            (Ok(Some(1)), 1)
        );
        // A read's error is the answer.
        assert_eq!(
            answered(&s, false, &mut [Err("down")].into_iter()),
            (Err("down"), 1)
        );
        // Read at a stamp the index had not applied, that never comes: PostgreSQL answers.
        assert_eq!(answered(&s, false, &mut [Ok(5)].into_iter()), (Ok(None), 1));
        // ... that comes while it waits: searched and read again, the second answer stands
        // whatever stamp it read (the index is at one read after the search began).
        let keeper = s.clone();
        let applies = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            keeper.shared.set_applied(Some(6));
        });
        let stamps = &mut [Ok(6), Ok(9)].into_iter();
        assert_eq!(answered(&s, false, stamps), (Ok(Some(2)), 2));
        applies.join().unwrap();
    }

    #[test]
    fn stamps_in_order_advance_and_a_missed_one_rebuilds() {
        let (_tx, rx) = std::sync::mpsc::channel();
        let mut k = Keeper {
            live: LiveHub::new("postgres://nowhere"),
            changes: rx,
            conn: None,
            pending: Pending::default(),
            built_under: None,
            seen: None,
            stale: false,
            unusable: false,
        };
        // Before a build: nothing counts.
        k.take(NameChange::Stamp(3));
        assert_eq!(k.seen, None);
        k.seen = Some(3);
        k.take(NameChange::Stamp(2));
        k.take(NameChange::Player(7));
        k.take(NameChange::Stamp(4));
        assert_eq!((k.seen, k.stale), (Some(4), false));
        assert!(k.pending.players.contains(&7));
        k.take(NameChange::Stamp(6));
        assert!(k.stale);
        k.stale = false;
        k.take(NameChange::Reset);
        assert!(k.stale);
    }
}
