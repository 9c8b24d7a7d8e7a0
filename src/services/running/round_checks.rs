//! The checks of a new round against its tournament that need no database beyond what the
//! caller loaded: the tournament takes rounds, the method fits the ruleset, a self-scheduled
//! round's deadline.

use chrono::{DateTime, Utc};

use crate::db::models::Tournament;
use crate::domain::scoring::Ruleset;
use crate::domain::seating::fit::check_fits;
use crate::domain::seating::SeatingMethod;
use crate::domain::status::TournamentStatus;
use crate::error::ApiError;
use crate::services::running::time_of_play;

/// Whether a round can be drawn now: the tournament takes rounds, and a stated time of play
/// lies within its playing days.
pub(crate) fn check_drawable(
    t: &Tournament,
    played_at: Option<DateTime<Utc>>,
) -> Result<(), ApiError> {
    match t.status {
        TournamentStatus::RegistrationOpen | TournamentStatus::Running => {}
        TournamentStatus::Draft | TournamentStatus::Finished => {
            return Err(ApiError::Conflict(format!(
                "rounds are drawn when registration is open or the tournament runs; it is {}",
                t.status.as_str()
            )))
        }
    }
    if let Some(at) = played_at {
        time_of_play::check_stated(t, at)?;
    }
    Ok(())
}

/// The method seats tables the tournament's ruleset scores (issue 37, item 5): 422 on `method`
/// saying what the rules allow, before anything is drawn.
pub(crate) fn check_method(method: SeatingMethod, ruleset: &Ruleset) -> Result<(), ApiError> {
    check_fits(method, ruleset).map_err(|e| ApiError::field("method", e.to_string()))
}

/// A self-scheduled round's deadline: after `now`, and only for games of two players.
pub(crate) fn check_self_scheduled(
    ruleset: &Ruleset,
    until: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let Some(until) = until else {
        return Ok(());
    };
    if ruleset.players_per_table != 2 {
        return Err(ApiError::field(
            "self_scheduled_until",
            "only games of two players are scheduled by the players",
        ));
    }
    if until <= now {
        return Err(ApiError::field(
            "self_scheduled_until",
            "the deadline must be in the future",
        ));
    }
    Ok(())
}
