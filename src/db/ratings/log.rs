//! Reads of a pool's log (`rating_changes`): what it holds per tournament and player, the
//! items it rated, where it differs from the results in force, and the log as a keeper reads
//! it.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Int8, Nullable};
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId, RoundId, TournamentId};
use crate::db::schema::{players, rating_changes, rounds};
use crate::domain::rating::ChangeKind;

/// The (tournament, player) pairs with a rated game in `pool`'s log, each once.
pub fn game_participants(
    conn: &mut PgConnection,
    pool: PoolId,
) -> QueryResult<Vec<(TournamentId, PlayerId)>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::kind.eq(ChangeKind::Game))
        .select((rating_changes::tournament_id, rating_changes::player_id))
        .distinct()
        .load(conn)
}

/// A national-rank bonus in the log: where it sits in the pool's time order, and its
/// tournament.
#[derive(Debug, Clone, Copy, PartialEq, Queryable)]
pub struct LoggedBonus {
    pub sequence: i64,
    pub rated_at: DateTime<Utc>,
    pub round_id: RoundId,
    pub table_number: i32,
    pub tournament_id: TournamentId,
}

/// The bonuses in `pool`'s log, each once, in log order.
pub fn logged_bonuses(conn: &mut PgConnection, pool: PoolId) -> QueryResult<Vec<LoggedBonus>> {
    rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::kind.eq(ChangeKind::Bonus))
        .select((
            rating_changes::sequence,
            rating_changes::rated_at,
            rating_changes::round_id,
            rating_changes::table_number,
            rating_changes::tournament_id,
        ))
        .distinct()
        .order(rating_changes::sequence)
        .load(conn)
}

/// A rated game in the log: where it sits in the pool's time order, and the version of the
/// result that was rated.
#[derive(Debug, Clone, Copy, PartialEq, Queryable)]
pub struct LoggedGame {
    pub sequence: i64,
    pub rated_at: DateTime<Utc>,
    pub round_id: RoundId,
    pub table_number: i32,
    pub result_version: i32,
}

/// The rated games in `pool`'s log (of one tournament, if given), each once, in log order.
pub fn logged_games(
    conn: &mut PgConnection,
    pool: PoolId,
    tournament: Option<TournamentId>,
) -> QueryResult<Vec<LoggedGame>> {
    let mut q = rating_changes::table
        .filter(rating_changes::pool_id.eq(pool))
        .filter(rating_changes::kind.eq(ChangeKind::Game))
        .select((
            rating_changes::sequence,
            rating_changes::rated_at,
            rating_changes::round_id,
            rating_changes::table_number,
            rating_changes::result_version,
        ))
        .distinct()
        .order(rating_changes::sequence)
        .into_boxed();
    if let Some(t) = tournament {
        q = q.filter(rating_changes::tournament_id.eq(t));
    }
    q.load(conn)
}

/// A table where the results in force and the log disagree.
#[derive(Debug, Clone, QueryableByName)]
pub struct ChangedTable {
    /// A log entry without an identical result in force (else: a result in force without an
    /// identical log entry).
    #[diesel(sql_type = Bool)]
    pub logged: bool,
    #[diesel(sql_type = Int8)]
    pub round_id: RoundId,
    #[diesel(sql_type = diesel::sql_types::Int4)]
    pub table_number: i32,
    /// The round's time of play (a result in force) or the time it was rated at (a log entry).
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    pub at: DateTime<Utc>,
}

/// The tables of `tournament` (of one round, if given) whose result in force (the highest
/// version of a completed, played round: version and time of play) has no identical game
/// entry in `pool`'s log, and the log's game entries without an identical result in force.
pub fn changed_tables(
    conn: &mut PgConnection,
    pool: PoolId,
    tournament: TournamentId,
    only_round: Option<RoundId>,
) -> QueryResult<Vec<ChangedTable>> {
    diesel::sql_query(
        "WITH cur AS (
             SELECT DISTINCT ON (r.round_id, r.table_number)
                    r.round_id, r.table_number, r.version, ro.played_at
             FROM results r JOIN rounds ro ON ro.id = r.round_id
             WHERE ro.tournament_id = $2 AND ro.status = 'completed'
               AND ro.played_at IS NOT NULL AND ($3::int8 IS NULL OR ro.id = $3)
             ORDER BY r.round_id, r.table_number, r.version DESC
         ), logged AS (
             SELECT DISTINCT round_id, table_number, result_version, rated_at
             FROM rating_changes
             WHERE pool_id = $1 AND tournament_id = $2 AND kind = 'game'
               AND ($3::int8 IS NULL OR round_id = $3)
         )
         SELECT false AS logged, round_id, table_number, played_at AS at FROM (
             SELECT round_id, table_number, version, played_at FROM cur
             EXCEPT SELECT round_id, table_number, result_version, rated_at FROM logged) n
         UNION ALL
         SELECT true, round_id, table_number, rated_at FROM (
             SELECT round_id, table_number, result_version, rated_at FROM logged
             EXCEPT SELECT round_id, table_number, version, played_at FROM cur) g",
    )
    .bind::<Int8, _>(pool)
    .bind::<Int8, _>(tournament)
    .bind::<Nullable<Int8>, _>(only_round)
    .load(conn)
}

/// Which part of a pool's log is read: each a range of one of the log's indexes.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogRange {
    pub tournament: Option<TournamentId>,
    pub player: Option<PlayerId>,
    /// The first sequence read (inclusive).
    pub from: Option<i64>,
    /// The sequence reading stops at (exclusive).
    pub until: Option<i64>,
}

/// One change of a pool's log as a keeper reads it, with the player's name and the round's
/// number (an import has no round).
#[derive(Debug, Clone, Queryable)]
pub struct LogEntry {
    pub sequence: i64,
    pub player_id: PlayerId,
    pub player_name: String,
    pub kind: ChangeKind,
    pub tournament_id: TournamentId,
    pub round_id: RoundId,
    pub round_number: Option<i32>,
    pub table_number: i32,
    pub result_version: i32,
    pub rated_at: DateTime<Utc>,
    pub rating_before: f64,
    pub rating_after: f64,
    pub delta: f64,
    pub games: i32,
}

/// The changes of `pool` in `range`, boxed, unordered.
macro_rules! in_range {
    ($pool:expr, $range:expr) => {{
        let (pool, range): (PoolId, &LogRange) = ($pool, $range);
        let mut b = rating_changes::table
            .inner_join(players::table)
            .left_join(rounds::table.on(rounds::id.eq(rating_changes::round_id)))
            .filter(rating_changes::pool_id.eq(pool))
            .into_boxed();
        if let Some(t) = range.tournament {
            b = b.filter(rating_changes::tournament_id.eq(t));
        }
        if let Some(p) = range.player {
            b = b.filter(rating_changes::player_id.eq(p));
        }
        if let Some(s) = range.from {
            b = b.filter(rating_changes::sequence.ge(s));
        }
        if let Some(s) = range.until {
            b = b.filter(rating_changes::sequence.lt(s));
        }
        b
    }};
}

/// Up to `limit` changes of `pool` in `range`, in log order (sequence, then player), after
/// the change `after` (sequence, player) if given, skipping `offset`.
pub fn entries(
    conn: &mut PgConnection,
    pool: PoolId,
    range: &LogRange,
    after: Option<(i64, PlayerId)>,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<LogEntry>> {
    let mut rows = in_range!(pool, range);
    if let Some((sequence, player)) = after {
        use diesel::dsl::sql;
        rows = rows.filter(
            sql::<Bool>("(rating_changes.sequence, rating_changes.player_id) > (")
                .bind::<BigInt, _>(sequence)
                .sql(", ")
                .bind::<BigInt, _>(player)
                .sql(")"),
        );
    }
    rows.order((rating_changes::sequence, rating_changes::player_id))
        .limit(limit)
        .offset(offset)
        .select((
            rating_changes::sequence,
            rating_changes::player_id,
            players::name,
            rating_changes::kind,
            rating_changes::tournament_id,
            rating_changes::round_id,
            rounds::number.nullable(),
            rating_changes::table_number,
            rating_changes::result_version,
            rating_changes::rated_at,
            rating_changes::rating_before,
            rating_changes::rating_after,
            rating_changes::delta,
            rating_changes::games,
        ))
        .load(conn)
}

/// How many changes of `pool` lie in `range`, counted to `cap` + 1. In the log's order, so the
/// count reads the first entries of an index range; unordered, the planner expects many
/// matches and scans the table from its start (113 ms for `since` 90% into a 2 M-row log,
/// docs/performance.md).
pub fn count_capped(
    conn: &mut PgConnection,
    pool: PoolId,
    range: &LogRange,
    cap: i64,
) -> QueryResult<i64> {
    Ok(in_range!(pool, range)
        .order((rating_changes::sequence, rating_changes::player_id))
        .select(rating_changes::sequence)
        .limit(cap + 1)
        .load::<i64>(conn)?
        .len() as i64)
}
