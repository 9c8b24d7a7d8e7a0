//! Withdrawing a round that has no result yet (issue 37, item 5): the organiser's way out of a
//! draw that should not stand (a method the rules cannot score, a wrong field). The round goes
//! back to a draft that must be drawn again before it is published: `POST .../rounds` draws it
//! again with any method, `POST .../rounds/{n}/redraw` with the same one. Every draw attempt
//! stays in the round's draws (`/rounds/{n}/draws`, seeds of published attempts revealed), and
//! each withdrawal (reason, who, when, the attempt) in the round's `withdrawals`.
//! Decision: docs/decisions/round-withdrawal.md.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, StaffRole};
use crate::db::rounds::{self as db_rounds, Lock};
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::events::{RoundWithdrawnPayload, TournamentEvent};
use crate::domain::status::RoundStatus;
use crate::domain::TournamentId;
use crate::error::ApiError;
use crate::services::access::load_for_staff;
use crate::services::running::round_history::{withdrawals_of, RoundWithdrawal, KEY};
use crate::services::running::rounds::{round_out, RoundOut};
use crate::services::validate::Check;

/// Withdraw a round that has no result yet (organisers).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "drawn at tables of 4; Tantrix is played in pairs"}))]
pub struct WithdrawRound {
    /// Why the draw does not stand; kept in the round's history and sent to the live feed.
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: String,
}

/// What stops round `round` from being withdrawn: a result (entered or reported), or a
/// penalty or case that names the round (they would point at another draw's tables).
fn check_nothing_played(
    conn: &mut PgConnection,
    tid: i64,
    round: &RoundRow,
) -> Result<(), ApiError> {
    let n = round.number;
    let tables = crate::db::results::tables_with_results(conn, round.id)?;
    let reported = crate::db::reports::tables_reported(conn, round.id)?;
    let named = |t: &[i32]| t.iter().map(i32::to_string).collect::<Vec<_>>().join(", ");
    if !tables.is_empty() {
        return Err(ApiError::conflict_at(
            "round",
            format!(
                "round {n} has results (tables {}): a round with a result cannot be withdrawn; \
                 correct the results instead",
                named(&tables)
            ),
        ));
    }
    if !reported.is_empty() {
        return Err(ApiError::conflict_at(
            "round",
            format!(
                "players reported results of round {n} (tables {}): decide the reports first",
                named(&reported)
            ),
        ));
    }
    if db_rounds::penalties_and_cases_naming(conn, TournamentId(tid), n)? > 0 {
        return Err(ApiError::conflict_at(
            "round",
            format!(
                "penalties or cases name round {n}; they concern its tables as drawn, so the \
                 draw cannot be withdrawn"
            ),
        ));
    }
    Ok(())
}

/// Withdraws round `number` (organisers): the last round, with no result yet. The round goes
/// back to a draft that must be drawn again; the reason is kept in its `withdrawals`, and a
/// published round's withdrawal goes to the live feed (`round_withdrawn`). `now` is when.
pub fn withdraw(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
    input: WithdrawRound,
    now: DateTime<Utc>,
) -> Result<RoundOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let mut check = Check::new();
        let reason = check.text("reason", &input.reason, 500);
        check.finish()?;
        let round = db_rounds::by_number(conn, tid, number, Lock::ForUpdate)?;
        if db_rounds::has_later(conn, TournamentId(tid), number)? {
            return Err(ApiError::conflict_at(
                "round",
                format!("only the last round can be withdrawn; round {number} has rounds after it"),
            ));
        }
        if crate::services::running::round_history::is_withdrawn(&round)? {
            return Err(ApiError::conflict_at(
                "round",
                format!("round {number} is withdrawn already: draw it again"),
            ));
        }
        check_nothing_played(conn, tid, &round)?;
        // Proposed times and messages were about the withdrawn draw's games.
        db_rounds::clear_schedules(conn, round.id)?;
        let was_published = round.status != RoundStatus::Draft;
        let mut history = withdrawals_of(&round.metadata)?;
        history.push(RoundWithdrawal {
            attempt: round.draw_count,
            method: round.method,
            seed_commitment: round.seed_commitment.clone(),
            was_published,
            reason: reason.clone(),
            withdrawn_by: caller.username.clone(),
            withdrawn_at: now,
        });
        let mut metadata = round.metadata.clone();
        if !metadata.is_object() {
            metadata = serde_json::json!({});
        }
        metadata[KEY] =
            serde_json::to_value(&history).map_err(|e| ApiError::Internal(e.to_string()))?;
        let row = db_rounds::withdraw(conn, round.id, metadata)?;
        if was_published {
            crate::db::events::record(
                conn,
                tid,
                TournamentEvent::RoundWithdrawn(RoundWithdrawnPayload {
                    round: number,
                    seed_commitment: round.seed_commitment,
                    reason,
                }),
            )?;
        }
        round_out(&t, row, Vec::new())
    })
}
