//! `GET /tournaments/{id}/archive`: the tournament's rows, table by table, in one document.

use std::collections::BTreeSet;

use chrono::Utc;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Jsonb};
use diesel::PgConnection;

use super::spec::{Kind, TABLES, TOURNAMENT};
use super::{digest_of, ArchiveContent, ArchiveKeys, Row, TournamentArchive, FORMAT, VERSION};
use crate::auth::{Caller, StaffRole};
use crate::error::ApiError;
use crate::services::access::load_for_staff;

#[derive(QueryableByName)]
struct Rows {
    #[diesel(sql_type = Jsonb)]
    rows: serde_json::Value,
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

fn rows_of(conn: &mut PgConnection, table: &str, tid: i64) -> Result<Vec<Row>, ApiError> {
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

/// The ids of `kind` the rows name.
fn named(content: &ArchiveContent, kind: Kind) -> BTreeSet<i64> {
    let mut ids = BTreeSet::new();
    let mut add = |row: &Row, refs: &[(&str, Kind)]| {
        for (column, k) in refs {
            if *k == kind {
                ids.extend(row.get(*column).and_then(serde_json::Value::as_i64));
            }
        }
    };
    add(&content.tournament, TOURNAMENT.refs);
    for spec in TABLES {
        let rows = content
            .sections()
            .into_iter()
            .find(|(s, _)| *s == spec.section);
        for row in rows.map(|(_, r)| r.as_slice()).unwrap_or_default() {
            add(row, spec.refs);
        }
    }
    ids
}

fn directory(conn: &mut PgConnection, sql: &str, ids: BTreeSet<i64>) -> Result<Vec<Row>, ApiError> {
    let ids: Vec<i64> = ids.into_iter().collect();
    let rows: Rows = diesel::sql_query(sql)
        .bind::<Array<BigInt>, _>(ids)
        .get_result(conn)?;
    serde_json::from_value(rows.rows).map_err(|e| ApiError::Internal(e.to_string()))
}

/// The archive of tournament `tid` as the caller's transaction sees it (no access check).
pub(super) fn archive_of(conn: &mut PgConnection, tid: i64) -> Result<TournamentArchive, ApiError> {
    let mut content = ArchiveContent {
        tournament: rows_of(conn, TOURNAMENT.table, tid)?
            .pop()
            .ok_or_else(|| ApiError::NotFound(format!("no tournament {tid}")))?,
        ..Default::default()
    };
    for spec in TABLES {
        let rows = rows_of(conn, spec.table, tid)?;
        if let Some(section) = content.section_mut(spec.section) {
            *section = rows;
        }
    }
    let players = named(&content, Kind::Player);
    content.players = directory(
        conn,
        "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name, \
         'club', club, 'country', country) ORDER BY id), '[]'::jsonb) AS rows \
         FROM players WHERE id = ANY($1)",
        players,
    )?;
    let users = named(&content, Kind::User);
    content.users = directory(
        conn,
        "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'username', username) \
         ORDER BY id), '[]'::jsonb) AS rows FROM users WHERE id = ANY($1)",
        users,
    )?;
    let digest = digest_of(&content).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(TournamentArchive {
        format: FORMAT.into(),
        version: VERSION,
        exported_at: Utc::now(),
        digest,
        signature: None,
        content,
    })
}

/// The archive of tournament `tid` (its organisers and admins): every row it holds in one
/// document with its digest, signed with the instance's key. Reads in one repeatable-read snapshot, so the sections agree.
pub fn tournament_archive(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    keys: &ArchiveKeys,
) -> Result<TournamentArchive, ApiError> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(|conn| {
            load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
            Ok(archive_of(conn, tid)?.signed(keys))
        })
}
