//! Archives as stored (issue 32): a tournament's rows and a rating pool's read as JSON, table
//! by table, for an archive; an archive's rows written back with new ids (`import`); the
//! check-outs of tournaments run elsewhere (`checkouts`).
//!
//! The tables and columns an archive holds are named by `services::archives::spec` (a fixed
//! list); the statements here take those names and never a caller's text.

pub mod checkouts;
pub mod import;

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Jsonb};
use diesel::PgConnection;
use serde_json::{Map, Value};

use crate::db::ids::{PlayerId, PoolId, TournamentId, UserId};
use crate::db::schema::{rating_pools, tournaments};
use crate::domain::rating::acceptance::RatingStatus;
use crate::error::ApiError;

/// One archived row: its columns by name.
pub type Row = Map<String, Value>;

#[derive(QueryableByName)]
struct Rows {
    #[diesel(sql_type = Jsonb)]
    rows: Value,
}

/// Which rows of `table` belong to tournament `$1`, and their order.
fn filter_of(table: &str) -> (&'static str, &'static str) {
    const BY_ROUND: &str = "x.round_id IN (SELECT id FROM rounds WHERE tournament_id = $1)";
    const BY_CASE: &str = "x.case_id IN (SELECT id FROM cases WHERE tournament_id = $1)";
    match table {
        "tournaments" => ("x.id = $1", "x.id"),
        "tournament_staff" => ("x.tournament_id = $1", "x.user_id, x.role"),
        "round_draws" => (BY_ROUND, "x.round_id, x.attempt"),
        "results" => (BY_ROUND, "x.round_id, x.table_number, x.version"),
        "game_schedules" => (BY_ROUND, "x.round_id, x.table_number"),
        "schedule_messages" | "result_reports" => (BY_ROUND, "x.id"),
        "case_panel" => (BY_CASE, "x.case_id, x.user_id"),
        "votes" => (BY_CASE, "x.case_id, x.member_id"),
        "case_parties" | "case_events" => (BY_CASE, "x.id"),
        _ => ("x.tournament_id = $1", "x.id"),
    }
}

/// The table's generated columns (derived from the others, e.g. the folded search name): left
/// out of the archive, computed again where it is imported.
/// (`$TABLE` is the table's name, from the fixed list of archived tables.)
const GENERATED: &str = "ARRAY(SELECT column_name::text FROM information_schema.columns \
     WHERE table_schema = 'public' AND table_name = '$TABLE' AND is_generated <> 'NEVER')";

/// The rows of archived table `table` that belong to tournament `tid` (the tournament's own
/// row for `tournaments`), in the archive's order, without generated columns.
pub fn tournament_rows(
    conn: &mut PgConnection,
    table: &str,
    tid: TournamentId,
) -> Result<Vec<Row>, ApiError> {
    let (filter, order) = filter_of(table);
    let generated = GENERATED.replace("$TABLE", table);
    let sql = format!(
        "SELECT coalesce(jsonb_agg(to_jsonb(x) - {generated} ORDER BY {order}), '[]'::jsonb) \
         AS rows FROM {table} x WHERE {filter}"
    );
    let rows: Rows = diesel::sql_query(sql)
        .bind::<BigInt, _>(tid)
        .get_result(conn)?;
    serde_json::from_value(rows.rows).map_err(|e| ApiError::Internal(format!("{table}: {e}")))
}

fn directory(conn: &mut PgConnection, sql: &str, ids: Vec<i64>) -> Result<Vec<Row>, ApiError> {
    let rows: Rows = diesel::sql_query(sql)
        .bind::<Array<BigInt>, _>(ids)
        .get_result(conn)?;
    serde_json::from_value(rows.rows).map_err(|e| ApiError::Internal(e.to_string()))
}

/// These players as an archive names them (id, name, club, country), in order of id.
pub fn player_directory(
    conn: &mut PgConnection,
    ids: impl IntoIterator<Item = PlayerId>,
) -> Result<Vec<Row>, ApiError> {
    directory(
        conn,
        "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name, \
         'club', club, 'country', country) ORDER BY id), '[]'::jsonb) AS rows \
         FROM players WHERE id = ANY($1)",
        ids.into_iter().map(|p| p.0).collect(),
    )
}

/// These accounts as an archive names them (id, username), in order of id.
pub fn user_directory(
    conn: &mut PgConnection,
    ids: impl IntoIterator<Item = UserId>,
) -> Result<Vec<Row>, ApiError> {
    directory(
        conn,
        "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'username', username) \
         ORDER BY id), '[]'::jsonb) AS rows FROM users WHERE id = ANY($1)",
        ids.into_iter().map(|u| u.0).collect(),
    )
}

/// The rows `FROM {from_where}` (naming the row `x`, filtered by pool `$1`) as JSON, by `order`.
fn pool_rows(
    conn: &mut PgConnection,
    from_where: &str,
    order: &str,
    id: PoolId,
) -> Result<Vec<Row>, ApiError> {
    let sql = format!(
        "SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY {order}), '[]'::jsonb) AS rows FROM {from_where}"
    );
    let r: Rows = diesel::sql_query(sql)
        .bind::<BigInt, _>(id)
        .get_result(conn)?;
    serde_json::from_value(r.rows).map_err(|e| ApiError::Internal(e.to_string()))
}

/// The pool's own row (`rating_pools`), if it exists.
pub fn pool_row(conn: &mut PgConnection, pool: PoolId) -> Result<Option<Row>, ApiError> {
    Ok(pool_rows(conn, "rating_pools x WHERE x.id = $1", "x.id", pool)?.pop())
}

/// The pool's rating imports, in order of id.
pub fn pool_imports(conn: &mut PgConnection, pool: PoolId) -> Result<Vec<Row>, ApiError> {
    pool_rows(conn, "rating_imports x WHERE x.pool_id = $1", "x.id", pool)
}

/// The rows of the pool's rating imports, by import and player.
pub fn pool_import_rows(conn: &mut PgConnection, pool: PoolId) -> Result<Vec<Row>, ApiError> {
    pool_rows(
        conn,
        "rating_import_rows x WHERE x.import_id IN (SELECT id FROM rating_imports WHERE pool_id = $1)",
        "x.import_id, x.player_id",
        pool,
    )
}

/// The players the pool's rating imports name (id, name, club, country), in order of id.
pub fn pool_import_players(conn: &mut PgConnection, pool: PoolId) -> Result<Vec<Row>, ApiError> {
    pool_rows(
        conn,
        "(SELECT id, name, club, country FROM players WHERE id IN (SELECT player_id FROM \
         rating_import_rows r JOIN rating_imports i ON i.id = r.import_id WHERE i.pool_id = $1)) x",
        "x.id",
        pool,
    )
}

/// The pool's rating log as it stands, by sequence and player.
pub fn pool_rating_log(conn: &mut PgConnection, pool: PoolId) -> Result<Vec<Row>, ApiError> {
    pool_rows(
        conn,
        "rating_changes x WHERE x.pool_id = $1",
        "x.sequence, x.player_id",
        pool,
    )
}

/// The tournaments the pool accepted, in order of id.
pub fn accepted_in(conn: &mut PgConnection, pool: PoolId) -> QueryResult<Vec<TournamentId>> {
    tournaments::table
        .filter(tournaments::rating_pool_id.eq(pool))
        .filter(tournaments::rating_status.eq(RatingStatus::Accepted))
        .order(tournaments::id)
        .select(tournaments::id)
        .load(conn)
}

/// The pool named `name` here, if there is one.
pub fn pool_named(conn: &mut PgConnection, name: &str) -> QueryResult<Option<PoolId>> {
    rating_pools::table
        .filter(rating_pools::name.eq(name))
        .select(rating_pools::id)
        .first(conn)
        .optional()
}
