//! A double crash in a self-scheduled round is replayed (seed 003 rule 3.3: "Wenn beide Spieler
//! abstürzen und das Spiel verschwindet, sollte das Spiel noch einmal von vorn begonnen werden.
//! In Wochenendveranstaltungen ... wird das Spiel mit 23:23 unentschieden bewertet."). Only
//! where everyone plays at the same time is it scored 23:23; a self-scheduled game is scheduled
//! again instead. A double crash entered by the staff (`PUT .../result`) or reported by a player
//! and confirmed stores no result: the game's schedule is open again (no agreed time, waiting on
//! nobody), a `replay` message joins its thread and a `replay_ordered` event tells the feed.
//! The readings are in `docs/decisions/self-scheduling.md`.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::auth::{Caller, StaffRole};
use crate::db::models::Tournament;
use crate::db::rounds::Lock;
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::status::RoundStatus;
use crate::domain::UserId;
use crate::error::ApiError;
use crate::services::access::load_for_staff;
use crate::services::play::scheduling::{ensure_games, message, reopen_game, view, ScheduleOut};
use crate::services::running::results::{
    history, is_replay, store_locked, EnterResult, Precondition, ResultWithHistory, TableRef,
};

/// What entering (or confirming) a result did: stored it, or, for a double crash in a
/// self-scheduled round, reopened the game for a replay.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Entered {
    Stored(ResultWithHistory),
    Replay(ScheduleOut),
}

/// Enters or corrects a table's result (referees and organisers), in one transaction that
/// locks the round once: the result with its history, or, for a double crash in a
/// self-scheduled round ([`is_replay`], told apart here once), the game's reopened schedule
/// ([`reopen_for_replay`]). `now` stamps what is written.
pub fn enter_result(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: &EnterResult,
    precondition: Precondition,
    now: DateTime<Utc>,
) -> Result<Entered, ApiError> {
    crate::db::unit_of_work(conn, |conn| {
        let t = load_for_staff(
            conn,
            caller,
            at.tournament,
            &[StaffRole::Referee, StaffRole::Organiser],
        )?;
        let round = crate::db::rounds::by_number(conn, t.id.0, at.round, Lock::ForUpdate)?;
        if is_replay(&round, input) {
            return reopen_for_replay(conn, &t, &round, at.table, caller.user_id, now)
                .map(Entered::Replay);
        }
        store_locked(
            conn,
            t,
            &round,
            at.table,
            input,
            precondition,
            UserId(caller.user_id),
            now,
        )
        .map(Entered::Stored)
    })
}

/// Reopens a self-scheduled game after a double crash (rule 3.3): no result is stored, the
/// schedule is open again (no agreed or proposed time, waiting on nobody), a `replay` message
/// joins the thread and a `replay_ordered` event tells the feed. 409 naming `double_crash`
/// when the table already has a result (a correction cannot replay: the referee corrects the
/// result or decides a case) or the round is not open. Runs inside the caller's transaction,
/// with the round locked.
pub(crate) fn reopen_for_replay(
    conn: &mut PgConnection,
    t: &Tournament,
    round: &RoundRow,
    table: i32,
    by: i64,
    now: DateTime<Utc>,
) -> Result<ScheduleOut, ApiError> {
    if !history(conn, round, table)?.is_empty() {
        return Err(ApiError::conflict_at(
            "double_crash",
            format!(
                "table {table} already has a result: in a self-scheduled round a double crash is \
                 replayed, not scored 23:23 (seed 003, rule 3.3), and a stored result is not \
                 withdrawn by a correction; enter the replayed game's result as the correction"
            ),
        ));
    }
    if round.status != RoundStatus::Published {
        return Err(ApiError::Conflict(format!(
            "round {} is {}; a double crash is replayed only in an open self-scheduled round",
            round.number,
            round.status.as_str()
        )));
    }
    ensure_games(conn, round)?;
    let g = reopen_game(conn, round, table)?
        .ok_or_else(|| ApiError::NotFound(format!("no game at table {table}")))?;
    let played: Vec<DateTime<Utc>> = g.agreed_time.into_iter().collect();
    message(
        conn,
        &g,
        "replay",
        None,
        &played,
        Some("both players crashed and the game vanished: it is played again (rule 3.3)"),
        (Some(by), now),
    )?;
    crate::db::events::record(
        conn,
        t.id.0,
        crate::domain::events::TournamentEvent::ReplayOrdered(
            crate::domain::events::ReplayOrderedPayload {
                round: round.number,
                table,
                case_id: None,
                double_crash: Some(true),
            },
        ),
    )?;
    view(conn, t, round, table, None)
}
