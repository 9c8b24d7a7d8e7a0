//! The instance's search index of the registry's names (issue 42): the players' and the
//! tournaments' folded names in memory with a trigram index (`names`), answering the lists'
//! `q` as PostgreSQL answers it (`trgm`: pg_trgm's word similarity, same ranks, same order),
//! without scoring every match in the database.
//!
//! PostgreSQL stays the source of truth. The index is built at start from the tables (by id,
//! in batches) on a thread of its own with its own connection, and kept current from the
//! announcements the listener already receives (`infra::live`): `player:<id>` and
//! `tournament-name:<id>` (migration `search_names`) name the row to read again. A list is
//! answered from the index only while the index has caught up with the list's generation
//! (the one its kept reads are checked against): after any change, announced or made through
//! this instance, the index first sends a marker of its own on `tourney_changes` and waits for
//! it to come back through the listener (notifications arrive in commit order, so every change
//! committed before it has arrived by then), reads the named rows again, and only then counts
//! as current at the generation it saw before the marker. Until the index is built, while it
//! catches up, while the listener is not listening, and in a database whose collation or
//! character type is not `C`, the lists are answered by PostgreSQL as before.

pub mod names;
pub mod trgm;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use diesel::{Connection, PgConnection};

use crate::db::search as store;
use crate::infra::live::{Generation, LiveHub, NameChange, Subject};
pub use names::{Hit, NameRow, Names, Order};
pub use trgm::Words;

/// How long the index waits for announcements before it looks at the generations again.
const TICK: Duration = Duration::from_millis(20);
/// How long it waits for its marker to come back before it tries again.
const MARKER_WAIT: Duration = Duration::from_secs(5);
/// Rows read per query while building.
const BATCH: i64 = 50_000;

/// The generations of the two lists the index has caught up with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Caught {
    players: Generation,
    tournaments: Generation,
}

#[derive(Default)]
struct Shared {
    players: RwLock<Names>,
    tournaments: RwLock<Names>,
    caught: Mutex<Option<Caught>>,
    /// Milliseconds the last full build took (0: none yet).
    build_ms: AtomicU64,
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
    pub bytes: usize,
    pub build_ms: u64,
    pub current: bool,
}

impl SearchIndex {
    /// The players' names, when the index has caught up with the players' generation
    /// `current` (`LiveHub::generation(Subject::Players)`); `None`: ask PostgreSQL.
    pub fn players(&self, current: Option<Generation>) -> Option<RwLockReadGuard<'_, Names>> {
        let caught = (*self.lock())?;
        (Some(caught.players) == current).then(|| read(&self.shared.players))
    }

    /// The tournaments' names, as [`SearchIndex::players`].
    pub fn tournaments(&self, current: Option<Generation>) -> Option<RwLockReadGuard<'_, Names>> {
        let caught = (*self.lock())?;
        (Some(caught.tournaments) == current).then(|| read(&self.shared.tournaments))
    }

    /// What it holds now.
    pub fn stats(&self) -> Stats {
        let (p, t) = (read(&self.shared.players), read(&self.shared.tournaments));
        Stats {
            players: p.len(),
            tournaments: t.len(),
            bytes: p.bytes() + t.bytes(),
            build_ms: self.shared.build_ms.load(Ordering::Acquire),
            current: self.lock().is_some(),
        }
    }

    /// What it holds, for `GET /metrics` (`tourney_cache_bytes{cache="search"}`, its names in
    /// `tourney_cache_entries`; no budget).
    pub fn sample(&self) -> crate::infra::metrics::CacheSample {
        let s = self.stats();
        crate::infra::metrics::CacheSample {
            cache: "search",
            bytes: s.bytes as u64,
            entries: (s.players + s.tournaments) as u64,
            budget: 0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Caught>> {
        self.shared.caught.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the thread that builds the index and keeps it current from `live`'s
    /// announcements.
    pub fn start(&self, live: &LiveHub) {
        let (weak, live) = (Arc::downgrade(&self.shared), live.clone());
        let names = live.names();
        let spawned = std::thread::Builder::new()
            .name("tourney-search".into())
            .spawn(move || keep(weak, live, names));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the search index");
        }
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

fn name_row((id, name, folded, tag): store::NameRow) -> NameRow {
    NameRow {
        id,
        folded: folded.unwrap_or_else(|| name.to_lowercase()),
        name,
        tag,
    }
}

/// Reads a whole list by id, in batches.
fn load(
    conn: &mut PgConnection,
    batch: fn(&mut PgConnection, i64, i64) -> store::Answer<Vec<store::NameRow>>,
    words: Words,
) -> store::Answer<Names> {
    let (mut names, mut after) = (Names::new(words), 0);
    loop {
        let rows = batch(conn, after, BATCH)?;
        let Some(last) = rows.last() else {
            return Ok(names);
        };
        after = last.0;
        for r in rows {
            names.upsert(name_row(r));
        }
    }
}

/// The changes announced and not yet read again.
#[derive(Default)]
struct Pending {
    players: HashSet<i64>,
    tournaments: HashSet<i64>,
}

impl Pending {
    fn take(&mut self, change: NameChange) {
        match change {
            NameChange::Player(id) => {
                self.players.insert(id);
            }
            NameChange::Tournament(id) => {
                self.tournaments.insert(id);
            }
            NameChange::Marker(_) => {}
        }
    }

    fn is_empty(&self) -> bool {
        self.players.is_empty() && self.tournaments.is_empty()
    }
}

/// The keeper's state between rounds.
struct Keeper {
    live: LiveHub,
    changes: Receiver<NameChange>,
    conn: Option<PgConnection>,
    pending: Pending,
    /// The listener's `listens` the index was built under.
    built_under: Option<u64>,
    token: String,
    markers: u64,
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
        token: format!("{:016x}", rand::random::<u64>()),
        markers: 0,
        unusable: false,
    };
    loop {
        match k.changes.recv_timeout(TICK) {
            Ok(c) => k.pending.take(c),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        while let Ok(c) = k.changes.try_recv() {
            k.pending.take(c);
        }
        let Some(shared) = weak.upgrade() else {
            return;
        };
        if k.unusable {
            continue;
        }
        if let Err(e) = k.round(&shared) {
            tracing::warn!(error = %e, "search index: catching up failed; PostgreSQL answers meanwhile");
            *shared.caught.lock().unwrap_or_else(|e| e.into_inner()) = None;
            k.conn = None;
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

impl Keeper {
    /// One round: build when needed, catch up with the announced changes, and say which
    /// generations the index now answers for.
    fn round(&mut self, shared: &Shared) -> Result<(), String> {
        let listens = self.live.listens();
        let players = self.live.generation(Subject::Players);
        let tournaments = self.live.generation(Subject::Tournaments);
        let (Some(players), Some(tournaments)) = (players, tournaments) else {
            // Not listening: changes may go unseen.
            *shared.caught.lock().unwrap_or_else(|e| e.into_inner()) = None;
            return Ok(());
        };
        let now = Caught {
            players,
            tournaments,
        };
        let rebuild = self.built_under != Some(listens);
        if !rebuild
            && self.pending.is_empty()
            && *shared.caught.lock().unwrap_or_else(|e| e.into_inner()) == Some(now)
        {
            return Ok(());
        }
        if self.conn.is_none() {
            let url = self.live.database_url().to_string();
            self.conn = Some(PgConnection::establish(&url).map_err(|e| e.to_string())?);
        }
        if rebuild {
            self.build(shared)?;
            self.built_under = Some(listens);
            if self.unusable {
                return Ok(());
            }
        }
        self.wait_for_marker()?;
        self.apply(shared)?;
        if self.live.listens() != listens {
            return Ok(());
        }
        *shared.caught.lock().unwrap_or_else(|e| e.into_inner()) = Some(now);
        Ok(())
    }

    fn conn(&mut self) -> &mut PgConnection {
        self.conn.as_mut().expect("connected in round")
    }

    /// Reads both lists whole and puts them in place of the index's.
    fn build(&mut self, shared: &Shared) -> Result<(), String> {
        let started = Instant::now();
        let err = |e: store::Error| e.to_string();
        let (collate, ctype) = store::locale(self.conn()).map_err(err)?;
        let Some(words) = words_of(&collate, &ctype) else {
            tracing::warn!(
                collate,
                ctype,
                "search index: the database does not sort bytewise (collation C) or its \
                 character type is neither C nor UTF-8; PostgreSQL answers every search"
            );
            self.unusable = true;
            return Ok(());
        };
        self.pending = Pending::default();
        let players = load(self.conn(), store::players_after, words).map_err(err)?;
        let tournaments = load(self.conn(), store::tournaments_after, words).map_err(err)?;
        *write(&shared.players) = players;
        *write(&shared.tournaments) = tournaments;
        let ms = started.elapsed().as_millis() as u64;
        shared.build_ms.store(ms, Ordering::Release);
        tracing::info!(
            players = read(&shared.players).len(),
            tournaments = read(&shared.tournaments).len(),
            bytes = read(&shared.players).bytes() + read(&shared.tournaments).bytes(),
            ms,
            "search index built"
        );
        Ok(())
    }

    /// Sends a marker and collects the announcements until it comes back: every change
    /// committed before it is then pending.
    fn wait_for_marker(&mut self) -> Result<(), String> {
        self.markers += 1;
        let marker = format!("search:{}:{}", self.token, self.markers);
        store::announce(self.conn(), &marker).map_err(|e| e.to_string())?;
        let until = Instant::now() + MARKER_WAIT;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.changes.recv_timeout(left) {
                Ok(NameChange::Marker(m)) if m == marker => return Ok(()),
                Ok(c) => self.pending.take(c),
                Err(_) => return Err("the marker did not come back".into()),
            }
        }
    }

    /// Reads the pending rows again: present ones replace the index's, missing ones leave it.
    fn apply(&mut self, shared: &Shared) -> Result<(), String> {
        let pending = std::mem::take(&mut self.pending);
        let lists = [
            (
                pending.players,
                store::players_by_ids as ReadIds,
                &shared.players,
            ),
            (
                pending.tournaments,
                store::tournaments_by_ids,
                &shared.tournaments,
            ),
        ];
        for (ids, by_ids, names) in lists {
            let ids: Vec<i64> = ids.into_iter().collect();
            for chunk in ids.chunks(1000) {
                let rows = by_ids(self.conn(), chunk).map_err(|e| e.to_string())?;
                let mut names = write(names);
                let found: HashSet<i64> = rows.iter().map(|r| r.0).collect();
                for id in chunk.iter().filter(|id| !found.contains(id)) {
                    names.remove(*id);
                }
                for r in rows {
                    names.upsert(name_row(r));
                }
            }
        }
        Ok(())
    }
}

/// What pg_trgm takes for a word under the database's `LC_CTYPE`, if the index can answer as
/// the database does at all (names sorted bytewise: `LC_COLLATE` `C`).
fn words_of(collate: &str, ctype: &str) -> Option<Words> {
    let c = |s: &str| s == "C" || s == "POSIX";
    if !c(collate) {
        return None;
    }
    if c(ctype) {
        return Some(Words::Ascii);
    }
    let lower = ctype.to_ascii_lowercase();
    (lower.ends_with(".utf-8") || lower.ends_with(".utf8")).then_some(Words::Unicode)
}

type ReadIds = fn(&mut PgConnection, &[i64]) -> store::Answer<Vec<store::NameRow>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bytewise_order_with_a_known_character_type() {
        assert_eq!(words_of("C", "C"), Some(Words::Ascii));
        assert_eq!(words_of("POSIX", "C.UTF-8"), Some(Words::Unicode));
        assert_eq!(words_of("C", "en_US.utf8"), Some(Words::Unicode));
        assert_eq!(words_of("en_US.UTF-8", "en_US.UTF-8"), None);
        assert_eq!(words_of("C", "tr_TR.ISO-8859-9"), None);
    }

    #[test]
    fn ascii_folds_here_and_the_rest_in_the_database() {
        assert_eq!(fold_ascii("Kari N`s").as_deref(), Some("kari n's"));
        assert_eq!(fold_ascii("Øystein"), None);
    }

    #[test]
    fn an_index_not_built_answers_nothing() {
        let s = SearchIndex::default();
        let g = Some(Generation::new(1, 0));
        assert!(s.players(g).is_none());
        assert!(s.tournaments(g).is_none());
        *s.lock() = Some(Caught {
            players: Generation::new(1, 0),
            tournaments: Generation::new(1, 0),
        });
        assert!(s.players(g).is_some());
        // A change it has not caught up with, or a listener not listening.
        assert!(s.players(Some(Generation::new(1, 1))).is_none());
        assert!(s.players(None).is_none());
    }
}
