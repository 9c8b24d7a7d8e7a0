//! Rating pools: the row, its stored JSON (parameters, seasons) decoded once, and the reads
//! of a tournament that say whether and how it feeds a pool.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::Serialize;

use crate::db::ids::{PoolId, TournamentId, UserId};
use crate::db::models::{RatingPoolRow, TournamentRules};
use crate::db::named::{self, Named, NamesAfter};
use crate::db::schema::{rating_pools, rounds, tournaments};
use crate::domain::ids::RoundId;
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::rating::RatingPoolParams;
use crate::domain::scoring::Ruleset;
use crate::error::ApiError;

pub use crate::db::models::StoredSeason;

/// The engine parameters stored on a pool (decoded as the row was read).
pub fn params_of(pool: &RatingPoolRow) -> Result<RatingPoolParams, ApiError> {
    Ok(pool.params.clone())
}

/// The seasons stored on a pool, as local dates (decoded as the row was read).
pub fn seasons_of(pool: &RatingPoolRow) -> Result<Vec<StoredSeason>, ApiError> {
    Ok(pool.seasons.clone())
}

/// A value as stored in a JSON column.
fn encode<T: Serialize>(v: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::Internal(e.to_string()))
}

/// Pool `id`, if there is one.
pub fn by_id(conn: &mut PgConnection, id: PoolId) -> QueryResult<Option<RatingPoolRow>> {
    rating_pools::table
        .filter(rating_pools::id.eq(id))
        .select(RatingPoolRow::as_select())
        .first(conn)
        .optional()
}

/// The pools with these ids (those that exist), in no order.
pub fn by_ids(conn: &mut PgConnection, ids: &[PoolId]) -> QueryResult<Vec<RatingPoolRow>> {
    rating_pools::table
        .filter(rating_pools::id.eq_any(ids))
        .select(RatingPoolRow::as_select())
        .load(conn)
}

/// Pool `id`, locked (`FOR UPDATE`) until the end of the transaction.
pub fn lock(conn: &mut PgConnection, id: PoolId) -> QueryResult<Option<RatingPoolRow>> {
    rating_pools::table
        .filter(rating_pools::id.eq(id))
        .select(RatingPoolRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Pool `id` with its `leaderboard_version` (the standings and the listed players).
pub fn with_leaderboard_version(
    conn: &mut PgConnection,
    id: PoolId,
) -> QueryResult<Option<(RatingPoolRow, i64)>> {
    rating_pools::table
        .filter(rating_pools::id.eq(id))
        .select((
            RatingPoolRow::as_select(),
            rating_pools::leaderboard_version,
        ))
        .first(conn)
        .optional()
}

/// How often pool `id` rewrote its log, and where the latest rewrite began.
pub fn log_rewrites(
    conn: &mut PgConnection,
    id: PoolId,
) -> QueryResult<Option<(i64, Option<i64>)>> {
    rating_pools::table
        .filter(rating_pools::id.eq(id))
        .select((rating_pools::log_rewrites, rating_pools::log_rewritten_from))
        .first(conn)
        .optional()
}

/// How many pools there are.
pub fn count(conn: &mut PgConnection) -> QueryResult<i64> {
    rating_pools::table.count().get_result(conn)
}

/// One page of pools, by id.
pub fn page(conn: &mut PgConnection, limit: i64, offset: i64) -> QueryResult<Vec<RatingPoolRow>> {
    rating_pools::table
        .order(rating_pools::id)
        .limit(limit)
        .offset(offset)
        .select(RatingPoolRow::as_select())
        .load(conn)
}

/// Where a page of the pool search starts after the one before: the last row's keys.
pub type PoolsAfter = NamesAfter<PoolId>;

/// The pool list's search by name (folded as players' names are: case, marks and
/// compatibility forms ignored).
const NAMED: Named = Named("rating_pools");

/// The pools whose name holds `q` or a near match of a word of it; every pool without `q`.
fn matching(q: Option<&str>) -> rating_pools::BoxedQuery<'static, diesel::pg::Pg> {
    let mut query = rating_pools::table.into_boxed();
    if let Some(q) = q {
        query = query.filter(NAMED.matches(q));
    }
    query
}

/// A page of the pools `q` finds (every pool without it), each with its similarity to `q` and
/// (with `counted_here`) the count of every match taken in the same pass (`count(*) OVER ()`),
/// `limit` + 1 rows from `offset` after `after`: ranked by similarity (`ranked`), else by
/// name; ties by name, then id.
#[allow(clippy::too_many_arguments)]
pub fn search_page(
    conn: &mut PgConnection,
    q: Option<&str>,
    ranked: bool,
    after: Option<PoolsAfter>,
    limit: i64,
    offset: i64,
    counted_here: bool,
) -> QueryResult<Vec<(RatingPoolRow, f32, Option<i64>)>> {
    let text = q.unwrap_or_default().to_string();
    let mut query = matching(q);
    if let Some(after) = after {
        query = query.filter(NAMED.after(&text, after));
    }
    let query = if ranked {
        query.order((NAMED.score(&text).desc(), NAMED.name(), rating_pools::id))
    } else {
        query.order((NAMED.name(), rating_pools::id))
    };
    query
        .select((
            RatingPoolRow::as_select(),
            NAMED.score(&text),
            named::counted_here(counted_here),
        ))
        .limit(limit + 1)
        .offset(offset)
        .load(conn)
}

/// How many pools `q` finds, counted up to `cap` + 1.
pub fn search_count(conn: &mut PgConnection, q: Option<&str>, cap: i64) -> QueryResult<i64> {
    Ok(matching(q)
        .select(rating_pools::id)
        .limit(cap + 1)
        .load::<i64>(conn)?
        .len() as i64)
}

/// A pool's settings as written.
pub struct PoolSettings<'a> {
    pub name: &'a str,
    pub params: &'a RatingPoolParams,
    pub time_zone: &'a str,
    pub seasons: &'a [StoredSeason],
    pub league: bool,
    pub open: bool,
}

/// Stores a new pool made by `created_by`.
pub fn insert(
    conn: &mut PgConnection,
    pool: &PoolSettings<'_>,
    created_by: UserId,
) -> Result<RatingPoolRow, ApiError> {
    let (params, seasons) = (encode(pool.params)?, encode(&pool.seasons)?);
    Ok(diesel::insert_into(rating_pools::table)
        .values((
            rating_pools::name.eq(pool.name),
            rating_pools::params.eq(params),
            rating_pools::time_zone.eq(pool.time_zone),
            rating_pools::seasons.eq(seasons),
            rating_pools::league.eq(pool.league),
            rating_pools::open.eq(pool.open),
            rating_pools::created_by.eq(created_by),
        ))
        .returning(RatingPoolRow::as_returning())
        .get_result(conn)?)
}

/// Writes pool `id`'s settings if it is still at `version` (then one version on, changed at
/// `now`); `None` when it is not.
pub fn update_at_version(
    conn: &mut PgConnection,
    id: PoolId,
    version: i32,
    pool: &PoolSettings<'_>,
    now: DateTime<Utc>,
) -> Result<Option<RatingPoolRow>, ApiError> {
    let (params, seasons) = (encode(pool.params)?, encode(&pool.seasons)?);
    Ok(diesel::update(
        rating_pools::table
            .filter(rating_pools::id.eq(id))
            .filter(rating_pools::version.eq(version)),
    )
    .set((
        rating_pools::name.eq(pool.name),
        rating_pools::params.eq(params),
        rating_pools::time_zone.eq(pool.time_zone),
        rating_pools::seasons.eq(seasons),
        rating_pools::league.eq(pool.league),
        rating_pools::open.eq(pool.open),
        rating_pools::updated_at.eq(now),
        rating_pools::version.eq(version + 1),
    ))
    .returning(RatingPoolRow::as_returning())
    .get_result(conn)
    .optional()?)
}

/// How many tournaments pool `id` has accepted.
pub fn accepted_tournaments(conn: &mut PgConnection, id: PoolId) -> QueryResult<i64> {
    tournaments::table
        .filter(tournaments::rating_pool_id.eq(id))
        .filter(tournaments::rating_status.eq(RatingStatus::Accepted))
        .count()
        .get_result(conn)
}

/// The pool a tournament names and its rating status, read under a share lock (a keeper's
/// decision on the tournament waits for the reader's transaction); `None`: no tournament.
pub fn link_of_tournament(
    conn: &mut PgConnection,
    id: TournamentId,
) -> QueryResult<Option<(Option<PoolId>, Option<RatingStatus>)>> {
    tournaments::table
        .filter(tournaments::id.eq(id))
        .select((tournaments::rating_pool_id, tournaments::rating_status))
        .for_share()
        .first(conn)
        .optional()
}

/// The ruleset a tournament is played (and rated) by; a stored value that does not parse is
/// an error naming the row.
pub fn ruleset_of_tournament(
    conn: &mut PgConnection,
    id: TournamentId,
) -> Result<Ruleset, ApiError> {
    let rules: TournamentRules = tournaments::table
        .filter(tournaments::id.eq(id))
        .select(TournamentRules::as_select())
        .first(conn)?;
    Ok(rules.ruleset)
}

/// Round `number` of a tournament: its id and when it was played; `None`: no such round.
pub fn round_played(
    conn: &mut PgConnection,
    tournament: TournamentId,
    number: i32,
) -> QueryResult<Option<(RoundId, Option<DateTime<Utc>>)>> {
    rounds::table
        .filter(rounds::tournament_id.eq(tournament))
        .filter(rounds::number.eq(number))
        .select((rounds::id, rounds::played_at))
        .first(conn)
        .optional()
}

/// Whether rating pool `id` exists (the tournament list's filter, an API key's limit).
pub fn exists(conn: &mut PgConnection, id: PoolId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(rating_pools::table.find(id.0))).get_result(conn)
}
