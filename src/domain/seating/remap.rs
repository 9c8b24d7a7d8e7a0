//! Renaming the players of a draw and of its input (issue 32: a tournament archive imported
//! into another instance gets new player ids). Pure: the caller gives the renaming.

use super::{Draw, DrawInput, History, Schedule};
use crate::domain::PlayerId;

fn each(ids: &mut [PlayerId], f: &impl Fn(PlayerId) -> PlayerId) {
    for id in ids {
        *id = f(*id);
    }
}

fn nested(lists: &mut [Vec<PlayerId>], f: &impl Fn(PlayerId) -> PlayerId) {
    for list in lists {
        each(list, f);
    }
}

fn schedule(plan: &mut Option<Schedule>, f: &impl Fn(PlayerId) -> PlayerId) {
    for round in plan.iter_mut().flat_map(|p| p.rounds.iter_mut()) {
        nested(&mut round.tables, f);
        nested(&mut round.bridge_groups, f);
    }
}

impl History {
    /// Renames every player of the history.
    pub fn remap_players(&mut self, f: &impl Fn(PlayerId) -> PlayerId) {
        nested(&mut self.tables, f);
        nested(&mut self.bridge_groups, f);
        for pair in &mut self.pairings {
            each(pair, f);
        }
        each(&mut self.byes, f);
    }
}

impl DrawInput {
    /// Renames every player of the input (players, standings, history, plan, teams).
    pub fn remap_players(&mut self, f: &impl Fn(PlayerId) -> PlayerId) {
        for p in &mut self.players {
            p.id = f(p.id);
        }
        for s in &mut self.standings {
            s.player = f(s.player);
        }
        self.history.remap_players(f);
        schedule(&mut self.plan, f);
        for team in &mut self.teams {
            each(&mut team.pair_a, f);
            each(&mut team.pair_b, f);
        }
    }
}

impl Draw {
    /// Renames every player of the draw (tables, groups, byes, seeds, plan, report).
    pub fn remap_players(&mut self, f: &impl Fn(PlayerId) -> PlayerId) {
        for t in &mut self.tables {
            each(&mut t.seats, f);
            t.starting_player = t.starting_player.map(f);
        }
        for g in &mut self.bridge_groups {
            each(&mut g.players, f);
        }
        each(&mut self.byes, f);
        nested(&mut self.groups, f);
        for (p, _) in &mut self.seeds {
            *p = f(*p);
        }
        schedule(&mut self.plan, f);
        let report = &mut self.report;
        for m in report
            .repeat_meetings
            .iter_mut()
            .chain(report.bridge_repeat_meetings.iter_mut())
        {
            each(&mut m.players, f);
        }
        each(&mut report.byes, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::seating::{draw_round, PlayerEntry, SeatingMethod};
    use crate::domain::DrawRng;

    fn input(ids: &[i64]) -> DrawInput {
        DrawInput {
            algorithm: crate::domain::seating::SEATING_ALGORITHM,
            round: 1,
            method: SeatingMethod::Random,
            players: ids
                .iter()
                .map(|&id| PlayerEntry {
                    id: PlayerId(id),
                    rating: None,
                    rated_games: 0,
                    seeding_group: None,
                    seed: None,
                })
                .collect(),
            standings: Vec::new(),
            history: History::default(),
            options: Default::default(),
            plan: None,
            teams: Vec::new(),
        }
    }

    #[test]
    fn every_player_of_a_draw_and_its_input_is_renamed_and_nothing_else() {
        let ids: Vec<i64> = (1..=8).collect();
        let mut rng = DrawRng::from_seed(DrawRng::seed_from_hex(&"ab".repeat(32)).expect("seed"));
        let draw = draw_round(&input(&ids), &mut rng).expect("a draw");
        let shift = |p: PlayerId| PlayerId(p.0 + 100);
        let mut moved = draw.clone();
        moved.remap_players(&shift);
        let before = serde_json::to_string(&draw).unwrap();
        let after = serde_json::to_string(&moved).unwrap();
        assert_ne!(before, after);
        let back = |p: PlayerId| PlayerId(p.0 - 100);
        moved.remap_players(&back);
        assert_eq!(moved, draw, "renaming back gives the draw");
        for t in &draw.tables {
            assert!(t.seats.iter().all(|p| ids.contains(&p.0)));
        }
        let mut inp = input(&ids);
        inp.remap_players(&shift);
        assert!(inp.players.iter().all(|p| p.id.0 > 100));
        assert_eq!(inp.round, 1, "the round number is not a player");
    }
}
