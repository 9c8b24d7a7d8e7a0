//! Which seating methods a ruleset can score (issue 37, item 5): a method is refused before it
//! draws when its tables could hold a number of players the ruleset does not score, or when it
//! draws a structure the ruleset's format has no use for. A draw is never made whose results
//! the scoring engine would refuse.
//!
//! Sources: domain.md section 3 (tables of 4, with 3-player tables where the count requires:
//! the methods of seed 000); seed 001 (bridge groups belong to Bridge-Agricola); seed 002
//! (team matches of 2 v 2 on tables A and B); seeds 003 and 004 (games of two players).

use std::fmt;
use std::ops::RangeInclusive;

use super::SeatingMethod;
use crate::domain::scoring::{Format, Ruleset};

impl SeatingMethod {
    /// Every method, in the order of the seeds.
    pub const ALL: [SeatingMethod; 14] = [
        SeatingMethod::Random,
        SeatingMethod::RandomSeeded,
        SeatingMethod::FixedSeeded,
        SeatingMethod::PlacementEven,
        SeatingMethod::Swiss,
        SeatingMethod::Danish,
        SeatingMethod::Clarification,
        SeatingMethod::ClarificationBonus,
        SeatingMethod::FinalGroups,
        SeatingMethod::Bridge,
        SeatingMethod::TeamDuplicate,
        SeatingMethod::Swiss2p,
        SeatingMethod::RoundRobin,
        SeatingMethod::Knockout,
    ];

    /// How many players the method seats at one table (a bye is no table).
    pub fn table_seats(self) -> RangeInclusive<u32> {
        use SeatingMethod::*;
        match self {
            // domain.md 3: Y = ceil(n/4) tables, 4Y - n of them with 3 players.
            Random | RandomSeeded | FixedSeeded | PlacementEven | Swiss | Danish
            | Clarification | ClarificationBonus | FinalGroups | Bridge => 3..=4,
            // Seed 002: two pairs at each of tables A and B.
            TeamDuplicate => 4..=4,
            // Seeds 003 and 004: games of two players.
            Swiss2p | RoundRobin | Knockout => 2..=2,
        }
    }
}

/// Why a method cannot seat a tournament under its ruleset, in words for the organiser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodMisfit {
    /// The method refused.
    pub method: SeatingMethod,
    /// What the method would draw and what the ruleset scores.
    pub problem: String,
    /// The methods the ruleset does accept.
    pub allowed: Vec<SeatingMethod>,
}

impl fmt::Display for MethodMisfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.problem)?;
        let names: Vec<&str> = self.allowed.iter().map(|m| m.as_str()).collect();
        if names.is_empty() {
            write!(f, "; no seating method fits these rules")
        } else {
            write!(f, "; these rules allow: {}", names.join(", "))
        }
    }
}

fn seats(r: &RangeInclusive<u32>) -> String {
    if r.start() == r.end() {
        r.start().to_string()
    } else {
        format!("{} to {}", r.start(), r.end())
    }
}

/// The problem with `method` under `ruleset`, if any (without the list of allowed methods).
fn misfit(method: SeatingMethod, ruleset: &Ruleset) -> Option<String> {
    let drawn = method.table_seats();
    let scored = ruleset.drawn_table_seats();
    if drawn.start() < scored.start() || drawn.end() > scored.end() {
        return Some(format!(
            "method {method} seats {} players at a table; these rules score tables of {}",
            seats(&drawn),
            seats(&scored),
        ));
    }
    match (method, ruleset.format) {
        (SeatingMethod::Bridge, Format::BridgeAgricola) => None,
        (SeatingMethod::Bridge, _) => Some(format!(
            "method {method} draws bridge groups, which only the bridge_agricola rules score"
        )),
        (SeatingMethod::TeamDuplicate, Format::TeamDuplicate) => None,
        (_, Format::TeamDuplicate) => Some(format!(
            "a team duplicate event plays team matches; method {method} seats no teams"
        )),
        (SeatingMethod::TeamDuplicate, _) => Some(format!(
            "method {method} draws team matches, which only the team_duplicate_2v2 rules score"
        )),
        _ => None,
    }
}

/// Whether `method` draws tables `ruleset` scores: every table size it can draw is one the
/// scoring engine accepts, and any structure it draws (bridge groups, team matches) is one the
/// format scores. Checked before every draw.
pub fn check_fits(method: SeatingMethod, ruleset: &Ruleset) -> Result<(), MethodMisfit> {
    match misfit(method, ruleset) {
        None => Ok(()),
        Some(problem) => Err(MethodMisfit {
            method,
            problem,
            allowed: methods_for(ruleset),
        }),
    }
}

/// The methods that fit `ruleset`, in the order of the seeds.
pub fn methods_for(ruleset: &Ruleset) -> Vec<SeatingMethod> {
    SeatingMethod::ALL
        .into_iter()
        .filter(|m| misfit(*m, ruleset).is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::PlayerId;
    use crate::domain::scoring::{score_table, Outcome, Points, Preset, SeatResult, TableResult};
    use crate::domain::seating::test_util::{input, rng};
    use crate::domain::seating::{draw_round, Team};

    /// A result for a drawn table that the rules would take if they take the table at all.
    fn result_of(seats: &[PlayerId], two_player: bool) -> TableResult {
        TableResult {
            seats: seats
                .iter()
                .enumerate()
                .map(|(i, p)| SeatResult {
                    outcome: two_player.then_some(if i == 0 {
                        Outcome::Win
                    } else {
                        Outcome::Loss
                    }),
                    ..SeatResult::new(*p, 40 - 5 * i as i64)
                })
                .collect(),
            clarification: None,
            double_crash: false,
        }
    }

    fn teams(n: usize) -> Vec<Team> {
        (0..n / 4)
            .map(|t| {
                let p = |k: usize| PlayerId((4 * t + k + 1) as i64);
                Team {
                    number: t as u32 + 1,
                    pair_a: [p(0), p(1)],
                    pair_b: [p(2), p(3)],
                }
            })
            .collect()
    }

    /// Every (ruleset, method) pair either draws tables whose results the ruleset scores, or is
    /// refused before drawing with the methods the ruleset allows; never a draw whose results
    /// would be refused (issue 37, item 5).
    #[test]
    fn every_method_against_every_preset() {
        for preset in Preset::ALL {
            let ruleset = Ruleset::preset(preset);
            let two_player = ruleset.players_per_table == 2;
            for method in SeatingMethod::ALL {
                let verdict = check_fits(method, &ruleset);
                let mut drawn = 0;
                let mut unscorable = 0;
                for n in [8, 9, 12, 16] {
                    let mut inp = input(method, n);
                    inp.teams = teams(n);
                    let Ok(draw) = draw_round(&inp, &mut rng(n as u8)) else {
                        continue;
                    };
                    drawn += 1;
                    for t in &draw.tables {
                        let fits = ruleset
                            .drawn_table_seats()
                            .contains(&(t.seats.len() as u32));
                        let scored = ruleset.format == Format::TeamDuplicate
                            || score_table(
                                &ruleset,
                                &result_of(&t.seats, two_player),
                                Points::ONE,
                                t.number as usize,
                            )
                            .is_ok();
                        if verdict.is_ok() {
                            assert!(
                                fits && scored,
                                "{preset:?} / {method}: {n} players drew table {} of {} seats, \
                                 which the rules do not score",
                                t.number,
                                t.seats.len()
                            );
                        } else if !(fits && scored) {
                            unscorable += 1;
                        }
                    }
                }
                match verdict {
                    Ok(()) => assert!(drawn > 0, "{preset:?} / {method}: allowed, never drew"),
                    Err(e) => {
                        let text = e.to_string();
                        assert!(text.contains(method.as_str()), "{text}");
                        assert!(text.contains("these rules allow"), "{text}");
                        assert!(!e.allowed.contains(&method));
                        // A refusal on table size is one the scoring engine would make too.
                        if text.contains("score tables of") && drawn > 0 {
                            assert!(unscorable > 0, "{preset:?} / {method}: refused needlessly");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_methods_each_preset_allows() {
        use SeatingMethod::*;
        let four = vec![
            Random,
            RandomSeeded,
            FixedSeeded,
            PlacementEven,
            Swiss,
            Danish,
            Clarification,
            ClarificationBonus,
            FinalGroups,
        ];
        let mut bridge = four.clone();
        bridge.push(Bridge);
        let allowed = |p| methods_for(&Ruleset::preset(p));
        assert_eq!(allowed(Preset::AgricolaNorway), four);
        assert_eq!(allowed(Preset::BridgeAgricola), bridge);
        assert_eq!(allowed(Preset::TeamDuplicate2v2), vec![TeamDuplicate]);
        assert_eq!(
            allowed(Preset::Tantrix),
            vec![Swiss2p, RoundRobin, Knockout]
        );
        assert_eq!(
            allowed(Preset::AshesLeague),
            vec![Swiss2p, RoundRobin, Knockout]
        );
    }

    #[test]
    fn overridden_table_sizes_change_what_fits() {
        let base = Ruleset::preset(Preset::AgricolaNorway);
        let mut five = base.clone();
        five.players_per_table = 5;
        let e = check_fits(SeatingMethod::Random, &five).unwrap_err();
        assert!(e.to_string().contains("tables of 4 to 5"), "{e}");
        let mut two = base;
        two.players_per_table = 2;
        assert!(check_fits(SeatingMethod::Swiss2p, &two).is_ok());
        assert!(check_fits(SeatingMethod::Danish, &two).is_err());
    }

    #[test]
    fn the_tantrix_random_draw_of_the_issue_is_refused() {
        let e = check_fits(SeatingMethod::Random, &Ruleset::preset(Preset::Tantrix)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "method random seats 3 to 4 players at a table; these rules score tables of 2; \
             these rules allow: swiss_2p, round_robin, knockout"
        );
    }
}
