//! A pool's log: every rating change the pool applied, in the order it applied them, for the
//! keepers who audit or mirror the list (issue 31). Paged by keyset like a player's history.
//! Decisions: `docs/decisions/pool-log.md`.

use super::*;
use chrono::Duration;
use utoipa::{IntoParams, ToSchema};

use crate::db::ratings::log::{self as store, LogEntry, LogRange};
use crate::db::ratings::pools;
use crate::domain::TournamentId;
use crate::services::validate::{keyset_page, keyset_start, Check, Page, Start, COUNT_CAP};

/// The list's name in its cursors.
const LIST: &str = "pool-changes";

/// Filters for a pool's log. Each is a range of the log's indexes: the primary key
/// `(pool_id, sequence, player_id)`, `(pool_id, tournament_id, sequence)` and
/// `(player_id, pool_id, sequence)`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PoolLogQuery {
    /// Only the changes of this tournament's games and bonuses.
    #[param(minimum = 1)]
    pub tournament_id: Option<i64>,
    /// Only this player's changes.
    #[param(minimum = 1)]
    pub player_id: Option<i64>,
    /// Only the changes at or after this place in the log (`sequence`, inclusive): a mirror
    /// reads on from the sequence after the last it holds, or from `log_rewritten_from` after a
    /// rewrite.
    #[param(minimum = 0)]
    pub since: Option<i64>,
    /// Only the changes rated in this season (1-based, `GET /rating-pools/{id}/seasons`): from
    /// 00:00 on its first day to its standings time, 22:00 on its last day (inclusive), in the
    /// pool's time zone.
    #[param(minimum = 1, maximum = 24)]
    pub season: Option<i64>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages through `cursor`).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
    /// Where the page starts: the `next_cursor` of the page before (also in its `next` link).
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

/// The sort keys of a change in a pool's log: its sequence and player.
#[derive(Debug, Serialize, Deserialize)]
struct LogKey(i64, i64);

/// One change in a pool's log.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolChangeOut {
    /// The change's place in the pool's order: the rated item (game, bonus, imported list) that
    /// made it. The changes of one item share it; items are numbered densely from 0 in the
    /// order the pool rates them (when played, then round, then table).
    #[schema(example = 41)]
    pub sequence: i64,
    pub player_id: i64,
    pub player_name: String,
    pub kind: ChangeKindOut,
    /// The tournament of a game or bonus (`null` for an import).
    pub tournament_id: Option<i64>,
    pub round_id: Option<i64>,
    pub round_number: Option<i32>,
    /// The table (team duplicate: table A of the match).
    pub table_number: Option<i32>,
    /// The version of the result that was rated (team duplicate: the sum of both tables').
    pub result_version: Option<i32>,
    /// The imported list of an `import` (see `GET /rating-pools/{id}/imports`).
    pub import_id: Option<i64>,
    /// When the game was played (its round's `played_at`), or the moment an imported list
    /// applies from.
    pub rated_at: DateTime<Utc>,
    /// Ratings and change, one decimal.
    #[schema(example = 1000)]
    pub rating_before: f64,
    #[schema(example = 1012.5)]
    pub rating_after: f64,
    #[schema(example = 12.5)]
    pub delta: f64,
    /// The rated games this change adds to the player's count: 1 for a game, 0 for a bonus,
    /// the games an imported list credits.
    #[schema(example = 1)]
    pub games: i32,
}

/// A page of a pool's log, with what a mirror needs to notice that the log was rewritten.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolLogPage {
    #[serde(flatten)]
    pub page: Page<PoolChangeOut>,
    /// How many times the pool has rewritten its log: replaced or removed changes already in
    /// it (a corrected result, a round played before the latest rated one, an imported list,
    /// new parameters, a rebuild). Appending changes does not count. A mirror that held the
    /// log at one count and reads a higher one reads it again from `log_rewritten_from` (one
    /// rewrite more) or from the start (several).
    #[schema(example = 0)]
    pub log_rewrites: i64,
    /// The first sequence the latest rewrite replaced or removed (`null` before any): the log
    /// before it is as it was.
    pub log_rewritten_from: Option<i64>,
}

/// An entry as answered: an import has no game, a game no import.
fn entry_out(r: LogEntry) -> PoolChangeOut {
    let imported = r.kind == ChangeKind::Import;
    let game = |v| (!imported).then_some(v);
    PoolChangeOut {
        sequence: r.sequence,
        player_id: r.player_id.0,
        player_name: r.player_name,
        kind: ChangeKindOut::from(r.kind),
        tournament_id: game(r.tournament_id.0),
        round_id: game(r.round_id.0),
        round_number: r.round_number.filter(|_| !imported),
        table_number: (!imported).then_some(r.table_number),
        result_version: (!imported).then_some(r.result_version),
        import_id: imported.then_some(i64::from(r.table_number)),
        rated_at: r.rated_at,
        rating_before: round1(r.rating_before),
        rating_after: round1(r.rating_after),
        delta: round1(r.delta),
        games: r.games,
    }
}

/// The checked filters: 422 naming the first bad one.
fn check_filters(q: &PoolLogQuery) -> Result<(), ApiError> {
    let mut check = Check::new();
    for (field, v) in [
        ("tournament_id", q.tournament_id),
        ("player_id", q.player_id),
    ] {
        if let Some(v) = v {
            check.ensure(v >= 1, field, "must be at least 1");
        }
    }
    if let Some(s) = q.since {
        check.ensure(s >= 0, "since", "must be at least 0");
    }
    if let Some(s) = q.season {
        check.range("season", s, 1, 24);
    }
    check.finish()
}

/// The range of sequences `[from, until)` the log is read in: `since` and the season's.
fn sequence_range(
    conn: &mut PgConnection,
    id: i64,
    since: Option<i64>,
    season: Option<i64>,
) -> Result<(Option<i64>, Option<i64>), ApiError> {
    let Some(season) = season else {
        return Ok((since, None));
    };
    let pool = load_pool(conn, id)?;
    let (start, cutoff) = season_window(&pool, season)?;
    // The sequence follows the pool's time order, so the season is a range of it, found by a
    // binary search of primary-key lookups; `None`: no change at or after the instant.
    let first_at = |conn: &mut PgConnection, at: DateTime<Utc>| -> Result<i64, ApiError> {
        Ok(first_sequence_at(conn, id, (at, i64::MIN, i32::MIN))?.unwrap_or(i64::MAX))
    };
    let from = first_at(conn, start)?;
    let until = first_at(conn, cutoff + Duration::microseconds(1))?;
    Ok((Some(from.max(since.unwrap_or(0))), Some(until)))
}

/// The instants a season's log runs between: 00:00 on its first day and its standings time
/// (22:00 on its last day) in the pool's time zone; 404 for a season the pool does not have.
fn season_window(
    pool: &RatingPoolRow,
    season: i64,
) -> Result<(DateTime<Utc>, DateTime<Utc>), ApiError> {
    let stored = stored_seasons(pool)?;
    let engine = engine_seasons(&pool.time_zone, &stored).map_err(ApiError::Internal)?;
    let s = usize::try_from(season - 1)
        .ok()
        .and_then(|i| engine.get(i))
        .ok_or_else(|| ApiError::NotFound(format!("the pool has no season {season}")))?;
    let cutoff = s.cutoff().map_err(|e| ApiError::Internal(e.to_string()))?;
    let tz: chrono_tz::Tz = pool
        .time_zone
        .parse()
        .map_err(|_| ApiError::Internal(format!("unknown time zone {}", pool.time_zone)))?;
    let midnight = s.first_day.and_time(NaiveTime::MIN);
    // A zone whose clocks skip midnight that day starts it at the first hour that exists.
    let start = (0..=2)
        .find_map(|h| {
            tz.from_local_datetime(&(midnight + Duration::hours(h)))
                .earliest()
        })
        .ok_or_else(|| ApiError::Internal(format!("no start of day {}", s.first_day)))?;
    Ok((start.with_timezone(&Utc), cutoff))
}

/// A pool's log, in the order the pool applied it (sequence, then player), paged by keyset
/// (`cursor`) and counted to [`COUNT_CAP`]; 404 for no such pool or season. Every pool is
/// public. A read of a few statements, no transaction.
pub fn pool_changes(
    conn: &mut PgConnection,
    id: i64,
    query: PoolLogQuery,
) -> Result<PoolLogPage, ApiError> {
    check_filters(&query)?;
    let (tournament, player) = (query.tournament_id, query.player_id);
    let scope = format!(
        "{id}|{tournament:?}|{player:?}|{:?}|{:?}",
        query.since, query.season
    );
    let (limit, start) = keyset_start::<LogKey>(
        query.limit,
        query.offset,
        query.cursor.as_deref(),
        LIST,
        &scope,
    )?;
    let (log_rewrites, log_rewritten_from) = pools::log_rewrites(conn, PoolId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))?;
    let (from, until) = sequence_range(conn, id, query.since, query.season)?;
    let range = LogRange {
        tournament: tournament.map(TournamentId),
        player: player.map(PlayerId),
        from,
        until,
    };
    let (offset, first, after) = match start {
        Start::Offset(o) => (o, true, None),
        Start::After(LogKey(sequence, player_id)) => {
            (0, false, Some((sequence, PlayerId(player_id))))
        }
    };
    let rows = store::entries(conn, PoolId(id), &range, after, limit + 1, offset)?;
    let page = keyset_page(
        rows,
        limit,
        (offset, first),
        || Ok(store::count_capped(conn, PoolId(id), &range, COUNT_CAP)?),
        LIST,
        &scope,
        |r| LogKey(r.sequence, r.player_id.0),
        |r| Ok(entry_out(r)),
    )?;
    Ok(PoolLogPage {
        page,
        log_rewrites,
        log_rewritten_from,
    })
}
