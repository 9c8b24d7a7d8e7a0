//! The live feed's fan-out (issue 16): one listener per instance, many SSE clients.
//!
//! Every row of `tournament_events` announces itself with `NOTIFY tourney_events, '<id>'` when
//! its transaction commits (migration `event_notify`). Each instance keeps one dedicated
//! connection listening on that channel: it reads the notified events once (one query per batch
//! of notifications, whatever the number of clients) and broadcasts them on a channel that
//! every SSE stream of the instance subscribes to. Waiting for notifications reads the socket
//! (`PQconsumeInput`); it sends no query, so an idle instance with 10,000 subscribers queries
//! the database as little as one with none. A stream that falls behind the channel (it holds
//! the last [`CAPACITY`] events) reads what it missed from the table, as a reconnecting client
//! does with `Last-Event-ID`.
//!
//! The same connection listens on `tourney_changes`, where every committed change to a
//! tournament's inputs announces the tournament (migration `change_notify`): each announcement
//! moves that tournament's [`Generation`] on, which is what the instance's kept public reads
//! are checked against (`infra::kept`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::broadcast;

use crate::db::events;
pub use crate::db::running::EventRow;
use crate::db::PgConnection;

/// Events the broadcast channel holds for slow streams.
pub const CAPACITY: usize = 4096;
/// How often the listener looks for notifications (a socket read, not a query).
const POLL: Duration = Duration::from_millis(10);
/// The wait before reconnecting after the database went away.
const RECONNECT: Duration = Duration::from_secs(1);

struct Hub {
    tx: broadcast::Sender<Arc<EventRow>>,
    url: String,
    /// Where the listener's session connection goes (`DATABASE_LISTEN_URL`, else `url`).
    listen_url: String,
    changes: Changes,
    /// Where the names of announced changes go (the search index, `infra::search`).
    names: Mutex<Vec<std::sync::mpsc::Sender<NameChange>>>,
    /// How many times the listener has started listening (a change may go unseen in between).
    listens: AtomicU64,
}

/// A change of a name the search index holds, or where the changes committed so far stand
/// (`infra::search`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameChange {
    Player(i64),
    Tournament(i64),
    /// A rating pool's name (migration `search_pools`).
    Pool(i64),
    /// The search stamp of a committed transaction that changed names: announced after the
    /// rows it changed (migration `search_stamp`).
    Stamp(i64),
    /// A table of names was emptied at once.
    Reset,
}

impl NameChange {
    /// The name change a `tourney_changes` payload announces: `player:<id>`,
    /// `tournament-name:<id>` (migration `search_names`), `pool-name:<id>` (migration
    /// `search_pools`), `search-stamp:<n>` or `search-reset` (migration `search_stamp`).
    fn parse(payload: &str) -> Option<Self> {
        if let Some(id) = payload.strip_prefix("player:") {
            return id.parse().ok().map(Self::Player);
        }
        if let Some(id) = payload.strip_prefix("tournament-name:") {
            return id.parse().ok().map(Self::Tournament);
        }
        if let Some(id) = payload.strip_prefix("pool-name:") {
            return id.parse().ok().map(Self::Pool);
        }
        if let Some(n) = payload.strip_prefix("search-stamp:") {
            return n.parse().ok().map(Self::Stamp);
        }
        (payload == "search-reset").then_some(Self::Reset)
    }
}

/// What a kept read is made of: one tournament, one rating pool's leaderboard, one player, or
/// the first page of a registry list (issue 31, item 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    Tournament(i64),
    Pool(i64),
    Player(i64),
    /// The list of players (any player added, changed or removed).
    Players,
    /// The list of tournaments (any tournament row added, changed or removed).
    Tournaments,
    /// The list of rating pools (any pool changed).
    Pools,
}

impl Subject {
    /// The subjects a `tourney_changes` payload changes: `<id>` a tournament, `pool:<id>` a
    /// pool and the list of pools, `player:<id>` a player and the list of players,
    /// `tournaments` the list of tournaments (migrations `change_notify`, `pool_notify`,
    /// `registry_notify`).
    fn parse(payload: &str) -> Vec<Self> {
        if payload == "tournaments" {
            return vec![Self::Tournaments];
        }
        if let Some(id) = payload.strip_prefix("pool:") {
            return id
                .parse()
                .map_or(vec![], |id| vec![Self::Pool(id), Self::Pools]);
        }
        if let Some(id) = payload.strip_prefix("player:") {
            return id
                .parse()
                .map_or(vec![], |id| vec![Self::Player(id), Self::Players]);
        }
        payload
            .parse()
            .map_or(vec![], |id| vec![Self::Tournament(id)])
    }
}

/// Which change of a subject this instance has seen announced, under which connection of the
/// listener (and, for a pool, after how many tournament writes through this instance): kept
/// reads are served only while all are unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    epoch: u64,
    changes: u64,
    local_writes: u64,
}

impl Generation {
    pub fn new(epoch: u64, changes: u64) -> Self {
        Self {
            epoch,
            changes,
            local_writes: 0,
        }
    }
}

/// The announced changes per tournament, and the listener's connection.
#[derive(Default)]
struct Changes {
    /// The listener's current connection (numbered from 1), or 0 while it is not listening: a
    /// change may then go unannounced, so nothing kept counts as current.
    epoch: AtomicU64,
    connections: AtomicU64,
    /// Tournament writes through this instance: a result may move a pool's ratings, and the
    /// instance does not know which pool, so its kept leaderboards follow every such write.
    local_writes: AtomicU64,
    per_subject: Mutex<HashMap<Subject, u64>>,
}

impl Changes {
    fn generation(&self, subject: Subject) -> Option<Generation> {
        let epoch = self.epoch.load(Ordering::Acquire);
        if epoch == 0 {
            return None;
        }
        let local_writes = match subject {
            Subject::Pool(_) | Subject::Pools => self.local_writes.load(Ordering::Acquire),
            _ => 0,
        };
        let changes = self.lock().get(&subject).copied().unwrap_or(0);
        // A reconnect in between: the generation must not mix two connections.
        (self.epoch.load(Ordering::Acquire) == epoch).then_some(Generation {
            epoch,
            changes,
            local_writes,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Subject, u64>> {
        self.per_subject.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn changed(&self, subject: Subject) {
        *self.lock().entry(subject).or_insert(0) += 1;
    }

    /// Every tournament at once: a new epoch, unless the listener is not connected.
    fn changed_all(&self) {
        let epoch = self.epoch.load(Ordering::Acquire);
        if epoch != 0 {
            let n = self.connections.fetch_add(1, Ordering::AcqRel) + 1;
            // Not over a lost connection's 0.
            let _ = self
                .epoch
                .compare_exchange(epoch, n, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    fn listening(&self) {
        let n = self.connections.fetch_add(1, Ordering::AcqRel) + 1;
        self.epoch.store(n, Ordering::Release);
    }

    fn not_listening(&self) {
        self.epoch.store(0, Ordering::Release);
    }
}

/// The instance's fan-out of committed events (cheap to clone; the listener stops when the
/// last clone is dropped).
#[derive(Clone)]
pub struct LiveHub {
    hub: Arc<Hub>,
}

impl LiveHub {
    /// A hub for the database at `url` (the listener has its own connection, outside the
    /// pool, so it never takes one from the requests).
    pub fn new(url: &str) -> Self {
        Self::with_listen_url(url, url)
    }

    /// A hub whose listener connects to `listen_url` (a session connection straight to the
    /// primary, `DATABASE_LISTEN_URL`) while the jobs use `url` (issue 31, item 6): `LISTEN`
    /// needs a session of its own, which a transaction-mode pooler does not keep.
    pub fn with_listen_url(url: &str, listen_url: &str) -> Self {
        let (tx, _) = broadcast::channel(CAPACITY);
        Self {
            hub: Arc::new(Hub {
                tx,
                url: url.to_string(),
                listen_url: listen_url.to_string(),
                changes: Changes::default(),
                names: Mutex::new(Vec::new()),
                listens: AtomicU64::new(0),
            }),
        }
    }

    /// The database the hub listens to (background jobs open their own connection to it).
    pub fn database_url(&self) -> &str {
        &self.hub.url
    }

    /// Every event committed from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<EventRow>> {
        self.hub.tx.subscribe()
    }

    /// The generation of a subject's public reads: `None` while the listener is not connected
    /// (changes may go unseen).
    pub fn generation(&self, subject: Subject) -> Option<Generation> {
        self.hub.changes.generation(subject)
    }

    /// A write to a subject through this instance has finished: its kept reads are
    /// dropped now, without waiting for the notification, so the writer's next read on this
    /// instance sees the write.
    pub fn touched(&self, subject: Subject) {
        if let Subject::Tournament(_) = subject {
            self.hub.changes.local_writes.fetch_add(1, Ordering::AcqRel);
        }
        self.hub.changes.changed(subject);
    }

    /// A write through this instance may have changed any tournament (a player renamed, a case
    /// decided): every kept read of the instance is dropped.
    pub fn touched_all(&self) {
        self.hub.changes.changed_all();
    }

    /// Every name change announced from now on, and the search stamps.
    pub fn names(&self) -> std::sync::mpsc::Receiver<NameChange> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.hub
            .names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(tx);
        rx
    }

    /// How many times the listener has started listening (0: never yet); changes announced
    /// while it was not listening were not seen.
    pub fn listens(&self) -> u64 {
        self.hub.listens.load(Ordering::Acquire)
    }

    /// Starts the listener thread.
    pub fn start(&self) {
        let weak = Arc::downgrade(&self.hub);
        let spawned = std::thread::Builder::new()
            .name("tourney-live".into())
            .spawn(move || listen(weak));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the live feed listener");
        }
    }
}

/// The listener: LISTEN, then forward every notified event to the hub; reconnects when the
/// database goes away (catching up on the events committed meanwhile); ends with the hub.
fn listen(weak: Weak<Hub>) {
    let mut last: Option<i64> = None;
    loop {
        let Some(url) = weak.upgrade().map(|h| h.listen_url.clone()) else {
            return;
        };
        let mut conn = match crate::db::connect(&url) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "live feed listener: cannot connect; retrying");
                std::thread::sleep(RECONNECT);
                continue;
            }
        };
        let listened = events::listen(&mut conn);
        if let Err(e) = listened {
            tracing::warn!(error = %e, "live feed listener: LISTEN failed; retrying");
            std::thread::sleep(RECONNECT);
            continue;
        }
        // Where the feed stands: after a reconnect, what was committed meanwhile goes out now.
        let caught_up = match last {
            None => events::last_id(&mut conn).map(|m| {
                last = Some(m.unwrap_or(0));
            }),
            Some(after) => events::after(&mut conn, after, CAPACITY as i64).map(|rows| {
                if let Some(hub) = weak.upgrade() {
                    for r in rows {
                        last = last.max(Some(r.id.0));
                        let _ = hub.tx.send(Arc::new(r));
                    }
                }
            }),
        };
        if caught_up.is_err() {
            std::thread::sleep(RECONNECT);
            continue;
        }
        // From here every committed change is announced on this connection.
        match weak.upgrade() {
            Some(hub) => {
                hub.changes.listening();
                hub.listens.fetch_add(1, Ordering::AcqRel);
            }
            None => return,
        }
        let more = forward(&mut conn, &weak, &mut last);
        if let Some(hub) = weak.upgrade() {
            hub.changes.not_listening();
        }
        if !more {
            return;
        }
        std::thread::sleep(RECONNECT);
    }
}

/// Forwards notified events until the connection fails (returns true: reconnect) or the hub
/// is gone (returns false).
fn forward(conn: &mut PgConnection, weak: &Weak<Hub>, last: &mut Option<i64>) -> bool {
    loop {
        let Some(hub) = weak.upgrade() else {
            let _ = events::unlisten(conn);
            return false;
        };
        let mut ids: Vec<i64> = Vec::new();
        for n in conn.notifications_iter() {
            match n {
                Ok(n) if n.channel == "tourney_changes" => {
                    if let Some(change) = NameChange::parse(&n.payload) {
                        hub.names
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .retain(|tx| tx.send(change.clone()).is_ok());
                    }
                    for subject in Subject::parse(&n.payload) {
                        hub.changes.changed(subject);
                    }
                }
                Ok(n) => ids.extend(n.payload.parse::<i64>().ok()),
                Err(e) => {
                    tracing::warn!(error = %e, "live feed listener: connection lost");
                    return true;
                }
            }
        }
        if !ids.is_empty() {
            // Ids come in commit order, which need not be id order: fetch exactly these.
            match events::by_ids(conn, &ids) {
                Ok(rows) => {
                    for r in rows {
                        *last = (*last).max(Some(r.id.0));
                        // No subscriber is not an error.
                        let _ = hub.tx.send(Arc::new(r));
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "live feed listener: reading events failed");
                    return true;
                }
            }
        }
        drop(hub);
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_name_their_subjects_and_lists() {
        assert_eq!(Subject::parse("7"), vec![Subject::Tournament(7)]);
        assert_eq!(
            Subject::parse("pool:3"),
            vec![Subject::Pool(3), Subject::Pools]
        );
        assert_eq!(
            Subject::parse("player:9"),
            vec![Subject::Player(9), Subject::Players]
        );
        assert_eq!(Subject::parse("tournaments"), vec![Subject::Tournaments]);
        for junk in ["", "pool:", "player:x", "pools", "x"] {
            assert!(Subject::parse(junk).is_empty(), "{junk}");
        }
        // The search index's announcements move no kept read.
        for other in [
            "tournament-name:4",
            "pool-name:5",
            "search-stamp:12",
            "search-reset",
        ] {
            assert!(Subject::parse(other).is_empty(), "{other}");
        }
        assert_eq!(NameChange::parse("player:9"), Some(NameChange::Player(9)));
        assert_eq!(
            NameChange::parse("tournament-name:4"),
            Some(NameChange::Tournament(4))
        );
        assert_eq!(NameChange::parse("pool-name:5"), Some(NameChange::Pool(5)));
        assert_eq!(
            NameChange::parse("search-stamp:12"),
            Some(NameChange::Stamp(12))
        );
        assert_eq!(NameChange::parse("search-reset"), Some(NameChange::Reset));
        for junk in [
            "7",
            "pool:3",
            "tournaments",
            "tournament-name:x",
            "pool-name:",
            "search-stamp:",
        ] {
            assert_eq!(NameChange::parse(junk), None, "{junk}");
        }
    }

    #[test]
    fn local_tournament_writes_move_pools_and_their_list_but_not_players() {
        let c = Changes::default();
        c.listening();
        let before: Vec<_> = [Subject::Pools, Subject::Pool(1), Subject::Players]
            .into_iter()
            .map(|s| c.generation(s))
            .collect();
        c.local_writes.fetch_add(1, Ordering::AcqRel);
        assert_ne!(c.generation(Subject::Pools), before[0]);
        assert_ne!(c.generation(Subject::Pool(1)), before[1]);
        assert_eq!(c.generation(Subject::Players), before[2]);
        c.changed(Subject::Players);
        assert_ne!(c.generation(Subject::Players), before[2]);
    }
}
