//! What the instance's search index (`infra::search`) reads: the registry's names by id, in
//! batches, the database's character type, the folded form of a search text, and the search
//! stamp (migration `search_stamp`) that says which committed name changes an answer must show.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text};
use diesel::PgConnection;

use crate::db::schema::{players, tournaments};

/// What a read of this module answers, and its error.
pub type Answer<T> = QueryResult<T>;
pub type Error = diesel::result::Error;

/// A name row: id, name, folded name, and a player's country (`None` for tournaments).
pub type NameRow = (i64, String, Option<String>, Option<String>);

/// Up to `limit` players with ids above `after`, by id.
pub fn players_after(conn: &mut PgConnection, after: i64, limit: i64) -> QueryResult<Vec<NameRow>> {
    players::table
        .filter(players::id.gt(after))
        .order(players::id)
        .limit(limit)
        .select((
            players::id,
            players::name,
            players::name_folded,
            players::country,
        ))
        .load(conn)
}

/// The players with these ids (those that exist).
pub fn players_by_ids(conn: &mut PgConnection, ids: &[i64]) -> QueryResult<Vec<NameRow>> {
    players::table
        .filter(players::id.eq_any(ids))
        .select((
            players::id,
            players::name,
            players::name_folded,
            players::country,
        ))
        .load(conn)
}

/// Up to `limit` tournaments with ids above `after`, by id.
pub fn tournaments_after(
    conn: &mut PgConnection,
    after: i64,
    limit: i64,
) -> QueryResult<Vec<NameRow>> {
    tournaments::table
        .filter(tournaments::id.gt(after))
        .order(tournaments::id)
        .limit(limit)
        .select((
            tournaments::id,
            tournaments::name,
            tournaments::name_folded,
            sql::<Nullable<Text>>("NULL::text"),
        ))
        .load(conn)
}

/// The tournaments with these ids (those that exist).
pub fn tournaments_by_ids(conn: &mut PgConnection, ids: &[i64]) -> QueryResult<Vec<NameRow>> {
    tournaments::table
        .filter(tournaments::id.eq_any(ids))
        .select((
            tournaments::id,
            tournaments::name,
            tournaments::name_folded,
            sql::<Nullable<Text>>("NULL::text"),
        ))
        .load(conn)
}

/// The database's `LC_COLLATE` and `LC_CTYPE`: the order and the word boundaries the index
/// reproduces.
pub fn locale(conn: &mut PgConnection) -> QueryResult<(String, String)> {
    diesel::select((
        sql::<Text>("current_setting('lc_collate')"),
        sql::<Text>("current_setting('lc_ctype')"),
    ))
    .get_result(conn)
}

/// `tourney_fold(text)`: the folded form a search text is matched by.
pub fn fold(conn: &mut PgConnection, text: &str) -> QueryResult<String> {
    diesel::select(
        sql::<Text>("tourney_fold(")
            .bind::<Text, _>(text.to_string())
            .sql(")"),
    )
    .get_result(conn)
}

/// The registry's search stamp (migration `search_stamp`): how many transactions that changed
/// a searched name have committed. One primary-key read.
pub fn stamp(conn: &mut PgConnection) -> QueryResult<i64> {
    diesel::select(sql::<diesel::sql_types::BigInt>(
        "(SELECT n FROM search_stamp WHERE one)",
    ))
    .get_result(conn)
}

/// Runs `f` in one read-only repeatable-read snapshot (the stamp and the names it read agree).
pub fn in_snapshot<T>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> QueryResult<T>,
) -> QueryResult<T> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(f)
}
