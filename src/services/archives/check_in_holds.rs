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

use super::{canonical, TournamentArchive};
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
use crate::services::validate::Check;

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

/// The settings fixed when a tournament is created: no change here makes them.
const FIXED: &[&str] = &["ruleset", "ruleset_overrides", "table_size"];

/// The texts a change here names and their longest length (`true`: required).
const TEXTS: &[(&str, usize, bool)] = &[
    ("name", 200, true),
    ("game", 100, true),
    ("venue", 200, false),
];

/// The numbers a change here sets and their bounds.
const NUMBERS: &[(&str, i64, i64)] = &[
    ("planned_rounds", 1, 50),
    ("appeal_window_minutes", 0, 10080),
    ("prize_places", 1, 1000),
    ("qualification_places", 0, 1000),
];

/// The archive's settings are ones a change here could make (`base`: the content as checked
/// out, which is the tournament here): its ruleset, overrides and table size as they are (409
/// naming the archive's field otherwise), and every setting it changes within what a PATCH
/// takes (422 naming each field at fault). A setting left as it is is never refused.
pub(super) fn check_settings(base: &Value, archive: &TournamentArchive) -> Result<(), ApiError> {
    let row = &archive.content.tournament;
    let here = base.get("tournament");
    let text = |v: Option<&Value>| {
        let mut s = String::new();
        canonical(v.unwrap_or(&Value::Null), &mut s);
        s
    };
    let changed = |c: &str| text(row.get(c)) != text(here.and_then(|t| t.get(c)));
    if let Some(c) = FIXED.iter().find(|c| changed(c)) {
        return Err(ApiError::conflict_at(
            format!("{AT}.{c}"),
            format!("a tournament's {c} is fixed when it is created: a check-in cannot change it"),
        ));
    }
    settings_within_limits(row, &changed)
}

/// The settings of the archive's tournament row that `changed` names are within what a PATCH
/// takes (422 naming each field at fault): an import holds every one to it, a check-in those
/// it changes.
pub(super) fn settings_within_limits(
    row: &super::Row,
    changed: &dyn Fn(&str) -> bool,
) -> Result<(), ApiError> {
    let mut check = Check::new();
    let field = |c: &str| format!("{AT}.{c}");
    let get = |c: &str| row.get(c).unwrap_or(&Value::Null);
    for &(c, max, required) in TEXTS.iter().filter(|(c, _, _)| changed(c)) {
        match get(c) {
            Value::String(v) if v.trim() == v => {
                check.text(&field(c), v, max);
            }
            Value::Null if !required => {}
            _ => check.fail(&field(c), format!("must be a text of 1-{max} characters")),
        }
    }
    for &(c, min, max) in NUMBERS.iter().filter(|(c, _, _)| changed(c)) {
        match get(c).as_i64() {
            Some(v) => check.range(&field(c), v, min, max),
            None => check.fail(&field(c), format!("must be between {min} and {max}")),
        }
    }
    if changed("country") {
        let code = |v: &str| v.len() == 2 && v.bytes().all(|b| b.is_ascii_uppercase());
        if !(get("country").is_null() || get("country").as_str().is_some_and(code)) {
            let why = "must be an ISO 3166-1 alpha-2 country code in capitals such as NO or PL";
            check.fail(&field("country"), why);
        }
    }
    if changed("time_zone") {
        match get("time_zone") {
            Value::String(v) if v.trim() == v => {
                check.time_zone(&field("time_zone"), v);
            }
            _ => check.fail(
                &field("time_zone"),
                "must be an IANA time zone such as Europe/Oslo",
            ),
        }
    }
    if changed("starts_on") || changed("ends_on") {
        use chrono::Datelike;
        let date = |c: &str| serde_json::from_value::<NaiveDate>(get(c).clone()).ok();
        if let Some((s, e)) = date("starts_on").zip(date("ends_on")) {
            let days = (e - s).num_days() + 1;
            let why = "must make the tournament 1-60 days long (starts_on to ends_on)";
            check.ensure((1..=60).contains(&days), &field("ends_on"), why);
            if !(1..=9999).contains(&s.year()) {
                check.fail(&field("starts_on"), "must be a date in the years 1-9999");
            }
        }
    }
    check.finish()
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
