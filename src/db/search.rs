//! What the instance's search index (`infra::search`) reads: the registry's names by id, in
//! batches, the database's character type, the folded form of a search text, and the search
//! stamp (migration `search_stamp`) that says which committed name changes an answer must show.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::PgConnection;

use crate::db::models::Player;
use crate::db::schema::{players, rating_pools, search_stamp, tournaments};

/// What a read of this module answers, and its error.
pub type Answer<T> = QueryResult<T>;
pub type Error = diesel::result::Error;

/// A tournament's or a rating pool's name row: id, name and folded name.
pub type NameRow = (i64, String, Option<String>);

/// A list the index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    Players,
    Tournaments,
    Pools,
}

/// Which of a list's rows to read.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    /// Up to `.1` with ids above `.0`, by id (a batch of the whole list).
    After(i64, i64),
    /// Those with these ids (those that exist).
    Ids(&'a [i64]),
}

/// The `selection` of one table's rows `rows`.
macro_rules! rows_of {
    ($table:ident, $selection:expr, $rows:expr, $conn:expr) => {{
        let q = $table::table.select($selection).into_boxed();
        match $rows {
            Rows::After(after, limit) => q
                .filter($table::id.gt(after))
                .order($table::id)
                .limit(limit),
            Rows::Ids(ids) => q.filter($table::id.eq_any(ids)),
        }
        .load($conn)
    }};
}

/// The tournaments' names `rows`.
pub fn tournament_names(conn: &mut PgConnection, rows: Rows) -> QueryResult<Vec<NameRow>> {
    let selection = (tournaments::id, tournaments::name, tournaments::name_folded);
    rows_of!(tournaments, selection, rows, conn)
}

/// The rating pools' names `rows`.
pub fn pool_names(conn: &mut PgConnection, rows: Rows) -> QueryResult<Vec<NameRow>> {
    let selection = (
        rating_pools::id,
        rating_pools::name,
        rating_pools::name_folded,
    );
    rows_of!(rating_pools, selection, rows, conn)
}

/// The players `rows` whole, each with its folded name: what the index holds of a player (the
/// players' list shows the whole row).
pub fn players_whole(
    conn: &mut PgConnection,
    rows: Rows,
) -> QueryResult<Vec<(Player, Option<String>)>> {
    let selection = (Player::as_select(), players::name_folded);
    rows_of!(players, selection, rows, conn)
}

/// The database's `LC_CTYPE`: the word boundaries the index reproduces (pg_trgm's word
/// characters).
pub fn character_type(conn: &mut PgConnection) -> QueryResult<String> {
    diesel::select(sql::<Text>("current_setting('lc_ctype')")).get_result(conn)
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
    search_stamp::table.select(search_stamp::n).first(conn)
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
