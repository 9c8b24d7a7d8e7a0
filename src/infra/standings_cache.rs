//! Standings kept, not recomputed per read (issue 16): each instance keeps the rendered body of
//! the standings it served (JSON or CSV, per round, purpose and format) together with the
//! tournament's *stamp*, a digest of everything the standings are computed from. A read computes
//! the stamp (one indexed query) and serves the kept body while the stamp is unchanged; a
//! revalidation whose `If-None-Match` names the current ETag (derived from the stamp) is
//! answered 304 before any body is built. Any write that changes an input changes the stamp,
//! so every reader, on every instance, sees a correction at once. The read itself (access,
//! computing on a miss) is the use case `services::running::standings::read_kept`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use diesel::prelude::*;
use diesel::sql_types::{Int8, Text};
use diesel::PgConnection;

use crate::error::ApiError;

/// Bodies kept per instance; when full, the kept bodies are dropped and kept again as read.
const MAX_KEPT: usize = 512;

/// One kept body.
struct Kept {
    stamp: String,
    body: Arc<[u8]>,
}

/// The instance's kept standings bodies (cheap to clone).
#[derive(Clone, Default)]
pub struct StandingsCache {
    kept: Arc<Mutex<HashMap<String, Kept>>>,
}

#[derive(QueryableByName)]
struct Stamp {
    #[diesel(sql_type = Text)]
    stamp: String,
}

/// The digest of everything a tournament's standings are computed from: the tournament (its
/// version moves with every setting), its rounds (their versions move with every draw,
/// publication and completion), every result version, the registrations, teams, withdrawals and
/// penalties row by row, and the registered players' last change (names in the table).
pub fn stamp(conn: &mut PgConnection, tid: i64) -> Result<String, ApiError> {
    let s: Stamp = diesel::sql_query(
        "SELECT concat_ws('|',
            (SELECT version || '.' || status FROM tournaments WHERE id = $1),
            (SELECT count(*) || '.' || coalesce(sum(version), 0) FROM rounds
             WHERE tournament_id = $1),
            (SELECT count(*) || '.' || coalesce(sum(x.version), 0)
             FROM results x JOIN rounds r ON r.id = x.round_id WHERE r.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(g::text, ',' ORDER BY g.id), ''))
             FROM registrations g WHERE g.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(m::text, ',' ORDER BY m.id), ''))
             FROM teams m WHERE m.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(w::text, ',' ORDER BY w.id), ''))
             FROM withdrawals w WHERE w.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(p::text, ',' ORDER BY p.id), ''))
             FROM penalties p WHERE p.tournament_id = $1),
            (SELECT coalesce(max(p.updated_at)::text, '')
             FROM players p JOIN registrations g ON g.player_id = p.id
             WHERE g.tournament_id = $1)
         ) AS stamp",
    )
    .bind::<Int8, _>(tid)
    .get_result(conn)?;
    Ok(s.stamp)
}

impl StandingsCache {
    /// The body kept under `key` if it was computed from `stamp`.
    pub fn get(&self, key: &str, stamp: &str) -> Option<Arc<[u8]>> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(key)
            .filter(|k| k.stamp == stamp)
            .map(|k| k.body.clone())
    }

    /// Keeps `body`, computed from `stamp`, under `key` (dropping every kept body when full).
    pub fn put(&self, key: String, stamp: String, body: Arc<[u8]>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(key, Kept { stamp, body });
    }
}
