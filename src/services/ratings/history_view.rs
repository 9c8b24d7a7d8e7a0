//! A player's rating history.

use super::*;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::db::schema::{players, rating_changes, rating_pools, rounds, tournaments};
use crate::error::ApiError;
use crate::services::validate::{keyset_page, keyset_start, Check, Page, Start, COUNT_CAP};
use diesel::PgConnection;

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

/// A row of a player's history as read: pool, pool name, kind, tournament, its name, round,
/// its number, table, result version, rated at, (before, after, delta), sequence.
type ChangeRow = (
    i64,
    String,
    ChangeKind,
    i64,
    Option<String>,
    i64,
    Option<i32>,
    i32,
    i32,
    DateTime<Utc>,
    (f64, f64, f64),
    i64,
);

/// A change as answered: an import has no game, a game no import.
fn change_out(r: ChangeRow) -> RatingChangeOut {
    let imported = r.2 == ChangeKind::Import;
    let game = |v| (!imported).then_some(v);
    RatingChangeOut {
        pool_id: r.0,
        pool_name: r.1,
        kind: ChangeKindOut::from(r.2),
        tournament_id: game(r.3),
        tournament_name: r.4.filter(|_| !imported),
        round_id: game(r.5),
        round_number: r.6.filter(|_| !imported),
        table_number: (!imported).then_some(r.7),
        result_version: (!imported).then_some(r.8),
        import_id: imported.then_some(i64::from(r.7)),
        rated_at: r.9,
        rating_before: round1(r.10 .0),
        rating_after: round1(r.10 .1),
        delta: round1(r.10 .2),
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
    let (id, pool) = (id.0, query.pool);
    let exists: bool =
        diesel::select(diesel::dsl::exists(players::table.find(id))).get_result(conn)?;
    if !exists {
        return Err(ApiError::NotFound(format!("no player {id}")));
    }
    let build = || {
        let mut b = rating_changes::table
            .inner_join(rating_pools::table)
            .left_join(tournaments::table.on(tournaments::id.eq(rating_changes::tournament_id)))
            .left_join(rounds::table.on(rounds::id.eq(rating_changes::round_id)))
            .filter(rating_changes::player_id.eq(id))
            .into_boxed();
        if let Some(p) = pool {
            b = b.filter(rating_changes::pool_id.eq(p));
        }
        b
    };
    let mut query = build();
    let (mut offset, mut first) = (0, false);
    match start {
        Start::Offset(o) => (offset, first) = (o, true),
        Start::After(ChangeKey(at, pool_id, sequence)) => {
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
    let rows: Vec<ChangeRow> = query
        .order((
            rating_changes::rated_at,
            rating_changes::pool_id,
            rating_changes::sequence,
        ))
        .limit(limit + 1)
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
            (
                rating_changes::rating_before,
                rating_changes::rating_after,
                rating_changes::delta,
            ),
            rating_changes::sequence,
        ))
        .load(conn)?;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || {
            Ok(build()
                .select(rating_changes::sequence)
                .limit(COUNT_CAP + 1)
                .load::<i64>(conn)?
                .len() as i64)
        },
        "player-ratings",
        &scope,
        |r| ChangeKey(r.9, r.0, r.11),
        |r| Ok(change_out(r)),
    )
}
