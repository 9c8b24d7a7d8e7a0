//! Starting ratings imported from an existing list (issue 14, item 15): real pools (the
//! Norwegian Agricola list, the Polish Ashes ranking) exist before the service does. An admin
//! imports the list with the date it applies from; it becomes one item of the pool's time
//! order (at 00:00 of that date in the pool's zone, before any game of that instant), the pool
//! is recomputed from there, and a rebuild replays it like any other item, so the incremental
//! feed and the rebuild keep agreeing.

use chrono::NaiveTime;
use utoipa::ToSchema;

use super::*;
use crate::auth::Caller;
use crate::db::ids::{ImportId, UserId};
use crate::db::ratings::imports as store;
use crate::services::validate::{Check, Page, PageParams};

/// The most entries one import takes.
const MAX_ENTRIES: usize = 100_000;

/// One player's rating on the imported list.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportEntry {
    #[schema(minimum = 1)]
    pub player_id: i64,
    /// The rating on the list.
    #[schema(minimum = 0, maximum = 10000, example = 1612.5)]
    pub rating: f64,
    /// Rated games the list credits the player with (default 0). They count towards the
    /// listing threshold; a player with none is listed once they play.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 1000000)]
    pub games: u32,
}

/// An imported list: the ratings as JSON entries, or as CSV text with the header
/// `player_id,rating,games` (`games` optional), exactly one of the two.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"applies_from": "2026-01-01", "source": "NAF ranking list 2025-12-31",
    "ratings": [{"player_id": 11, "rating": 1612.5, "games": 41}, {"player_id": 12, "rating": 1488, "games": 7}]}))]
pub struct ImportRatings {
    /// The date the list applies from (00:00 in the pool's time zone): games played from then
    /// on are rated on top of it, earlier ones before it.
    pub applies_from: NaiveDate,
    /// Where the list comes from, for the record.
    #[schema(min_length = 1, max_length = 200)]
    pub source: String,
    pub ratings: Option<Vec<ImportEntry>>,
    /// The same as CSV: `player_id,rating,games` per line after that header.
    #[schema(example = "player_id,rating,games\n11,1612.5,41\n12,1488,7\n")]
    pub csv: Option<String>,
}

/// An import as stored.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportOut {
    pub id: i64,
    pub pool_id: i64,
    /// The instant the list applies from: 00:00 of `applies_from` in the pool's zone.
    pub applies_at: DateTime<Utc>,
    pub source: String,
    pub entries: i64,
    pub imported_by: i64,
    pub created_at: DateTime<Utc>,
}

/// Reads the CSV form: a header naming `player_id` and `rating` (and optionally `games`), then
/// one player per line. Errors name the line.
fn parse_csv(check: &mut Check, text: &str) -> Vec<ImportEntry> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        check.fail(
            "csv",
            "is empty: expected the header player_id,rating,games",
        );
        return Vec::new();
    };
    let names: Vec<String> = header
        .split(',')
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
        .collect();
    let col = |n: &str| names.iter().position(|h| h == n);
    let (Some(pid), Some(rat)) = (col("player_id"), col("rating")) else {
        check.fail(
            "csv",
            "the header must name player_id and rating (and may name games)",
        );
        return Vec::new();
    };
    let gam = col("games");
    let mut out = Vec::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let cell = |c: usize| cells.get(c).copied().unwrap_or("");
        let field = format!("csv.line[{}]", i + 1);
        let player_id = cell(pid).parse::<i64>();
        let rating = cell(rat).parse::<f64>();
        let games = match gam.map(cell) {
            None | Some("") => Ok(0),
            Some(g) => g.parse::<u32>(),
        };
        match (player_id, rating, games) {
            (Ok(player_id), Ok(rating), Ok(games)) => out.push(ImportEntry {
                player_id,
                rating,
                games,
            }),
            _ => check.fail(
                &field,
                "needs a player id, a rating and (optionally) a whole number of games",
            ),
        }
    }
    out
}

/// Imports a list into a pool (admins): stores it and recomputes the pool from the moment it
/// applies from.
pub fn import_ratings(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
    input: ImportRatings,
) -> Result<ImportOut, ApiError> {
    super::require_pool_keeper(conn, caller, pool_id)?;
    let mut check = Check::new();
    let source = check.text("source", &input.source, 200);
    let entries = match (input.ratings, input.csv.as_deref()) {
        (Some(r), None) => r,
        (None, Some(text)) => parse_csv(&mut check, text),
        _ => {
            check.fail("ratings", "send exactly one of ratings and csv");
            Vec::new()
        }
    };
    if entries.len() > MAX_ENTRIES {
        check.fail("ratings", format!("at most {MAX_ENTRIES} entries"));
    }
    let mut seen = BTreeSet::new();
    for (i, e) in entries.iter().enumerate() {
        if !(e.rating.is_finite() && (0.0..=10_000.0).contains(&e.rating)) {
            check.fail(
                &format!("ratings[{i}].rating"),
                "must be between 0 and 10000",
            );
        }
        if e.games > 1_000_000 {
            check.fail(&format!("ratings[{i}].games"), "must be at most 1000000");
        }
        if !seen.insert(e.player_id) {
            check.fail(&format!("ratings[{i}].player_id"), "is listed twice");
        }
    }
    check.finish()?;
    crate::db::transaction(conn, |conn| {
        let pool = lock_pool(conn, pool_id)?;
        let params = pool_params(&pool)?;
        let asked: Vec<PlayerId> = seen.iter().copied().map(PlayerId).collect();
        let known: BTreeSet<i64> = store::existing_players(conn, &asked)?
            .into_iter()
            .map(|p| p.0)
            .collect();
        let mut missing = Check::new();
        for (i, e) in entries.iter().enumerate() {
            if !known.contains(&e.player_id) {
                missing.fail(&format!("ratings[{i}].player_id"), "no such player");
            }
        }
        missing.finish()?;
        let tz: chrono_tz::Tz = pool
            .time_zone
            .parse()
            .map_err(|_| ApiError::Internal(format!("rating pool {pool_id}: bad time zone")))?;
        let applies_at = tz
            .from_local_datetime(&input.applies_from.and_time(NaiveTime::MIN))
            .earliest()
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|| input.applies_from.and_time(NaiveTime::MIN).and_utc());
        let (id, created_at) = store::insert(
            conn,
            PoolId(pool_id),
            applies_at,
            &source,
            UserId(caller.user_id),
        )?;
        let table =
            i32::try_from(id.0).map_err(|_| ApiError::Internal("import ids beyond 2^31".into()))?;
        let rows: Vec<(PlayerId, f64, i32)> = entries
            .iter()
            .map(|e| (PlayerId(e.player_id), e.rating, e.games as i32))
            .collect();
        store::insert_entries(conn, id, &rows)?;
        recompute_from(conn, &pool, &params, Some((applies_at, 0, table)))?;
        Ok(ImportOut {
            id: id.0,
            pool_id,
            applies_at,
            source,
            entries: entries.len() as i64,
            imported_by: caller.user_id,
            created_at,
        })
    })
}

/// The imports of a pool, oldest first (public, like the leaderboard).
pub fn list_imports(
    conn: &mut PgConnection,
    pool_id: i64,
    page: &PageParams,
) -> Result<Page<ImportOut>, ApiError> {
    let (limit, offset) = page.resolve()?;
    load_pool(conn, pool_id)?;
    let total = store::count_of(conn, PoolId(pool_id))?;
    let rows = store::page_of(conn, PoolId(pool_id), limit, offset)?;
    let ids: Vec<ImportId> = rows.iter().map(|r| r.id).collect();
    let counts = store::entry_counts(conn, &ids)?;
    let items = rows
        .into_iter()
        .map(|r| ImportOut {
            id: r.id.0,
            pool_id,
            applies_at: r.applies_at,
            source: r.source,
            entries: counts.get(&r.id).copied().unwrap_or(0),
            imported_by: r.imported_by.0,
            created_at: r.created_at,
        })
        .collect();
    Ok(Page {
        items,
        total,
        limit,
        offset,
        next_cursor: None,
        total_exact: None,
    })
}

/// The pool's imported lists from `from` on, as items of its time order: key (applies_at, 0,
/// import id), before every round of the same instant.
pub(super) fn import_items(
    conn: &mut PgConnection,
    pool_id: i64,
    from: Option<OrderKey>,
) -> Result<Vec<PoolGame>, ApiError> {
    let imports = store::applying(conn, PoolId(pool_id), from.map(|(t, _, _)| t))?;
    if imports.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<ImportId> = imports.iter().map(|i| i.0).collect();
    let mut by_import: HashMap<ImportId, Vec<(i64, f64, u32)>> = HashMap::new();
    for e in store::entries_of(conn, &ids)? {
        let games = u32::try_from(e.games).unwrap_or(0);
        by_import
            .entry(e.import_id)
            .or_default()
            .push((e.player_id.0, e.rating, games));
    }
    let mut out: Vec<PoolGame> = imports
        .into_iter()
        .filter_map(|(id, at)| {
            let table = i32::try_from(id.0).ok()?;
            Some(PoolGame {
                key: (at, 0, table),
                tournament_id: 0,
                result_version: 0,
                exclusion: None,
                result: GameById::Import(by_import.remove(&id).unwrap_or_default()),
            })
        })
        .filter(|g| from.is_none_or(|f| g.key >= f))
        .collect();
    out.sort_by_key(|g| g.key);
    Ok(out)
}
