//! A pool's standings (`rating_standings`): per player the aggregate of their log rows, kept
//! beside the log so the leaderboard reads one row per player.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Bool, Double, Int8, Nullable, Timestamptz};
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId};
use crate::db::schema::{rating_pools, rating_standings};

/// The per-player aggregate of a pool's log that `rating_standings` stores (and the season
/// leaderboard computes at an instant): the latest rating, rated games, last game, and the
/// trend over the last games. `$1` = pool, `$2` = trend length; `{filter}` adds conditions on
/// `rating_changes`.
pub fn standings_sql(filter: &str) -> String {
    format!(
        "WITH c AS (
            SELECT player_id, kind, rating_after, delta, rated_at, games,
                   row_number() OVER (PARTITION BY player_id ORDER BY sequence DESC) AS rn,
                   CASE WHEN kind = 'game' THEN row_number()
                        OVER (PARTITION BY player_id, kind ORDER BY sequence DESC) END AS gn
            FROM rating_changes
            WHERE pool_id = $1 {filter}
        )
        SELECT player_id,
               max(rating_after) FILTER (WHERE rn = 1) AS rating,
               coalesce(sum(games), 0)::int8 AS games,
               max(rated_at) FILTER (WHERE kind = 'game') AS last_played,
               coalesce(sum(delta) FILTER (WHERE gn <= $2), 0)::float8 AS trend_delta,
               count(*) FILTER (WHERE gn <= $2) AS trend_games,
               max(delta) FILTER (WHERE gn = 1) AS last_delta
        FROM c GROUP BY player_id"
    )
}

/// A `rating_standings` row.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = rating_standings)]
#[diesel(treat_none_as_default_value = false)]
pub struct StandingRow {
    pub pool_id: PoolId,
    pub player_id: PlayerId,
    pub rating: f64,
    pub games: i64,
    pub last_played: Option<DateTime<Utc>>,
    pub trend_games: i64,
    pub trend_delta: f64,
    pub last_delta: Option<f64>,
}

/// `players`' stored rating and rated games in the pool (players without a row are absent).
pub fn rating_and_games(
    conn: &mut PgConnection,
    pool: PoolId,
    players: &[PlayerId],
) -> QueryResult<Vec<(PlayerId, f64, i64)>> {
    rating_standings::table
        .filter(rating_standings::pool_id.eq(pool))
        .filter(rating_standings::player_id.eq_any(players))
        .select((
            rating_standings::player_id,
            rating_standings::rating,
            rating_standings::games,
        ))
        .load(conn)
}

/// A player's log before a sequence, as the standings refresh needs it: whether they have any
/// row there, and (one per game row, newest first, at most the trend's length) their game rows.
#[derive(Debug, QueryableByName)]
pub struct OlderGames {
    #[diesel(sql_type = Int8)]
    pub player_id: PlayerId,
    #[diesel(sql_type = Bool)]
    pub has_rows: bool,
    #[diesel(sql_type = Nullable<Int8>)]
    pub sequence: Option<i64>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub rated_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Double>)]
    pub delta: Option<f64>,
}

/// For each of `players`: whether they have log rows in the pool before `before_sequence`, and
/// their last `trend` game rows before it (one index descent each; a player without game rows
/// there comes once, with no game).
pub fn older_games(
    conn: &mut PgConnection,
    pool: PoolId,
    players: &[PlayerId],
    before_sequence: i64,
    trend: i64,
) -> QueryResult<Vec<OlderGames>> {
    let players: Vec<i64> = players.iter().map(|p| p.0).collect();
    diesel::sql_query(
        "SELECT p.id AS player_id,
                (SELECT e.sequence FROM rating_changes e
                 WHERE e.player_id = p.id AND e.pool_id + 0 = $1 AND e.sequence < $3
                 ORDER BY e.player_id DESC, e.pool_id DESC, e.sequence DESC
                 LIMIT 1) IS NOT NULL AS has_rows,
                c.sequence, c.rated_at, c.delta
         FROM unnest($2::int8[]) AS p(id)
         LEFT JOIN LATERAL (
             SELECT sequence, rated_at, delta FROM rating_changes c
             WHERE c.player_id = p.id AND c.pool_id + 0 = $1 AND c.sequence < $3
               AND c.kind = 'game'
             ORDER BY c.player_id DESC, c.pool_id DESC, c.sequence DESC LIMIT $4) c ON true",
    )
    .bind::<Int8, _>(pool)
    .bind::<Array<Int8>, _>(&players)
    .bind::<Int8, _>(before_sequence)
    .bind::<Int8, _>(trend)
    .load(conn)
    // (Only `rating_changes_player_idx`, read backwards, serves this: `pool_id + 0` keeps the
    // primary key (pool_id, sequence, ...) out, which the planner took while the statistics
    // did not know the pool yet, scanning the whole pool's log before `first_seq` once per
    // player: completing a round of a new 1,000-player event cost 22 ms more per round.)
}

/// Deletes `players`' standings in the pool.
pub fn delete_players(
    conn: &mut PgConnection,
    pool: PoolId,
    players: &[PlayerId],
) -> QueryResult<usize> {
    diesel::delete(
        rating_standings::table
            .filter(rating_standings::pool_id.eq(pool))
            .filter(rating_standings::player_id.eq_any(players)),
    )
    .execute(conn)
}

/// Deletes all of the pool's standings.
pub fn delete_all(conn: &mut PgConnection, pool: PoolId) -> QueryResult<usize> {
    diesel::delete(rating_standings::table.filter(rating_standings::pool_id.eq(pool))).execute(conn)
}

/// Writes standings rows (`COPY`, the bulk path); nothing for none.
pub fn insert(conn: &mut PgConnection, rows: &[StandingRow]) -> QueryResult<usize> {
    if rows.is_empty() {
        return Ok(0);
    }
    diesel::copy_from(rating_standings::table)
        .from_insertable(rows)
        .execute(conn)
}

/// Bumps the pool's `leaderboard_version` (its standings changed).
pub fn bump_leaderboard(conn: &mut PgConnection, pool: PoolId) -> QueryResult<()> {
    diesel::update(rating_pools::table.find(pool))
        .set(rating_pools::leaderboard_version.eq(rating_pools::leaderboard_version + 1))
        .execute(conn)?;
    Ok(())
}
