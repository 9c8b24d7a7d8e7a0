//! The database's search stamp, read once for every search that asked meanwhile: a search
//! answered from memory must know the index has applied every name change committed before
//! it began, and that takes a read of the stamp begun after it (migration `search_stamp`).
//! One thread with its own connection reads it for all the searches waiting at once: while
//! one read is under way, the searches that ask wait for the next, and a single read answers
//! them all. Under load a read answers dozens of searches; alone, a search waits one round
//! trip, as it did reading the stamp itself.

use std::sync::{Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::db::search as store;
use crate::db::PgConnection;

/// How long the reading thread waits for searches before it looks whether the index is gone.
const IDLE: Duration = Duration::from_secs(1);

/// At most one read begins in this time: under load reads ran back to back, each answering
/// only the few searches of one round trip, and each cost PostgreSQL and this thread a
/// wake-up. Paced, a read answers the searches of half a millisecond; a search waits at most
/// that much longer, and one alone (the last read longer ago) waits no longer at all.
const PACE: Duration = Duration::from_micros(500);

/// The searches waiting for the next read.
#[derive(Default)]
pub(super) struct Stamps {
    waiting: Mutex<Waiting>,
    asked: Condvar,
}

/// The searches that asked, and whether the reading thread sleeps (it is woken only then: a
/// wake is a system call, and under load the thread is reading when searches ask).
#[derive(Default)]
struct Waiting {
    askers: Vec<oneshot::Sender<i64>>,
    asleep: bool,
}

impl Stamps {
    /// Asks for the stamp of a read that begins after this call.
    pub(super) fn ask(&self) -> oneshot::Receiver<i64> {
        let (tx, rx) = oneshot::channel();
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        waiting.askers.push(tx);
        if waiting.asleep {
            waiting.asleep = false;
            self.asked.notify_one();
        }
        rx
    }

    /// The searches that asked since the last read, waiting up to `idle` for one.
    fn take(&self, idle: Duration) -> Vec<oneshot::Sender<i64>> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if waiting.askers.is_empty() {
            waiting.asleep = true;
            waiting = self
                .asked
                .wait_timeout_while(waiting, idle, |w| w.askers.is_empty())
                .unwrap_or_else(|e| e.into_inner())
                .0;
            waiting.asleep = false;
        }
        std::mem::take(&mut waiting.askers)
    }
}

/// Reads the stamp for the index's searches until the index is dropped. A read that fails
/// drops its askers' senders (they are answered by PostgreSQL) and connects again for the
/// next.
pub(super) fn serve(weak: Weak<super::Shared>, url: String) {
    let mut conn: Option<PgConnection> = None;
    loop {
        let Some(shared) = weak.upgrade() else {
            return;
        };
        let askers = shared.stamps.take(IDLE);
        drop(shared);
        if askers.is_empty() {
            continue;
        }
        let began = Instant::now();
        match read(&mut conn, &url) {
            Ok(stamp) => askers.into_iter().for_each(|a| {
                let _ = a.send(stamp);
            }),
            Err(e) => {
                tracing::warn!(error = %e, "search index: the search stamp is unread; PostgreSQL answers");
                conn = None;
            }
        }
        if let Some(rest) = PACE.checked_sub(began.elapsed()) {
            std::thread::sleep(rest);
        }
    }
}

fn read(conn: &mut Option<PgConnection>, url: &str) -> Result<i64, String> {
    if conn.is_none() {
        *conn = Some(crate::db::connect(url).map_err(|e| e.to_string())?);
    }
    let c = conn.as_mut().expect("connected above");
    store::stamp(c).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::oneshot::error::TryRecvError;

    #[test]
    fn one_read_answers_every_search_that_asked_before_it_began() {
        let s = Stamps::default();
        assert!(s.take(Duration::ZERO).is_empty());
        let (mut a, mut b) = (s.ask(), s.ask());
        let read = s.take(Duration::ZERO);
        assert_eq!(read.len(), 2);
        // Asked once that read was taken: it waits for the next one.
        let mut later = s.ask();
        read.into_iter().for_each(|x| x.send(7).unwrap());
        assert_eq!((a.try_recv(), b.try_recv()), (Ok(7), Ok(7)));
        assert_eq!(later.try_recv(), Err(TryRecvError::Empty));
        let next = s.take(Duration::ZERO);
        assert_eq!(next.len(), 1);
        // A read that failed drops its askers: they are answered by PostgreSQL.
        drop(next);
        assert_eq!(later.try_recv(), Err(TryRecvError::Closed));
        // The reader waits for a search to ask.
        let s = std::sync::Arc::new(s);
        let asker = s.clone();
        let asks = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            asker.ask()
        });
        assert_eq!(s.take(Duration::from_secs(60)).len(), 1);
        drop(asks.join().unwrap());
    }
}
