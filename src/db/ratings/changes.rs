//! A pool's change log (`rating_changes`): numbered densely from 0 in the pool's time order,
//! read by sequence, by player and by instant, and rewritten from a point on by the feed.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8};
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId, RoundId, TournamentId};
use crate::db::models::RatingChangeRow;
use crate::db::schema::{rating_changes, rating_pools};
use crate::domain::rating::ChangeKind;

/// A log row as the engine's history reads it.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct LogRow {
    pub sequence: i64,
    pub player_id: PlayerId,
    pub kind: ChangeKind,
    pub rated_at: DateTime<Utc>,
    pub rating_before: f64,
    pub rating_after: f64,
    pub delta: f64,
    pub games: i32,
}

/// The pool's last sequence (`None`: an empty log).
pub fn last_sequence(conn: &mut PgConnection, pool: PoolId) -> QueryResult<Option<i64>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .select(diesel::dsl::max(rating_changes::sequence))
        .first(conn)
}

/// Where item `sequence` of the pool's log stands in its time order:
/// `(rated_at, round, table)` (`None`: no such sequence).
pub fn key_at(
    conn: &mut PgConnection,
    pool: PoolId,
    sequence: i64,
) -> QueryResult<Option<(DateTime<Utc>, RoundId, i32)>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::sequence.eq(sequence))
        .select((
            rating_changes::rated_at,
            rating_changes::round_id,
            rating_changes::table_number,
        ))
        .first(conn)
        .optional()
}

/// The pool's log rows from `sequence` on, in no particular order.
pub fn from_sequence(
    conn: &mut PgConnection,
    pool: PoolId,
    sequence: i64,
) -> QueryResult<Vec<RatingChangeRow>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::sequence.ge(sequence))
        .select(RatingChangeRow::as_select())
        .load(conn)
}

/// Deletes the pool's whole log; returns how many rows it held.
pub fn delete_all(conn: &mut PgConnection, pool: PoolId) -> QueryResult<usize> {
    diesel::delete(rating_changes::table.filter(rating_changes::pool_id.eq(pool))).execute(conn)
}

/// Deletes the pool's log rows `(sequence, player)` given as two lists of equal length.
pub fn delete_rows(
    conn: &mut PgConnection,
    pool: PoolId,
    sequences: &[i64],
    players: &[PlayerId],
) -> QueryResult<usize> {
    let players: Vec<i64> = players.iter().map(|p| p.0).collect();
    diesel::sql_query(
        "DELETE FROM rating_changes
         WHERE pool_id = $1
           AND (sequence, player_id) IN (SELECT * FROM unnest($2::int8[], $3::int8[]))",
    )
    .bind::<Int8, _>(pool)
    .bind::<Array<Int8>, _>(sequences)
    .bind::<Array<Int8>, _>(&players)
    .execute(conn)
}

/// Writes log rows (`COPY`, the bulk path); nothing for none.
pub fn insert(conn: &mut PgConnection, rows: &[RatingChangeRow]) -> QueryResult<usize> {
    if rows.is_empty() {
        return Ok(0);
    }
    diesel::copy_from(rating_changes::table)
        .from_insertable(rows)
        .execute(conn)
}

/// Fresh planner statistics of the log and the standings after a whole pool was rewritten, so
/// the next feeds plan with them instead of waiting for autovacuum (ANALYZE sees the
/// transaction's own rows).
pub fn analyze(conn: &mut PgConnection) -> QueryResult<()> {
    diesel::sql_query("ANALYZE rating_changes, rating_standings").execute(conn)?;
    Ok(())
}

/// Records on the pool that its log was rewritten from `sequence` on (rows already in it were
/// replaced or removed), for the keepers who mirror it (`log_rewrites`, `log_rewritten_from`).
pub fn mark_rewritten(conn: &mut PgConnection, pool: PoolId, sequence: i64) -> QueryResult<()> {
    diesel::update(rating_pools::table.find(pool))
        .set((
            rating_pools::log_rewrites.eq(rating_pools::log_rewrites + 1),
            rating_pools::log_rewritten_from.eq(sequence),
        ))
        .execute(conn)?;
    Ok(())
}

/// When the pool's latest change was rated (its highest sequence; `None`: an empty log).
pub fn latest_rated_at(
    conn: &mut PgConnection,
    pool: PoolId,
) -> QueryResult<Option<DateTime<Utc>>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .order(rating_changes::sequence.desc())
        .select(rating_changes::rated_at)
        .first(conn)
        .optional()
}

/// The columns of a [`LogRow`].
type LogColumns = (
    rating_changes::sequence,
    rating_changes::player_id,
    rating_changes::kind,
    rating_changes::rated_at,
    rating_changes::rating_before,
    rating_changes::rating_after,
    rating_changes::delta,
    rating_changes::games,
);

const LOG_COLUMNS: LogColumns = (
    rating_changes::sequence,
    rating_changes::player_id,
    rating_changes::kind,
    rating_changes::rated_at,
    rating_changes::rating_before,
    rating_changes::rating_after,
    rating_changes::delta,
    rating_changes::games,
);

/// `players`' log rows in the pool rated at or before `at`, in log order.
pub fn of_players_until(
    conn: &mut PgConnection,
    pool: PoolId,
    players: &[PlayerId],
    at: DateTime<Utc>,
) -> QueryResult<Vec<LogRow>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::player_id.eq_any(players))
        .filter(rating_changes::rated_at.le(at))
        .order((rating_changes::sequence, rating_changes::player_id))
        .select(LOG_COLUMNS)
        .load(conn)
}

/// The pool's whole log rated at or before `until` (everything for `None`), in log order.
pub fn until(
    conn: &mut PgConnection,
    pool: PoolId,
    until: Option<DateTime<Utc>>,
) -> QueryResult<Vec<LogRow>> {
    let mut q = rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .order((rating_changes::sequence, rating_changes::player_id))
        .select(LOG_COLUMNS)
        .into_boxed();
    if let Some(t) = until {
        q = q.filter(rating_changes::rated_at.le(t));
    }
    q.load(conn)
}

/// A game row of the log: who played in which tournament, and where the game stands in the
/// pool's time order.
#[derive(Debug, Clone, Queryable)]
pub struct LoggedGame {
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub rated_at: DateTime<Utc>,
    pub round_id: RoundId,
    pub table_number: i32,
}

/// The pool's game rows (not bonuses or imports), optionally only those before
/// `before_sequence` and without one tournament's.
pub fn games(
    conn: &mut PgConnection,
    pool: PoolId,
    before_sequence: Option<i64>,
    except_tournament: Option<TournamentId>,
) -> QueryResult<Vec<LoggedGame>> {
    let mut q = rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::kind.eq(ChangeKind::Game))
        .select((
            rating_changes::tournament_id,
            rating_changes::player_id,
            rating_changes::rated_at,
            rating_changes::round_id,
            rating_changes::table_number,
        ))
        .into_boxed();
    if let Some(seq) = before_sequence {
        q = q.filter(rating_changes::sequence.lt(seq));
    }
    if let Some(t) = except_tournament {
        q = q.filter(rating_changes::tournament_id.ne(t));
    }
    q.load(conn)
}
