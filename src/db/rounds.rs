//! Queries on rounds shared by several services.

use diesel::prelude::*;
use diesel::PgConnection;

use chrono::{DateTime, Utc};
use diesel::pg::Pg;

use crate::db::ids::{RoundId, TournamentId, UserId};
use crate::db::json::{Json, Parsed};
use crate::db::running::{NewRound, RoundDraw, RoundRow, StoredInput};
use crate::db::schema::{
    cases, game_schedules, penalties, round_draws, rounds, schedule_messages, tournaments,
};
use crate::domain::colours::TableColours;
use crate::domain::seating::{Draw, DrawInput};
use crate::domain::status::{RoundStatus, TournamentStatus};
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
pub fn stored_input(conn: &mut PgConnection, round: &RoundRow) -> Result<StoredInput, ApiError> {
    let input: Parsed<StoredInput> = round_draws::table
        .find((round.id, round.draw_count))
        .select(round_draws::draw_input)
        .first(conn)?;
    let at = format!("round_draws row {}/{}", round.id, round.draw_count);
    input
        .at(&at, "draw_input")
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// The draws of a tournament's rounds before round `number`, in round order.
pub fn draws_before(
    conn: &mut PgConnection,
    tournament_id: i64,
    number: i32,
) -> Result<Vec<Draw>, ApiError> {
    let rows: Vec<(RoundId, Parsed<Draw>)> = rounds::table
        .filter(rounds::tournament_id.eq(tournament_id))
        .filter(rounds::number.lt(number))
        .order(rounds::number)
        .select((rounds::id, rounds::draw))
        .load(conn)?;
    rows.into_iter()
        .map(|(id, draw)| draw.at(&format!("rounds row {id}"), "draw"))
        .collect::<Result<_, _>>()
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// Every round of a tournament, by number.
pub fn of_tournament(conn: &mut PgConnection, t: TournamentId) -> QueryResult<Vec<RoundRow>> {
    rounds::table
        .filter(rounds::tournament_id.eq(t))
        .order(rounds::number)
        .select(RoundRow::as_select())
        .load(conn)
}

/// The rounds of a tournament that are not drafts (published or completed), by number.
pub fn published_of(conn: &mut PgConnection, t: TournamentId) -> QueryResult<Vec<RoundRow>> {
    rounds::table
        .filter(rounds::tournament_id.eq(t))
        .filter(rounds::status.ne(RoundStatus::Draft))
        .order(rounds::number)
        .select(RoundRow::as_select())
        .load(conn)
}

/// The rounds of a tournament its list shows: every round with `drafts`, else no drafts.
fn listed(t: TournamentId, drafts: bool) -> rounds::BoxedQuery<'static, Pg> {
    let q = rounds::table
        .filter(rounds::tournament_id.eq(t))
        .into_boxed();
    if drafts {
        q
    } else {
        q.filter(rounds::status.ne(RoundStatus::Draft))
    }
}

/// How many rounds the list of a tournament's rounds holds (see [`list_page`]).
pub fn list_count(conn: &mut PgConnection, t: TournamentId, drafts: bool) -> QueryResult<i64> {
    listed(t, drafts).count().get_result(conn)
}

/// A page of a tournament's rounds (drafts only with `drafts`), by number.
pub fn list_page(
    conn: &mut PgConnection,
    t: TournamentId,
    drafts: bool,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<RoundRow>> {
    listed(t, drafts)
        .order((rounds::number, rounds::id))
        .select(RoundRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// Whether the tournament has rounds after round `number`.
pub fn has_later(conn: &mut PgConnection, t: TournamentId, number: i32) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        rounds::table
            .filter(rounds::tournament_id.eq(t))
            .filter(rounds::number.gt(number)),
    ))
    .get_result(conn)
}

/// Takes the tournament's row lock: one draw at a time per tournament.
pub fn lock_for_draw(conn: &mut PgConnection, t: TournamentId) -> QueryResult<()> {
    tournaments::table
        .find(t)
        .select(tournaments::id)
        .for_update()
        .first::<i64>(conn)
        .map(|_| ())
}

/// The tournament's first draw starts it: its status becomes `running`.
pub fn mark_running(
    conn: &mut PgConnection,
    t: TournamentId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(tournaments::table.find(t))
        .set((
            tournaments::status.eq(TournamentStatus::Running),
            tournaments::version.eq(tournaments::version + 1),
            tournaments::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// Stores a new round (its draw and colours in their stored JSON form).
pub fn insert(conn: &mut PgConnection, new: NewRound) -> QueryResult<RoundRow> {
    let (draw, colours) = (Json(&new.draw), new.colours.as_ref().map(Json));
    diesel::insert_into(rounds::table)
        .values((
            rounds::tournament_id.eq(new.tournament_id),
            rounds::number.eq(new.number),
            rounds::kind.eq(new.kind),
            rounds::method.eq(new.method),
            rounds::options.eq(Json(&new.options)),
            rounds::weight.eq(new.weight),
            rounds::metadata.eq(new.metadata),
            rounds::seed.eq(new.seed),
            rounds::seed_commitment.eq(new.seed_commitment),
            rounds::draw.eq(draw),
            rounds::created_by.eq(new.created_by),
            rounds::played_at.eq(new.played_at),
            rounds::played_at_fixed.eq(new.played_at_fixed),
            rounds::colours.eq(colours),
            rounds::self_scheduled_until.eq(new.self_scheduled_until),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// A withdrawn round drawn again: the same row takes the new draw as its next attempt.
pub fn draw_again(conn: &mut PgConnection, round: RoundId, new: NewRound) -> QueryResult<RoundRow> {
    let (draw, colours) = (Json(&new.draw), new.colours.as_ref().map(Json));
    diesel::update(rounds::table.find(round))
        .set((
            rounds::kind.eq(new.kind),
            rounds::method.eq(new.method),
            rounds::options.eq(Json(&new.options)),
            rounds::weight.eq(new.weight),
            rounds::metadata.eq(new.metadata),
            rounds::seed.eq(new.seed),
            rounds::seed_commitment.eq(new.seed_commitment),
            rounds::draw.eq(draw),
            rounds::draw_count.eq(rounds::draw_count + 1),
            rounds::played_at.eq(new.played_at),
            rounds::played_at_fixed.eq(new.played_at_fixed),
            rounds::colours.eq(colours),
            rounds::self_scheduled_until.eq(new.self_scheduled_until),
            rounds::version.eq(rounds::version + 1),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// One draw of a round as it is recorded (the time is the database's).
#[derive(Debug)]
pub struct NewDraw {
    pub round: RoundId,
    pub attempt: i32,
    pub seed: String,
    pub seed_commitment: String,
    /// The seating engine's input, stored short (see [`StoredInput`]).
    pub draw_input: DrawInput,
    pub draw: Draw,
    pub drawn_by: UserId,
}

/// Records a draw attempt of a round.
pub fn insert_draw(conn: &mut PgConnection, d: NewDraw) -> QueryResult<()> {
    diesel::insert_into(round_draws::table)
        .values((
            round_draws::round_id.eq(d.round),
            round_draws::attempt.eq(d.attempt),
            round_draws::seed.eq(d.seed),
            round_draws::seed_commitment.eq(d.seed_commitment),
            round_draws::draw_input.eq(StoredInput::short_form(&d.draw_input)?),
            round_draws::draw.eq(Json(&d.draw)),
            round_draws::drawn_by.eq(d.drawn_by),
        ))
        .execute(conn)?;
    Ok(())
}

/// A draft round's new draw (attempt `attempt`), replacing the current one.
pub fn set_draw(
    conn: &mut PgConnection,
    round: RoundId,
    attempt: i32,
    (seed, seed_commitment): (String, String),
    draw: &Draw,
    colours: Option<&[TableColours]>,
) -> QueryResult<RoundRow> {
    let colours = colours.map(Json);
    diesel::update(rounds::table.find(round))
        .set((
            rounds::seed.eq(seed),
            rounds::seed_commitment.eq(seed_commitment),
            rounds::draw.eq(Json(draw)),
            rounds::colours.eq(colours),
            rounds::draw_count.eq(attempt),
            rounds::version.eq(rounds::version + 1),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// How many draws a round has had.
pub fn draws_count(conn: &mut PgConnection, round: RoundId) -> QueryResult<i64> {
    round_draws::table
        .filter(round_draws::round_id.eq(round))
        .count()
        .get_result(conn)
}

/// A page of a round's draws, by attempt (the key: `(round_id, attempt)`).
pub fn draws_page(
    conn: &mut PgConnection,
    round: RoundId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<RoundDraw>> {
    round_draws::table
        .filter(round_draws::round_id.eq(round))
        .order(round_draws::attempt)
        .select(RoundDraw::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// A self-scheduled round's new deadline.
pub fn set_deadline(
    conn: &mut PgConnection,
    round: RoundId,
    until: DateTime<Utc>,
) -> QueryResult<RoundRow> {
    diesel::update(rounds::table.find(round))
        .set((
            rounds::self_scheduled_until.eq(Some(until)),
            rounds::version.eq(rounds::version + 1),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// When a round was played, and whether the organiser stated it.
pub fn set_played_at(
    conn: &mut PgConnection,
    round: RoundId,
    played_at: Option<DateTime<Utc>>,
    stated: bool,
) -> QueryResult<RoundRow> {
    diesel::update(rounds::table.find(round))
        .set((
            rounds::played_at.eq(played_at),
            rounds::played_at_fixed.eq(stated),
            rounds::version.eq(rounds::version + 1),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// A draft round published at `now`.
pub fn publish(
    conn: &mut PgConnection,
    round: RoundId,
    now: DateTime<Utc>,
) -> QueryResult<RoundRow> {
    diesel::update(rounds::table.find(round))
        .set((
            rounds::status.eq(RoundStatus::Published),
            rounds::published_at.eq(now),
            rounds::version.eq(rounds::version + 1),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// A round completed at `now`, its games played at `played_at`.
pub fn complete(
    conn: &mut PgConnection,
    round: RoundId,
    now: DateTime<Utc>,
    played_at: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(rounds::table.find(round))
        .set((
            rounds::status.eq(RoundStatus::Completed),
            rounds::completed_at.eq(now),
            rounds::played_at.eq(played_at),
            rounds::version.eq(rounds::version + 1),
        ))
        .execute(conn)?;
    Ok(())
}

/// A round's draw withdrawn: back to an unpublished draft, with its metadata (which keeps the
/// withdrawals).
pub fn withdraw(
    conn: &mut PgConnection,
    round: RoundId,
    metadata: serde_json::Value,
) -> QueryResult<RoundRow> {
    diesel::update(rounds::table.find(round))
        .set((
            rounds::status.eq(RoundStatus::Draft),
            rounds::published_at.eq(None::<DateTime<Utc>>),
            rounds::metadata.eq(metadata),
            rounds::version.eq(rounds::version + 1),
        ))
        .returning(RoundRow::as_returning())
        .get_result(conn)
}

/// How many penalties and cases of the tournament name round `number`.
pub fn penalties_and_cases_naming(
    conn: &mut PgConnection,
    t: TournamentId,
    number: i32,
) -> QueryResult<i64> {
    let penalties: i64 = penalties::table
        .filter(penalties::tournament_id.eq(t))
        .filter(penalties::round_number.eq(number))
        .count()
        .get_result(conn)?;
    let cases: i64 = cases::table
        .filter(cases::tournament_id.eq(t))
        .filter(cases::round_number.eq(number))
        .count()
        .get_result(conn)?;
    Ok(penalties + cases)
}

/// Forgets the scheduling of a round's games (their proposed times and messages).
pub fn clear_schedules(conn: &mut PgConnection, round: RoundId) -> QueryResult<()> {
    diesel::delete(schedule_messages::table.filter(schedule_messages::round_id.eq(round)))
        .execute(conn)?;
    diesel::delete(game_schedules::table.filter(game_schedules::round_id.eq(round)))
        .execute(conn)?;
    Ok(())
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

/// The draw of round `number`, if the tournament has that round.
pub fn draw_by_number(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
    number: i32,
) -> Result<Option<Draw>, ApiError> {
    let row: Option<(RoundId, Parsed<Draw>)> = rounds::table
        .filter(rounds::tournament_id.eq(t))
        .filter(rounds::number.eq(number))
        .select((rounds::id, rounds::draw))
        .first(conn)
        .optional()?;
    row.map(|(id, draw)| draw.at(&format!("rounds row {id}"), "draw"))
        .transpose()
        .map_err(|e| ApiError::Internal(e.to_string()))
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

/// Sets a round's derived time of play (the flag and the version as they are).
pub fn set_derived_played_at(
    conn: &mut PgConnection,
    id: RoundId,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(rounds::table.find(id.0))
        .set(rounds::played_at.eq(at))
        .execute(conn)?;
    Ok(())
}
