//! Public reads kept per instance (issue 16): the rendered body of a public read (a tournament,
//! a round's draw, the standings) is kept with the *generation* of its tournament seen when the
//! read began. Every committed change to a tournament's inputs announces the tournament on
//! `tourney_changes` (migration `change_notify`); the instance's listener (`infra::live`)
//! moves that tournament's generation on. A kept body whose generation is still current is
//! served without a database connection; while the listener is not connected there is no
//! current generation and nothing is served from here.
//!
//! Staleness: a change is seen once its notification reaches the listener, which reads its
//! socket every 20 ms; shared caches may add their `max-age=5`. Staff reads (signed in) do not
//! come here: they stay exact (`infra::standings_cache`).
//!
//! Misses are rebuilt one per key at a time (single-flight: 64 clients missing at once cause one
//! rebuild, the others then find it kept) and at most [`REBUILDS`] at once per instance, so a
//! rush of public reads leaves the rest of the pool to writes.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedSemaphorePermit, Semaphore};

use crate::infra::live::Generation;

/// Bodies kept per instance; when full, every kept body is dropped and kept again as read.
const MAX_KEPT: usize = 2048;
/// Public rebuilds running at once per instance (each holds a pooled connection).
pub const REBUILDS: usize = 3;
/// Locks for single-flight, shared by keys with the same hash (bounded, whatever the keys).
const FLIGHTS: usize = 64;

/// A rendered public read.
#[derive(Clone)]
pub struct KeptBody {
    pub etag: String,
    pub content_type: &'static str,
    pub body: Arc<[u8]>,
    /// The `Link` header of a page.
    pub link: Option<String>,
}

struct Entry {
    generation: Generation,
    kept: KeptBody,
}

/// The instance's kept public bodies (cheap to clone).
#[derive(Clone)]
pub struct KeptReads {
    kept: Arc<Mutex<HashMap<String, Entry>>>,
    flights: Arc<Vec<Arc<AsyncMutex<()>>>>,
    rebuilds: Arc<Semaphore>,
}

impl Default for KeptReads {
    fn default() -> Self {
        Self {
            kept: Default::default(),
            flights: Arc::new((0..FLIGHTS).map(|_| Default::default()).collect()),
            rebuilds: Arc::new(Semaphore::new(REBUILDS)),
        }
    }
}

/// The right to rebuild one key: held while its body is computed and kept.
pub struct Flight {
    _key: tokio::sync::OwnedMutexGuard<()>,
    _slot: OwnedSemaphorePermit,
}

impl KeptReads {
    /// The body kept under `key` if it was kept at generation `current` (the tournament's
    /// generation now); `None` when nothing is kept, or the tournament changed since.
    pub fn fresh(&self, key: &str, current: Option<Generation>) -> Option<KeptBody> {
        let current = current?;
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(key)
            .filter(|e| e.generation == current)
            .map(|e| e.kept.clone())
    }

    /// Waits for the right to rebuild `key`: one rebuild per key at a time, at most
    /// [`REBUILDS`] in all.
    pub async fn flight(&self, key: &str) -> Flight {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        let lock = self.flights[(h.finish() as usize) % FLIGHTS].clone();
        let key = lock.lock_owned().await;
        // The semaphore is never closed.
        let slot = self
            .rebuilds
            .clone()
            .acquire_owned()
            .await
            .expect("the rebuild semaphore is never closed");
        Flight {
            _key: key,
            _slot: slot,
        }
    }

    /// Keeps `body` under `key`, as read at `generation` (the one seen before the read began;
    /// a change committed meanwhile has moved the tournament on, so it is not served).
    pub fn keep(&self, key: String, generation: Option<Generation>, body: KeptBody) {
        let Some(generation) = generation else {
            return;
        };
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= MAX_KEPT && !kept.contains_key(&key) {
            kept.clear();
        }
        kept.insert(
            key,
            Entry {
                generation,
                kept: body,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::live::Generation;

    fn body(s: &str) -> KeptBody {
        KeptBody {
            etag: format!("\"{s}\""),
            content_type: "application/json",
            body: s.as_bytes().into(),
            link: None,
        }
    }

    #[test]
    fn a_body_is_served_only_at_the_generation_it_was_kept_at() {
        let k = KeptReads::default();
        let g1 = Generation::new(1, 0);
        k.keep("a".into(), Some(g1), body("one"));
        assert_eq!(&*k.fresh("a", Some(g1)).unwrap().body, b"one");
        // The tournament changed, or the listener reconnected.
        assert!(k.fresh("a", Some(Generation::new(1, 1))).is_none());
        assert!(k.fresh("a", Some(Generation::new(2, 0))).is_none());
        // Not listening: nothing is served from memory.
        assert!(k.fresh("a", None).is_none());
        assert!(k.fresh("b", Some(g1)).is_none());
        // Read while not listening: not kept.
        k.keep("c".into(), None, body("three"));
        assert!(k.fresh("c", Some(g1)).is_none());
    }

    #[actix_web::test]
    async fn one_rebuild_per_key_and_at_most_rebuilds_in_all() {
        let k = KeptReads::default();
        let first = k.flight("a").await;
        // The same key waits for the first flight.
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(50), k.flight("a"));
        assert!(waiting.await.is_err());
        drop(first);
        let _again = k.flight("a").await;
        // Other keys take the remaining slots, then wait.
        let mut held = Vec::new();
        let mut n = 0;
        while held.len() < REBUILDS - 1 {
            n += 1;
            let key = format!("key-{n}");
            // Keys sharing a's lock would wait: skip them.
            if let Ok(f) =
                tokio::time::timeout(std::time::Duration::from_millis(20), k.flight(&key)).await
            {
                held.push(f);
            }
        }
        let over = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            k.flight("yet-another-key"),
        );
        assert!(over.await.is_err(), "no more than REBUILDS at once");
    }
}
