//! The tournament event log behind the live feed (`GET /tournaments/{id}/events`).

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::running::NewEvent;
use crate::db::schema::tournament_events;
use crate::domain::events::TournamentEvent;
use crate::error::ApiError;

/// Appends an event to the tournament's live feed (read by `GET /tournaments/{id}/events`),
/// one statement. The only writer of `tournament_events`: the event is typed, so its kind and
/// payload are the ones the OpenAPI document describes (`domain::events`).
pub fn record(
    conn: &mut PgConnection,
    tournament_id: i64,
    event: TournamentEvent,
) -> Result<(), ApiError> {
    let (kind, payload) = event
        .into_parts()
        .map_err(|e| ApiError::Internal(format!("event payload: {e}")))?;
    diesel::insert_into(tournament_events::table)
        .values(NewEvent {
            tournament_id,
            kind: kind.to_string(),
            payload,
        })
        .execute(conn)?;
    Ok(())
}
