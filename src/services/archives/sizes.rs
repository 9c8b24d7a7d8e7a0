//! What an archive may hold: no more than the routes let a tournament have. A tournament made
//! here through the routes plans 1-50 rounds (`planned_rounds` in POST and PATCH
//! /tournaments), has an appeals committee of at most three (POST /tournaments/{id}/staff) and
//! registrations whose seeding is within what the registration routes take; its settings are
//! within what a PATCH takes. Where the routes set no cap (players, registrations, cases), a
//! bound no real event reaches keeps one upload from writing rows without end. An archive is
//! held to the same, so that a signed file cannot give a tournament here what no organiser
//! could (422 naming the archive's field).

use std::collections::HashSet;

use serde_json::Value;

use super::check_in_holds::settings_within_limits;
use super::{ArchiveContent, Row};
use crate::domain::staff::COMMITTEE_SEATS;
use crate::error::{ApiError, FieldError};
use crate::services::running::registrations::check_seeding;
use crate::services::validate::Check;

/// The most rounds an archive holds: the most a tournament plans (`planned_rounds`, 1-50).
pub const MOST_ROUNDS: usize = 50;

/// The most registrations an archive holds. The registration routes set no cap on a
/// tournament's registrations (`POST /tournaments/{id}/registrations` and the teams route take
/// one more as long as registration is open), so this is not a route's limit mirrored but a
/// bound no real event reaches: ten times the 1,000 players of the largest event the service
/// is measured with (`docs/performance.md`). It stops one upload of up to 64 MiB from writing
/// some hundred thousand rows.
pub const MOST_REGISTRATIONS: usize = 10_000;

/// The most players an archive lists (each created here unless `player_map` names it): the
/// players its rows name, who are its registrations' (at most [`MOST_REGISTRATIONS`]) and the
/// few its cases and penalties name besides. `POST /players` sets no cap either.
pub const MOST_PLAYERS: usize = MOST_REGISTRATIONS;

/// The most cases an archive holds. The case routes set no cap on a tournament's cases
/// (`POST /tournaments/{id}/cases` opens one more a request; an appeal is one per decided
/// case), so this is a bound no real event reaches: one case for every player of the largest
/// event the service is measured with (1,000), where a real event hears a handful.
pub const MOST_CASES: usize = 1_000;

const AT: &str = "archive.content";

/// The rounds: at most [`MOST_ROUNDS`], numbered 1, 2, ... each once, as the routes number them.
fn check_rounds(check: &mut Check, rounds: &[Row]) {
    if rounds.len() > MOST_ROUNDS {
        check.fail(
            &format!("{AT}.rounds"),
            format!(
                "{} rounds: a tournament here has at most {MOST_ROUNDS} (its planned rounds are \
                 1-50)",
                rounds.len()
            ),
        );
        return;
    }
    let mut seen = HashSet::new();
    for (i, r) in rounds.iter().enumerate() {
        let n = r.get("number").and_then(Value::as_i64).unwrap_or(0);
        if !(1..=rounds.len() as i64).contains(&n) || !seen.insert(n) {
            check.fail(
                &format!("{AT}.rounds[{i}].number"),
                format!(
                    "the archive's {} rounds are numbered 1 to {} each once, as rounds are drawn",
                    rounds.len(),
                    rounds.len()
                ),
            );
        }
    }
}

/// The appeals committee: at most [`COMMITTEE_SEATS`] members, none of them a referee of the
/// tournament (the staff route refuses both).
fn check_staff(check: &mut Check, staff: &[Row]) {
    let role = |s: &Row| s.get("role").and_then(Value::as_str).map(str::to_string);
    let user = |s: &Row| s.get("user_id").and_then(Value::as_i64);
    let committee = staff
        .iter()
        .filter(|s| role(s).as_deref() == Some("appeals_committee"))
        .count();
    let referees: HashSet<Option<i64>> = staff
        .iter()
        .filter(|s| role(s).as_deref() == Some("referee"))
        .map(user)
        .collect();
    for (i, s) in staff.iter().enumerate() {
        if role(s).as_deref() == Some("appeals_committee") && referees.contains(&user(s)) {
            check.fail(
                &format!("{AT}.staff[{i}].role"),
                "a referee cannot sit on the appeals committee of the same tournament",
            );
        }
    }
    check.ensure(
        committee <= COMMITTEE_SEATS,
        &format!("{AT}.staff"),
        format!(
            "{committee} appeals committee members: the committee holds at most \
             {COMMITTEE_SEATS}"
        ),
    );
}

/// Each registration's seeding as the registration routes take it.
fn check_registrations(errors: &mut Vec<FieldError>, registrations: &[Row]) {
    for (i, r) in registrations.iter().enumerate() {
        let mut one = Check::new();
        let rating = r.get("seeding_rating").and_then(Value::as_f64);
        let games = r.get("seeding_rated_games").and_then(Value::as_i64);
        let games = games.map(|g| i32::try_from(g).unwrap_or(i32::MAX));
        check_seeding(&mut one, rating, games);
        if let Err(ApiError::Validation(found)) = one.finish() {
            errors.extend(found.into_iter().map(|mut e| {
                e.field = format!("{AT}.registrations[{i}].{}", e.field);
                e
            }));
        }
    }
}

/// At most [`MOST_PLAYERS`] players, [`MOST_REGISTRATIONS`] registrations and [`MOST_CASES`]
/// cases (422 naming each section beyond).
fn check_counts(content: &ArchiveContent) -> Result<(), ApiError> {
    let mut check = Check::new();
    let counts = [
        ("players", content.players.len(), MOST_PLAYERS),
        (
            "registrations",
            content.registrations.len(),
            MOST_REGISTRATIONS,
        ),
        ("cases", content.cases.len(), MOST_CASES),
    ];
    for (section, n, most) in counts {
        check.ensure(
            n <= most,
            &format!("{AT}.{section}"),
            format!("{n} {section}: an archive holds at most {most}, more than any event has"),
        );
    }
    check.finish()
}

/// The archive holds no more than the routes let a tournament have, and its settings are
/// within what a PATCH takes (422 naming each field at fault, at most 20). Its players,
/// registrations and cases are counted first: nothing more is read of an archive beyond.
pub fn check_sizes(content: &ArchiveContent) -> Result<(), ApiError> {
    check_counts(content)?;
    let mut errors = match settings_within_limits(&content.tournament, &|_| true) {
        Ok(()) => Vec::new(),
        Err(ApiError::Validation(found)) => found,
        Err(e) => return Err(e),
    };
    let mut check = Check::new();
    check_rounds(&mut check, &content.rounds);
    check_staff(&mut check, &content.staff);
    if let Err(ApiError::Validation(found)) = check.finish() {
        errors.extend(found);
    }
    check_registrations(&mut errors, &content.registrations);
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(20);
        Err(ApiError::Validation(errors))
    }
}
