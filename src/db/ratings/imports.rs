//! Rating lists imported into a pool (`rating_imports`) and their entries
//! (`rating_import_rows`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{ImportId, PlayerId, PoolId, UserId};
use crate::db::schema::{players, rating_import_rows, rating_imports};

/// Entries written (and ids looked up) per statement.
const CHUNK: usize = 10_000;

/// An import as stored (without its entries).
#[derive(Debug, Clone, Queryable)]
pub struct ImportRow {
    pub id: ImportId,
    pub applies_at: DateTime<Utc>,
    pub source: String,
    pub imported_by: UserId,
    pub created_at: DateTime<Utc>,
}

/// One player's line of an imported list.
#[derive(Debug, Clone, Copy, PartialEq, Queryable)]
pub struct ImportEntryRow {
    pub import_id: ImportId,
    pub player_id: PlayerId,
    pub rating: f64,
    pub games: i32,
}

/// Which of `ids` are players.
pub fn existing_players(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<Vec<PlayerId>> {
    players::table
        .filter(players::id.eq_any(ids))
        .select(players::id)
        .load(conn)
}

/// Stores an import of `pool` applying from `applies_at`; its id and when it was stored.
pub fn insert(
    conn: &mut PgConnection,
    pool: PoolId,
    applies_at: DateTime<Utc>,
    source: &str,
    imported_by: UserId,
) -> QueryResult<(ImportId, DateTime<Utc>)> {
    diesel::insert_into(rating_imports::table)
        .values((
            rating_imports::pool_id.eq(pool),
            rating_imports::applies_at.eq(applies_at),
            rating_imports::source.eq(source),
            rating_imports::imported_by.eq(imported_by),
        ))
        .returning((rating_imports::id, rating_imports::created_at))
        .get_result(conn)
}

/// Stores the entries of import `import`: (player, rating, games).
pub fn insert_entries(
    conn: &mut PgConnection,
    import: ImportId,
    entries: &[(PlayerId, f64, i32)],
) -> QueryResult<()> {
    let rows: Vec<_> = entries
        .iter()
        .map(|&(player, rating, games)| {
            (
                rating_import_rows::import_id.eq(import),
                rating_import_rows::player_id.eq(player),
                rating_import_rows::rating.eq(rating),
                rating_import_rows::games.eq(games),
            )
        })
        .collect();
    for chunk in rows.chunks(CHUNK) {
        diesel::insert_into(rating_import_rows::table)
            .values(chunk)
            .execute(conn)?;
    }
    Ok(())
}

/// How many imports `pool` has.
pub fn count_of(conn: &mut PgConnection, pool: PoolId) -> QueryResult<i64> {
    rating_imports::table
        .filter(rating_imports::pool_id.eq(pool))
        .count()
        .get_result(conn)
}

/// One page of `pool`'s imports, in the order they apply (then by id).
pub fn page_of(
    conn: &mut PgConnection,
    pool: PoolId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<ImportRow>> {
    rating_imports::table
        .filter(rating_imports::pool_id.eq(pool))
        .order((rating_imports::applies_at, rating_imports::id))
        .limit(limit)
        .offset(offset)
        .select((
            rating_imports::id,
            rating_imports::applies_at,
            rating_imports::source,
            rating_imports::imported_by,
            rating_imports::created_at,
        ))
        .load(conn)
}

/// How many entries each of `imports` holds (an import without entries is absent).
pub fn entry_counts(
    conn: &mut PgConnection,
    imports: &[ImportId],
) -> QueryResult<HashMap<ImportId, i64>> {
    Ok(rating_import_rows::table
        .filter(rating_import_rows::import_id.eq_any(imports))
        .group_by(rating_import_rows::import_id)
        .select((rating_import_rows::import_id, diesel::dsl::count_star()))
        .load::<(ImportId, i64)>(conn)?
        .into_iter()
        .collect())
}

/// `pool`'s imports (id, the instant they apply from), those applying at or after `from` if
/// given; unordered.
pub fn applying(
    conn: &mut PgConnection,
    pool: PoolId,
    from: Option<DateTime<Utc>>,
) -> QueryResult<Vec<(ImportId, DateTime<Utc>)>> {
    let mut q = rating_imports::table
        .filter(rating_imports::pool_id.eq(pool))
        .select((rating_imports::id, rating_imports::applies_at))
        .into_boxed();
    if let Some(t) = from {
        q = q.filter(rating_imports::applies_at.ge(t));
    }
    q.load(conn)
}

/// The entries of `imports`, by import, then player.
pub fn entries_of(
    conn: &mut PgConnection,
    imports: &[ImportId],
) -> QueryResult<Vec<ImportEntryRow>> {
    rating_import_rows::table
        .filter(rating_import_rows::import_id.eq_any(imports))
        .order((rating_import_rows::import_id, rating_import_rows::player_id))
        .select((
            rating_import_rows::import_id,
            rating_import_rows::player_id,
            rating_import_rows::rating,
            rating_import_rows::games,
        ))
        .load(conn)
}
