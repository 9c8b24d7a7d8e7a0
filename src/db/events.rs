//! The tournament event log behind the live feed (`GET /tournaments/{id}/events`).

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::running::NewEvent;
use crate::db::schema::tournament_events;
use crate::error::ApiError;

/// Appends an event to the tournament's live feed (read by `GET /tournaments/{id}/events`).
pub fn record(
    conn: &mut PgConnection,
    tournament_id: i64,
    kind: &str,
    payload: serde_json::Value,
) -> Result<(), ApiError> {
    diesel::insert_into(tournament_events::table)
        .values(NewEvent {
            tournament_id,
            kind: kind.to_string(),
            payload,
        })
        .execute(conn)?;
    Ok(())
}
