//! What a pool's leaderboard is read from: the current standings (`rating_standings`) with
//! the players' names, clubs and countries, and the standings at an instant from the log.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Int8, Nullable, Timestamptz};
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId};
use crate::db::models::RatingPoolRow;
use crate::db::schema::{players, rating_standings};

/// Ids looked up per statement.
const CHUNK: usize = 10_000;

/// One player's line of the current standings.
#[derive(Debug, Clone, Queryable)]
pub struct BoardRow {
    pub player_id: PlayerId,
    pub name: String,
    pub club: Option<String>,
    pub country: Option<String>,
    pub rating: f64,
    pub games: i64,
    pub last_played: Option<DateTime<Utc>>,
    pub trend_delta: f64,
    pub trend_games: i64,
    pub last_delta: Option<f64>,
}

/// Pool `pool` (with its `leaderboard_version`) and the lines of its current standings with
/// at least one rated game (unordered: sorting here costs the database more than the board's
/// sort), read in one read-only snapshot so the lines are exactly what the versions name.
/// `None`: no such pool.
pub fn snapshot(
    conn: &mut PgConnection,
    pool: PoolId,
) -> QueryResult<Option<(RatingPoolRow, i64, Vec<BoardRow>)>> {
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| {
            let Some((row, lb_version)) = super::pools::with_leaderboard_version(conn, pool)?
            else {
                return Ok(None);
            };
            let rows: Vec<BoardRow> = rating_standings::table
                .inner_join(players::table)
                .filter(rating_standings::pool_id.eq(pool))
                .filter(rating_standings::games.gt(0))
                .select((
                    rating_standings::player_id,
                    players::name,
                    players::club,
                    players::country,
                    rating_standings::rating,
                    rating_standings::games,
                    rating_standings::last_played,
                    rating_standings::trend_delta,
                    rating_standings::trend_games,
                    rating_standings::last_delta,
                ))
                .load(conn)?;
            Ok(Some((row, lb_version, rows)))
        })
}

/// A player's rating, games, last game and trend at an instant, from the log.
#[derive(Debug, Clone, QueryableByName)]
pub struct PlayerSummary {
    #[diesel(sql_type = Int8)]
    pub player_id: PlayerId,
    #[diesel(sql_type = Double)]
    pub rating: f64,
    #[diesel(sql_type = BigInt)]
    pub games: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_played: Option<DateTime<Utc>>,
    #[diesel(sql_type = Double)]
    pub trend_delta: f64,
    #[diesel(sql_type = BigInt)]
    pub trend_games: i64,
    #[diesel(sql_type = Nullable<Double>)]
    pub last_delta: Option<f64>,
}

/// Every player's [`PlayerSummary`] in `pool` from the changes rated at or before `at`, by
/// player id; the trend sums the last `trend_games` rated games. (The same aggregate as the
/// standings kept in `rating_standings`, over a prefix of the log.)
pub fn summaries_at(
    conn: &mut PgConnection,
    pool: PoolId,
    trend_games: i64,
    at: DateTime<Utc>,
) -> QueryResult<Vec<PlayerSummary>> {
    diesel::sql_query(
        "WITH c AS (
            SELECT player_id, kind, rating_after, delta, rated_at, games,
                   row_number() OVER (PARTITION BY player_id ORDER BY sequence DESC) AS rn,
                   CASE WHEN kind = 'game' THEN row_number()
                        OVER (PARTITION BY player_id, kind ORDER BY sequence DESC) END AS gn
            FROM rating_changes
            WHERE pool_id = $1 AND rated_at <= $3
        )
        SELECT player_id,
               max(rating_after) FILTER (WHERE rn = 1) AS rating,
               coalesce(sum(games), 0)::int8 AS games,
               max(rated_at) FILTER (WHERE kind = 'game') AS last_played,
               coalesce(sum(delta) FILTER (WHERE gn <= $2), 0)::float8 AS trend_delta,
               count(*) FILTER (WHERE gn <= $2) AS trend_games,
               max(delta) FILTER (WHERE gn = 1) AS last_delta
        FROM c GROUP BY player_id ORDER BY player_id",
    )
    .bind::<Int8, _>(pool)
    .bind::<BigInt, _>(trend_games)
    .bind::<Timestamptz, _>(at)
    .load(conn)
}

/// A player's name, club and country.
pub type Person = (String, Option<String>, Option<String>);

/// The name, club and country of each of `ids` that is a player.
pub fn people(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<HashMap<PlayerId, Person>> {
    let mut out = HashMap::new();
    for chunk in ids.chunks(CHUNK) {
        let rows: Vec<(PlayerId, String, Option<String>, Option<String>)> = players::table
            .filter(players::id.eq_any(chunk))
            .select((players::id, players::name, players::club, players::country))
            .load(conn)?;
        out.extend(rows.into_iter().map(|(i, n, c, k)| (i, (n, c, k))));
    }
    Ok(out)
}

/// The name of each of `ids` that is a player.
pub fn names(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<HashMap<PlayerId, String>> {
    let mut out = HashMap::new();
    for chunk in ids.chunks(CHUNK) {
        out.extend(
            players::table
                .filter(players::id.eq_any(chunk))
                .select((players::id, players::name))
                .load::<(PlayerId, String)>(conn)?,
        );
    }
    Ok(out)
}
