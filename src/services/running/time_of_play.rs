//! When rounds were played (issue 14, item 20): the tournament's playing days as instants, the
//! time of play a round gets when it completes, and re-deriving those times when the
//! tournament's dates move. The rule and its reading: `domain::rating::time_of_play`.

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};

use crate::db;
use crate::db::models::Tournament;
use crate::db::PgConnection;
use crate::domain::rating::PlayingDays;
use crate::error::ApiError;

/// A local time on a date in `tz`, as an instant (the earlier one when clocks go back, the
/// first valid minute after a gap when they go forward).
fn local_instant(tz: chrono_tz::Tz, day: NaiveDate, time: NaiveTime) -> DateTime<Utc> {
    let mut local = day.and_time(time);
    for _ in 0..180 {
        if let Some(t) = tz.from_local_datetime(&local).earliest() {
            return t.with_timezone(&Utc);
        }
        local += chrono::Duration::minutes(1);
    }
    local.and_utc()
}

/// The tournament's playing days in its time zone.
pub fn playing_days(t: &Tournament) -> Result<PlayingDays, ApiError> {
    let tz: chrono_tz::Tz = t
        .time_zone
        .parse()
        .map_err(|_| ApiError::Internal(format!("tournament {}: bad time zone", t.id)))?;
    let midnight = NaiveTime::MIN;
    let ten_pm = NaiveTime::from_hms_opt(22, 0, 0).expect("22:00 is a time");
    let after = t.ends_on.succ_opt().unwrap_or(t.ends_on);
    Ok(PlayingDays {
        starts: local_instant(tz, t.starts_on, midnight),
        last_evening: local_instant(tz, t.ends_on, ten_pm),
        ends: local_instant(tz, after, midnight),
    })
}

/// 409 unless the tournament has started by `now`: no game of it can have been played yet.
pub fn require_started(t: &Tournament, now: DateTime<Utc>) -> Result<(), ApiError> {
    if playing_days(t)?.started_by(now) {
        Ok(())
    } else {
        Err(ApiError::Conflict(format!(
            "the tournament starts on {} ({}); results can be entered from then on",
            t.starts_on, t.time_zone
        )))
    }
}

/// 422 (`played_at`) unless a stated time of play lies within the playing days.
pub fn check_stated(t: &Tournament, at: DateTime<Utc>) -> Result<(), ApiError> {
    let days = playing_days(t)?;
    if days.contains(at) {
        Ok(())
    } else {
        Err(ApiError::field(
            "played_at",
            format!(
                "must lie within the tournament's playing days, {} to {} ({})",
                t.starts_on, t.ends_on, t.time_zone
            ),
        ))
    }
}

/// After the tournament's dates or time zone changed: the completed rounds without a stated
/// time get theirs derived again from their completion time. Returns whether any moved (the
/// caller then brings the ratings up to date). Runs inside the caller's transaction.
pub fn rederive(conn: &mut PgConnection, t: &Tournament) -> Result<bool, ApiError> {
    let days = playing_days(t)?;
    let derived = db::rounds::derived_times_of_play(conn, t.id)?;
    let mut moved = false;
    for (id, completed, played) in derived {
        let Some(completed) = completed else { continue };
        let now = days.default_time_of_play(completed);
        if played != Some(now) {
            db::rounds::set_derived_played_at(conn, id, now)?;
            moved = true;
        }
    }
    Ok(moved)
}
