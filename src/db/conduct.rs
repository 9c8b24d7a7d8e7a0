//! Conduct: withdrawals and voluntary-round opt-outs, penalties and sanctions.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PenaltyId, PlayerId, TournamentId, UserId};
use crate::db::running::{NewPenalty, NewWithdrawal, PenaltyRow, WithdrawalRow};
use crate::db::schema::{penalties, withdrawals};
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::scoring::standings::WithdrawalKind;

/// Stores a withdrawal or opt-out; `None` when the player has already withdrawn or stopped
/// (the unique key).
pub fn insert_withdrawal(
    conn: &mut PgConnection,
    w: NewWithdrawal,
) -> QueryResult<Option<WithdrawalRow>> {
    match diesel::insert_into(withdrawals::table)
        .values(w)
        .returning(WithdrawalRow::as_returning())
        .get_result(conn)
    {
        Ok(row) => Ok(Some(row)),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Turns the opt-outs of round `from_round` into withdrawals from it (the round was drawn
/// mandatory); the rows turned.
pub fn opt_outs_to_withdrawals(
    conn: &mut PgConnection,
    t: TournamentId,
    from_round: i32,
) -> QueryResult<Vec<WithdrawalRow>> {
    diesel::update(
        withdrawals::table
            .filter(withdrawals::tournament_id.eq(t))
            .filter(withdrawals::from_round.eq(from_round))
            .filter(withdrawals::kind.eq(WithdrawalKind::OptOut)),
    )
    .set(withdrawals::kind.eq(WithdrawalKind::Withdrawal))
    .returning(WithdrawalRow::as_returning())
    .get_results(conn)
}

/// Removes a player's withdrawals that take effect after round `drawn` (not yet in force);
/// how many were removed.
pub fn lift_withdrawals_after(
    conn: &mut PgConnection,
    t: TournamentId,
    p: PlayerId,
    drawn: i32,
) -> QueryResult<usize> {
    diesel::delete(
        withdrawals::table
            .filter(withdrawals::tournament_id.eq(t))
            .filter(withdrawals::player_id.eq(p))
            .filter(withdrawals::from_round.gt(drawn)),
    )
    .execute(conn)
}

/// How many withdrawals and opt-outs a tournament has.
pub fn count_withdrawals(conn: &mut PgConnection, t: TournamentId) -> QueryResult<i64> {
    withdrawals::table
        .filter(withdrawals::tournament_id.eq(t))
        .count()
        .get_result(conn)
}

/// `limit` withdrawals of a tournament after the first `offset`, in the order recorded.
pub fn withdrawals_page(
    conn: &mut PgConnection,
    t: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<WithdrawalRow>> {
    withdrawals::table
        .filter(withdrawals::tournament_id.eq(t))
        .order(withdrawals::id)
        .select(WithdrawalRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// How many sanctions (warnings, game losses, removals) in force a player has.
pub fn sanctions_in_force(
    conn: &mut PgConnection,
    t: TournamentId,
    p: PlayerId,
) -> QueryResult<i64> {
    penalties::table
        .filter(penalties::tournament_id.eq(t))
        .filter(penalties::player_id.eq(p))
        .filter(penalties::kind.eq_any([
            RecordedPenalty::Warning,
            RecordedPenalty::GameLoss,
            RecordedPenalty::Removal,
        ]))
        .filter(penalties::annulled_at.is_null())
        .count()
        .get_result(conn)
}

/// Stores a penalty.
pub fn insert_penalty(conn: &mut PgConnection, p: NewPenalty) -> QueryResult<PenaltyRow> {
    diesel::insert_into(penalties::table)
        .values(p)
        .returning(PenaltyRow::as_returning())
        .get_result(conn)
}

/// A penalty of a tournament, its row locked (`FOR UPDATE`).
pub fn lock_penalty(
    conn: &mut PgConnection,
    t: TournamentId,
    id: PenaltyId,
) -> QueryResult<Option<PenaltyRow>> {
    penalties::table
        .filter(penalties::tournament_id.eq(t))
        .filter(penalties::id.eq(id))
        .select(PenaltyRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Marks a penalty annulled by `by` at `now`, with the reason.
pub fn annul_penalty(
    conn: &mut PgConnection,
    id: PenaltyId,
    by: UserId,
    now: DateTime<Utc>,
    reason: String,
) -> QueryResult<PenaltyRow> {
    diesel::update(penalties::table.find(id.0))
        .set((
            penalties::annulled_by.eq(Some(by)),
            penalties::annulled_at.eq(Some(now)),
            penalties::annul_reason.eq(Some(reason)),
        ))
        .returning(PenaltyRow::as_returning())
        .get_result(conn)
}

/// How many penalties a tournament has (annulled ones included).
pub fn count_penalties(conn: &mut PgConnection, t: TournamentId) -> QueryResult<i64> {
    penalties::table
        .filter(penalties::tournament_id.eq(t))
        .count()
        .get_result(conn)
}

/// `limit` penalties of a tournament after the first `offset`, in the order issued.
pub fn penalties_page(
    conn: &mut PgConnection,
    t: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<PenaltyRow>> {
    penalties::table
        .filter(penalties::tournament_id.eq(t))
        .order(penalties::id)
        .select(PenaltyRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}
