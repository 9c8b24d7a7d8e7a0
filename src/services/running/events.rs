//! The live feed's reads: where a stream starts and the events after an id.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::MaybeCaller;
use crate::db;
use crate::db::ids::TournamentEventId;
pub use crate::db::running::EventRow;
use crate::db::PgConnection;
use crate::domain::TournamentId;
use crate::error::ApiError;
use crate::services::access::load_visible;

pub use crate::domain::events::LiveEventKind;

/// One event of the live feed: the JSON in an SSE frame's `data` line.
#[derive(Debug, Serialize, ToSchema)]
pub struct LiveEvent {
    /// The event's id, also the frame's `id` (send it as `Last-Event-ID` to resume).
    pub id: i64,
    #[schema(value_type = LiveEventKind)]
    pub kind: String,
    pub at: DateTime<Utc>,
    /// What changed: the round, table and version of a result, the player of a withdrawal, ...
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
}

impl From<&EventRow> for LiveEvent {
    fn from(e: &EventRow) -> Self {
        Self {
            id: e.id.0,
            kind: e.kind.as_str().to_string(),
            at: e.created_at,
            payload: e.payload.clone(),
        }
    }
}

/// The id after which a stream starts: `after` when given, else the newest event's id (only
/// new events); 404 when the caller may not see the tournament.
pub fn feed_start(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    after: Option<i64>,
) -> Result<i64, ApiError> {
    load_visible(conn, caller, tid)?;
    match after {
        Some(a) => Ok(a),
        None => Ok(db::events::newest_id(conn, TournamentId(tid))?.map_or(0, |id| id.0)),
    }
}

/// Up to 500 events of a tournament after the event `after`, oldest first.
pub fn events_after(
    conn: &mut PgConnection,
    tid: i64,
    after: i64,
) -> Result<Vec<EventRow>, ApiError> {
    Ok(db::events::of_tournament_after(
        conn,
        TournamentId(tid),
        TournamentEventId(after),
        500,
    )?)
}
