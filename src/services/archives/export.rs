//! `GET /tournaments/{id}/archive`: the tournament's rows, table by table, in one document.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::spec::{Kind, TABLES, TOURNAMENT};
use super::{digest_of, ArchiveContent, ArchiveKeys, Row, TournamentArchive, FORMAT, VERSION};
use crate::auth::{Caller, StaffRole};
use crate::db::archives as store;
use crate::db::ids::{PlayerId, TournamentId, UserId};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::access::load_for_staff;

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

/// The archive of tournament `tid` as the caller's transaction sees it (no access check).
/// `now` is when it is made.
pub(super) fn archive_of(
    conn: &mut PgConnection,
    tid: i64,
    now: DateTime<Utc>,
) -> Result<TournamentArchive, ApiError> {
    let t = TournamentId(tid);
    let mut content = ArchiveContent {
        tournament: store::tournament_rows(conn, TOURNAMENT.table, t)?
            .pop()
            .ok_or_else(|| ApiError::NotFound(format!("no tournament {tid}")))?,
        ..Default::default()
    };
    for spec in TABLES {
        let rows = store::tournament_rows(conn, spec.table, t)?;
        if let Some(section) = content.section_mut(spec.section) {
            *section = rows;
        }
    }
    let players = named(&content, Kind::Player).into_iter().map(PlayerId);
    content.players = store::player_directory(conn, players)?;
    let users = named(&content, Kind::User).into_iter().map(UserId);
    content.users = store::user_directory(conn, users)?;
    let digest = digest_of(&content).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(TournamentArchive {
        format: FORMAT.into(),
        version: VERSION,
        exported_at: now,
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
    now: DateTime<Utc>,
) -> Result<TournamentArchive, ApiError> {
    crate::db::snapshot(conn, |conn| {
        load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        Ok(archive_of(conn, tid, now)?.signed(keys))
    })
}
