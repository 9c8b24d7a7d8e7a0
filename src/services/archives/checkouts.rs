//! A venue that runs offline (issue 32, item 6): a tournament checked out to another instance
//! is read-only here (a trigger refuses every write to its rows, naming where it runs), is
//! played there from its archive, and is checked back in with the archive the venue made. The
//! check-in replaces the rows here when nothing changed here since the check-out, and is refused
//! with the differences otherwise. An admin can break a stale check-out (with a reason): the
//! tournament is writable here again.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::export::archive_of;
use super::import::{checked, write_archive, Target};
use super::spec::TABLES;
use super::{canonical, ArchiveKeys, TournamentArchive, Trust};
use crate::auth::{Caller, StaffRole};
use crate::db::models::Tournament;
use crate::db::schema::{tournament_checkouts, tournaments};
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::status::CheckoutState;
use crate::error::ApiError;
use crate::services::access::{load_for_staff, lock_tournament};
use crate::services::validate::Check;

/// Where the tournament will run.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"runs_at": "laptop at Hyttetur (venue instance)"}))]
pub struct CheckOut {
    /// Shown on every read of the tournament here while it is out (1-200 characters).
    pub runs_at: String,
}

/// A venue's archive checked back in, with how its people map onto this instance (the venue's
/// ids, as strings, to ids here; the others are created as on import: the venue's import answer
/// lists the ids it gave each).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckIn {
    pub archive: TournamentArchive,
    #[serde(default)]
    pub player_map: std::collections::BTreeMap<String, i64>,
    #[serde(default)]
    pub user_map: std::collections::BTreeMap<String, i64>,
    /// The venue instance's public key (`GET /api/v1/archive-key` there), when it is not in
    /// `ARCHIVE_TRUSTED_KEYS` here: the venue's archive must be signed by a trusted key.
    #[serde(default)]
    pub trust_key: Option<String>,
}

/// Why an admin breaks a check-out.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "the venue laptop was lost; results entered here from paper"}))]
pub struct BreakCheckout {
    /// Required (1-500 characters).
    pub reason: String,
}

/// One check-out.
#[derive(Debug, Serialize, ToSchema, Queryable, Selectable)]
#[diesel(table_name = tournament_checkouts)]
pub struct CheckoutOut {
    pub id: i64,
    pub tournament_id: i64,
    pub runs_at: String,
    pub state: CheckoutState,
    pub checked_out_by: i64,
    pub checked_out_at: DateTime<Utc>,
    /// Who checked it back in or broke it, when, and (broken) why.
    pub closed_by: Option<i64>,
    pub closed_at: Option<DateTime<Utc>>,
    pub reason: Option<String>,
}

/// A check-out and the archive to run the tournament from.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckedOut {
    pub checkout: CheckoutOut,
    pub archive: TournamentArchive,
}

/// The tournament's content as compared between check-out and check-in: without the columns
/// the check-out itself changes.
fn comparable(archive: &TournamentArchive) -> Result<Value, ApiError> {
    let mut v =
        serde_json::to_value(&archive.content).map_err(|e| ApiError::Internal(e.to_string()))?;
    if let Some(t) = v.get_mut("tournament").and_then(Value::as_object_mut) {
        for c in ["checked_out_to", "checked_out_at", "version", "updated_at"] {
            t.remove(c);
        }
    }
    Ok(v)
}

/// The sections that differ, in words.
fn differences(base: &Value, now: &Value) -> Vec<String> {
    let text = |v: Option<&Value>| {
        let mut s = String::new();
        canonical(v.unwrap_or(&Value::Null), &mut s);
        s
    };
    let len = |v: Option<&Value>| v.and_then(Value::as_array).map_or(0, Vec::len);
    let mut out = Vec::new();
    if text(base.get("tournament")) != text(now.get("tournament")) {
        out.push("tournament: its settings changed".to_string());
    }
    for spec in TABLES {
        let (b, n) = (base.get(spec.section), now.get(spec.section));
        if text(b) != text(n) {
            out.push(format!(
                "{}: {} rows then, {} now, changed",
                spec.section,
                len(b),
                len(n)
            ));
        }
    }
    out
}

/// Checks a tournament out to another instance (its organisers): read-only here until it is
/// checked back in; answers the archive to run it from.
pub fn check_out(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: CheckOut,
    keys: &ArchiveKeys,
) -> Result<CheckedOut, ApiError> {
    conn.transaction(|conn| {
        // Who is asking first, then the body (issue 37, item 6).
        load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let mut check = Check::new();
        let runs_at = check.text("runs_at", &input.runs_at, 200);
        check.finish()?;
        let t = lock_tournament(conn, tid)?;
        if let Some(at) = &t.checked_out_to {
            return Err(ApiError::conflict_at(
                "tournament",
                format!("the tournament is already checked out to {at}"),
            ));
        }
        let now = Utc::now();
        diesel::update(tournaments::table.find(tid))
            .set((
                tournaments::checked_out_to.eq(&runs_at),
                tournaments::checked_out_at.eq(now),
                tournaments::version.eq(t.version + 1),
                tournaments::updated_at.eq(now),
            ))
            .execute(conn)?;
        let archive = archive_of(conn, tid)?;
        let checkout = diesel::insert_into(tournament_checkouts::table)
            .values((
                tournament_checkouts::tournament_id.eq(tid),
                tournament_checkouts::runs_at.eq(&runs_at),
                tournament_checkouts::base.eq(comparable(&archive)?),
                tournament_checkouts::checked_out_by.eq(caller.user_id),
                tournament_checkouts::checked_out_at.eq(now),
            ))
            .returning(CheckoutOut::as_returning())
            .get_result(conn)?;
        Ok(CheckedOut {
            checkout,
            archive: archive.signed(keys),
        })
    })
}

/// The tournament's last check-out that is out or broken, with its base content.
fn last_checkout(conn: &mut PgConnection, tid: i64) -> Result<(CheckoutOut, Value), ApiError> {
    tournament_checkouts::table
        .filter(tournament_checkouts::tournament_id.eq(tid))
        .filter(tournament_checkouts::state.ne(CheckoutState::In))
        .order(tournament_checkouts::id.desc())
        .select((CheckoutOut::as_select(), tournament_checkouts::base))
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::conflict_at("tournament", "the tournament is not checked out"))
}

/// Checks a tournament back in with the archive its venue made (its organisers): replaces
/// every row here when nothing changed here since the check-out (409 naming the differences
/// otherwise), in one transaction; the pool it is accepted in is rebuilt.
pub fn check_in(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: CheckIn,
    keys: &ArchiveKeys,
) -> Result<CheckoutOut, ApiError> {
    let trust = Trust {
        key: input.trust_key.clone(),
        unsigned: false,
    };
    conn.transaction(|conn| {
        // Who is asking first: a stranger learns nothing about the archive (issue 37, item 6).
        load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let known = checked(&input.archive, Some((keys, &trust)))?;
        let t = lock_tournament(conn, tid)?;
        let (checkout, base) = last_checkout(conn, tid)?;
        let now = comparable(&archive_of(conn, tid)?)?;
        let changed = differences(&base, &now);
        if !changed.is_empty() {
            return Err(ApiError::conflict_at(
                "archive",
                format!(
                    "the tournament changed here since it was checked out, so the venue's copy \
                     cannot replace it: {}",
                    changed.join("; ")
                ),
            ));
        }
        diesel::sql_query("SELECT set_config('tourney.checkin', 'on', true)").execute(conn)?;
        clear_rows(conn, tid)?;
        let maps = (&input.player_map, &input.user_map);
        write_archive(
            conn,
            caller,
            &input.archive,
            &known,
            maps,
            Target::Existing(tid),
        )?;
        diesel::sql_query("SELECT set_config('tourney.checkin', 'off', true)").execute(conn)?;
        if let (Some(pool), Some(RatingStatus::Accepted)) = (t.rating_pool_id, t.rating_status) {
            crate::services::ratings::rebuild_pool(conn, pool)?;
        }
        close(conn, caller, checkout.id, CheckoutState::In, None)
    })
}

fn close(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    state: CheckoutState,
    reason: Option<String>,
) -> Result<CheckoutOut, ApiError> {
    Ok(diesel::update(tournament_checkouts::table.find(id))
        .set((
            tournament_checkouts::state.eq(state),
            tournament_checkouts::closed_by.eq(caller.user_id),
            tournament_checkouts::closed_at.eq(Utc::now()),
            tournament_checkouts::reason.eq(reason),
        ))
        .returning(CheckoutOut::as_returning())
        .get_result(conn)?)
}

/// Deletes the tournament's rows below the tournament itself (inside the check-in's
/// transaction), the last written first.
fn clear_rows(conn: &mut PgConnection, tid: i64) -> Result<(), ApiError> {
    diesel::sql_query("UPDATE cases SET penalty_id = NULL WHERE tournament_id = $1")
        .bind::<BigInt, _>(tid)
        .execute(conn)?;
    for spec in TABLES.iter().rev() {
        let filter = match spec.refs.first() {
            Some(("round_id", _)) => "round_id IN (SELECT id FROM rounds WHERE tournament_id = $1)",
            Some(("case_id", _)) => "case_id IN (SELECT id FROM cases WHERE tournament_id = $1)",
            _ => "tournament_id = $1",
        };
        diesel::sql_query(format!("DELETE FROM {} WHERE {filter}", spec.table))
            .bind::<BigInt, _>(tid)
            .execute(conn)?;
    }
    Ok(())
}

/// Breaks a stale check-out (admins, with a reason): the tournament is writable here again; a
/// later check-in is still accepted if nothing changed here meanwhile.
pub fn break_checkout(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: BreakCheckout,
) -> Result<CheckoutOut, ApiError> {
    caller.require_admin()?;
    let mut check = Check::new();
    let reason = check.text("reason", &input.reason, 500);
    check.finish()?;
    conn.transaction(|conn| {
        let t: Tournament = lock_tournament(conn, tid)?;
        let (checkout, _) = last_checkout(conn, tid)?;
        if checkout.state != CheckoutState::Out {
            return Err(ApiError::conflict_at(
                "tournament",
                "the check-out is already broken",
            ));
        }
        diesel::update(tournaments::table.find(tid))
            .set((
                tournaments::checked_out_to.eq(None::<String>),
                tournaments::checked_out_at.eq(None::<DateTime<Utc>>),
                tournaments::version.eq(t.version + 1),
                tournaments::updated_at.eq(Utc::now()),
            ))
            .execute(conn)?;
        close(
            conn,
            caller,
            checkout.id,
            CheckoutState::Broken,
            Some(reason),
        )
    })
}
