//! The tournament event log behind the live feed (`GET /tournaments/{id}/events`).

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::TournamentId;
use crate::db::running::{EventRow, NewEvent};
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
    let kind = event.kind();
    let (_, payload) = event
        .into_parts()
        .map_err(|e| ApiError::Internal(format!("event payload: {e}")))?;
    diesel::insert_into(tournament_events::table)
        .values(NewEvent {
            tournament_id: TournamentId(tournament_id),
            kind,
            payload,
        })
        .execute(conn)?;
    Ok(())
}

/// The events with these ids, oldest first.
pub fn by_ids(conn: &mut PgConnection, ids: &[i64]) -> QueryResult<Vec<EventRow>> {
    tournament_events::table
        .filter(tournament_events::id.eq_any(ids))
        .order(tournament_events::id)
        .select(EventRow::as_select())
        .load(conn)
}

/// The id of the last event of every tournament's feed, if there is one.
pub fn last_id(conn: &mut PgConnection) -> QueryResult<Option<i64>> {
    tournament_events::table
        .select(diesel::dsl::max(tournament_events::id))
        .first(conn)
}

/// Up to `limit` events after the event `after`, oldest first.
pub fn after(conn: &mut PgConnection, after: i64, limit: i64) -> QueryResult<Vec<EventRow>> {
    tournament_events::table
        .filter(tournament_events::id.gt(after))
        .order(tournament_events::id)
        .limit(limit)
        .select(EventRow::as_select())
        .load(conn)
}

/// Listens on this session for new events (`tourney_events`) and for changed inputs
/// (`tourney_changes`).
pub fn listen(conn: &mut PgConnection) -> QueryResult<()> {
    diesel::sql_query("LISTEN tourney_events").execute(conn)?;
    diesel::sql_query("LISTEN tourney_changes").execute(conn)?;
    Ok(())
}

/// Stops listening on this session.
pub fn unlisten(conn: &mut PgConnection) -> QueryResult<()> {
    diesel::sql_query("UNLISTEN *").execute(conn)?;
    Ok(())
}

/// The id of the tournament's newest event, if it has any.
pub fn newest_id(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
) -> QueryResult<Option<crate::db::ids::TournamentEventId>> {
    tournament_events::table
        .filter(tournament_events::tournament_id.eq(t))
        .select(diesel::dsl::max(tournament_events::id))
        .first(conn)
}

/// Up to `limit` events of tournament `t` after the event `after`, oldest first.
pub fn of_tournament_after(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
    after: crate::db::ids::TournamentEventId,
    limit: i64,
) -> QueryResult<Vec<crate::db::running::EventRow>> {
    tournament_events::table
        .filter(tournament_events::tournament_id.eq(t))
        .filter(tournament_events::id.gt(after))
        .order(tournament_events::id)
        .limit(limit)
        .select(crate::db::running::EventRow::as_select())
        .load(conn)
}
