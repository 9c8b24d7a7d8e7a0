//! The check-outs of tournaments run on another instance (`tournament_checkouts`), and the
//! tournament's columns that say so.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel::PgConnection;
use serde_json::Value;

use crate::db::ids::{CheckoutId, PlayerId, TournamentId, UserId};
use crate::db::schema::{tournament_checkouts, tournaments};
use crate::domain::status::CheckoutState;

/// One check-out.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = tournament_checkouts)]
pub struct CheckoutRow {
    pub id: CheckoutId,
    pub tournament_id: TournamentId,
    pub runs_at: String,
    pub state: CheckoutState,
    pub checked_out_by: UserId,
    pub checked_out_at: DateTime<Utc>,
    pub closed_by: Option<UserId>,
    pub closed_at: Option<DateTime<Utc>>,
    pub reason: Option<String>,
}

/// Marks tournament `tid` (at `version`) as running at `runs_at` since `now`.
pub fn mark_out(
    conn: &mut PgConnection,
    tid: TournamentId,
    runs_at: &str,
    version: i32,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(tournaments::table.find(tid))
        .set((
            tournaments::checked_out_to.eq(runs_at),
            tournaments::checked_out_at.eq(now),
            tournaments::version.eq(version + 1),
            tournaments::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// Marks tournament `tid` (at `version`) as running here again.
pub fn mark_back(
    conn: &mut PgConnection,
    tid: TournamentId,
    version: i32,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(tournaments::table.find(tid))
        .set((
            tournaments::checked_out_to.eq(None::<String>),
            tournaments::checked_out_at.eq(None::<DateTime<Utc>>),
            tournaments::version.eq(version + 1),
            tournaments::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// A new check-out of tournament `tid` with the content it had (`base`).
pub fn insert(
    conn: &mut PgConnection,
    tid: TournamentId,
    runs_at: &str,
    base: Value,
    (by, now): (UserId, DateTime<Utc>),
) -> QueryResult<CheckoutRow> {
    diesel::insert_into(tournament_checkouts::table)
        .values((
            tournament_checkouts::tournament_id.eq(tid),
            tournament_checkouts::runs_at.eq(runs_at),
            tournament_checkouts::base.eq(base),
            tournament_checkouts::checked_out_by.eq(by),
            tournament_checkouts::checked_out_at.eq(now),
        ))
        .returning(CheckoutRow::as_returning())
        .get_result(conn)
}

/// The tournament's last check-out that is out or broken, with its base content.
pub fn last_open(
    conn: &mut PgConnection,
    tid: TournamentId,
) -> QueryResult<Option<(CheckoutRow, Value)>> {
    tournament_checkouts::table
        .filter(tournament_checkouts::tournament_id.eq(tid))
        .filter(tournament_checkouts::state.ne(CheckoutState::In))
        .order(tournament_checkouts::id.desc())
        .select((CheckoutRow::as_select(), tournament_checkouts::base))
        .first(conn)
        .optional()
}

/// Closes a check-out (checked in or broken) by `by` at `now`, with the reason.
pub fn close(
    conn: &mut PgConnection,
    id: CheckoutId,
    state: CheckoutState,
    (by, now): (UserId, DateTime<Utc>),
    reason: Option<String>,
) -> QueryResult<CheckoutRow> {
    diesel::update(tournament_checkouts::table.find(id))
        .set((
            tournament_checkouts::state.eq(state),
            tournament_checkouts::closed_by.eq(by),
            tournament_checkouts::closed_at.eq(now),
            tournament_checkouts::reason.eq(reason),
        ))
        .returning(CheckoutRow::as_returning())
        .get_result(conn)
}

/// Lets this transaction write a checked-out tournament's rows (the check-in), or not.
pub fn allow_check_in(conn: &mut PgConnection, on: bool) -> QueryResult<()> {
    let sql = if on {
        "SELECT set_config('tourney.checkin', 'on', true)"
    } else {
        "SELECT set_config('tourney.checkin', 'off', true)"
    };
    diesel::sql_query(sql).execute(conn)?;
    Ok(())
}

/// Deletes the tournament's rows below the tournament itself, table by table in the order
/// given (each table with the column naming its parent: `round_id`, `case_id`, else the
/// tournament), after clearing the penalties its cases name.
pub fn clear_rows<'a>(
    conn: &mut PgConnection,
    tid: TournamentId,
    tables: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
) -> QueryResult<()> {
    diesel::sql_query("UPDATE cases SET penalty_id = NULL WHERE tournament_id = $1")
        .bind::<BigInt, _>(tid)
        .execute(conn)?;
    for (table, parent) in tables {
        let filter = match parent {
            Some("round_id") => "round_id IN (SELECT id FROM rounds WHERE tournament_id = $1)",
            Some("case_id") => "case_id IN (SELECT id FROM cases WHERE tournament_id = $1)",
            _ => "tournament_id = $1",
        };
        diesel::sql_query(format!("DELETE FROM {table} WHERE {filter}"))
            .bind::<BigInt, _>(tid)
            .execute(conn)?;
    }
    Ok(())
}

/// In the content every check-out of any tournament keeps (`base`, whatever its state), the
/// directory entry of `section` (`players` or `users`) with id `id` takes `erased` over its
/// fields (an erasure's pseudonym, no club or country, `"erased": true`); the other entries and
/// their order stay. One statement; answers how many check-outs named it.
fn scrub_directory(
    conn: &mut PgConnection,
    section: &str,
    id: i64,
    erased: Value,
) -> QueryResult<usize> {
    diesel::sql_query(
        "UPDATE tournament_checkouts SET base = jsonb_set(base, ARRAY[$1::text], (
             SELECT coalesce(jsonb_agg(CASE WHEN e.entry -> 'id' = to_jsonb($2::bigint)
                                            THEN e.entry || $3::jsonb ELSE e.entry END
                                       ORDER BY e.n), '[]'::jsonb)
             FROM jsonb_array_elements(base -> $1::text) WITH ORDINALITY AS e(entry, n)))
         WHERE jsonb_typeof(base -> $1::text) = 'array'
           AND base -> $1::text @> jsonb_build_array(jsonb_build_object('id', $2::bigint))",
    )
    .bind::<diesel::sql_types::Text, _>(section)
    .bind::<BigInt, _>(id)
    .bind::<diesel::sql_types::Jsonb, _>(erased)
    .execute(conn)
}

/// Player `id`, erased (renamed `name`, without club or country), is erased in every
/// check-out's kept content too, marked `"erased": true` there (a check-in must then map the
/// venue's copy of it onto it: `services::archives::check_in_holds`). One statement.
pub fn scrub_player(conn: &mut PgConnection, id: PlayerId, name: &str) -> QueryResult<usize> {
    let erased = serde_json::json!({"name": name, "club": null, "country": null, "erased": true});
    scrub_directory(conn, "players", id.0, erased)
}

/// Account `id`, erased (its name now `username`), is erased in every check-out's kept
/// content too, marked `"erased": true` there. One statement.
pub fn scrub_user(conn: &mut PgConnection, id: UserId, username: &str) -> QueryResult<usize> {
    let erased = serde_json::json!({"username": username, "erased": true});
    scrub_directory(conn, "users", id.0, erased)
}
