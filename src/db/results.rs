//! Table results: every version of a table's result is kept; the newest is the one in force.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{CaseId, PlayerId, RoundId, UserId};
use crate::db::running::ResultRow;
use crate::db::schema::results;
use crate::domain::scoring::SeatResult;

/// The version in force (the newest) of every table of these rounds, one row per table. Reads
/// only those versions, so corrections do not make the read grow; all columns descending, so
/// PostgreSQL reads the primary key backwards without a sort.
pub fn in_force(conn: &mut PgConnection, rounds: &[RoundId]) -> QueryResult<Vec<ResultRow>> {
    results::table
        .filter(results::round_id.eq_any(rounds))
        .distinct_on((results::round_id, results::table_number))
        .order((
            results::round_id.desc(),
            results::table_number.desc(),
            results::version.desc(),
        ))
        .select(ResultRow::as_select())
        .load(conn)
}

/// Every version of a table's result, oldest first (empty: no result yet).
pub fn versions(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
) -> QueryResult<Vec<ResultRow>> {
    results::table
        .filter(results::round_id.eq(round))
        .filter(results::table_number.eq(table))
        .order(results::version)
        .select(ResultRow::as_select())
        .load(conn)
}

/// The version in force of one table, if it has a result.
pub fn in_force_at(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
) -> QueryResult<Option<ResultRow>> {
    results::table
        .filter(results::round_id.eq(round))
        .filter(results::table_number.eq(table))
        .order(results::version.desc())
        .select(ResultRow::as_select())
        .first(conn)
        .optional()
}

/// The tables of a round that have a result, in table order.
pub fn tables_with_results(conn: &mut PgConnection, round: RoundId) -> QueryResult<Vec<i32>> {
    results::table
        .filter(results::round_id.eq(round))
        .select(results::table_number)
        .distinct()
        .order(results::table_number)
        .load(conn)
}

/// How many tables of a round have a result.
pub fn tables_done(conn: &mut PgConnection, round: RoundId) -> QueryResult<i64> {
    results::table
        .filter(results::round_id.eq(round))
        .select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
            "count(distinct table_number)",
        ))
        .first(conn)
}

/// A new version of a table's result.
#[derive(Debug)]
pub struct NewVersion<'a> {
    pub round: RoundId,
    pub table: i32,
    pub version: i32,
    /// The engine's seats, stored as entered (seat order).
    pub seats: &'a [SeatResult],
    pub double_crash: bool,
    pub reason: Option<String>,
    /// The case whose decision made this version.
    pub case: Option<CaseId>,
    pub entered_by: UserId,
    pub entered_at: DateTime<Utc>,
    pub playoff_winner: Option<PlayerId>,
}

/// Stores a new version of a table's result, stamped with its `entered_at`.
pub fn insert_version(conn: &mut PgConnection, v: NewVersion<'_>) -> QueryResult<()> {
    let seats = serde_json::to_value(v.seats)
        .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
    diesel::insert_into(results::table)
        .values((
            results::round_id.eq(v.round),
            results::table_number.eq(v.table),
            results::version.eq(v.version),
            results::seats.eq(seats),
            results::double_crash.eq(v.double_crash),
            results::reason.eq(v.reason),
            results::case_id.eq(v.case),
            results::entered_by.eq(v.entered_by),
            results::entered_at.eq(v.entered_at),
            results::playoff_winner.eq(v.playoff_winner),
        ))
        .execute(conn)?;
    Ok(())
}
