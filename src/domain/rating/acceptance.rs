//! Which tournaments feed a rating list: a tournament that names a pool asks to be rated, and
//! its games count only once the list's keeper accepts it.
//!
//! Sources: seed 004 section 3 ("turniej ligowy musi zostać zgłoszony w systemie turniejowym na
//! 7 dni przed terminem [...] Organizator ligi po zapoznaniu się z regulaminem turnieju umieszcza
//! informacje o nim w systemie": the league's organiser, having read a tournament's rules, puts
//! it into the system) and seed 000 ("Rankinglista [...] omfatter alle spillere som har deltatt
//! i turneringer i regi av Agricola Norge-gruppa": the list holds the tournaments held under the
//! association). Readings: `docs/decisions/pool-keepers.md`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a tournament's request to be rated stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RatingStatus {
    /// Asked to be rated; no keeper has decided yet. Its games feed nothing.
    Pending,
    /// Accepted by a keeper (or at once: an open pool, a keeper's own tournament). Its games feed
    /// the list.
    Accepted,
    /// Refused by a keeper, with a reason. The organiser may ask again.
    Refused,
    /// Accepted, then taken off the list by a keeper with a reason: its games no longer count.
    /// The organiser may ask again.
    Withdrawn,
}

impl RatingStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Accepted => "accepted",
            Self::Refused => "refused",
            Self::Withdrawn => "withdrawn",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "accepted" => Some(Self::Accepted),
            "refused" => Some(Self::Refused),
            "withdrawn" => Some(Self::Withdrawn),
            _ => None,
        }
    }

    /// Whether the tournament's games feed the pool.
    pub fn feeds(self) -> bool {
        self == Self::Accepted
    }
}

/// What a keeper decides about a tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Rate its games (a pending request).
    Accept,
    /// Do not rate it (a pending request; a reason is required).
    Refuse,
    /// Take an accepted tournament off the list (a reason is required).
    Withdraw,
}

impl Decision {
    /// The status the decision leads to.
    pub fn outcome(self) -> RatingStatus {
        match self {
            Self::Accept => RatingStatus::Accepted,
            Self::Refuse => RatingStatus::Refused,
            Self::Withdraw => RatingStatus::Withdrawn,
        }
    }

    /// Whether the decision must say why (a refusal and a withdrawal are told to the organiser).
    pub fn needs_reason(self) -> bool {
        !matches!(self, Self::Accept)
    }
}

/// Why a step is not allowed from the current status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepRefused {
    #[error("the tournament is already {}", .0.as_str())]
    Already(RatingStatus),
    #[error("the tournament was refused; its organiser must ask again before a keeper accepts it")]
    RefusedNeedsRequest,
    #[error("the tournament was withdrawn from the list; its organiser must ask again before a keeper accepts it")]
    WithdrawnNeedsRequest,
    #[error("only a pending request can be refused; the tournament is {} (withdraw an accepted one)", .0.as_str())]
    RefuseNotPending(RatingStatus),
    #[error("only an accepted tournament can be withdrawn; the tournament is {}", .0.as_str())]
    WithdrawNotAccepted(RatingStatus),
    #[error("the request is {}; a new request is for a refused or withdrawn tournament", .0.as_str())]
    RequestOpen(RatingStatus),
}

/// The status after a keeper's decision on a tournament whose request stands at `current`.
pub fn decide(current: RatingStatus, decision: Decision) -> Result<RatingStatus, StepRefused> {
    use RatingStatus::*;
    match (decision, current) {
        (Decision::Accept, Pending) => Ok(Accepted),
        (Decision::Accept, Accepted) => Err(StepRefused::Already(Accepted)),
        (Decision::Accept, Refused) => Err(StepRefused::RefusedNeedsRequest),
        (Decision::Accept, Withdrawn) => Err(StepRefused::WithdrawnNeedsRequest),
        (Decision::Refuse, Pending) => Ok(Refused),
        (Decision::Refuse, s) => Err(StepRefused::RefuseNotPending(s)),
        (Decision::Withdraw, Accepted) => Ok(Withdrawn),
        (Decision::Withdraw, s) => Err(StepRefused::WithdrawNotAccepted(s)),
    }
}

/// Who asks, and where: what decides whether a request is accepted at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requester {
    /// The pool accepts every tournament on request (a casual club list).
    pub open_pool: bool,
    /// The one asking keeps the pool (or is an admin): their own request needs no second look.
    pub keeps_pool: bool,
}

/// The status of a new request (a tournament created with a pool, moved to a pool, or asking
/// again after a refusal or withdrawal): accepted at once in an open pool or for a keeper,
/// pending otherwise. `current` is the request standing before (`None`: no request).
pub fn request(current: Option<RatingStatus>, who: Requester) -> Result<RatingStatus, StepRefused> {
    if let Some(s @ (RatingStatus::Pending | RatingStatus::Accepted)) = current {
        return Err(StepRefused::RequestOpen(s));
    }
    Ok(if who.open_pool || who.keeps_pool {
        RatingStatus::Accepted
    } else {
        RatingStatus::Pending
    })
}

/// What a kept request or decision on a tournament's rating is (`rating_decisions.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionKind {
    /// A request or a decision on it.
    Status,
    /// A change of when an accepted tournament's games count, made.
    TimeChanged,
    /// Such a change, refused.
    TimeChangeRefused,
}

impl DecisionKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Status => "status",
            DecisionKind::TimeChanged => "time_changed",
            DecisionKind::TimeChangeRefused => "time_change_refused",
        }
    }

    /// The kind a stored name names.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "status" => Some(DecisionKind::Status),
            "time_changed" => Some(DecisionKind::TimeChanged),
            "time_change_refused" => Some(DecisionKind::TimeChangeRefused),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RatingStatus::*;

    const ALL: [RatingStatus; 4] = [Pending, Accepted, Refused, Withdrawn];

    #[test]
    fn every_status_round_trips_through_its_name() {
        for s in ALL {
            assert_eq!(RatingStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(RatingStatus::parse("rated"), None);
    }

    #[test]
    fn only_accepted_tournaments_feed_the_list() {
        assert_eq!(
            ALL.iter().filter(|s| s.feeds()).collect::<Vec<_>>(),
            vec![&Accepted]
        );
    }

    #[test]
    fn every_decision_from_every_status() {
        let table = [
            (Decision::Accept, Pending, Ok(Accepted)),
            (
                Decision::Accept,
                Accepted,
                Err(StepRefused::Already(Accepted)),
            ),
            (
                Decision::Accept,
                Refused,
                Err(StepRefused::RefusedNeedsRequest),
            ),
            (
                Decision::Accept,
                Withdrawn,
                Err(StepRefused::WithdrawnNeedsRequest),
            ),
            (Decision::Refuse, Pending, Ok(Refused)),
            (
                Decision::Refuse,
                Accepted,
                Err(StepRefused::RefuseNotPending(Accepted)),
            ),
            (
                Decision::Refuse,
                Refused,
                Err(StepRefused::RefuseNotPending(Refused)),
            ),
            (
                Decision::Refuse,
                Withdrawn,
                Err(StepRefused::RefuseNotPending(Withdrawn)),
            ),
            (Decision::Withdraw, Accepted, Ok(Withdrawn)),
            (
                Decision::Withdraw,
                Pending,
                Err(StepRefused::WithdrawNotAccepted(Pending)),
            ),
            (
                Decision::Withdraw,
                Refused,
                Err(StepRefused::WithdrawNotAccepted(Refused)),
            ),
            (
                Decision::Withdraw,
                Withdrawn,
                Err(StepRefused::WithdrawNotAccepted(Withdrawn)),
            ),
        ];
        for (decision, from, want) in table {
            assert_eq!(decide(from, decision), want, "{decision:?} from {from:?}");
            if let Ok(to) = want {
                assert_eq!(to, decision.outcome());
            }
        }
    }

    #[test]
    fn refusals_and_withdrawals_say_why() {
        assert!(!Decision::Accept.needs_reason());
        assert!(Decision::Refuse.needs_reason());
        assert!(Decision::Withdraw.needs_reason());
    }

    #[test]
    fn a_request_waits_for_a_keeper_unless_the_pool_is_open_or_a_keeper_asks() {
        let stranger = Requester {
            open_pool: false,
            keeps_pool: false,
        };
        let keeper = Requester {
            open_pool: false,
            keeps_pool: true,
        };
        let open = Requester {
            open_pool: true,
            keeps_pool: false,
        };
        for before in [None, Some(Refused), Some(Withdrawn)] {
            assert_eq!(request(before, stranger), Ok(Pending));
            assert_eq!(request(before, keeper), Ok(Accepted));
            assert_eq!(request(before, open), Ok(Accepted));
        }
        for open_request in [Pending, Accepted] {
            for who in [stranger, keeper, open] {
                assert_eq!(
                    request(Some(open_request), who),
                    Err(StepRefused::RequestOpen(open_request))
                );
            }
        }
    }
}
