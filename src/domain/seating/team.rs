//! Team duplicate 2v2 (seed 002; domain.md section 7).
//!
//! A match between two teams uses two tables played at the same time: table A (both A pairs) and
//! table B (both B pairs). Teammates sit opposite each other (seats 1 and 3, or 2 and 4). The
//! tables are mirrored so identical hands go to opposite teams: with home team H and away team W,
//!
//! | seat | table A | table B |
//! | --- | --- | --- |
//! | 1 | H.A1 | W.B1 |
//! | 2 | W.A1 | H.B1 |
//! | 3 | H.A2 | W.B2 |
//! | 4 | W.A2 | H.B2 |
//!
//! Seat k holds the same hand at both tables: team 1's A1 and team 2's B1 share a hand, team 1's
//! B2 and team 2's A2 share a hand (domain.md 7). One starting seat is drawn for both tables, so
//! if H.A2 starts on table A, W.B2 starts on table B. Which team is home is drawn by lot.
//!
//! Formats (option `format`): `best_of_3` for two teams (option `game` = 1, 2 or 3, default the
//! round number; in game 2 the second listed team swaps its A and B pairs; game 3 is seated as
//! game 1), and `knockout` for more teams (single elimination over the teams still in, seeded by
//! team number with byes for top seeds when the count is not a power of two).

use super::{
    opt_str, opt_u32, two_player, Draw, DrawInput, DrawReport, SeatingError, Table, Team, TeamMatch,
};
use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use std::collections::BTreeSet;

/// Every player belongs to exactly one team, every team member is among the players, and
/// team numbers are distinct and not zero.
fn check_teams(teams: &[Team], players: &[super::PlayerEntry]) -> Result<(), SeatingError> {
    let active: BTreeSet<PlayerId> = players.iter().map(|p| p.id).collect();
    let mut seen = BTreeSet::new();
    let mut numbers = BTreeSet::new();
    for t in teams {
        if !numbers.insert(t.number) || t.number == 0 {
            return Err(SeatingError::InvalidTeams(format!(
                "team number {} is zero or used twice",
                t.number
            )));
        }
        for p in t.pair_a.iter().chain(&t.pair_b) {
            if !seen.insert(*p) {
                return Err(SeatingError::InvalidTeams(format!(
                    "player {p} appears twice in the teams"
                )));
            }
            if !active.contains(p) {
                return Err(SeatingError::InvalidTeams(format!(
                    "player {p} of team {} is not among the players",
                    t.number
                )));
            }
        }
    }
    if seen.len() != active.len() {
        return Err(SeatingError::InvalidTeams(
            "every player must belong to exactly one team".into(),
        ));
    }
    Ok(())
}

pub(crate) fn draw(input: &DrawInput, rng: &mut DrawRng) -> Result<Draw, SeatingError> {
    let teams = &input.teams;
    if teams.len() < 2 {
        return Err(SeatingError::InvalidTeams(format!(
            "at least 2 teams are needed, {} given",
            teams.len()
        )));
    }
    check_teams(teams, &input.players)?;
    let default_format = if teams.len() == 2 {
        "best_of_3"
    } else {
        "knockout"
    };
    let format = opt_str(input, "format")?.unwrap_or(default_format);
    let mut matches: Vec<(Team, Team)> = Vec::new();
    let mut byes = Vec::new();
    match format {
        "best_of_3" => {
            if teams.len() != 2 {
                return Err(SeatingError::InvalidOption {
                    option: "format".into(),
                    reason: format!("best_of_3 needs exactly 2 teams, {} given", teams.len()),
                });
            }
            let game = opt_u32(input, "game")?.unwrap_or(input.round);
            if !(1..=3).contains(&game) {
                return Err(SeatingError::InvalidOption {
                    option: "game".into(),
                    reason: format!("a best-of-3 game is 1, 2 or 3, not {game}"),
                });
            }
            let mut second = teams[1].clone();
            if game == 2 {
                std::mem::swap(&mut second.pair_a, &mut second.pair_b);
            }
            matches.push((teams[0].clone(), second));
        }
        "knockout" => {
            if input.options.contains_key("game") {
                return Err(SeatingError::InvalidOption {
                    option: "game".into(),
                    reason: "only used with format best_of_3".into(),
                });
            }
            let seeds: Vec<u32> = teams.iter().map(|t| t.number).collect();
            let (pairs, bye_idx) = two_player::bracket_matches(&seeds);
            for (i, j) in pairs {
                matches.push((teams[i].clone(), teams[j].clone()));
            }
            for i in bye_idx {
                byes.extend(teams[i].pair_a.iter().chain(&teams[i].pair_b).copied());
            }
        }
        other => {
            return Err(SeatingError::InvalidOption {
                option: "format".into(),
                reason: format!("expected best_of_3 or knockout, got {other}"),
            })
        }
    }
    let mut tables = Vec::new();
    let mut team_matches = Vec::new();
    for (k, (x, y)) in matches.into_iter().enumerate() {
        let (h, w) = if rng.below(2) == 0 { (x, y) } else { (y, x) };
        let a = vec![h.pair_a[0], w.pair_a[0], h.pair_a[1], w.pair_a[1]];
        let b = vec![w.pair_b[0], h.pair_b[0], w.pair_b[1], h.pair_b[1]];
        let start = rng.index(4);
        let na = 2 * k as u32 + 1;
        tables.push(Table {
            number: na,
            starting_player: Some(a[start]),
            seats: a,
            label: Some("A".into()),
        });
        tables.push(Table {
            number: na + 1,
            starting_player: Some(b[start]),
            seats: b,
            label: Some("B".into()),
        });
        team_matches.push(TeamMatch {
            number: k as u32 + 1,
            home_team: h.number,
            away_team: w.number,
            table_a: na,
            table_b: na + 1,
        });
    }
    Ok(Draw {
        round: input.round,
        method: input.method,
        tables,
        bridge_groups: vec![],
        shared_deal: None,
        byes,
        groups: vec![],
        team_matches,
        seeds: vec![],
        plan: None,
        report: DrawReport::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::seating::test_util::*;
    use crate::domain::seating::{draw_round, SeatingMethod};

    fn team(number: u32, base: i64) -> Team {
        Team {
            number,
            pair_a: [PlayerId(base), PlayerId(base + 1)],
            pair_b: [PlayerId(base + 2), PlayerId(base + 3)],
        }
    }

    fn team_input(nteams: u32) -> DrawInput {
        let mut inp = input(SeatingMethod::TeamDuplicate, 4 * nteams as usize);
        inp.teams = (0..nteams).map(|i| team(i + 1, 4 * i as i64 + 1)).collect();
        inp
    }

    #[test]
    fn mirrored_tables_and_start() {
        for seed in 0..10 {
            let inp = team_input(2);
            let d = draw_round(&inp, &mut rng(seed)).unwrap();
            assert_eq!(d.tables.len(), 2);
            let (a, b) = (&d.tables[0], &d.tables[1]);
            let m = &d.team_matches[0];
            let (h, w) = if m.home_team == 1 {
                (team(1, 1), team(2, 5))
            } else {
                (team(2, 5), team(1, 1))
            };
            // Teammates opposite.
            assert_eq!(
                a.seats,
                vec![h.pair_a[0], w.pair_a[0], h.pair_a[1], w.pair_a[1]]
            );
            assert_eq!(
                b.seats,
                vec![w.pair_b[0], h.pair_b[0], w.pair_b[1], h.pair_b[1]]
            );
            // Same hand (seat) goes to opposite teams; starting seat mirrored.
            let sa = a.seats.iter().position(|p| Some(*p) == a.starting_player);
            let sb = b.seats.iter().position(|p| Some(*p) == b.starting_player);
            assert_eq!(sa, sb);
            let team_of = |p: PlayerId| if p.0 <= 4 { 1 } else { 2 };
            for s in 0..4 {
                assert_ne!(team_of(a.seats[s]), team_of(b.seats[s]));
            }
            assert_eq!(a.label.as_deref(), Some("A"));
        }
    }

    #[test]
    fn game_two_swaps_pairs() {
        let mut inp = team_input(2);
        inp.options.insert("game".into(), serde_json::json!(2));
        let d = draw_round(&inp, &mut rng(1)).unwrap();
        // Team 2's B pair (7, 8) now plays on table A.
        let a: BTreeSet<i64> = d.tables[0].seats.iter().map(|p| p.0).collect();
        assert_eq!(a, [1, 2, 7, 8].into_iter().collect());
        inp.options.insert("game".into(), serde_json::json!(4));
        assert!(matches!(
            draw_round(&inp, &mut rng(1)),
            Err(SeatingError::InvalidOption { ref option, .. }) if option == "game"
        ));
    }

    #[test]
    fn four_team_knockout_and_byes() {
        let inp = team_input(4);
        let d = draw_round(&inp, &mut rng(1)).unwrap();
        let mut ms: Vec<(u32, u32)> = d
            .team_matches
            .iter()
            .map(|m| (m.home_team.min(m.away_team), m.home_team.max(m.away_team)))
            .collect();
        ms.sort();
        assert_eq!(ms, vec![(1, 4), (2, 3)]);
        assert_eq!(d.tables.len(), 4);
        assert_each_once(&inp, &d);
        let inp3 = team_input(3);
        let d3 = draw_round(&inp3, &mut rng(1)).unwrap();
        assert_eq!(d3.team_matches.len(), 1);
        assert_eq!(d3.byes, ids(&[1, 2, 3, 4])); // top seed has the bye
        assert_each_once(&inp3, &d3);
    }

    #[test]
    fn golden_team_match() {
        let d = draw_round(&team_input(2), &mut rng(5)).unwrap();
        let seats: Vec<Vec<i64>> = d
            .tables
            .iter()
            .map(|t| t.seats.iter().map(|p| p.0).collect())
            .collect();
        let starts: Vec<i64> = d
            .tables
            .iter()
            .map(|t| t.starting_player.unwrap().0)
            .collect();
        assert_eq!((seats, starts), golden_team());
    }

    fn golden_team() -> (Vec<Vec<i64>>, Vec<i64>) {
        (vec![vec![5, 1, 6, 2], vec![3, 7, 4, 8]], vec![2, 8])
    }

    #[test]
    fn bad_teams_rejected() {
        let mut inp = team_input(2);
        inp.teams[1].pair_b[0] = PlayerId(1);
        assert!(matches!(
            draw_round(&inp, &mut rng(1)),
            Err(SeatingError::InvalidTeams(_))
        ));
    }
}
