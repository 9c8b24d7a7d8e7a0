//! A player's rating history across pools: their log rows with the names of pool, tournament
//! and round.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId, RoundId, TournamentId};
use crate::db::schema::{players, rating_changes, rating_pools, rounds, tournaments};
use crate::domain::rating::ChangeKind;

/// A change of a player's history as read. For an import, `tournament_id`, `round_id` and
/// `result_version` hold no game and `table_number` holds the import's id (as the log stores
/// it).
#[derive(Debug, Clone, Queryable)]
pub struct PlayerChangeRow {
    pub pool_id: PoolId,
    pub pool_name: String,
    pub kind: ChangeKind,
    pub tournament_id: TournamentId,
    pub tournament_name: Option<String>,
    pub round_id: RoundId,
    pub round_number: Option<i32>,
    pub table_number: i32,
    pub result_version: i32,
    pub rated_at: DateTime<Utc>,
    pub rating_before: f64,
    pub rating_after: f64,
    pub delta: f64,
    pub sequence: i64,
}

/// Whether the player exists.
pub fn player_exists(conn: &mut PgConnection, player: PlayerId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(players::table.find(player))).get_result(conn)
}

/// Where a page of a player's history starts: after the change at
/// `(rated_at, pool, sequence)`, or at an offset.
#[derive(Debug, Clone, Copy)]
pub enum HistoryStart {
    Offset(i64),
    After(DateTime<Utc>, PoolId, i64),
}

/// The player's changes (only `pool`'s for `Some`) in the order they were rated (then pool,
/// then sequence): at most `limit` from `start`.
pub fn page(
    conn: &mut PgConnection,
    player: PlayerId,
    pool: Option<PoolId>,
    start: HistoryStart,
    limit: i64,
) -> QueryResult<Vec<PlayerChangeRow>> {
    let mut query = rating_changes::table
        .inner_join(rating_pools::table)
        .left_join(tournaments::table.on(tournaments::id.eq(rating_changes::tournament_id)))
        .left_join(rounds::table.on(rounds::id.eq(rating_changes::round_id)))
        .filter(rating_changes::player_id.eq(player))
        .into_boxed();
    if let Some(p) = pool {
        query = query.filter(rating_changes::pool_id.eq(p));
    }
    let mut offset = 0;
    match start {
        HistoryStart::Offset(o) => offset = o,
        HistoryStart::After(at, pool_id, sequence) => {
            use diesel::dsl::sql;
            use diesel::sql_types::{BigInt, Bool, Timestamptz};
            query = query.filter(
                sql::<Bool>(
                    "(rating_changes.rated_at, rating_changes.pool_id, rating_changes.sequence) > (",
                )
                .bind::<Timestamptz, _>(at)
                .sql(", ")
                .bind::<BigInt, _>(pool_id)
                .sql(", ")
                .bind::<BigInt, _>(sequence)
                .sql(")"),
            );
        }
    }
    query
        .order((
            rating_changes::rated_at,
            rating_changes::pool_id,
            rating_changes::sequence,
        ))
        .limit(limit)
        .offset(offset)
        .select((
            rating_changes::pool_id,
            rating_pools::name,
            rating_changes::kind,
            rating_changes::tournament_id,
            tournaments::name.nullable(),
            rating_changes::round_id,
            rounds::number.nullable(),
            rating_changes::table_number,
            rating_changes::result_version,
            rating_changes::rated_at,
            rating_changes::rating_before,
            rating_changes::rating_after,
            rating_changes::delta,
            rating_changes::sequence,
        ))
        .load(conn)
}

/// How many changes the player has (only in `pool` for `Some`), counted to `cap` at most.
pub fn count(
    conn: &mut PgConnection,
    player: PlayerId,
    pool: Option<PoolId>,
    cap: i64,
) -> QueryResult<i64> {
    let mut query = rating_changes::table
        .inner_join(rating_pools::table)
        .left_join(tournaments::table.on(tournaments::id.eq(rating_changes::tournament_id)))
        .left_join(rounds::table.on(rounds::id.eq(rating_changes::round_id)))
        .filter(rating_changes::player_id.eq(player))
        .into_boxed();
    if let Some(p) = pool {
        query = query.filter(rating_changes::pool_id.eq(p));
    }
    Ok(query
        .select(rating_changes::sequence)
        .limit(cap)
        .load::<i64>(conn)?
        .len() as i64)
}
