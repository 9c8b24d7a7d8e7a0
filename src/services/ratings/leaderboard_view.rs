//! A pool's leaderboard: the selection a query asks for and one page of it, with its ETag.

use super::*;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::db::ratings::pools;
use crate::db::PgConnection;
use crate::domain::ids::PoolId;
use crate::domain::rating::{LeaderboardFilter, RatingPoolParams};
use crate::error::ApiError;
use crate::services::ratings::leaderboard::LeaderboardCache;
use crate::services::ratings::leaderboard::{
    load_board, Board, BoardKey, BoardQuery, BoardVersion,
};
use crate::services::ratings::{self as service};
use crate::services::validate::{check_country, cursor, keyset_start, Check, Page, Start};

/// Answer format of a list that also comes as CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListFormat {
    Json,
    Csv,
}

/// Leaderboard filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// Rated games needed to be listed (default: the pool's `min_games_listed`).
    #[param(minimum = 0, maximum = 100000)]
    pub min_games: Option<i64>,
    /// Also list provisional players (fewer games), flagged. Default false.
    pub include_provisional: Option<bool>,
    /// Only players of this country (ISO 3166-1 alpha-2).
    #[param(pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// Only players of this club (exact name, any case).
    #[param(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub club: Option<String>,
    /// Ratings at the standings time of this season (1-based) instead of now.
    #[param(minimum = 1, maximum = 24)]
    pub season: Option<i64>,
    /// Kept for curl users of the past: `csv` (or `Accept: text/csv`) answers the CSV here too.
    /// Not in the document: the CSV has its own operation (`/leaderboard.csv`), so that
    /// generated clients keep the two representations apart.
    #[param(ignore)]
    pub format: Option<ListFormat>,
    /// How many items (1-200, default 50); the CSV holds every row whatever this says.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages through `cursor`).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
    /// Where the page starts: the `next_cursor` of the page before (also in its `next` link),
    /// valid with the same pool and filters. It names the last line's rating, games and player,
    /// so a page after a change of the board starts where that line's keys sort now.
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

/// A player's recent form: the last five rated games.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendOut {
    /// Games the sum covers (at most 5).
    pub games: u32,
    /// Sum of their changes, one decimal.
    pub delta: f64,
    /// Direction of the latest game's change.
    pub last: Option<TrendDirection>,
}

/// Direction of a rating change.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrendDirection {
    Up,
    Down,
    Flat,
}

/// One line of a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardRowOut {
    /// Rank in the pool's list (equal ratings share a rank); filters by country or club keep
    /// the pool rank.
    pub rank: u32,
    pub player_id: i64,
    #[schema(example = "Kari Nordmann")]
    pub player_name: String,
    pub club: Option<String>,
    pub country: Option<String>,
    /// Rating, one decimal.
    #[schema(example = 1512.5)]
    pub rating: f64,
    /// Rated games.
    pub games: u32,
    /// Fewer games than the threshold (only listed with `include_provisional`).
    pub provisional: bool,
    /// Completion time of the player's last rated game.
    pub last_played: Option<DateTime<Utc>>,
    pub trend: TrendOut,
}

pub(super) fn trend_out(games: i64, delta: f64, last_delta: Option<f64>) -> TrendOut {
    TrendOut {
        games: games as u32,
        delta: round1(delta),
        last: last_delta.map(|d| {
            if d > 0.0 {
                TrendDirection::Up
            } else if d < 0.0 {
                TrendDirection::Down
            } else {
                TrendDirection::Flat
            }
        }),
    }
}

/// What selects the leaderboard's lines (after validation).
pub struct LeaderboardSelection {
    pub filter: LeaderboardFilter,
    pub country: Option<String>,
    pub club: Option<String>,
    pub limit: i64,
    pub offset: i64,
    /// The page starts after the line with these keys (`cursor`).
    pub after: Option<BoardKey>,
    /// The pool and filters a cursor of this listing is valid for.
    scope: String,
}

/// The name cursors of the leaderboard are checked against.
const LIST: &str = "leaderboard";

/// A page of leaderboard lines from up to `limit` lines with their keys: `more` when lines
/// follow (then the cursor names the last line's keys). The total is counted in memory, so it
/// is exact.
pub(super) fn board_page(
    lines: Vec<(BoardKey, LeaderboardRowOut)>,
    more: bool,
    total: i64,
    sel: &LeaderboardSelection,
) -> Result<Page<LeaderboardRowOut>, ApiError> {
    let next_cursor = match lines.last() {
        Some((key, _)) if more => Some(cursor::encode(key, LIST, &sel.scope)?),
        _ => None,
    };
    Ok(Page {
        items: lines.into_iter().map(|(_, line)| line).collect(),
        total,
        limit: sel.limit,
        offset: sel.offset,
        next_cursor,
        total_exact: Some(true),
    })
}

/// A page of the current leaderboard, cut from the pool's board (`rating_standings` in
/// leaderboard order: highest rating first, then more games, then lower player id). Ranks are
/// among the listed players (equal ratings share a rank); the country and club filters apply
/// after ranking, so they keep the pool rank.
pub(super) fn current_page(
    board: &Board,
    params: &RatingPoolParams,
    sel: &LeaderboardSelection,
) -> Result<Page<LeaderboardRowOut>, ApiError> {
    let min_games = i64::from(sel.filter.min_games.unwrap_or(params.min_games_listed));
    let page = board.page(&BoardQuery {
        threshold: if sel.filter.include_provisional {
            0
        } else {
            min_games
        },
        country: sel.country.as_deref(),
        club: sel.club.as_deref(),
        limit: sel.limit,
        offset: sel.offset,
        after: sel.after,
    });
    let lines = page
        .items
        .into_iter()
        .map(|(rank, r)| {
            let line = LeaderboardRowOut {
                rank,
                player_id: r.player_id.0,
                player_name: r.name.clone(),
                club: r.club.clone(),
                country: r.country.clone(),
                rating: round1(r.rating),
                games: r.games as u32,
                provisional: r.games < min_games,
                last_played: r.last_played,
                trend: trend_out(r.trend_games, r.trend_delta, r.last_delta),
            };
            (BoardKey::of(r), line)
        })
        .collect();
    board_page(lines, page.more, page.total, sel)
}

pub(super) fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The leaderboard query of pool `pool_id` checked, as the selection of rows it asks for. A
/// CSV export (`whole`) holds every row: `limit`, `offset` and `cursor` are checked but do not
/// cut it. A cursor is valid only for the pool and filters it was made with.
pub fn leaderboard_selection(
    q: &LeaderboardQuery,
    whole: bool,
    pool_id: i64,
) -> Result<LeaderboardSelection, ApiError> {
    let mut check = Check::new();
    if let Some(g) = q.min_games {
        check.range("min_games", g, 0, 100000);
    }
    if let Some(s) = q.season {
        check.range("season", s, 1, 24);
    }
    let country = check_country(&mut check, "country", q.country.as_deref());
    let club = check.optional_text("club", q.club.as_deref(), 100);
    check.finish()?;
    let filter = LeaderboardFilter {
        min_games: q.min_games.map(|g| g as u32),
        include_provisional: q.include_provisional.unwrap_or(false),
    };
    let scope = format!(
        "{pool_id}|{:?}|{}|{country:?}|{:?}|{:?}",
        filter.min_games,
        filter.include_provisional,
        club.as_ref().map(|c| c.to_lowercase()),
        q.season,
    );
    let (mut limit, start) =
        keyset_start::<BoardKey>(q.limit, q.offset, q.cursor.as_deref(), LIST, &scope)?;
    let (mut offset, mut after) = match start {
        Start::Offset(o) => (o, None),
        Start::After(key) => (0, Some(key)),
    };
    if whole {
        (limit, offset, after) = (i64::from(i32::MAX), 0, None);
    }
    Ok(LeaderboardSelection {
        filter,
        country,
        club,
        limit,
        offset,
        after,
        scope,
    })
}

/// One page of a pool's leaderboard (the current board from the cache, or a season's at its
/// cut-off), with its ETag: `etag_of` names the selection at the pool's versions, and when
/// `fresh` says the client holds that ETag already, no page is built (`None`).
pub fn leaderboard_page(
    conn: &mut PgConnection,
    boards: &LeaderboardCache,
    id: i64,
    season: Option<i64>,
    sel: &LeaderboardSelection,
    etag_of: impl Fn(&LeaderboardSelection, i32, i64) -> String,
    fresh: impl Fn(&str) -> bool,
) -> Result<(String, Option<Page<LeaderboardRowOut>>), ApiError> {
    let (pool, lb_version) = pools::with_leaderboard_version(conn, PoolId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))?;
    let etag = etag_of(sel, pool.version, lb_version);
    if fresh(&etag) {
        return Ok((etag, None));
    }
    if let Some(s) = season {
        let params = service::pool_params(&pool)?;
        let at = season_cutoff(&pool, s)?;
        return Ok((etag, Some(season_page(conn, id, &params, at, sel)?)));
    }
    // The board read at exactly these versions, from the cache or the database.
    let version = BoardVersion {
        pool: pool.version,
        leaderboard: lb_version,
    };
    let board = boards.get_or_load(id, version, || load_board(conn, id))?;
    let etag = if board.version == version {
        etag
    } else {
        // The pool changed between the two reads: answer for what the board holds.
        let etag = etag_of(sel, board.version.pool, board.version.leaderboard);
        if fresh(&etag) {
            return Ok((etag, None));
        }
        etag
    };
    let params = service::pool_params(&board.pool)?;
    Ok((etag, Some(current_page(&board, &params, sel)?)))
}
