//! When a round's games were played, which is the order ratings follow.
//!
//! domain.md section 10: "Ratings follow the results in time order". Seed 004 section 3: a
//! season counts "wszystkie turnieje rozegrane w czasie jego trwania" (every tournament played
//! while it lasts), and section 7 takes the season's standings "do godziny 22 ostatniego dnia
//! trwania sezonu" (at 22:00 on its last day). So a game's place in a rating pool is the time it
//! was played, not the time its result reached the service: a tournament entered a week late
//! still rates between the events played before and after it, and one played inside a season
//! counts in that season's ratings as it counts for its classification.
//!
//! The rules never say at what minute a game was played. The service's reading (written in
//! `docs/decisions/rules-branches.md`): the organiser may state the time of a round; otherwise
//! it is the moment the round's last result arrived, held within the tournament's playing days,
//! from 00:00 on the first day to 22:00 on the last (the season cutoff of seed 004 section 7), so
//! a round entered after the event counts as played on its last evening.

use chrono::{DateTime, Utc};

/// The playing days of a tournament as instants (the caller converts its local dates with the
/// tournament's time zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayingDays {
    /// 00:00 local time on the first day.
    pub starts: DateTime<Utc>,
    /// 22:00 local time on the last day: the latest default time of play.
    pub last_evening: DateTime<Utc>,
    /// 00:00 local time on the day after the last day (exclusive end).
    pub ends: DateTime<Utc>,
}

impl PlayingDays {
    /// The time a round completed at `completed` counts as played when the organiser gave none:
    /// the completion time, held within `starts ..= last_evening`.
    pub fn default_time_of_play(&self, completed: DateTime<Utc>) -> DateTime<Utc> {
        completed.clamp(self.starts, self.last_evening.max(self.starts))
    }

    /// Whether `at` lies within the playing days (a time of play the organiser may state).
    pub fn contains(&self, at: DateTime<Utc>) -> bool {
        self.starts <= at && at < self.ends
    }

    /// Whether the tournament has started at `now` (results are refused before that).
    pub fn started_by(&self, now: DateTime<Utc>) -> bool {
        now >= self.starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    /// A two-day tournament in Warsaw in winter (UTC+1): 7-8 March 2026.
    fn days() -> PlayingDays {
        PlayingDays {
            starts: at("2026-03-06T23:00:00Z"),
            last_evening: at("2026-03-08T21:00:00Z"),
            ends: at("2026-03-08T23:00:00Z"),
        }
    }

    #[test]
    fn a_round_completed_during_the_event_is_played_when_it_completed() {
        let t = at("2026-03-07T14:30:00Z");
        assert_eq!(days().default_time_of_play(t), t);
    }

    /// "wszystkie turnieje rozegrane w czasie jego trwania" (seed 004, 3): a round entered a
    /// week after the event counts as played on the event's last evening, inside the season
    /// whose cutoff is 22:00 on its last day (seed 004, 7).
    #[test]
    fn a_round_entered_after_the_event_counts_as_played_on_its_last_evening() {
        assert_eq!(
            days().default_time_of_play(at("2026-03-15T09:00:00Z")),
            at("2026-03-08T21:00:00Z")
        );
        assert_eq!(
            days().default_time_of_play(at("2026-03-08T22:30:00Z")),
            at("2026-03-08T21:00:00Z")
        );
    }

    #[test]
    fn a_round_completed_before_the_first_day_counts_from_its_start() {
        assert_eq!(
            days().default_time_of_play(at("2026-03-01T10:00:00Z")),
            at("2026-03-06T23:00:00Z")
        );
    }

    #[test]
    fn a_stated_time_of_play_lies_within_the_playing_days() {
        let d = days();
        assert!(d.contains(at("2026-03-06T23:00:00Z")));
        assert!(d.contains(at("2026-03-08T22:59:59Z")));
        assert!(!d.contains(at("2026-03-08T23:00:00Z")));
        assert!(!d.contains(at("2026-03-06T22:59:59Z")));
    }

    #[test]
    fn the_tournament_starts_at_midnight_on_its_first_day() {
        let d = days();
        assert!(!d.started_by(at("2026-03-06T22:59:59Z")));
        assert!(d.started_by(at("2026-03-06T23:00:00Z")));
    }
}
