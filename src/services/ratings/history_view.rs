//! A player's rating history.

use super::*;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::db::ids::PoolId;
use crate::db::ratings::history::{self as stored, HistoryStart, PlayerChangeRow};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::validate::{keyset_page, keyset_start, Check, Page, Start, COUNT_CAP};

/// Filters for a player's rating history.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct HistoryQuery {
    /// Only this pool.
    #[param(minimum = 1)]
    pub pool: Option<i64>,
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

/// The sort keys of a change in a player's history: when it was rated, its pool and place in
/// the pool's log.
#[derive(Debug, Serialize, Deserialize)]
struct ChangeKey(DateTime<Utc>, i64, i64);

/// What changed a rating.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKindOut {
    /// A rated game.
    Game,
    /// An event bonus.
    Bonus,
    /// A rating taken over from an imported list (`import_id`).
    Import,
}

impl From<ChangeKind> for ChangeKindOut {
    fn from(kind: ChangeKind) -> Self {
        match kind {
            ChangeKind::Game => ChangeKindOut::Game,
            ChangeKind::Bonus => ChangeKindOut::Bonus,
            ChangeKind::Import => ChangeKindOut::Import,
        }
    }
}

/// One rating change and the game that caused it (or the bonus, or the imported list).
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingChangeOut {
    pub pool_id: i64,
    pub pool_name: String,
    pub kind: ChangeKindOut,
    /// The tournament of a game or bonus (`null` for an import).
    pub tournament_id: Option<i64>,
    pub tournament_name: Option<String>,
    pub round_id: Option<i64>,
    pub round_number: Option<i32>,
    /// The table (team duplicate: table A of the match).
    pub table_number: Option<i32>,
    /// The version of the result that was rated.
    pub result_version: Option<i32>,
    /// The imported list of an `import` (see `GET /rating-pools/{id}/imports`).
    pub import_id: Option<i64>,
    /// When the game was played (its round's `played_at`), or the moment an imported list
    /// applies from: the pool's order.
    pub rated_at: DateTime<Utc>,
    /// Ratings and change, one decimal.
    #[schema(example = 1000)]
    pub rating_before: f64,
    #[schema(example = 1012.5)]
    pub rating_after: f64,
    #[schema(example = 12.5)]
    pub delta: f64,
}

/// A change as answered: an import has no game, a game no import.
fn change_out(r: PlayerChangeRow) -> RatingChangeOut {
    let imported = r.kind == ChangeKind::Import;
    let game = |v| (!imported).then_some(v);
    RatingChangeOut {
        pool_id: r.pool_id.0,
        pool_name: r.pool_name,
        kind: ChangeKindOut::from(r.kind),
        tournament_id: game(r.tournament_id.0),
        tournament_name: r.tournament_name.filter(|_| !imported),
        round_id: game(r.round_id.0),
        round_number: r.round_number.filter(|_| !imported),
        table_number: (!imported).then_some(r.table_number),
        result_version: (!imported).then_some(r.result_version),
        import_id: imported.then_some(i64::from(r.table_number)),
        rated_at: r.rated_at,
        rating_before: round1(r.rating_before),
        rating_after: round1(r.rating_after),
        delta: round1(r.delta),
    }
}

/// A player's rating history, oldest first (in the order the games were played), paged by
/// keyset (`cursor`) and counted to [`COUNT_CAP`].
pub fn player_ratings(
    conn: &mut PgConnection,
    id: PlayerId,
    query: HistoryQuery,
) -> Result<Page<RatingChangeOut>, ApiError> {
    let mut check = Check::new();
    if let Some(p) = query.pool {
        check.ensure(p >= 1, "pool", "must be at least 1");
    }
    check.finish()?;
    let scope = format!("{}|{:?}", id.0, query.pool);
    let (limit, start) = keyset_start::<ChangeKey>(
        query.limit,
        query.offset,
        query.cursor.as_deref(),
        "player-ratings",
        &scope,
    )?;
    let pool = query.pool.map(PoolId);
    if !stored::player_exists(conn, id)? {
        return Err(ApiError::NotFound(format!("no player {}", id.0)));
    }
    let (offset, first, from) = match start {
        Start::Offset(o) => (o, true, HistoryStart::Offset(o)),
        Start::After(ChangeKey(at, pool_id, sequence)) => {
            (0, false, HistoryStart::After(at, PoolId(pool_id), sequence))
        }
    };
    let rows = stored::page(conn, id, pool, from, limit + 1)?;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || Ok(stored::count(conn, id, pool, COUNT_CAP + 1)?),
        "player-ratings",
        &scope,
        |r| ChangeKey(r.rated_at, r.pool_id.0, r.sequence),
        |r| Ok(change_out(r)),
    )
}
