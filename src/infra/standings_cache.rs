//! Standings kept, not recomputed per read (issue 16): each instance keeps the rendered body of
//! the standings it served (JSON or CSV, per round, purpose and format) together with the
//! tournament's *stamp*, a digest of everything the standings are computed from. A read computes
//! the stamp (one indexed query) and serves the kept body while the stamp is unchanged; a
//! revalidation whose `If-None-Match` names the current ETag (derived from the stamp) is
//! answered 304 before any body is built. Any write that changes an input changes the stamp,
//! so every reader, on every instance, sees a correction at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use diesel::prelude::*;
use diesel::sql_types::{Int8, Text};
use diesel::PgConnection;

use crate::auth::MaybeCaller;
use crate::domain::scoring::Purpose;
use crate::domain::status::TournamentStatus;
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::running::standings::standings_of;

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

/// What a standings read answers.
pub struct StandingsRead {
    /// Derived from the stamp and the query: the same while nothing changed.
    pub etag: String,
    /// Anyone may see the tournament (not a draft).
    pub public: bool,
    /// The body, or `None` when the caller's `If-None-Match` named `etag` (a 304).
    pub body: Option<Arc<[u8]>>,
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

/// The standings as the caller may read them: 404 for a draft the caller may not see; the
/// ETag from the stamp (`etag_of(stamp-and-query)`); no body when `not_modified(etag)`; else
/// the kept body if the stamp still matches, or a freshly computed one (then kept).
#[allow(clippy::too_many_arguments)]
pub fn read(
    conn: &mut PgConnection,
    cache: &StandingsCache,
    caller: &MaybeCaller,
    tid: i64,
    after_round: Option<u32>,
    purpose: Purpose,
    csv: bool,
    etag_of: impl Fn(&str) -> String,
    not_modified: impl Fn(&str) -> bool,
) -> Result<StandingsRead, ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let public = t.status != TournamentStatus::Draft.as_str();
    let stamp = stamp(conn, tid)?;
    let key = format!("standings/1 t={tid} after={after_round:?} purpose={purpose:?} csv={csv}");
    let etag = etag_of(&format!("{key} stamp={stamp}"));
    if not_modified(&etag) {
        return Ok(StandingsRead {
            etag,
            public,
            body: None,
        });
    }
    let kept = {
        let kept = cache.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(&key)
            .filter(|k| k.stamp == stamp)
            .map(|k| k.body.clone())
    };
    let body = match kept {
        Some(body) => body,
        None => {
            let table = standings_of(conn, t, after_round, purpose)?;
            let body: Arc<[u8]> = if csv {
                table.to_csv().into_bytes().into()
            } else {
                serde_json::to_vec(&table.out)
                    .map_err(|e| ApiError::Internal(e.to_string()))?
                    .into()
            };
            let mut kept = cache.kept.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() >= MAX_KEPT {
                kept.clear();
            }
            kept.insert(
                key,
                Kept {
                    stamp,
                    body: body.clone(),
                },
            );
            body
        }
    };
    Ok(StandingsRead {
        etag,
        public,
        body: Some(body),
    })
}
