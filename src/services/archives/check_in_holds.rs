//! What a check-in may not take from the venue's archive as it stands. The archive is signed by
//! the key its caller names (the venue's), so an organiser who edits it and signs it with a key
//! of their own checks in whatever they wrote: the check-in therefore holds it to what a change
//! here would be held to. An accepted tournament's dates, time zone and completed rounds' times
//! of play move only as a PATCH moves them (the pool's keepers decide: 409 naming the archive's
//! field, the attempt kept in the rating decisions); the status only takes the steps an
//! organiser takes by hand; the venue's accounts map only onto accounts the checked-out archive
//! named, or onto the caller. Readings: `docs/decisions/archives.md` (check-out and check-in).

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;

use super::TournamentArchive;
use crate::auth::Caller;
use crate::db::ids::TournamentId;
use crate::db::models::Tournament;
use crate::db::PgConnection;
use crate::domain::status::{RoundStatus, TournamentStatus};
use crate::error::ApiError;
use crate::services::ratings::{
    held_round_time, held_tournament_times, time_verdict, HeldTimes, TimeChange, TimeVerdict,
};
use crate::services::running::time_of_play::check_stated;

/// A refused change of time, to keep after the check-in rolled back: (pool, changes).
pub(super) type RefusedTimes = Option<(i64, Vec<TimeChange>)>;

const AT: &str = "archive.content.tournament";

/// The venue's accounts map only onto an account the checked-out archive named (`base`, its
/// content as checked out) or onto the caller: 422 naming the entry of `user_map` otherwise.
pub(super) fn check_user_map(
    caller: &Caller,
    base: &Value,
    user_map: &BTreeMap<String, i64>,
) -> Result<(), ApiError> {
    let mut named: HashSet<i64> = base
        .get("users")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|u| u.get("id").and_then(Value::as_i64))
        .collect();
    named.insert(caller.user_id);
    match user_map.iter().find(|(_, here)| !named.contains(here)) {
        Some((key, here)) => Err(ApiError::field(
            format!("user_map.{key}"),
            format!(
                "account {here} is not one the checked-out archive named: a check-in maps the \
                 venue's accounts only onto the tournament's own people or onto you"
            ),
        )),
        None => Ok(()),
    }
}

/// The archive's status is one the organiser could have moved the tournament to by hand (409
/// naming it otherwise): a finished tournament is not running again, a running one not a draft.
pub(super) fn check_status(t: &Tournament, archive: &TournamentArchive) -> Result<(), ApiError> {
    let at = format!("{AT}.status");
    let text = archive
        .content
        .tournament
        .get("status")
        .and_then(Value::as_str);
    let next = text
        .and_then(TournamentStatus::parse)
        .ok_or_else(|| ApiError::field(&at, "not a tournament status"))?;
    if t.status.can_reach(next) {
        return Ok(());
    }
    Err(ApiError::conflict_at(
        at,
        format!(
            "a tournament cannot go from {} to {}",
            t.status.as_str(),
            next.as_str()
        ),
    ))
}

/// The archive's field at `at`, read as `T` (422 naming it otherwise).
fn read<T: serde::de::DeserializeOwned>(row: &Value, at: &str) -> Result<T, ApiError> {
    serde_json::from_value(row.clone()).map_err(|_| ApiError::field(at, "not a valid value"))
}

/// A refusal of a change of time (or of a time of play), naming the archive's field `at`.
fn named_at(e: ApiError, at: String) -> ApiError {
    match e {
        ApiError::ConflictAt(mut f) => {
            f.field = at;
            ApiError::ConflictAt(f)
        }
        ApiError::Validation(mut errors) => {
            errors.iter_mut().for_each(|f| f.field = at.clone());
            ApiError::Validation(errors)
        }
        e => e,
    }
}

/// The changes of time the archive makes to accepted tournament `t`, held as a PATCH holds
/// them: `Some` (to record after the check-in) when the caller may make them, a 409 naming the
/// archive's field (and the attempt in `refused`) when not. A round new here, or not completed
/// here, has its time of play within the playing days unless the caller may move the
/// tournament in time (422 naming it).
pub(super) fn held_times(
    conn: &mut PgConnection,
    caller: &Caller,
    t: &Tournament,
    archive: &TournamentArchive,
    refused: &mut RefusedTimes,
) -> Result<HeldTimes, ApiError> {
    let row = &archive.content.tournament;
    let field = |c: &str| row.get(c).cloned().unwrap_or_default();
    let starts_on: NaiveDate = read(&field("starts_on"), &format!("{AT}.starts_on"))?;
    let ends_on: NaiveDate = read(&field("ends_on"), &format!("{AT}.ends_on"))?;
    let time_zone: String = read(&field("time_zone"), &format!("{AT}.time_zone"))?;
    let next = (
        starts_on,
        ends_on,
        time_zone.as_str(),
        t.rating_pool_id.map(|p| p.0),
        // Kept on check-in (`KEPT_ON_CHECK_IN`): never the archive's.
        t.national_rank,
    );
    let held = held_tournament_times(conn, caller, t, next, refused).map_err(|e| {
        let first = refused
            .as_ref()
            .and_then(|(_, c)| c.first())
            .map(|c| c.field);
        let column = if first == Some("days") {
            "ends_on"
        } else {
            first.unwrap_or("starts_on")
        };
        named_at(e, format!("{AT}.{column}"))
    })?;
    let (mut pool, mut changes, mut why) = match held {
        Some((p, c, w)) => (Some(p), c, w),
        None => (None, Vec::new(), ""),
    };
    let free = !matches!(time_verdict(conn, caller, t)?, TimeVerdict::Refused { .. });
    let here = crate::db::rounds::of_tournament(conn, TournamentId(t.id.0))?;
    for (i, r) in archive.content.rounds.iter().enumerate() {
        let at = format!("archive.content.rounds[{i}]");
        let get = |c: &str| r.get(c).cloned().unwrap_or_default();
        let number: i32 = read(&get("number"), &format!("{at}.number"))?;
        let played_at: Option<DateTime<Utc>> = read(&get("played_at"), &format!("{at}.played_at"))?;
        let fixed: bool = read(&get("played_at_fixed"), &format!("{at}.played_at_fixed"))?;
        let mut one = None;
        let current = here.iter().find(|c| c.number == number);
        let verdict = match current {
            Some(c) => held_round_time(conn, caller, t, c, (played_at, fixed), &mut one),
            None => Ok(None),
        };
        match verdict {
            Ok(Some((p, change, w))) => {
                (pool, why) = (Some(p), w);
                changes.push(change);
            }
            Ok(None) => {
                let completed_here = current.is_some_and(|c| c.status == RoundStatus::Completed);
                if let (false, false, Some(when)) = (free, completed_here, played_at) {
                    check_stated(t, when).map_err(|e| named_at(e, format!("{at}.played_at")))?;
                }
            }
            Err(e) => {
                *refused = one.map(|(p, c)| (p, vec![c]));
                return Err(named_at(e, format!("{at}.played_at")));
            }
        }
    }
    Ok(pool.map(|p| (p, changes, why)))
}
