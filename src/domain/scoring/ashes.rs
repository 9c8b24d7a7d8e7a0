//! Ashes league games (seed 004, Regulamin 6 and the Standard format; domain.md section 9).

use super::{Outcome, Points, Ruleset, ScoringError, SeatScore, TableResult, TableScore};

/// Scores one Ashes game: win 3, bye 3, draw 1 (also "no win in time", 1:1), loss 0 (seed 004,
/// Regulamin 6). A table with one seat is a bye. `score` is the small points (wound tokens dealt
/// to the opponent's Phoenixborn, seed 004 "Standard"). Each seat needs an `outcome`; a missing
/// outcome on a played game is an error, as are inconsistent outcomes (both won).
/// `relative_score` is own wounds dealt minus wounds received.
pub fn score_game(
    ruleset: &Ruleset,
    table: &TableResult,
    weight: Points,
    table_number: usize,
) -> Result<TableScore, ScoringError> {
    let pts = ruleset
        .ashes
        .clone()
        .ok_or(ScoringError::UnsupportedFormat {
            format: ruleset.format,
        })?;
    let bad = |problem: &str| ScoringError::InvalidOutcome {
        table: table_number,
        problem: problem.to_string(),
    };
    match table.seats.len() {
        1 => {
            let s = &table.seats[0];
            let seats = vec![SeatScore {
                player: s.player,
                place: 1,
                shared: 1,
                tp: pts.bye * weight,
                bonus_malus: Points::ZERO,
                relative_score: Points::ZERO,
                game_total: 0,
                win_share: Points::ONE,
                forfeit: false,
                bye: true,
            }];
            Ok(TableScore {
                tp_total: seats[0].tp,
                seats,
            })
        }
        2 => {
            let (a, b) = (&table.seats[0], &table.seats[1]);
            if a.player == b.player {
                return Err(ScoringError::DuplicatePlayer {
                    player: a.player,
                    round: 0,
                });
            }
            let (oa, ob) = match (a.outcome, b.outcome) {
                (Some(x), Some(y)) => (x, y),
                (Some(x), None) => (x, opposite(x)),
                (None, Some(y)) => (opposite(y), y),
                (None, None) => return Err(bad("each game needs a win, draw or loss")),
            };
            if ob != opposite(oa) {
                return Err(bad("the two outcomes contradict each other"));
            }
            let one = |s: &super::SeatResult, o: Outcome, opp: i64| {
                let (tp, place, share) = match o {
                    Outcome::Win => (pts.win, 1, Points::ONE),
                    Outcome::Draw => (pts.draw, 1, Points::new(1, 2).expect("constant")),
                    Outcome::Loss => (pts.loss, 2, Points::ZERO),
                };
                SeatScore {
                    player: s.player,
                    place,
                    shared: if o == Outcome::Draw { 2 } else { 1 },
                    tp: tp * weight,
                    bonus_malus: Points::ZERO,
                    relative_score: Points::int(s.total() - opp),
                    game_total: s.total(),
                    win_share: share,
                    forfeit: s.forfeit,
                    bye: false,
                }
            };
            let seats = vec![one(a, oa, b.total()), one(b, ob, a.total())];
            let tp_total = seats.iter().map(|s| s.tp).sum();
            Ok(TableScore { seats, tp_total })
        }
        got => Err(ScoringError::WrongSeatCount {
            table: table_number,
            got,
            allowed: "1 to 2".into(),
        }),
    }
}

fn opposite(o: Outcome) -> Outcome {
    match o {
        Outcome::Win => Outcome::Loss,
        Outcome::Loss => Outcome::Win,
        Outcome::Draw => Outcome::Draw,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Preset, SeatResult};
    use super::*;
    use crate::domain::ids::PlayerId;

    fn seat(p: i64, wounds: i64, o: Option<Outcome>) -> SeatResult {
        SeatResult {
            outcome: o,
            ..SeatResult::new(PlayerId(p), wounds)
        }
    }

    #[test]
    fn win_draw_loss_bye() {
        let r = Ruleset::preset(Preset::AshesLeague);
        let t = |seats| TableResult {
            seats,
            clarification: None,
            double_crash: false,
        };
        let s = score_game(
            &r,
            &t(vec![seat(1, 20, Some(Outcome::Win)), seat(2, 12, None)]),
            Points::ONE,
            0,
        )
        .unwrap();
        assert_eq!(
            (s.seats[0].tp, s.seats[1].tp),
            (Points::int(3), Points::int(0))
        );
        assert_eq!(s.seats[1].game_total, 12);
        let s = score_game(
            &r,
            &t(vec![
                seat(1, 9, Some(Outcome::Draw)),
                seat(2, 12, Some(Outcome::Draw)),
            ]),
            Points::ONE,
            0,
        )
        .unwrap();
        assert_eq!(
            (s.seats[0].tp, s.seats[1].tp),
            (Points::int(1), Points::int(1))
        );
        let s = score_game(&r, &t(vec![seat(1, 0, None)]), Points::ONE, 0).unwrap();
        assert!(s.seats[0].bye);
        assert_eq!(s.seats[0].tp, Points::int(3));
        assert!(score_game(
            &r,
            &t(vec![
                seat(1, 9, Some(Outcome::Win)),
                seat(2, 12, Some(Outcome::Win))
            ]),
            Points::ONE,
            0
        )
        .is_err());
        assert!(score_game(
            &r,
            &t(vec![seat(1, 9, None), seat(2, 12, None)]),
            Points::ONE,
            0
        )
        .is_err());
    }
}
