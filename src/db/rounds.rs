//! Queries on rounds shared by several services.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::running::RoundRow;
use crate::db::schema::rounds;
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
