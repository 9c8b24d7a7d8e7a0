//! Queries on rounds shared by several services.

use diesel::prelude::*;
use diesel::PgConnection;

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
