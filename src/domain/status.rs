//! The life cycles of tournaments and rounds, with the one mapping between each state and the
//! name it is stored and sent under.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a tournament is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Being set up; only its staff see it.
    Draft,
    /// Published; players may register.
    RegistrationOpen,
    /// Rounds are being played.
    Running,
    /// Over.
    Finished,
}

impl TournamentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::RegistrationOpen => "registration_open",
            Self::Running => "running",
            Self::Finished => "finished",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
    }

    /// The steps an organiser may take by hand.
    pub fn can_move_to(self, next: Self) -> bool {
        use TournamentStatus::*;
        matches!(
            (self, next),
            (Draft, RegistrationOpen)
                | (RegistrationOpen, Draft)
                | (RegistrationOpen, Running)
                | (Running, Finished)
        ) || self == next
    }

    /// Whether `next` is reached from here by steps an organiser may take by hand (a venue's
    /// archive checked back in: a finished tournament is not running again).
    pub fn can_reach(self, next: Self) -> bool {
        use TournamentStatus::*;
        let all = [Draft, RegistrationOpen, Running, Finished];
        let mut seen = vec![self];
        let mut todo = vec![self];
        while let Some(s) = todo.pop() {
            for n in all {
                if s.can_move_to(n) && !seen.contains(&n) {
                    seen.push(n);
                    todo.push(n);
                }
            }
        }
        seen.contains(&next)
    }
}

/// Where a round is in its life (domain.md section 3: a draw is published before play, and a
/// round is complete when every table has a result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundStatus {
    /// Drawn, visible to staff only; may be redrawn.
    Draft,
    /// Published: players see their tables and results may be entered.
    Published,
    /// Every table has a result.
    Completed,
}

impl RoundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Published => "published",
            Self::Completed => "completed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "draft" => Some(Self::Draft),
            "published" => Some(Self::Published),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }
}

macro_rules! stored_names {
    ($name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $name {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }

            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($text => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

/// Where a registration stands (domain.md section 2: confirmed in multiples of the table
/// size in registration order, the rest waitlisted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RegistrationStatus {
    /// Plays: among the first full tables in registration order.
    Confirmed,
    /// Registered, waiting for a place.
    Waitlisted,
    /// Cancelled before the first round (kept for the record).
    Cancelled,
}

stored_names!(RegistrationStatus {
    Confirmed => "confirmed",
    Waitlisted => "waitlisted",
    Cancelled => "cancelled",
});

/// Where a case stands (domain.md section 1; `docs/cases.md` has the state machine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// Filed; the panel has not decided.
    Open,
    /// Decided.
    Decided,
    /// Decided, and an appeal against the decision was lodged.
    Appealed,
}

stored_names!(CaseStatus {
    Open => "open",
    Decided => "decided",
    Appealed => "appealed",
});

/// Where the time of a self-scheduled game stands (seed 003 rules 8.2 and 8.4): to be proposed,
/// proposed, agreed, or forfeited by a player who did not answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleState {
    /// No proposal waits: either player may propose times (none is awaited).
    Open,
    /// Times were proposed; the other player's answer is awaited.
    Proposed,
    /// The players agreed a time.
    Agreed,
    /// A player did not answer in time and lost the game.
    Forfeited,
}

stored_names!(ScheduleState {
    Open => "open",
    Proposed => "proposed",
    Agreed => "agreed",
    Forfeited => "forfeited",
});

/// Where a tournament's check-out to another instance stands (issue 32, item 6): out (run
/// elsewhere, read-only here), checked back in, or broken by an admin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckoutState {
    Out,
    In,
    Broken,
}

stored_names!(CheckoutState {
    Out => "out",
    In => "in",
    Broken => "broken",
});

/// Where a webhook delivery stands: waiting for its next attempt, delivered (a 2xx answer),
/// or failed (no success within a day, or its subscription was deleted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

stored_names!(DeliveryStatus {
    Pending => "pending",
    Delivered => "delivered",
    Failed => "failed",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_reaches_only_what_steps_by_hand_reach() {
        use TournamentStatus::*;
        for s in [Draft, RegistrationOpen] {
            for n in [Draft, RegistrationOpen, Running, Finished] {
                assert!(s.can_reach(n), "{s:?} to {n:?}");
            }
        }
        assert!(Running.can_reach(Finished) && Running.can_reach(Running));
        for n in [Draft, RegistrationOpen] {
            assert!(!Running.can_reach(n), "running to {n:?}");
        }
        for n in [Draft, RegistrationOpen, Running] {
            assert!(!Finished.can_reach(n), "finished to {n:?}");
        }
        assert!(Finished.can_reach(Finished));
    }

    #[test]
    fn every_status_round_trips_through_its_name() {
        for s in [
            TournamentStatus::Draft,
            TournamentStatus::RegistrationOpen,
            TournamentStatus::Running,
            TournamentStatus::Finished,
        ] {
            assert_eq!(TournamentStatus::parse(s.as_str()), Some(s));
        }
        for s in [
            RoundStatus::Draft,
            RoundStatus::Published,
            RoundStatus::Completed,
        ] {
            assert_eq!(RoundStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(RoundStatus::parse("finished"), None);
        for s in [
            RegistrationStatus::Confirmed,
            RegistrationStatus::Waitlisted,
            RegistrationStatus::Cancelled,
        ] {
            assert_eq!(RegistrationStatus::parse(s.as_str()), Some(s));
        }
        for s in [CaseStatus::Open, CaseStatus::Decided, CaseStatus::Appealed] {
            assert_eq!(CaseStatus::parse(s.as_str()), Some(s));
        }
        for s in [
            ScheduleState::Open,
            ScheduleState::Proposed,
            ScheduleState::Agreed,
            ScheduleState::Forfeited,
        ] {
            assert_eq!(ScheduleState::parse(s.as_str()), Some(s));
        }
        for s in [CheckoutState::Out, CheckoutState::In, CheckoutState::Broken] {
            assert_eq!(CheckoutState::parse(s.as_str()), Some(s));
        }
        assert_eq!(CaseStatus::parse("closed"), None);
    }

    #[test]
    fn organisers_move_tournaments_one_step_at_a_time() {
        use TournamentStatus::*;
        assert!(Draft.can_move_to(RegistrationOpen));
        assert!(RegistrationOpen.can_move_to(Draft));
        assert!(!Draft.can_move_to(Running));
        assert!(!Finished.can_move_to(Running));
    }
}

/// Where a player's report of a result stands (issue 18, item 3): waiting for the opponent,
/// confirmed (it is the result), disputed (a case is open) or replaced by a later report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportStatus {
    /// Waiting for the opponent's answer.
    Pending,
    /// Confirmed: it became the table's result (or its replay).
    Confirmed,
    /// Disputed: a case about the result is open.
    Disputed,
    /// A later report of the table replaced it.
    Superseded,
}

stored_names!(ReportStatus {
    Pending => "pending",
    Confirmed => "confirmed",
    Disputed => "disputed",
    Superseded => "superseded",
});
