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
use crate::domain::case_panels::committee_fixed;
use crate::domain::staff::StaffRole;
use crate::domain::status::{RoundStatus, TournamentStatus};
use crate::error::ApiError;
use crate::services::ratings::{
    held_round_time, held_tournament_times, time_verdict, HeldTimes, TimeChange, TimeVerdict,
};
use crate::services::running::time_of_play::check_stated;
use crate::services::running::tournament_settings::{self as limits, Settings};
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

/// The people erased here since the check-out stay erased (`base`: the content as checked
/// out, where an erasure marks them `"erased"`): while the check-in would create anyone of the
/// archive's (a player or account its map leaves out), the venue's copy of each erased one must
/// be mapped onto them (`player_map`, `user_map`), so that their results stay theirs and the
/// venue's copy of their name, club and country is never written here as someone new (422
/// naming the map otherwise).
pub(super) fn check_erased(
    base: &Value,
    archive: &TournamentArchive,
    (player_map, user_map): (&BTreeMap<String, i64>, &BTreeMap<String, i64>),
) -> Result<(), ApiError> {
    let sections = [
        (
            "players",
            &archive.content.players,
            player_map,
            "player",
            "player_map",
        ),
        (
            "users",
            &archive.content.users,
            user_map,
            "account",
            "user_map",
        ),
    ];
    for (section, rows, map, whom, field) in sections {
        let mapped_from: HashSet<&str> = map.keys().map(String::as_str).collect();
        let creates = rows.iter().any(|r| {
            let id = r.get("id").map(Value::to_string).unwrap_or_default();
            !mapped_from.contains(id.as_str())
        });
        let mapped_onto: HashSet<i64> = map.values().copied().collect();
        let unmapped: Vec<String> = base
            .get(section)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|e| e.get("erased") == Some(&Value::Bool(true)))
            .filter_map(|e| e.get("id").and_then(Value::as_i64))
            .filter(|id| !mapped_onto.contains(id))
            .map(|id| id.to_string())
            .collect();
        if creates && !unmapped.is_empty() {
            return Err(ApiError::field(
                field,
                format!(
                    "{whom} {} was erased here since the check-out: map the venue's copy onto \
                     it (the venue's import answer lists its id), so that its results stay its \
                     own and its old name is not written back as someone new",
                    unmapped.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The archive's staff keep the rules an appointment here keeps (`t`: the tournament as checked
/// out; `user_map`: the venue's accounts onto these, an account it leaves out being someone
/// new): once the tournament has started (a round drawn, or running), its appeals committee is
/// the one checked out (`base`; 409 naming `archive.content.staff` otherwise). Its size and its
/// referees are held by the checks every archive passes (`sizes`: 422).
pub(super) fn check_staff(
    conn: &mut PgConnection,
    t: &Tournament,
    (base, archive): (&Value, &TournamentArchive),
    user_map: &BTreeMap<String, i64>,
) -> Result<(), ApiError> {
    let at = "archive.content.staff";
    // Who a staff row names here: the mapped account, or a new one (the venue's id).
    let person = |row: &super::Row| -> Result<String, ApiError> {
        let id = row.get("user_id").and_then(Value::as_i64);
        let id = id.ok_or_else(|| ApiError::field(at, "a staff row names no account"))?;
        Ok(match user_map.get(&id.to_string()) {
            Some(here) => format!("{here}"),
            None => format!("new account {id} of the venue"),
        })
    };
    let in_role = |role: StaffRole| -> Result<HashSet<String>, ApiError> {
        let rows = archive.content.staff.iter();
        let rows = rows.filter(|r| r.get("role").and_then(Value::as_str) == Some(role.as_str()));
        rows.map(&person).collect()
    };
    let committee = in_role(StaffRole::AppealsCommittee)?;
    let committee_role = StaffRole::AppealsCommittee.as_str();
    let checked_out: HashSet<String> = base
        .get("staff")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.get("role").and_then(Value::as_str) == Some(committee_role))
        .filter_map(|r| r.get("user_id").and_then(Value::as_i64))
        .map(|id| id.to_string())
        .collect();
    let drawn = crate::db::rounds::any_drawn(conn, t.id)?;
    // Its size and its referees are held by the checks every archive passes (`sizes`).
    if committee_fixed(t.status, drawn) && committee != checked_out {
        return Err(ApiError::conflict_at(
            at,
            "the appeals committee is appointed before the tournament and this one had started \
             when it was checked out: a check-in cannot appoint or dismiss its members",
        ));
    }
    Ok(())
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

/// The archive's settings are ones a change here could make (`base`: the content as checked
/// out, which is the tournament here): its ruleset, overrides and table size as they are (409
/// naming the archive's field otherwise), and every setting it changes held to the very checks
/// of a PATCH (`running::tournament_settings`: the same limits and details, 422 naming the
/// archive's field, its length as `ends_on`) and written as a PATCH would store it (trimmed, the
/// country in capitals). A setting left as it is is never refused.
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
    let at = |c: &str| match c {
        // The PATCH's `days` is the archive's `ends_on`.
        "days" => format!("{AT}.ends_on"),
        c => format!("{AT}.{c}"),
    };
    let settings = archived_settings(&mut check, row, &changed);
    let stored = limits::check_settings(&mut check, at, &settings);
    let as_stored = [
        ("name", stored.name.map(Some)),
        ("game", stored.game.map(Some)),
        ("time_zone", stored.time_zone.map(Some)),
        ("venue", stored.venue),
        ("country", stored.country),
    ];
    for (c, value) in as_stored {
        let Some(value) = value else { continue };
        let (field, given) = (at(c), row.get(c).and_then(Value::as_str));
        if !check.failed(&field) && value.as_deref() != given {
            let stored = serde_json::to_string(&value).unwrap_or_default();
            let why = format!("must be written as a change here stores it: {stored}");
            check.fail(&field, why);
        }
    }
    check.finish()
}

/// The settings the archive changes (`changed`), read as a PATCH's body names them; a value of
/// the wrong type is refused into `check` (naming the archive's field).
fn archived_settings<'a>(
    check: &mut Check,
    row: &'a super::Row,
    changed: &dyn Fn(&str) -> bool,
) -> Settings<'a> {
    let field = |c: &str| format!("{AT}.{c}");
    let get = |c: &str| row.get(c).unwrap_or(&Value::Null);
    let text = |check: &mut Check, c: &str, nullable: bool| -> Option<Option<&'a str>> {
        if !changed(c) {
            return None;
        }
        match get(c) {
            Value::String(v) => Some(Some(v.as_str())),
            Value::Null if nullable => Some(None),
            _ => {
                check.fail(&field(c), "must be a text");
                None
            }
        }
    };
    let name = text(check, "name", false).flatten();
    let game = text(check, "game", false).flatten();
    let time_zone = text(check, "time_zone", false).flatten();
    let venue = text(check, "venue", true);
    let country = text(check, "country", true);
    let deadline = get("registration_deadline").clone();
    if changed("registration_deadline")
        && serde_json::from_value::<Option<DateTime<Utc>>>(deadline).is_err()
    {
        check.fail(&field("registration_deadline"), "must be a date and time");
    }
    let mut number = |c: &str| -> Option<i64> {
        if !changed(c) {
            return None;
        }
        let n = get(c).as_i64();
        if n.is_none() {
            check.fail(&field(c), "must be a whole number");
        }
        n
    };
    let planned_rounds = number("planned_rounds");
    let appeal_window_minutes = number("appeal_window_minutes");
    let prize_places = number("prize_places");
    let qualification_places = number("qualification_places");
    // The dates themselves are read (422 naming each) with the times (`held_times`).
    let date = |c: &str| serde_json::from_value::<NaiveDate>(get(c).clone()).ok();
    let dates = (changed("starts_on") || changed("ends_on"))
        .then(|| date("starts_on").zip(date("ends_on")))
        .flatten();
    Settings {
        name,
        game,
        planned_rounds,
        starts_on: dates.map(|(s, _)| s),
        days: dates.map(|(s, e)| (e - s).num_days() + 1),
        time_zone,
        venue,
        country,
        appeal_window_minutes,
        prize_places,
        qualification_places,
    }
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
