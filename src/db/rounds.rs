//! Queries on rounds shared by several services.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::RoundId;

use crate::db::running::RoundRow;
use crate::db::schema::{round_draws, rounds};
use crate::error::ApiError;

/// Whether a read takes the round's row lock (`FOR UPDATE`), serialising writers of the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    None,
    ForUpdate,
}

/// Round `number` of a tournament; 404 when there is none.
pub fn by_number(
    conn: &mut PgConnection,
    tournament_id: i64,
    number: i32,
    lock: Lock,
) -> Result<RoundRow, ApiError> {
    let query = rounds::table
        .filter(rounds::tournament_id.eq(tournament_id))
        .filter(rounds::number.eq(number))
        .select(RoundRow::as_select());
    let row = match lock {
        Lock::None => query.first(conn).optional()?,
        Lock::ForUpdate => query.for_update().first(conn).optional()?,
    };
    row.ok_or_else(|| ApiError::NotFound(format!("no round {number}")))
}

/// The stored draw input of a round's current draw (as drawn, without what earlier rounds
/// hold), kept with its draw attempt.
pub fn stored_input(
    conn: &mut PgConnection,
    round: &RoundRow,
) -> Result<serde_json::Value, ApiError> {
    Ok(round_draws::table
        .find((round.id, round.draw_count))
        .select(round_draws::draw_input)
        .first(conn)?)
}

/// The draws of a tournament's rounds before round `number`, in round order.
pub fn draws_before(
    conn: &mut PgConnection,
    tournament_id: i64,
    number: i32,
) -> Result<Vec<serde_json::Value>, ApiError> {
    Ok(rounds::table
        .filter(rounds::tournament_id.eq(tournament_id))
        .filter(rounds::number.lt(number))
        .order(rounds::number)
        .select(rounds::draw)
        .load(conn)?)
}

/// Whether any round of the tournament is drawn (registration closes with the first).
pub fn any_drawn(conn: &mut PgConnection, t: crate::db::ids::TournamentId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        rounds::table.filter(rounds::tournament_id.eq(t)),
    ))
    .get_result(conn)
}

/// The number of the tournament's last drawn round (0 before the first).
pub fn last_drawn(conn: &mut PgConnection, t: crate::db::ids::TournamentId) -> QueryResult<i32> {
    Ok(rounds::table
        .filter(rounds::tournament_id.eq(t))
        .select(diesel::dsl::max(rounds::number))
        .first::<Option<i32>>(conn)?
        .unwrap_or(0))
}

/// The stored draw of round `number`, if the tournament has that round.
pub fn draw_by_number(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
    number: i32,
) -> QueryResult<Option<serde_json::Value>> {
    rounds::table
        .filter(rounds::tournament_id.eq(t))
        .filter(rounds::number.eq(number))
        .select(rounds::draw)
        .first(conn)
        .optional()
}

/// A completed round's id, completion time and time of play.
pub type TimesOfPlay = (RoundId, Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// The completed rounds of a tournament whose time of play is derived (not stated).
pub fn derived_times_of_play(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
) -> QueryResult<Vec<TimesOfPlay>> {
    rounds::table
        .filter(rounds::tournament_id.eq(t))
        .filter(rounds::status.eq(crate::domain::status::RoundStatus::Completed))
        .filter(rounds::played_at_fixed.eq(false))
        .select((rounds::id, rounds::completed_at, rounds::played_at))
        .load(conn)
}

/// Sets a round's time of play.
pub fn set_played_at(conn: &mut PgConnection, id: RoundId, at: DateTime<Utc>) -> QueryResult<()> {
    diesel::update(rounds::table.find(id.0))
        .set(rounds::played_at.eq(at))
        .execute(conn)?;
    Ok(())
}

/// A round by id.
pub fn by_id(conn: &mut PgConnection, id: RoundId) -> QueryResult<RoundRow> {
    rounds::table
        .find(id.0)
        .select(RoundRow::as_select())
        .first(conn)
}

/// Whether a table of a round has a result (any version).
pub fn table_has_result(conn: &mut PgConnection, round: RoundId, table: i32) -> QueryResult<bool> {
    use crate::db::schema::results;
    diesel::select(diesel::dsl::exists(
        results::table
            .filter(results::round_id.eq(round))
            .filter(results::table_number.eq(table)),
    ))
    .get_result(conn)
}

/// The reasons of every stored version of a table's result.
pub fn result_reasons(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
) -> QueryResult<Vec<Option<String>>> {
    use crate::db::schema::results;
    results::table
        .filter(results::round_id.eq(round))
        .filter(results::table_number.eq(table))
        .select(results::reason)
        .load(conn)
}

/// Removes every version of a table's result.
pub fn delete_table_results(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
) -> QueryResult<()> {
    use crate::db::schema::results;
    diesel::delete(
        results::table
            .filter(results::round_id.eq(round))
            .filter(results::table_number.eq(table)),
    )
    .execute(conn)?;
    Ok(())
}

/// A completed round is open again (published, no completion time, next version).
pub fn reopen(conn: &mut PgConnection, id: RoundId) -> QueryResult<()> {
    diesel::update(rounds::table.find(id.0))
        .set((
            rounds::status.eq(crate::domain::status::RoundStatus::Published),
            rounds::completed_at.eq(None::<DateTime<Utc>>),
            rounds::version.eq(rounds::version + 1),
        ))
        .execute(conn)?;
    Ok(())
}
