//! The errors of a draw the organiser can fix.

use super::SeatingMethod;
use crate::domain::ids::PlayerId;
use std::fmt;

/// An error the organiser can fix (bad input or options).
#[derive(Debug, Clone, PartialEq)]
pub enum SeatingError {
    /// Too few players for the method.
    NotEnoughPlayers {
        /// Minimum for the method.
        needed: usize,
        /// Players given.
        got: usize,
    },
    /// The number of players cannot be seated at tables of 3-4 (e.g. 5 players).
    UnseatableCount {
        /// Players given.
        players: usize,
    },
    /// A player appears twice in the input.
    DuplicatePlayer(PlayerId),
    /// An option the method does not know.
    UnknownOption {
        /// The option name.
        option: String,
        /// The method.
        method: SeatingMethod,
    },
    /// An option with a value the method cannot use.
    InvalidOption {
        /// The option name.
        option: String,
        /// Why.
        reason: String,
    },
    /// The method needs the standings and some active player has no standing.
    MissingStanding(PlayerId),
    /// Team input unusable.
    InvalidTeams(String),
    /// Number of rounds outside the allowed range (Ashes, seed 004).
    RoundsOutOfRange {
        /// Requested rounds.
        rounds: u32,
        /// Minimum allowed.
        min: u32,
        /// Maximum allowed.
        max: u32,
    },
}

impl fmt::Display for SeatingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatingError::NotEnoughPlayers { needed, got } => {
                write!(f, "not enough players: {needed} needed, {got} given")
            }
            SeatingError::UnseatableCount { players } => {
                write!(f, "{players} players cannot be seated at tables of 3 and 4")
            }
            SeatingError::DuplicatePlayer(p) => write!(f, "player {p} is listed twice"),
            SeatingError::UnknownOption { option, method } => {
                write!(f, "unknown option `{option}` for seating method {method}")
            }
            SeatingError::InvalidOption { option, reason } => {
                write!(f, "invalid option `{option}`: {reason}")
            }
            SeatingError::MissingStanding(p) => {
                write!(f, "player {p} has no place in the standings")
            }
            SeatingError::InvalidTeams(r) => write!(f, "invalid teams: {r}"),
            SeatingError::RoundsOutOfRange { rounds, min, max } => {
                write!(
                    f,
                    "{rounds} rounds is outside the allowed range {min}-{max}"
                )
            }
        }
    }
}

impl std::error::Error for SeatingError {}
