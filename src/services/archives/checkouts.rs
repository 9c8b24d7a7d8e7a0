//! A venue that runs offline (issue 32, item 6): a tournament checked out to another instance
//! is read-only here (a trigger refuses every write to its rows, naming where it runs), is
//! played there from its archive, and is checked back in with the archive the venue made. The
//! check-in replaces the rows here when nothing changed here since the check-out, and is refused
//! with the differences otherwise. An admin can break a stale check-out (with a reason): the
//! tournament is writable here again.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::check_in_holds::{self as holds, RefusedTimes};
use super::export::archive_of;
use super::import::{check_results, checked, write_archive, Target};
use super::spec::TABLES;
use super::{canonical, ArchiveKeys, TournamentArchive, Trust};
use crate::auth::{Caller, StaffRole};
use crate::db::archives::checkouts::{self as store, CheckoutRow};
use crate::db::ids::{CheckoutId, PoolId, TournamentId, UserId};
use crate::db::models::Tournament;
use crate::db::PgConnection;
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::status::CheckoutState;
use crate::error::ApiError;
use crate::services::access::{load_for_staff, lock_tournament};
use crate::services::ratings::{record_refused_attempt, record_time_changes};
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
#[derive(Debug, Serialize, ToSchema)]
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

impl From<CheckoutRow> for CheckoutOut {
    fn from(r: CheckoutRow) -> Self {
        CheckoutOut {
            id: r.id.0,
            tournament_id: r.tournament_id.0,
            runs_at: r.runs_at,
            state: r.state,
            checked_out_by: r.checked_out_by.0,
            checked_out_at: r.checked_out_at,
            closed_by: r.closed_by.map(|u| u.0),
            closed_at: r.closed_at,
            reason: r.reason,
        }
    }
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
    now: DateTime<Utc>,
) -> Result<CheckedOut, ApiError> {
    crate::db::transaction(conn, |conn| {
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
        store::mark_out(conn, TournamentId(tid), &runs_at, t.version, now)?;
        let archive = archive_of(conn, tid, now)?;
        let base = comparable(&archive)?;
        let by = (UserId(caller.user_id), now);
        let checkout = store::insert(conn, TournamentId(tid), &runs_at, base, by)?;
        Ok(CheckedOut {
            checkout: checkout.into(),
            archive: archive.signed(keys),
        })
    })
}

/// The tournament's last check-out that is out or broken, with its base content.
fn last_checkout(conn: &mut PgConnection, tid: i64) -> Result<(CheckoutRow, Value), ApiError> {
    store::last_open(conn, TournamentId(tid))?
        .ok_or_else(|| ApiError::conflict_at("tournament", "the tournament is not checked out"))
}

/// Checks a tournament back in with the archive its venue made (its organisers): replaces
/// every row here when nothing changed here since the check-out (409 naming the differences
/// otherwise), in one transaction; the pool it is accepted in is rebuilt. The archive is held
/// to what a change here is (`check_in_holds`): an accepted tournament's times (409 naming the
/// archive's field, the attempt kept in its rating decisions), its status's steps (409), the
/// accounts `user_map` names (422).
pub fn check_in(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: CheckIn,
    keys: &ArchiveKeys,
    now: DateTime<Utc>,
) -> Result<CheckoutOut, ApiError> {
    let trust = Trust {
        key: input.trust_key.clone(),
        unsigned: false,
    };
    let mut refused: RefusedTimes = None;
    let out = crate::db::transaction(conn, |conn| {
        // Who is asking first: a stranger learns nothing about the archive (issue 37, item 6).
        load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let known = checked(&input.archive, Some((keys, &trust)))?;
        let t = lock_tournament(conn, tid)?;
        let (checkout, base) = last_checkout(conn, tid)?;
        let here = comparable(&archive_of(conn, tid, now)?)?;
        let changed = differences(&base, &here);
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
        // The archive is signed by the key the caller names: held to what a change here is.
        holds::check_user_map(caller, &base, &input.user_map)?;
        let maps = (&input.player_map, &input.user_map);
        holds::check_erased(&base, &input.archive, maps)?;
        holds::check_staff(conn, &t, (&base, &input.archive), &input.user_map)?;
        holds::check_status(&t, &input.archive)?;
        holds::check_settings(&base, &input.archive)?;
        // Its results, under the ruleset it keeps, as the results route takes them.
        check_results(&input.archive.content)?;
        let held = holds::held_times(conn, caller, &t, &input.archive, &mut refused)?;
        store::allow_check_in(conn, true)?;
        let tables = TABLES.iter().rev();
        let tables = tables.map(|spec| (spec.table, spec.refs.first().map(|(column, _)| *column)));
        store::clear_rows(conn, TournamentId(tid), tables)?;
        let maps = (&input.player_map, &input.user_map);
        write_archive(
            conn,
            caller,
            &input.archive,
            &known,
            maps,
            Target::Existing(tid),
        )?;
        store::allow_check_in(conn, false)?;
        if let Some((pool, changes, why)) = held {
            let (t, p) = (TournamentId(tid), PoolId(pool));
            record_time_changes(conn, caller, t, p, &changes, false, why, now)?;
        }
        if let (Some(pool), Some(RatingStatus::Accepted)) = (t.rating_pool_id, t.rating_status) {
            crate::services::ratings::rebuild_pool(conn, pool.0)?;
        }
        close(conn, (caller, now), checkout.id, CheckoutState::In, None)
    });
    if let (Err(_), Some((pool, changes))) = (&out, refused) {
        let (t, p) = (TournamentId(tid), PoolId(pool));
        record_refused_attempt(conn, caller, t, p, &changes, now)?;
    }
    out
}

fn close(
    conn: &mut PgConnection,
    (caller, now): (&Caller, DateTime<Utc>),
    id: CheckoutId,
    state: CheckoutState,
    reason: Option<String>,
) -> Result<CheckoutOut, ApiError> {
    let by = (UserId(caller.user_id), now);
    Ok(store::close(conn, id, state, by, reason)?.into())
}

/// Ends a check-out (the tournament's organisers and admins, with a reason; issue 40, item 5):
/// the tournament is writable here again; a later check-in is still accepted if nothing
/// changed here meanwhile. Who asks is checked before the reason.
pub fn break_checkout(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: BreakCheckout,
    now: DateTime<Utc>,
) -> Result<CheckoutOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let mut check = Check::new();
        let reason = check.text("reason", &input.reason, 500);
        check.finish()?;
        let t: Tournament = lock_tournament(conn, tid)?;
        let (checkout, _) = last_checkout(conn, tid)?;
        if checkout.state != CheckoutState::Out {
            return Err(ApiError::conflict_at(
                "tournament",
                "the check-out is already broken",
            ));
        }
        store::mark_back(conn, TournamentId(tid), t.version, now)?;
        close(
            conn,
            (caller, now),
            checkout.id,
            CheckoutState::Broken,
            Some(reason),
        )
    })
}
