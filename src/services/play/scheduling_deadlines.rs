//! The deadlines of self-scheduled games (seed 003 rule 8.2), the leader told of games nobody
//! has scheduled as a round's deadline nears (rule 8.5), and the leader's reversal of an
//! automatic forfeit. See `services::play::scheduling`.

use chrono::{DateTime, Duration, Utc};

use crate::auth::{Caller, StaffRole};
use crate::db;
use crate::db::models::Tournament;
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::events::{
    ForfeitReversedPayload, ScheduleOverduePayload, TablePlayerPayload, TournamentEvent,
    UnscheduledGame, UnscheduledGamesPayload,
};
use crate::domain::status::{RoundStatus, ScheduleState};
use crate::domain::{PlayerId, RoundId};
use crate::error::ApiError;
use crate::services::play::scheduling::{
    game_for_update, message, view, GameRow, Note, ScheduleOut, ANSWER_WITHIN, FORFEIT_AFTER,
};
use crate::services::running::results::{
    store_result, EnterResult, Precondition, ResultSeat, TableRef,
};
use crate::services::validate::Check;

/// The reason an automatic forfeit's result carries.
pub const FORFEIT_REASON: &str =
    "automatic forfeit: no answer to the scheduling of this game within 7 days (seed 003, rule 8.2)";

/// How long before a round's deadline the leader is told of its games nobody has scheduled
/// (our reading of rule 8.5; `docs/decisions/self-scheduling.md`).
pub const UNSCHEDULED_WARNING: Duration = Duration::hours(48);

/// Applies the deadlines due at `now`: tells the leader about a player who has not answered a
/// proposal for 5 days (a `schedule_overdue` event) and forfeits the game of one who has not
/// answered for 7 (the opponent wins; a `game_forfeited` event); then tells the leader of the
/// games nobody has scheduled in rounds whose deadline is 48 hours away or less
/// ([`tell_unscheduled`]). Each game is handled in its own transaction under a row lock that
/// skips games another instance is handling. Returns how many games (and rounds told of) were
/// acted on.
pub fn apply_deadlines(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, ApiError> {
    let due = db::schedules::due_games(conn, now - FORFEIT_AFTER, now - ANSWER_WITHIN, 100)?;
    let mut acted = 0;
    for key in due {
        match crate::db::transaction(conn, |conn| one_game(conn, key, now)) {
            Ok(true) => acted += 1,
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(round_id = key.0 .0, table = key.1, error = %e, "scheduling deadline")
            }
        }
    }
    Ok(acted + tell_unscheduled(conn, now)?)
}

/// Rule 8.5 leaves players who make no effort to schedule a game to the leader. When a round's
/// deadline is [`UNSCHEDULED_WARNING`] away or less, the leader is told once (per round and
/// deadline: again if the deadline is extended) of its games without an agreed time, a result
/// or a forfeit: one `unscheduled_games` event listing the tables, and an `unscheduled`
/// message in each game's thread. The leader decides: a result with forfeits for one or both
/// players, or a later deadline. Each round in its own transaction; its games are taken under a
/// row lock that skips games another instance holds. Returns how many rounds were told of.
pub fn tell_unscheduled(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, ApiError> {
    let due = db::schedules::rounds_with_unscheduled(conn, now + UNSCHEDULED_WARNING, 100)?;
    let mut told = 0;
    for round_id in due {
        match crate::db::transaction(conn, |conn| unscheduled_of_round(conn, round_id, now)) {
            Ok(true) => told += 1,
            Ok(false) => {}
            Err(e) => tracing::warn!(round_id = round_id.0, error = %e, "unscheduled games"),
        }
    }
    Ok(told)
}

fn unscheduled_of_round(
    conn: &mut PgConnection,
    round_id: RoundId,
    now: DateTime<Utc>,
) -> Result<bool, ApiError> {
    let round: RoundRow = db::rounds::by_id(conn, round_id)?;
    let Some(deadline) = round.self_scheduled_until else {
        return Ok(false);
    };
    let games: Vec<GameRow> = db::schedules::lock_unscheduled(conn, round_id, deadline)?;
    if games.is_empty() {
        return Ok(false);
    }
    let mut tables = Vec::new();
    for g in &games {
        db::schedules::unscheduled_told(conn, (g.round_id, g.table_number), deadline)?;
        message(conn, g, "unscheduled", None, &[deadline], None, (None, now))?;
        tables.push(UnscheduledGame {
            table: g.table_number,
            players: crate::services::running::snapshot::seats_at(&round, g.table_number)?,
            state: g.state.as_str().to_string(),
            waiting_on: g.waiting_on.map(|p| p.0),
        });
    }
    crate::db::events::record(
        conn,
        round.tournament_id.0,
        TournamentEvent::UnscheduledGames(UnscheduledGamesPayload {
            round: round.number,
            deadline,
            tables,
        }),
    )?;
    Ok(true)
}

fn one_game(
    conn: &mut PgConnection,
    key: (RoundId, i32),
    now: DateTime<Utc>,
) -> Result<bool, ApiError> {
    let g: Option<GameRow> = db::schedules::lock_awaiting(conn, key)?;
    let Some(g) = g else {
        return Ok(false);
    };
    let (Some(player), Some(since)) = (g.waiting_on, g.waiting_since) else {
        return Ok(false);
    };
    let round: RoundRow = db::rounds::by_id(conn, g.round_id)?;
    let t: Tournament = db::tournaments::by_id(conn, round.tournament_id)?
        .ok_or_else(|| ApiError::NotFound("no such resource".into()))?;
    if db::rounds::table_has_result(conn, g.round_id, g.table_number)? {
        // Played and entered (or reported and confirmed): nothing is awaited any more.
        db::schedules::stop_waiting(conn, key)?;
        return Ok(true);
    }
    if now >= since + FORFEIT_AFTER {
        forfeit(conn, &g, t, &round, player, now)?;
        return Ok(true);
    }
    if g.leader_told_at.is_none() {
        db::schedules::leader_told(conn, key, now)?;
        message(
            conn,
            &g,
            "leader_told",
            Some(player.0),
            &[],
            None,
            (None, now),
        )?;
        crate::db::events::record(
            conn,
            t.id.0,
            TournamentEvent::ScheduleOverdue(ScheduleOverduePayload {
                round: round.number,
                table: g.table_number,
                player_id: player.0,
                forfeit_at: since + FORFEIT_AFTER,
            }),
        )?;
        return Ok(true);
    }
    Ok(false)
}

/// Rule 8.2: the silent player forfeits; the result is stored in the leader's name with the
/// rule as its reason.
fn forfeit(
    conn: &mut PgConnection,
    g: &GameRow,
    t: Tournament,
    round: &RoundRow,
    player: PlayerId,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let key = (g.round_id, g.table_number);
    let seats = crate::services::running::snapshot::seats_at(round, g.table_number)?
        .into_iter()
        .map(|p| ResultSeat {
            player_id: p,
            score: 0,
            bonus: None,
            penalty: None,
            time_used_secs: None,
            forfeit: Some(p == player.0),
            outcome: None,
        })
        .collect();
    let input = EnterResult {
        seats,
        double_crash: None,
        reason: Some(FORFEIT_REASON.into()),
        playoff_winner: None,
    };
    let (tid, number, by) = (t.id, round.number, t.created_by);
    store_result(
        conn,
        t,
        number,
        g.table_number,
        &input,
        Precondition::IfMatch(None),
        by.0,
        now,
    )?;
    db::schedules::forfeited(conn, key, player, now)?;
    message(
        conn,
        g,
        "forfeit",
        Some(player.0),
        &[],
        Some(FORFEIT_REASON),
        (None, now),
    )?;
    crate::db::events::record(
        conn,
        tid.0,
        TournamentEvent::GameForfeited(TablePlayerPayload {
            round: number,
            table: g.table_number,
            player_id: player.0,
        }),
    )?;
    Ok(())
}

/// The leader (an organiser or referee) reverses an automatic forfeit, with a reason: its
/// result is withdrawn (the round is open again if it had completed, and the ratings follow),
/// and the game is open again, waiting on nobody: either player proposes (an unanswered
/// proposal runs the 5 + 2 days of rule 8.2 again).
pub fn reinstate(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: Note,
    now: DateTime<Utc>,
) -> Result<ScheduleOut, ApiError> {
    let mut check = Check::new();
    let reason = check.text("note", &input.note, 500);
    check.finish()?;
    crate::db::transaction(conn, |conn| {
        let (t, round, g) = game_for_update(conn, caller, at)?;
        if !caller.has_any_role(conn, t.id.0, &[StaffRole::Organiser, StaffRole::Referee])? {
            return Err(ApiError::Forbidden(
                "the leader (an organiser or referee) reverses a forfeit".into(),
            ));
        }
        let Some(player) = g
            .forfeited_player
            .filter(|_| g.state == ScheduleState::Forfeited)
        else {
            return Err(ApiError::Conflict("the game is not forfeited".into()));
        };
        let round_id = round.id;
        let versions = db::rounds::result_reasons(conn, round_id, at.table)?;
        if versions.len() != 1 || versions[0].as_deref() != Some(FORFEIT_REASON) {
            return Err(ApiError::Conflict(
                "the forfeit's result was corrected since; correct the result instead".into(),
            ));
        }
        db::rounds::delete_table_results(conn, round_id, at.table)?;
        if round.status == RoundStatus::Completed {
            db::rounds::reopen(conn, round_id)?;
        }
        crate::services::ratings::results_changed(conn, t.id.0)?;
        db::schedules::reopen_reinstated(conn, (round_id, at.table))?;
        message(
            conn,
            &g,
            "reinstate",
            Some(player.0),
            &[],
            Some(&reason),
            (Some(caller.user_id), now),
        )?;
        crate::db::events::record(
            conn,
            t.id.0,
            TournamentEvent::ForfeitReversed(ForfeitReversedPayload {
                round: at.round,
                table: at.table,
                player_id: player.0,
                reason: reason.clone(),
            }),
        )?;
        view(conn, &t, &round, at.table, None)
    })
}
