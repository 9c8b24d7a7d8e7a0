//! Which tournaments feed a pool: the rating status on the tournament, the requests and
//! decisions kept on it (`rating_decisions`), and what the keepers' list of a pool reads.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{DecisionId, PlayerId, PoolId, RoundId, TournamentId, UserId};
use crate::db::models::Tournament;
use crate::db::schema::{
    players, pool_events, rating_decisions, registrations, results, rounds, tournaments, users,
};
use crate::domain::rating::acceptance::{DecisionKind, RatingStatus};
use crate::domain::status::{RegistrationStatus, RoundStatus};

/// A request or decision on a tournament's rating, as kept.
#[derive(Debug, Clone, Queryable)]
pub struct DecisionRow {
    pub id: DecisionId,
    pub tournament_id: TournamentId,
    pub pool_id: PoolId,
    pub rating_status: RatingStatus,
    pub reason: Option<String>,
    pub announced_at: Option<DateTime<Utc>>,
    pub decided_by: UserId,
    pub decided_at: DateTime<Utc>,
    pub kind: DecisionKind,
    pub field: Option<String>,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
}

/// A request or a decision on a tournament's rating status.
#[derive(Debug, Clone, Copy)]
pub struct StatusDecision<'a> {
    pub tournament: TournamentId,
    pub pool: PoolId,
    pub status: RatingStatus,
    pub reason: Option<&'a str>,
    pub announced_at: Option<DateTime<Utc>>,
    pub by: UserId,
    pub at: DateTime<Utc>,
}

/// Keeps a request or a decision on the tournament (kind `status`); returns its id.
pub fn record_status(conn: &mut PgConnection, d: StatusDecision<'_>) -> QueryResult<DecisionId> {
    diesel::insert_into(rating_decisions::table)
        .values((
            rating_decisions::decided_at.eq(d.at),
            rating_decisions::tournament_id.eq(d.tournament),
            rating_decisions::pool_id.eq(d.pool),
            rating_decisions::rating_status.eq(d.status),
            rating_decisions::reason.eq(d.reason),
            rating_decisions::announced_at.eq(d.announced_at),
            rating_decisions::decided_by.eq(d.by),
        ))
        .returning(rating_decisions::id)
        .get_result(conn)
}

/// A change of time on an accepted tournament, made or refused.
#[derive(Debug, Clone, Copy)]
pub struct TimeDecision<'a> {
    pub tournament: TournamentId,
    pub pool: PoolId,
    pub reason: &'a str,
    pub by: UserId,
    pub at: DateTime<Utc>,
    pub kind: DecisionKind,
    pub field: &'a str,
    pub old_value: &'a str,
    pub new_value: &'a str,
}

/// Keeps a change of time in the tournament's decisions (its status stays `accepted`).
pub fn record_time_change(conn: &mut PgConnection, d: TimeDecision<'_>) -> QueryResult<()> {
    diesel::insert_into(rating_decisions::table)
        .values((
            rating_decisions::tournament_id.eq(d.tournament),
            rating_decisions::pool_id.eq(d.pool),
            rating_decisions::rating_status.eq(RatingStatus::Accepted),
            rating_decisions::reason.eq(d.reason),
            rating_decisions::decided_by.eq(d.by),
            rating_decisions::decided_at.eq(d.at),
            rating_decisions::kind.eq(d.kind),
            rating_decisions::field.eq(d.field),
            rating_decisions::old_value.eq(d.old_value),
            rating_decisions::new_value.eq(d.new_value),
        ))
        .execute(conn)?;
    Ok(())
}

/// Appends an event to the pool's feed (read by its webhooks).
pub fn record_pool_event(
    conn: &mut PgConnection,
    pool: PoolId,
    kind: &str,
    payload: serde_json::Value,
) -> QueryResult<()> {
    diesel::insert_into(pool_events::table)
        .values((
            pool_events::pool_id.eq(pool),
            pool_events::kind.eq(kind),
            pool_events::payload.eq(payload),
        ))
        .execute(conn)?;
    Ok(())
}

/// A tournament's new rating status, as stored on its row.
#[derive(Debug, Clone, Copy)]
pub struct NewRatingStatus<'a> {
    pub status: RatingStatus,
    pub reason: Option<&'a str>,
    pub announced_at: Option<DateTime<Utc>>,
    pub by: UserId,
    pub at: DateTime<Utc>,
}

/// Stores a tournament's new rating status as its next version (`version`), stamped `at`.
pub fn set_rating_status(
    conn: &mut PgConnection,
    tournament: TournamentId,
    version: i32,
    s: NewRatingStatus<'_>,
) -> QueryResult<Tournament> {
    diesel::update(tournaments::table.find(tournament))
        .set((
            tournaments::rating_status.eq(s.status),
            tournaments::rating_reason.eq(s.reason),
            tournaments::rating_decided_by.eq(s.by),
            tournaments::rating_decided_at.eq(s.at),
            tournaments::announced_at.eq(s.announced_at),
            tournaments::updated_at.eq(s.at),
            tournaments::version.eq(version),
        ))
        .returning(Tournament::as_returning())
        .get_result(conn)
}

/// How many requests and decisions the tournament has.
pub fn count_decisions(conn: &mut PgConnection, tournament: TournamentId) -> QueryResult<i64> {
    rating_decisions::table
        .filter(rating_decisions::tournament_id.eq(tournament))
        .count()
        .get_result(conn)
}

/// A page of the tournament's requests and decisions, oldest first.
pub fn decisions(
    conn: &mut PgConnection,
    tournament: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<DecisionRow>> {
    rating_decisions::table
        .filter(rating_decisions::tournament_id.eq(tournament))
        .order(rating_decisions::id)
        .limit(limit)
        .offset(offset)
        .select((
            rating_decisions::id,
            rating_decisions::tournament_id,
            rating_decisions::pool_id,
            rating_decisions::rating_status,
            rating_decisions::reason,
            rating_decisions::announced_at,
            rating_decisions::decided_by,
            rating_decisions::decided_at,
            rating_decisions::kind,
            rating_decisions::field,
            rating_decisions::old_value,
            rating_decisions::new_value,
        ))
        .load(conn)
}

/// Where a page of a pool's tournaments starts: after the tournament with this decision time
/// and id (the list runs newest decision first, never decided first), or at an offset.
#[derive(Debug, Clone, Copy)]
pub enum PoolTournamentsStart {
    Offset(i64),
    After(Option<DateTime<Utc>>, TournamentId),
}

type PoolTournamentsQuery<'a> = tournaments::BoxedQuery<'a, diesel::pg::Pg>;

/// The tournaments that name `pool` (with status `status` only, for `Some`).
fn naming_pool<'a>(pool: PoolId, status: Option<RatingStatus>) -> PoolTournamentsQuery<'a> {
    let mut q = tournaments::table
        .filter(tournaments::rating_pool_id.eq(pool))
        .into_boxed();
    if let Some(s) = status {
        q = q.filter(tournaments::rating_status.eq(s));
    }
    q
}

/// A page of the tournaments that name `pool` (with rating status `status` only, for `Some`),
/// newest decision first (never decided first), then by id descending: at most `limit` from
/// `start`.
pub fn naming_pool_page(
    conn: &mut PgConnection,
    pool: PoolId,
    status: Option<RatingStatus>,
    start: PoolTournamentsStart,
    limit: i64,
) -> QueryResult<Vec<Tournament>> {
    let mut rows = naming_pool(pool, status);
    let mut offset = 0;
    match start {
        PoolTournamentsStart::Offset(o) => offset = o,
        // After a tournament never decided: the others never decided with a lower id, then
        // every decided one.
        PoolTournamentsStart::After(None, id) => {
            rows = rows.filter(
                tournaments::rating_decided_at
                    .is_null()
                    .and(tournaments::id.lt(id))
                    .or(tournaments::rating_decided_at.is_not_null()),
            );
        }
        PoolTournamentsStart::After(Some(at), id) => {
            rows = rows.filter(
                tournaments::rating_decided_at
                    .lt(at)
                    .or(tournaments::rating_decided_at
                        .eq(at)
                        .and(tournaments::id.lt(id))),
            );
        }
    }
    rows.order((
        tournaments::rating_decided_at.desc(),
        tournaments::id.desc(),
    ))
    .limit(limit)
    .offset(offset)
    .select(Tournament::as_select())
    .load(conn)
}

/// How many tournaments name `pool` (with rating status `status` only, for `Some`), counted to
/// `cap` at most.
pub fn count_naming_pool(
    conn: &mut PgConnection,
    pool: PoolId,
    status: Option<RatingStatus>,
    cap: i64,
) -> QueryResult<i64> {
    Ok(naming_pool(pool, status)
        .select(tournaments::id)
        .limit(cap)
        .load::<i64>(conn)?
        .len() as i64)
}

/// The usernames of `users`.
pub fn usernames(conn: &mut PgConnection, ids: &[UserId]) -> QueryResult<Vec<(UserId, String)>> {
    users::table
        .filter(users::id.eq_any(ids))
        .select((users::id, users::username))
        .load(conn)
}

/// The confirmed players of `tournaments`, by tournament then player id: (tournament, player,
/// name).
pub fn confirmed_players(
    conn: &mut PgConnection,
    tournaments: &[TournamentId],
) -> QueryResult<Vec<(TournamentId, PlayerId, String)>> {
    registrations::table
        .inner_join(players::table)
        .filter(registrations::tournament_id.eq_any(tournaments))
        .filter(registrations::status.eq(RegistrationStatus::Confirmed))
        .order((registrations::tournament_id, players::id))
        .select((registrations::tournament_id, players::id, players::name))
        .load(conn)
}

/// How many rounds each of `tournaments` has completed (tournaments with none are absent).
pub fn completed_rounds(
    conn: &mut PgConnection,
    tournaments: &[TournamentId],
) -> QueryResult<Vec<(TournamentId, i64)>> {
    rounds::table
        .filter(rounds::tournament_id.eq_any(tournaments))
        .filter(rounds::status.eq(RoundStatus::Completed))
        .group_by(rounds::tournament_id)
        .select((rounds::tournament_id, diesel::dsl::count_star()))
        .load(conn)
}

/// The tables with a result in `tournaments`, each once: (tournament, round, table).
pub fn tables_with_results(
    conn: &mut PgConnection,
    tournaments: &[TournamentId],
) -> QueryResult<Vec<(TournamentId, RoundId, i32)>> {
    results::table
        .inner_join(rounds::table)
        .filter(rounds::tournament_id.eq_any(tournaments))
        .select((
            rounds::tournament_id,
            results::round_id,
            results::table_number,
        ))
        .distinct()
        .load(conn)
}
