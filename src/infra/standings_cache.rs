//! Standings kept, not recomputed per read (issue 16): each instance keeps the rendered body of
//! the standings it served (JSON or CSV, per round, purpose and format) together with the
//! tournament's *stamp*, a digest of everything the standings are computed from. A read computes
//! the stamp (one indexed query) and serves the kept body while the stamp is unchanged; a
//! revalidation whose `If-None-Match` names the current ETag (derived from the stamp) is
//! answered 304 before any body is built. Any write that changes an input changes the stamp,
//! so every reader, on every instance, sees a correction at once. The read itself (access,
//! computing on a miss) is the use case `services::running::standings::read_kept`.
//!
//! Bounded by bytes (issue 33): `STANDINGS_CACHE_MAX_BYTES` (default [`DEFAULT_MAX_BYTES`]),
//! evicted one body at a time by the same policy as the public bodies (`infra::kept`): what is
//! read often stays. Hits, misses and evictions count in `tourney_cache_*{cache="standings"}`.

use std::sync::Arc;

use moka::sync::Cache;

use crate::db::ids::TournamentId;
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::infra::kept::{sample, weighted_cache};
use crate::infra::metrics::{CacheMeter, CacheSample};

/// The default budget of the staff standings bodies: 16 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One kept body.
#[derive(Clone)]
struct Kept {
    stamp: Arc<str>,
    body: Arc<[u8]>,
}

fn weight(k: &Kept) -> usize {
    k.stamp.len() + k.body.len()
}

/// The instance's kept standings bodies (cheap to clone).
#[derive(Clone)]
pub struct StandingsCache {
    kept: Cache<String, Kept>,
    budget: u64,
    meter: CacheMeter,
}

/// The digest of everything a tournament's standings are computed from (see
/// `db::standings::stamp`): what a kept body is checked against.
pub fn stamp(conn: &mut PgConnection, tid: i64) -> Result<String, ApiError> {
    Ok(crate::db::standings::stamp(conn, TournamentId(tid))?)
}

/// The default budget, counting into a meter registered nowhere (tests and benchmarks that do
/// not read the metrics; the service uses [`StandingsCache::new`]).
impl Default for StandingsCache {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_BYTES, CacheMeter::default())
    }
}

impl StandingsCache {
    /// Bodies weighing at most `max_bytes` in all; hits, misses and evictions count into
    /// `meter`.
    pub fn new(max_bytes: u64, meter: CacheMeter) -> Self {
        Self {
            kept: weighted_cache(max_bytes, &meter, weight),
            budget: max_bytes,
            meter,
        }
    }

    /// The body kept under `key` if it was computed from `stamp` (a hit), else `None` (a miss).
    pub fn get(&self, key: &str, stamp: &str) -> Option<Arc<[u8]>> {
        let body = self
            .kept
            .get(key)
            .filter(|k| &*k.stamp == stamp)
            .map(|k| k.body);
        match body {
            Some(_) => self.meter.hits.inc(),
            None => self.meter.misses.inc(),
        };
        body
    }

    /// Keeps `body`, computed from `stamp`, under `key` (the policy evicts what is read least
    /// once the budget is reached).
    pub fn put(&self, key: String, stamp: String, body: Arc<[u8]>) {
        self.kept.insert(
            key,
            Kept {
                stamp: stamp.into(),
                body,
            },
        );
    }

    /// What is kept now (for `GET /metrics`).
    pub fn sample(&self) -> CacheSample {
        sample("standings", &self.kept, self.budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_served_for_its_stamp_and_hits_and_misses_count() {
        let meter = CacheMeter::default();
        let c = StandingsCache::new(DEFAULT_MAX_BYTES, meter.clone());
        assert!(c.get("t=1", "s1").is_none());
        c.put("t=1".into(), "s1".into(), b"table".as_slice().into());
        assert_eq!(c.get("t=1", "s1").as_deref(), Some(b"table".as_slice()));
        // A write changed the stamp: the old body is not served.
        assert!(c.get("t=1", "s2").is_none());
        assert_eq!((meter.hits.get(), meter.misses.get()), (1, 2));
        let s = c.sample();
        assert_eq!(
            (s.cache, s.entries, s.budget),
            ("standings", 1, DEFAULT_MAX_BYTES)
        );
        assert!(s.bytes >= 7);
    }

    #[test]
    fn over_budget_bodies_leave_one_at_a_time() {
        let meter = CacheMeter::default();
        let c = StandingsCache::new(10_000, meter.clone());
        for i in 0..100 {
            c.put(format!("t={i}"), "s".into(), vec![0u8; 500].into());
        }
        let s = c.sample();
        assert!(s.bytes <= 10_000 && s.entries > 0, "{s:?}");
        assert!(meter.evictions.get() >= 100 - s.entries, "{s:?}");
    }
}
