//! The deadlines of self-scheduled games (seed 003 rule 8.2), the leader told of games nobody
//! has scheduled as a round's deadline nears (rule 8.5), and the leader's reversal of an
//! automatic forfeit. See `services::play::scheduling`.

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::auth::{Caller, StaffRole};
use crate::db::models::Tournament;
use crate::db::running::RoundRow;
use crate::db::schema::{game_schedules, results, rounds, tournaments};
use crate::domain::events::{
    ForfeitReversedPayload, ScheduleOverduePayload, TablePlayerPayload, TournamentEvent,
    UnscheduledGame, UnscheduledGamesPayload,
};
use crate::domain::status::{RoundStatus, ScheduleState};
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
    let due: Vec<(i64, i32)> = game_schedules::table
        .filter(game_schedules::waiting_on.is_not_null())
        .filter(
            game_schedules::waiting_since.le(now - FORFEIT_AFTER).or(
                game_schedules::leader_told_at
                    .is_null()
                    .and(game_schedules::waiting_since.le(now - ANSWER_WITHIN)),
            ),
        )
        .select((game_schedules::round_id, game_schedules::table_number))
        .order(game_schedules::waiting_since)
        .limit(100)
        .load(conn)?;
    let mut acted = 0;
    for key in due {
        match conn.transaction(|conn| one_game(conn, key, now)) {
            Ok(true) => acted += 1,
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(round_id = key.0, table = key.1, error = %e, "scheduling deadline")
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
    let due: Vec<i64> = game_schedules::table
        .inner_join(rounds::table.on(rounds::id.eq(game_schedules::round_id)))
        .filter(rounds::status.eq(RoundStatus::Published.as_str()))
        .filter(rounds::self_scheduled_until.le(now + UNSCHEDULED_WARNING))
        .filter(game_schedules::state.eq_any([ScheduleState::Open, ScheduleState::Proposed]))
        .filter(game_schedules::unscheduled_told_for.is_distinct_from(rounds::self_scheduled_until))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            results::table
                .filter(results::round_id.eq(game_schedules::round_id))
                .filter(results::table_number.eq(game_schedules::table_number)),
        )))
        .select(game_schedules::round_id)
        .distinct()
        .limit(100)
        .load(conn)?;
    let mut told = 0;
    for round_id in due {
        match conn.transaction(|conn| unscheduled_of_round(conn, round_id, now)) {
            Ok(true) => told += 1,
            Ok(false) => {}
            Err(e) => tracing::warn!(round_id, error = %e, "unscheduled games"),
        }
    }
    Ok(told)
}

fn unscheduled_of_round(
    conn: &mut PgConnection,
    round_id: i64,
    now: DateTime<Utc>,
) -> Result<bool, ApiError> {
    let round: RoundRow = rounds::table
        .find(round_id)
        .select(RoundRow::as_select())
        .first(conn)?;
    let Some(deadline) = round.self_scheduled_until else {
        return Ok(false);
    };
    let games: Vec<GameRow> = game_schedules::table
        .filter(game_schedules::round_id.eq(round_id))
        .filter(game_schedules::state.eq_any([ScheduleState::Open, ScheduleState::Proposed]))
        .filter(game_schedules::unscheduled_told_for.is_distinct_from(Some(deadline)))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            results::table
                .filter(results::round_id.eq(game_schedules::round_id))
                .filter(results::table_number.eq(game_schedules::table_number)),
        )))
        .order(game_schedules::table_number)
        .select(GameRow::as_select())
        .for_update()
        .skip_locked()
        .load(conn)?;
    if games.is_empty() {
        return Ok(false);
    }
    let mut tables = Vec::new();
    for g in &games {
        diesel::update(game_schedules::table.find((g.round_id, g.table_number)))
            .set(game_schedules::unscheduled_told_for.eq(Some(deadline)))
            .execute(conn)?;
        message(conn, g, "unscheduled", None, &[deadline], None, (None, now))?;
        tables.push(UnscheduledGame {
            table: g.table_number,
            players: crate::services::running::snapshot::seats_at(&round, g.table_number)?,
            state: g.state.as_str().to_string(),
            waiting_on: g.waiting_on,
        });
    }
    crate::db::events::record(
        conn,
        round.tournament_id,
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
    key: (i64, i32),
    now: DateTime<Utc>,
) -> Result<bool, ApiError> {
    let g: Option<GameRow> = game_schedules::table
        .find(key)
        .filter(game_schedules::waiting_on.is_not_null())
        .select(GameRow::as_select())
        .for_update()
        .skip_locked()
        .first(conn)
        .optional()?;
    let Some(g) = g else {
        return Ok(false);
    };
    let (Some(player), Some(since)) = (g.waiting_on, g.waiting_since) else {
        return Ok(false);
    };
    let round: RoundRow = rounds::table
        .find(g.round_id)
        .select(RoundRow::as_select())
        .first(conn)?;
    let t: Tournament = tournaments::table
        .find(round.tournament_id)
        .select(Tournament::as_select())
        .first(conn)?;
    let has_result: bool = diesel::select(diesel::dsl::exists(
        results::table
            .filter(results::round_id.eq(g.round_id))
            .filter(results::table_number.eq(g.table_number)),
    ))
    .get_result(conn)?;
    let find = game_schedules::table.find(key);
    if has_result {
        // Played and entered (or reported and confirmed): nothing is awaited any more.
        diesel::update(find)
            .set((
                game_schedules::waiting_on.eq(None::<i64>),
                game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
            ))
            .execute(conn)?;
        return Ok(true);
    }
    if now >= since + FORFEIT_AFTER {
        forfeit(conn, &g, t, &round, player, now)?;
        return Ok(true);
    }
    if g.leader_told_at.is_none() {
        diesel::update(find)
            .set(game_schedules::leader_told_at.eq(Some(now)))
            .execute(conn)?;
        message(
            conn,
            &g,
            "leader_told",
            Some(player),
            &[],
            None,
            (None, now),
        )?;
        crate::db::events::record(
            conn,
            t.id,
            TournamentEvent::ScheduleOverdue(ScheduleOverduePayload {
                round: round.number,
                table: g.table_number,
                player_id: player,
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
    player: i64,
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
            forfeit: Some(p == player),
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
        by,
        now,
    )?;
    diesel::update(game_schedules::table.find(key))
        .set((
            game_schedules::state.eq(ScheduleState::Forfeited),
            game_schedules::forfeited_player.eq(Some(player)),
            game_schedules::forfeited_at.eq(Some(now)),
            game_schedules::waiting_on.eq(None::<i64>),
            game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    message(
        conn,
        g,
        "forfeit",
        Some(player),
        &[],
        Some(FORFEIT_REASON),
        (None, now),
    )?;
    crate::db::events::record(
        conn,
        tid,
        TournamentEvent::GameForfeited(TablePlayerPayload {
            round: number,
            table: g.table_number,
            player_id: player,
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
    conn.transaction(|conn| {
        let (t, round, g) = game_for_update(conn, caller, at)?;
        if !caller.has_any_role(conn, t.id, &[StaffRole::Organiser, StaffRole::Referee])? {
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
        let versions: Vec<Option<String>> = results::table
            .filter(results::round_id.eq(round.id))
            .filter(results::table_number.eq(at.table))
            .select(results::reason)
            .load(conn)?;
        if versions.len() != 1 || versions[0].as_deref() != Some(FORFEIT_REASON) {
            return Err(ApiError::Conflict(
                "the forfeit's result was corrected since; correct the result instead".into(),
            ));
        }
        diesel::delete(
            results::table
                .filter(results::round_id.eq(round.id))
                .filter(results::table_number.eq(at.table)),
        )
        .execute(conn)?;
        if round.status == RoundStatus::Completed {
            diesel::update(rounds::table.find(round.id))
                .set((
                    rounds::status.eq(RoundStatus::Published),
                    rounds::completed_at.eq(None::<DateTime<Utc>>),
                    rounds::version.eq(rounds::version + 1),
                ))
                .execute(conn)?;
        }
        crate::services::ratings::results_changed(conn, t.id)?;
        diesel::update(game_schedules::table.find((round.id, at.table)))
            .set((
                game_schedules::state.eq(ScheduleState::Open),
                game_schedules::forfeited_player.eq(None::<i64>),
                game_schedules::forfeited_at.eq(None::<DateTime<Utc>>),
                game_schedules::proposed_by.eq(None::<i64>),
                game_schedules::proposed_times.eq(Vec::<DateTime<Utc>>::new()),
                game_schedules::waiting_on.eq(None::<i64>),
                game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
                game_schedules::leader_told_at.eq(None::<DateTime<Utc>>),
            ))
            .execute(conn)?;
        message(
            conn,
            &g,
            "reinstate",
            Some(player),
            &[],
            Some(&reason),
            (Some(caller.user_id), now),
        )?;
        crate::db::events::record(
            conn,
            t.id,
            TournamentEvent::ForfeitReversed(ForfeitReversedPayload {
                round: at.round,
                table: at.table,
                player_id: player,
                reason: reason.clone(),
            }),
        )?;
        view(conn, &t, &round, at.table, None)
    })
}
