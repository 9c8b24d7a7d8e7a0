//! An archive's rows written here with new ids (inside the import's transaction).

use std::collections::HashSet;

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Jsonb, Nullable, Text};
use diesel::PgConnection;
use serde_json::Value;

use crate::db::ids::{CaseId, PenaltyId, PlayerId, PoolId, TournamentId, UserId};
use crate::db::models::Tournament;
use crate::db::schema::tournament_staff;

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// The next id of `table`'s own sequence (an archived table).
pub fn next_id(conn: &mut PgConnection, table: &str) -> QueryResult<i64> {
    Ok(
        diesel::sql_query("SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id")
            .bind::<Text, _>(table)
            .get_result::<Id>(conn)?
            .id,
    )
}

/// A table's columns here: those an import writes, and those the database computes
/// (`GENERATED ALWAYS`, e.g. `name_folded`), which an archive may carry and an import skips.
pub struct Columns {
    pub writable: HashSet<String>,
    pub generated: HashSet<String>,
}

#[derive(QueryableByName)]
struct ColumnKind {
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Bool)]
    generated: bool,
}

/// The columns of `table` (an archived table) here.
pub fn columns(conn: &mut PgConnection, table: &str) -> QueryResult<Columns> {
    let all = diesel::sql_query(
        "SELECT column_name::text AS column_name, is_generated = 'ALWAYS' AS generated
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
    )
    .bind::<Text, _>(table)
    .load::<ColumnKind>(conn)?;
    let (generated, writable): (Vec<_>, Vec<_>) = all.into_iter().partition(|c| c.generated);
    let names = |cs: Vec<ColumnKind>| cs.into_iter().map(|c| c.column_name).collect();
    Ok(Columns {
        writable: names(writable),
        generated: names(generated),
    })
}

/// Whether `table` (`users` or `players`) has a row `id`.
pub fn exists(conn: &mut PgConnection, table: &str, id: i64) -> QueryResult<bool> {
    diesel::select(diesel::dsl::sql::<Bool>(&format!(
        "EXISTS (SELECT 1 FROM {table} WHERE id = {id})"
    )))
    .get_result(conn)
}

/// The usernames here (lowercased) that begin with `prefix`, whatever its case.
pub fn usernames_from(conn: &mut PgConnection, prefix: &str) -> QueryResult<HashSet<String>> {
    #[derive(QueryableByName)]
    struct Taken {
        #[diesel(sql_type = Text)]
        username: String,
    }
    Ok(diesel::sql_query(
        "SELECT lower(username) AS username FROM users WHERE lower(username) LIKE lower($1) || '%'",
    )
    .bind::<Text, _>(prefix)
    .load::<Taken>(conn)?
    .into_iter()
    .map(|t| t.username)
    .collect())
}

/// A new account for an archive's user: disabled now, with no password anyone can sign in
/// with.
pub fn insert_archived_user(conn: &mut PgConnection, username: &str) -> QueryResult<UserId> {
    let u: Id = diesel::sql_query(
        "INSERT INTO users (username, password_hash, is_admin, disabled_at)
             VALUES ($1, '!archived', false, now()) RETURNING id",
    )
    .bind::<Text, _>(username)
    .get_result(conn)?;
    Ok(UserId(u.id))
}

/// A new player for an archive's player.
pub fn insert_archived_player(
    conn: &mut PgConnection,
    (name, club, country): (&str, Option<&str>, Option<&str>),
    created_by: UserId,
) -> QueryResult<PlayerId> {
    let p: Id = diesel::sql_query(
        "INSERT INTO players (name, club, country, created_by) VALUES ($1, $2, $3, $4)
             RETURNING id",
    )
    .bind::<Text, _>(name)
    .bind::<Nullable<Text>, _>(club)
    .bind::<Nullable<Text>, _>(country)
    .bind::<BigInt, _>(created_by)
    .get_result(conn)?;
    Ok(PlayerId(p.id))
}

/// Inserts one archived row into `table`, its `columns` (sorted) taken from the JSON object.
pub fn insert_row(
    conn: &mut PgConnection,
    table: &str,
    columns: &[&str],
    row: Value,
) -> QueryResult<()> {
    let list = columns.join(", ");
    let sql = format!(
        "INSERT INTO {t} ({list}) SELECT {list} FROM jsonb_populate_record(NULL::{t}, $1)",
        t = table
    );
    diesel::sql_query(sql).bind::<Jsonb, _>(row).execute(conn)?;
    Ok(())
}

/// Sets tournament `tid`'s `columns` (sorted) from an archived tournament row, and makes it
/// writable here again (its check-out cleared, its version moved on).
pub fn update_tournament(
    conn: &mut PgConnection,
    tid: TournamentId,
    columns: &[String],
    row: Value,
) -> QueryResult<()> {
    let sql = format!(
        "UPDATE tournaments SET ({list}) = (SELECT {sel} FROM jsonb_populate_record(NULL::tournaments, $1) r), \
         checked_out_to = NULL, checked_out_at = NULL, version = version + 1, updated_at = now() \
         WHERE id = $2",
        list = columns.join(", "),
        sel = columns.iter().map(|c| format!("r.{c}")).collect::<Vec<_>>().join(", "),
    );
    diesel::sql_query(sql)
        .bind::<Jsonb, _>(row)
        .bind::<BigInt, _>(tid)
        .execute(conn)?;
    Ok(())
}

/// Sets the penalty a case names.
pub fn set_case_penalty(
    conn: &mut PgConnection,
    case: CaseId,
    penalty: PenaltyId,
) -> QueryResult<()> {
    diesel::sql_query("UPDATE cases SET penalty_id = $2 WHERE id = $1")
        .bind::<BigInt, _>(case)
        .bind::<BigInt, _>(penalty)
        .execute(conn)?;
    Ok(())
}

/// Appoints `user` to `role` (a staff role's stored name) in tournament `tid`, appointed by
/// themselves; nothing when they hold it already.
pub fn appoint(
    conn: &mut PgConnection,
    tid: TournamentId,
    user: UserId,
    role: &str,
) -> QueryResult<()> {
    diesel::insert_into(tournament_staff::table)
        .values((
            tournament_staff::tournament_id.eq(tid),
            tournament_staff::user_id.eq(user),
            tournament_staff::role.eq(role),
            tournament_staff::appointed_by.eq(user),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// A tournament the pool rates or is asked to (accepted or pending) with a round of one of
/// these seed commitments: (id, name), the lowest id.
pub fn pool_tournament_with_rounds(
    conn: &mut PgConnection,
    pool: PoolId,
    commitments: &[String],
) -> QueryResult<Option<(TournamentId, String)>> {
    #[derive(QueryableByName)]
    struct Named {
        #[diesel(sql_type = BigInt)]
        id: i64,
        #[diesel(sql_type = Text)]
        name: String,
    }
    let found = diesel::sql_query(
        "SELECT t.id, t.name FROM tournaments t JOIN rounds r ON r.tournament_id = t.id
         WHERE t.rating_pool_id = $1 AND t.rating_status IN ('accepted', 'pending')
           AND r.seed_commitment = ANY($2)
         ORDER BY t.id LIMIT 1",
    )
    .bind::<BigInt, _>(pool)
    .bind::<Array<Text>, _>(commitments)
    .get_result::<Named>(conn)
    .optional()?;
    Ok(found.map(|t| (TournamentId(t.id), t.name)))
}

/// Tournament `tid` as written (it exists: the import just wrote it).
pub fn tournament(conn: &mut PgConnection, tid: TournamentId) -> QueryResult<Tournament> {
    crate::db::schema::tournaments::table
        .find(tid)
        .select(Tournament::as_select())
        .first(conn)
}
