//! Penalties recorded by the referee, applied to a table's entered result before it is
//! scored.
//!
//! - A point penalty deducts its points from the player's score (domain.md section 1: the
//!   referee records penalties; seed 002: the -5 team penalties change scores).
//! - A game loss (the Ashes sanction escalation, seed 004 via domain.md section 9: "1st case a
//!   warning, 2nd a game loss, 3rd removal") puts the sanctioned player below everyone else at
//!   the table and, where the game has a winner (two players, or outcomes given), records it as
//!   the player's loss and the opponent's win.
//! - Warnings and removals change no score.

use super::{Outcome, SeatResult};
use crate::domain::PlayerId;

/// What a recorded penalty is (`penalties.kind`): a `sanction` asked for is recorded as the
/// step of the escalation it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordedPenalty {
    /// Points deducted from a game's score.
    PointPenalty,
    /// A warning: changes no score.
    Warning,
    /// The game is lost.
    GameLoss,
    /// Removed from the tournament: withdrawn from the next round not yet drawn.
    Removal,
}

impl RecordedPenalty {
    /// The name a penalty is stored and sent under.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PointPenalty => "point_penalty",
            Self::Warning => "warning",
            Self::GameLoss => "game_loss",
            Self::Removal => "removal",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::PointPenalty,
            Self::Warning,
            Self::GameLoss,
            Self::Removal,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    /// Whether it changes the result of a game (and so names the round and the table).
    pub fn changes_game(self) -> bool {
        match self {
            Self::PointPenalty | Self::GameLoss => true,
            Self::Warning | Self::Removal => false,
        }
    }

    /// What it does to the result of its game, for `player`: a point penalty deducts its
    /// `points`, a game loss loses the game; warnings and removals change no score.
    pub fn on_table(self, player: PlayerId, points: i64) -> Option<TablePenalty> {
        match self {
            Self::PointPenalty => Some(TablePenalty::Points { player, points }),
            Self::GameLoss => Some(TablePenalty::GameLoss { player }),
            Self::Warning | Self::Removal => None,
        }
    }
}

/// A penalty in force on one seat of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TablePenalty {
    /// Points deducted from the player's score.
    Points { player: PlayerId, points: i64 },
    /// The game is lost: the player ends below everyone else at the table.
    GameLoss { player: PlayerId },
}

/// Applies `penalties` to the seats of a table, in the order given.
pub fn apply(seats: &mut [SeatResult], penalties: &[TablePenalty]) {
    for p in penalties {
        match *p {
            TablePenalty::Points { player, points } => {
                if let Some(s) = seats.iter_mut().find(|s| s.player == player) {
                    s.penalty += points;
                }
            }
            TablePenalty::GameLoss { player } => game_loss(seats, player),
        }
    }
}

/// A game loss: the player ends below everyone else at the table. Where the result is told by
/// outcomes (Ashes, seed 004: the score is wounds dealt and does not decide the game), the
/// outcomes change and the scores stay as played: small points remain the wounds dealt
/// (`docs/decisions/rules-branches.md`). Where scores decide (Agricola, Tantrix), the player's
/// total is put one below the lowest other total.
fn game_loss(seats: &mut [SeatResult], player: PlayerId) {
    let two_player = seats.len() == 2;
    let by_outcome = seats.iter().any(|s| s.outcome.is_some());
    if by_outcome {
        for s in seats.iter_mut() {
            s.outcome = Some(if s.player == player {
                Outcome::Loss
            } else {
                Outcome::Win
            });
        }
        return;
    }
    let min_other = seats
        .iter()
        .filter(|s| s.player != player)
        .map(SeatResult::total)
        .min()
        .unwrap_or(0);
    for s in seats.iter_mut() {
        if s.player == player {
            // Below everyone else at the table.
            s.penalty += s.total() - min_other + 1;
            if two_player || s.outcome.is_some() {
                s.outcome = Some(Outcome::Loss);
            }
        } else if two_player {
            s.outcome = Some(Outcome::Win);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(player: i64, score: i64) -> SeatResult {
        SeatResult {
            player: PlayerId(player),
            score,
            bonus: 0,
            penalty: 0,
            time_used_secs: None,
            forfeit: false,
            outcome: None,
        }
    }

    #[test]
    fn a_point_penalty_is_deducted_from_the_player_only() {
        let mut seats = vec![seat(1, 50), seat(2, 40)];
        apply(
            &mut seats,
            &[TablePenalty::Points {
                player: PlayerId(1),
                points: 13,
            }],
        );
        assert_eq!(seats[0].total(), 37);
        assert_eq!(seats[1].total(), 40);
    }

    #[test]
    fn a_game_loss_puts_the_winner_below_everyone_and_gives_the_opponent_the_win() {
        let mut seats = vec![seat(1, 9), seat(2, 3)];
        apply(
            &mut seats,
            &[TablePenalty::GameLoss {
                player: PlayerId(1),
            }],
        );
        assert!(seats[0].total() < seats[1].total());
        assert_eq!(seats[0].outcome, Some(Outcome::Loss));
        assert_eq!(seats[1].outcome, Some(Outcome::Win));
    }

    /// Seed 004, point 10: a game loss is a sanction on the game's result; small points are
    /// "wounds dealt" (point 5) and the rule is silent on sanctions: they stay as played.
    #[test]
    fn an_ashes_game_loss_flips_the_outcome_and_keeps_the_wounds() {
        let mut seats = vec![seat(1, 9), seat(2, 3)];
        seats[0].outcome = Some(Outcome::Win);
        seats[1].outcome = Some(Outcome::Loss);
        apply(
            &mut seats,
            &[TablePenalty::GameLoss {
                player: PlayerId(1),
            }],
        );
        assert_eq!(seats[0].outcome, Some(Outcome::Loss));
        assert_eq!(seats[1].outcome, Some(Outcome::Win));
        assert_eq!((seats[0].total(), seats[1].total()), (9, 3));
    }

    #[test]
    fn a_game_loss_at_a_four_player_table_sets_no_outcomes() {
        let mut seats = vec![seat(1, 60), seat(2, 50), seat(3, 40), seat(4, 30)];
        apply(
            &mut seats,
            &[TablePenalty::GameLoss {
                player: PlayerId(1),
            }],
        );
        assert_eq!(seats[0].total(), 29);
        assert!(seats.iter().all(|s| s.outcome.is_none()));
    }
}
