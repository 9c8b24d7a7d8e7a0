//! Self-scheduled games (`game_schedules`) and their threads (`schedule_messages`): the games
//! of a round, each locked for a step, the steps themselves, and the games whose deadlines are
//! due (seed 003 rules 8.2 and 8.5; `services::play::scheduling`).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, RoundId, TournamentId, UserId};
use crate::db::schema::{game_schedules, results, rounds, schedule_messages};
use crate::domain::status::{RoundStatus, ScheduleState};

/// A self-scheduled game as stored.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = game_schedules)]
pub struct GameRow {
    pub round_id: RoundId,
    pub table_number: i32,
    pub state: ScheduleState,
    pub waiting_on: Option<PlayerId>,
    pub waiting_since: Option<DateTime<Utc>>,
    pub proposed_by: Option<PlayerId>,
    pub proposed_times: Vec<DateTime<Utc>>,
    pub agreed_time: Option<DateTime<Utc>>,
    pub leader_told_at: Option<DateTime<Utc>>,
    pub forfeited_player: Option<PlayerId>,
    pub rescheduled: bool,
}

/// A message of a game's thread as stored.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = schedule_messages)]
pub struct MessageRow {
    pub kind: String,
    pub player_id: Option<PlayerId>,
    pub times: Vec<DateTime<Utc>>,
    pub note: Option<String>,
    pub at: DateTime<Utc>,
}

/// A new message of a game's thread.
#[derive(Debug, Insertable)]
#[diesel(table_name = schedule_messages)]
pub struct NewMessage<'a> {
    pub round_id: RoundId,
    pub table_number: i32,
    pub player_id: Option<PlayerId>,
    pub kind: &'a str,
    pub times: &'a [DateTime<Utc>],
    pub note: Option<&'a str>,
    pub by_user: Option<UserId>,
    pub at: DateTime<Utc>,
}

/// Appends a message to a game's thread.
pub fn add_message(conn: &mut PgConnection, m: NewMessage<'_>) -> QueryResult<()> {
    diesel::insert_into(schedule_messages::table)
        .values(m)
        .execute(conn)?;
    Ok(())
}

/// Makes the open games of a round at these tables, keeping those that exist.
pub fn insert_open_games(
    conn: &mut PgConnection,
    t: TournamentId,
    round: RoundId,
    tables: &[i32],
) -> QueryResult<()> {
    let rows: Vec<_> = tables
        .iter()
        .map(|table| {
            (
                game_schedules::round_id.eq(round),
                game_schedules::table_number.eq(*table),
                game_schedules::tournament_id.eq(t),
                game_schedules::state.eq(ScheduleState::Open),
            )
        })
        .collect();
    diesel::insert_into(game_schedules::table)
        .values(rows)
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// The game at a table of a round.
pub fn game(conn: &mut PgConnection, round: RoundId, table: i32) -> QueryResult<GameRow> {
    game_schedules::table
        .find((round.0, table))
        .select(GameRow::as_select())
        .first(conn)
}

/// The game at a table of a round, its row locked (`FOR UPDATE`).
pub fn lock_game(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
) -> QueryResult<Option<GameRow>> {
    game_schedules::table
        .find((round.0, table))
        .select(GameRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// A game's thread, oldest first.
pub fn thread(conn: &mut PgConnection, round: RoundId, table: i32) -> QueryResult<Vec<MessageRow>> {
    schedule_messages::table
        .filter(schedule_messages::round_id.eq(round))
        .filter(schedule_messages::table_number.eq(table))
        .order(schedule_messages::id)
        .select(MessageRow::as_select())
        .load(conn)
}

/// A player proposes `times` at `now`: the game waits on `other`.
pub fn propose(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
    by: PlayerId,
    times: &[DateTime<Utc>],
    other: PlayerId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set((
            game_schedules::state.eq(ScheduleState::Proposed),
            game_schedules::proposed_by.eq(Some(by)),
            game_schedules::proposed_times.eq(times),
            game_schedules::waiting_on.eq(Some(other)),
            game_schedules::waiting_since.eq(Some(now)),
            game_schedules::leader_told_at.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// The game's time is agreed: nothing is awaited.
pub fn agree(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
    time: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set((
            game_schedules::state.eq(ScheduleState::Agreed),
            game_schedules::agreed_time.eq(Some(time)),
            game_schedules::waiting_on.eq(None::<i64>),
            game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// A missed time (rule 8.4): the game is open again and marked rescheduled, without times.
pub fn reopen_missed(conn: &mut PgConnection, (round, table): (RoundId, i32)) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set((
            game_schedules::state.eq(ScheduleState::Open),
            game_schedules::rescheduled.eq(true),
            game_schedules::agreed_time.eq(None::<DateTime<Utc>>),
            game_schedules::proposed_times.eq(Vec::<DateTime<Utc>>::new()),
            game_schedules::proposed_by.eq(None::<i64>),
            game_schedules::waiting_on.eq(None::<i64>),
            game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
            game_schedules::leader_told_at.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// How many missed times a player has reported in the tournament's games.
pub fn missed_in_tournament(
    conn: &mut PgConnection,
    t: TournamentId,
    player: PlayerId,
) -> QueryResult<i64> {
    schedule_messages::table
        .inner_join(
            game_schedules::table.on(game_schedules::round_id
                .eq(schedule_messages::round_id)
                .and(game_schedules::table_number.eq(schedule_messages::table_number))),
        )
        .filter(game_schedules::tournament_id.eq(t))
        .filter(schedule_messages::kind.eq("missed"))
        .filter(schedule_messages::player_id.eq(player))
        .count()
        .get_result(conn)
}

/// How many missed times a player has reported in one game.
pub fn missed_in_game(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
    player: PlayerId,
) -> QueryResult<i64> {
    schedule_messages::table
        .filter(schedule_messages::round_id.eq(round))
        .filter(schedule_messages::table_number.eq(table))
        .filter(schedule_messages::kind.eq("missed"))
        .filter(schedule_messages::player_id.eq(player))
        .count()
        .get_result(conn)
}

/// Up to `limit` games awaiting an answer since `forfeit_by` or before (to forfeit), or since
/// `tell_by` or before with the leader not yet told, longest waiting first.
pub fn due_games(
    conn: &mut PgConnection,
    forfeit_by: DateTime<Utc>,
    tell_by: DateTime<Utc>,
    limit: i64,
) -> QueryResult<Vec<(RoundId, i32)>> {
    game_schedules::table
        .filter(game_schedules::waiting_on.is_not_null())
        .filter(
            game_schedules::waiting_since
                .le(forfeit_by)
                .or(game_schedules::leader_told_at
                    .is_null()
                    .and(game_schedules::waiting_since.le(tell_by))),
        )
        .select((game_schedules::round_id, game_schedules::table_number))
        .order(game_schedules::waiting_since)
        .limit(limit)
        .load(conn)
}

/// Up to `limit` published rounds whose deadline is `warn_until` or earlier and that have games
/// without an agreed time, a result or a forfeit, not yet told of for that deadline.
pub fn rounds_with_unscheduled(
    conn: &mut PgConnection,
    warn_until: DateTime<Utc>,
    limit: i64,
) -> QueryResult<Vec<RoundId>> {
    game_schedules::table
        .inner_join(rounds::table.on(rounds::id.eq(game_schedules::round_id)))
        .filter(rounds::status.eq(RoundStatus::Published.as_str()))
        .filter(rounds::self_scheduled_until.le(warn_until))
        .filter(game_schedules::state.eq_any([ScheduleState::Open, ScheduleState::Proposed]))
        .filter(game_schedules::unscheduled_told_for.is_distinct_from(rounds::self_scheduled_until))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            results::table
                .filter(results::round_id.eq(game_schedules::round_id))
                .filter(results::table_number.eq(game_schedules::table_number)),
        )))
        .select(game_schedules::round_id)
        .distinct()
        .limit(limit)
        .load(conn)
}

/// A round's games without an agreed time, a result or a forfeit, not yet told of for
/// `deadline`, by table, locked (skipping games another instance holds).
pub fn lock_unscheduled(
    conn: &mut PgConnection,
    round: RoundId,
    deadline: DateTime<Utc>,
) -> QueryResult<Vec<GameRow>> {
    game_schedules::table
        .filter(game_schedules::round_id.eq(round))
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
        .load(conn)
}

/// The leader was told of the game as unscheduled for `deadline`.
pub fn unscheduled_told(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
    deadline: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set(game_schedules::unscheduled_told_for.eq(Some(deadline)))
        .execute(conn)?;
    Ok(())
}

/// A game that awaits an answer, locked, unless another instance holds it.
pub fn lock_awaiting(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
) -> QueryResult<Option<GameRow>> {
    game_schedules::table
        .find((round.0, table))
        .filter(game_schedules::waiting_on.is_not_null())
        .select(GameRow::as_select())
        .for_update()
        .skip_locked()
        .first(conn)
        .optional()
}

/// Nothing is awaited any more at the game.
pub fn stop_waiting(conn: &mut PgConnection, (round, table): (RoundId, i32)) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set((
            game_schedules::waiting_on.eq(None::<i64>),
            game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// The leader was told at `now` that the game's answer is overdue.
pub fn leader_told(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set(game_schedules::leader_told_at.eq(Some(now)))
        .execute(conn)?;
    Ok(())
}

/// The game is forfeited by `player` at `now`: nothing is awaited.
pub fn forfeited(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
    player: PlayerId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
        .set((
            game_schedules::state.eq(ScheduleState::Forfeited),
            game_schedules::forfeited_player.eq(Some(player)),
            game_schedules::forfeited_at.eq(Some(now)),
            game_schedules::waiting_on.eq(None::<i64>),
            game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// A reversed forfeit: the game is open again, without proposals, waiting on nobody.
pub fn reopen_reinstated(
    conn: &mut PgConnection,
    (round, table): (RoundId, i32),
) -> QueryResult<()> {
    diesel::update(game_schedules::table.find((round.0, table)))
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
    Ok(())
}

/// Reopens the game at `table` of round `round` for a replay, its row locked first: no agreed
/// or proposed time, waiting on nobody. The game as it was before; `None` when the round has
/// no game at that table.
pub fn reopen(conn: &mut PgConnection, round: RoundId, table: i32) -> QueryResult<Option<GameRow>> {
    let Some(g) = game_schedules::table
        .find((round.0, table))
        .select(GameRow::as_select())
        .for_update()
        .first::<GameRow>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    diesel::update(game_schedules::table.find((round.0, table)))
        .set((
            game_schedules::state.eq(ScheduleState::Open),
            game_schedules::agreed_time.eq(None::<DateTime<Utc>>),
            game_schedules::proposed_by.eq(None::<i64>),
            game_schedules::proposed_times.eq(Vec::<DateTime<Utc>>::new()),
            game_schedules::waiting_on.eq(None::<i64>),
            game_schedules::waiting_since.eq(None::<DateTime<Utc>>),
            game_schedules::leader_told_at.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(Some(g))
}
