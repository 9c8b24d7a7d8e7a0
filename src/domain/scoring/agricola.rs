//! Place-scored multi-player tables (Agricola Norway, seed 000; also the table part of
//! Bridge-Agricola, seed 001).

use super::{share_places, Points, Ruleset, ScoringError, SeatScore, TableResult, TableScore};
use std::collections::HashSet;

/// Scores a multi-player table.
///
/// - TP by place from `ruleset.tp_by_place` (10-6-3-1), players with the same game total share
///   the TP of the places they occupy, kept exact (seed 000, "Turneringspoeng og tie breakers").
/// - The round weight multiplies the TP (seed 000, same section, last paragraph: 1.25 -> 12.5,
///   7.5, 3.75, 1.25).
/// - A table with one seat fewer (after a withdrawal) scores with the full TP table; the
///   withdrawn player's place is simply empty (seed 000, opening paragraph: "0 poeng til
///   spilleren som har trukket seg").
/// - Clarification with bonus/malus (seed 000, Bordsammensetning 8): each of the two lowest gets
///   `clarification_bonus` for each top player they beat (strictly higher total) and that top
///   player loses the same. Not weighted (see docs/decisions/scoring-rules.md).
/// - Relative score: own total minus the average total at the table (seed 000, tie-break (a)).
pub fn score_table(
    ruleset: &Ruleset,
    table: &TableResult,
    weight: Points,
    table_number: usize,
) -> Result<TableScore, ScoringError> {
    let allowed = ruleset.scored_table_seats();
    let got = table.seats.len();
    if !allowed.contains(&(got as u32)) {
        return Err(ScoringError::WrongSeatCount {
            table: table_number,
            got,
            allowed: format!("{} to {}", allowed.start(), allowed.end()),
        });
    }
    let mut seen = HashSet::new();
    for s in &table.seats {
        if !seen.insert(s.player) {
            return Err(ScoringError::DuplicatePlayer {
                player: s.player,
                round: 0,
            });
        }
    }
    let keys: Vec<Points> = table.seats.iter().map(|s| Points::int(s.total())).collect();
    let shared = share_places(&keys, &ruleset.tp_by_place);
    let sum_total: i64 = table.seats.iter().map(|s| s.total()).sum();
    let avg = Points::int(sum_total).div_int(got as i64);
    let mut seats: Vec<SeatScore> = table
        .seats
        .iter()
        .zip(&shared)
        .map(|(s, &(place, count, share))| SeatScore {
            player: s.player,
            place,
            shared: count,
            tp: share * weight,
            bonus_malus: Points::ZERO,
            relative_score: Points::int(s.total()) - avg,
            game_total: s.total(),
            win_share: Points::ZERO,
            forfeit: s.forfeit,
            bye: false,
        })
        .collect();
    if let Some(c) = &table.clarification {
        let pos = |p| {
            seats
                .iter()
                .position(|s| s.player == p)
                .ok_or(ScoringError::NotSeated { player: p })
        };
        let tops = [pos(c.top[0])?, pos(c.top[1])?];
        let bottoms = [pos(c.bottom[0])?, pos(c.bottom[1])?];
        for &b in &bottoms {
            for &t in &tops {
                if seats[b].game_total > seats[t].game_total {
                    seats[b].bonus_malus += ruleset.clarification_bonus;
                    seats[t].bonus_malus -= ruleset.clarification_bonus;
                }
            }
        }
        for s in &mut seats {
            s.tp += s.bonus_malus;
        }
    }
    let tp_total = seats.iter().map(|s| s.tp).sum();
    Ok(TableScore { seats, tp_total })
}

#[cfg(test)]
mod tests {
    use super::super::{Clarification, Preset, SeatResult};
    use super::*;
    use crate::domain::ids::PlayerId;
    use proptest::prelude::*;

    fn table(scores: &[i64]) -> TableResult {
        TableResult {
            seats: scores
                .iter()
                .enumerate()
                .map(|(i, &s)| SeatResult::new(PlayerId(i as i64 + 1), s))
                .collect(),
            clarification: None,
            double_crash: false,
        }
    }

    fn tps(scores: &[i64], w: Points) -> Vec<String> {
        let r = Ruleset::preset(Preset::AgricolaNorway);
        score_table(&r, &table(scores), w, 0)
            .unwrap()
            .seats
            .iter()
            .map(|s| s.tp.to_string())
            .collect()
    }

    #[test]
    fn domain_md_section_5_examples() {
        let one = Points::ONE;
        assert_eq!(
            tps(&[40, 30, 20, 10], one),
            ["10.00", "6.00", "3.00", "1.00"]
        );
        assert_eq!(
            tps(&[40, 40, 20, 10], one),
            ["8.00", "8.00", "3.00", "1.00"]
        );
        assert_eq!(
            tps(&[40, 30, 30, 10], one),
            ["10.00", "4.50", "4.50", "1.00"]
        );
        assert_eq!(
            tps(&[40, 30, 20, 20], one),
            ["10.00", "6.00", "2.00", "2.00"]
        );
        assert_eq!(
            tps(&[40, 40, 40, 10], one),
            ["6.33", "6.33", "6.33", "1.00"]
        );
        let w = Points::new(5, 4).unwrap();
        assert_eq!(tps(&[40, 30, 20, 10], w), ["12.50", "7.50", "3.75", "1.25"]);
    }

    #[test]
    fn three_sharing_first_is_exact() {
        let r = Ruleset::preset(Preset::AgricolaNorway);
        let s = score_table(&r, &table(&[40, 40, 40, 10]), Points::ONE, 0).unwrap();
        assert_eq!(s.seats[0].tp, Points::int(19).div_int(3));
        assert_eq!(s.tp_total, Points::int(20));
    }

    #[test]
    fn withdrawal_table_of_three_uses_four_player_tp() {
        let r = Ruleset::preset(Preset::AgricolaNorway);
        let s = score_table(&r, &table(&[30, 20, 10]), Points::ONE, 0).unwrap();
        let v: Vec<Points> = s.seats.iter().map(|s| s.tp).collect();
        assert_eq!(v, [Points::int(10), Points::int(6), Points::int(3)]);
        assert!(score_table(&r, &table(&[30, 20]), Points::ONE, 0).is_err());
        assert!(score_table(&r, &table(&[1, 2, 3, 4, 5]), Points::ONE, 0).is_err());
    }

    #[test]
    fn relative_score() {
        let r = Ruleset::preset(Preset::AgricolaNorway);
        let s = score_table(&r, &table(&[40, 31, 20, 10]), Points::ONE, 0).unwrap();
        // average 101/4 = 25.25
        assert_eq!(s.seats[0].relative_score, Points::new(59, 4).unwrap());
        let sum: Points = s.seats.iter().map(|x| x.relative_score).sum();
        assert_eq!(sum, Points::ZERO);
    }

    #[test]
    fn clarification_bonus_second_to_last_wins_gets_16() {
        // seed 000, Bordsammensetning 8: second-to-last wins -> 10 + 2 x 3 = 16.
        let r = Ruleset::preset(Preset::AgricolaNorway);
        let mut t = table(&[30, 20, 50, 10]);
        t.clarification = Some(Clarification {
            top: [PlayerId(1), PlayerId(2)],
            bottom: [PlayerId(3), PlayerId(4)],
        });
        let s = score_table(&r, &t, Points::ONE, 0).unwrap();
        let v: Vec<String> = s.seats.iter().map(|x| x.tp.to_string()).collect();
        assert_eq!(v, ["3.00", "0.00", "16.00", "1.00"]);
        assert_eq!(s.tp_total, Points::int(20));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn table_hands_out_exact_total(scores in prop::collection::vec(0i64..8, 4), wn in 1i64..12, wd in 1i64..5) {
            let r = Ruleset::preset(Preset::AgricolaNorway);
            let w = Points::new(wn, wd).unwrap();
            let s = score_table(&r, &table(&scores), w, 0).unwrap();
            prop_assert_eq!(s.tp_total, Points::int(20) * w);
            for a in &s.seats {
                for b in &s.seats {
                    if a.game_total == b.game_total {
                        prop_assert_eq!(a.tp, b.tp);
                    }
                }
            }
        }

        #[test]
        fn raising_a_score_never_lowers_tp(scores in prop::collection::vec(0i64..8, 4), who in 0usize..4, up in 1i64..5) {
            let r = Ruleset::preset(Preset::AgricolaNorway);
            let before = score_table(&r, &table(&scores), Points::ONE, 0).unwrap();
            let mut raised = scores.clone();
            raised[who] += up;
            let after = score_table(&r, &table(&raised), Points::ONE, 0).unwrap();
            prop_assert!(after.seats[who].tp >= before.seats[who].tp);
        }
    }
}
