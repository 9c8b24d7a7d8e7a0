//! The limits of a tournament's settings, one copy for every way they are set: its creation
//! (`POST /tournaments`), a change (`PATCH /tournaments/{id}`) and a check-in's archive
//! (`archives::check_in_holds`, which names the archive's fields instead of the PATCH's).

use chrono::{Datelike, NaiveDate};

use crate::services::validate::{check_country, Check};

/// The longest a tournament runs, in playing days.
const MOST_DAYS: i64 = 60;

/// The settings a change names, as sent (`None`: left as they are). Numbers are wide so that a
/// value out of any column's range is refused by its limits, not cut.
#[derive(Debug, Default)]
pub struct Settings<'a> {
    pub name: Option<&'a str>,
    pub game: Option<&'a str>,
    pub planned_rounds: Option<i64>,
    pub starts_on: Option<NaiveDate>,
    /// Playing days, `starts_on` included.
    pub days: Option<i64>,
    pub time_zone: Option<&'a str>,
    /// `Some(None)`: no venue.
    pub venue: Option<Option<&'a str>>,
    /// `Some(None)`: no country.
    pub country: Option<Option<&'a str>>,
    pub appeal_window_minutes: Option<i64>,
    pub prize_places: Option<i64>,
    pub qualification_places: Option<i64>,
}

/// The texts of [`Settings`] as they are stored: trimmed, the country in capitals.
#[derive(Debug, Default)]
pub struct Stored {
    pub name: Option<String>,
    pub game: Option<String>,
    pub time_zone: Option<String>,
    pub venue: Option<Option<String>>,
    pub country: Option<Option<String>>,
}

/// Checks every setting `s` names against its limits into `check`, naming the field at fault
/// `at(<the PATCH's field>)` (`name`, `days`, ...); answers the texts as they are stored.
pub fn check_settings(check: &mut Check, at: impl Fn(&str) -> String, s: &Settings) -> Stored {
    let name = s.name.map(|v| check.text(&at("name"), v, 200));
    let game = s.game.map(|v| check.text(&at("game"), v, 100));
    let ranges = [
        ("planned_rounds", s.planned_rounds, 1, 50),
        ("days", s.days, 1, MOST_DAYS),
        ("appeal_window_minutes", s.appeal_window_minutes, 0, 10080),
        ("prize_places", s.prize_places, 1, 1000),
        ("qualification_places", s.qualification_places, 0, 1000),
    ];
    for (field, value, min, max) in ranges {
        if let Some(v) = value {
            check.range(&at(field), v, min, max);
        }
    }
    if s.starts_on.is_some_and(|d| !(1..=9999).contains(&d.year())) {
        // Years 1-9999 only: what PostgreSQL and every client can store.
        check.fail(&at("starts_on"), "must be a date in the years 1-9999");
    }
    let time_zone = s.time_zone.map(|v| check.time_zone(&at("time_zone"), v));
    let venue = s.venue.map(|v| check.optional_text(&at("venue"), v, 200));
    let country = s.country.map(|c| check_country(check, &at("country"), c));
    Stored {
        name,
        game,
        time_zone,
        venue,
        country,
    }
}

/// The last playing day of a tournament of `days` days (within the limits) from `starts_on`.
pub fn last_day(starts_on: NaiveDate, days: i64) -> NaiveDate {
    starts_on
        .checked_add_days(chrono::Days::new(days.clamp(1, MOST_DAYS) as u64 - 1))
        .unwrap_or(starts_on)
}

/// The PATCH's own field names, for [`check_settings`].
pub fn as_sent(field: &str) -> String {
    field.to_string()
}
