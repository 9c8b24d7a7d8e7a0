use super::*;
use crate::domain::seating::test_util::*;
use crate::domain::seating::{draw_round, History, PlayerEntry};
use proptest::prelude::*;

#[test]
fn danish_example_1_4_and_5_8() {
    let inp = input(SeatingMethod::Danish, 8);
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(sorted_tables(&d), vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]]);
    assert!(d.tables.iter().all(|t| t.starting_player.is_some()));
}

#[test]
fn danish_withdrawal_makes_last_table_three() {
    let inp = input(SeatingMethod::Danish, 11);
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(
        sorted_tables(&d),
        vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9, 10, 11]]
    );
}

#[test]
fn clarification_example() {
    let inp = input(SeatingMethod::Clarification, 12);
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(
        sorted_tables(&d),
        vec![vec![1, 2, 11, 12], vec![3, 4, 5, 6], vec![7, 8, 9, 10]]
    );
}

#[test]
fn clarification_short_table_is_table_one() {
    let inp = input(SeatingMethod::Clarification, 11);
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(
        sorted_tables(&d),
        vec![vec![1, 2, 11], vec![3, 4, 5, 6], vec![7, 8, 9, 10]]
    );
}

/// Seed 000, tie-breaks: "Dersom også dette er likt, avgjøres den foreløpige plasseringen ved
/// loddtrekning." Players level on every key are ordered by a lot from the round's seed: the same
/// seed gives the same order (verifiable), other seeds other orders (not the player ids).
#[test]
fn players_level_on_every_key_are_ordered_by_lot_from_the_seed() {
    let mut inp = input(SeatingMethod::Danish, 8);
    for s in &mut inp.standings {
        s.place = 1;
    }
    let tables = |seed: u8| sorted_tables(&draw_round(&inp, &mut rng(seed)).unwrap());
    assert_eq!(tables(5), tables(5));
    let distinct: std::collections::BTreeSet<Vec<Vec<i64>>> = (0..20).map(tables).collect();
    assert!(distinct.len() > 5, "{distinct:?}");
    // Distinct places still decide: 1-4 and 5-8 stay apart.
    let ordered = input(SeatingMethod::Danish, 8);
    for seed in 0..5 {
        let d = draw_round(&ordered, &mut rng(seed)).unwrap();
        assert_eq!(sorted_tables(&d), vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]]);
    }
}

/// Seed 000, Bordsammensetning (8): "De to topplasserte får +3 poeng for hver av de to nederste
/// de slår ... de to nederste får +3 for hver av de to topplasserte de slår": the draw must say
/// who the top two and the bottom two are, or scoring cannot give the bonus.
#[test]
fn clarification_bonus_names_the_top_two_and_the_bottom_two() {
    let inp = input(SeatingMethod::ClarificationBonus, 12);
    let d = draw_round(&inp, &mut rng(3)).unwrap();
    assert_eq!(d.groups, vec![ids(&[1, 2]), ids(&[11, 12])]);
    // Plain clarification has no bonus, and names no groups.
    let plain = draw_round(&input(SeatingMethod::Clarification, 12), &mut rng(3)).unwrap();
    assert!(plain.groups.is_empty());
}

#[test]
fn clarification_bonus_seats_one_and_two_opposite() {
    for seed in 0..20 {
        let inp = input(SeatingMethod::ClarificationBonus, 12);
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        let s: Vec<i64> = d.tables[0].seats.iter().map(|p| p.0).collect();
        assert_eq!(s[0], 1);
        assert_eq!(s[2], 2);
        let mut lows = vec![s[1], s[3]];
        lows.sort();
        assert_eq!(lows, vec![11, 12]);
    }
    // Both outcomes of the lot happen.
    let lefts: BTreeSet<i64> = (0..20)
        .map(|seed| {
            let d = draw_round(
                &input(SeatingMethod::ClarificationBonus, 12),
                &mut rng(seed),
            )
            .unwrap();
            d.tables[0].seats[1].0
        })
        .collect();
    assert_eq!(lefts.len(), 2);
}

#[test]
fn final_groups_are_placement_groups() {
    let inp = input(SeatingMethod::FinalGroups, 16);
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(d.groups.len(), 4);
    assert_eq!(d.groups[1], ids(&[5, 6, 7, 8]));
    assert_eq!(sorted_tables(&d)[3], vec![13, 14, 15, 16]);
}

#[test]
fn placement_even_example_sums_18() {
    let inp = input(SeatingMethod::PlacementEven, 8);
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    for t in sorted_tables(&d) {
        assert_eq!(t.iter().sum::<i64>(), 18);
    }
}

#[test]
fn placement_even_finds_the_repeat_free_split() {
    // Player 1 has met 2, 4, 5 and 7: the only equal-sum split without repeats is the
    // worked example 1,3,6,8 / 2,4,5,7 (domain.md 4.4).
    let mut inp = input(SeatingMethod::PlacementEven, 8);
    inp.history.tables = vec![ids(&[1, 2]), ids(&[1, 4]), ids(&[1, 5]), ids(&[1, 7])];
    for seed in 0..5 {
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        assert_eq!(
            sorted_tables(&d),
            vec![vec![1, 3, 6, 8], vec![2, 4, 5, 7]],
            "seed {seed}"
        );
        assert_eq!(d.report.repeat_count, 0);
    }
}

#[test]
fn swiss4_follows_rule_4_5() {
    // 8 players; 1 has met 2 and 3: 1 meets 4, 5, 6; then 2 meets 3, 7, 8.
    let mut inp = input(SeatingMethod::Swiss, 8);
    inp.history.tables = vec![ids(&[1, 2, 3])];
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(sorted_tables(&d), vec![vec![1, 4, 5, 6], vec![2, 3, 7, 8]]);
}

#[test]
fn swiss4_met_everyone_takes_fewest_met() {
    // 1 met everyone once, and 2 twice: 1 meets 3, 4, 5.
    let mut inp = input(SeatingMethod::Swiss, 8);
    inp.history.tables = vec![
        ids(&[1, 2, 3, 4]),
        ids(&[1, 5, 6, 7]),
        ids(&[1, 8]),
        ids(&[1, 2]),
    ];
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(sorted_tables(&d)[0], vec![1, 3, 4, 5]);
}

#[test]
fn seeded_groups_follow_rating_and_rest_group() {
    // 12 players, 3 tables: 7 rated -> two groups of 3 by rating, rest group of 6.
    let mut players: Vec<PlayerEntry> = (1..=12).map(PlayerEntry::new).collect();
    for (i, p) in players.iter_mut().enumerate().take(7) {
        p.rating = Some(2000.0 - i as f64 * 10.0);
        p.rated_games = 5;
    }
    players[7].rating = Some(3000.0);
    players[7].rated_games = 4; // not enough games: rest group
    let g = seeding_groups(&players, 3, 5);
    assert_eq!(g.len(), 3);
    assert_eq!(g[0], ids(&[1, 2, 3]));
    assert_eq!(g[1], ids(&[4, 5, 6]));
    assert_eq!(g[2].len(), 6);
    let mut inp = input(SeatingMethod::RandomSeeded, 12);
    inp.players = players;
    let d = draw_round(&inp, &mut rng(4)).unwrap();
    assert_eq!(d.report.seeding_groups[0].max_at_one_table, 1);
    assert_eq!(d.report.seeding_groups[1].max_at_one_table, 1);
    assert_eq!(d.report.seeding_groups[2].max_at_one_table, 2);
}

#[test]
fn fixed_seeded_avoids_repeats_after_random_seeded() {
    let mut inp = input(SeatingMethod::RandomSeeded, 16);
    for (i, p) in inp.players.iter_mut().enumerate() {
        p.rating = Some(2000.0 - i as f64);
        p.rated_games = 10;
    }
    let d1 = draw_round(&inp, &mut rng(5)).unwrap();
    let mut inp2 = inp.clone();
    inp2.method = SeatingMethod::FixedSeeded;
    inp2.round = 2;
    inp2.history = History {
        tables: d1.tables.iter().map(|t| t.seats.clone()).collect(),
        ..History::default()
    };
    let d2 = draw_round(&inp2, &mut rng(6)).unwrap();
    assert_eq!(d2.report.repeat_count, 0);
    assert!(d2
        .report
        .seeding_groups
        .iter()
        .all(|g| g.max_at_one_table == 1));
}

#[test]
fn random_uses_and_returns_plan() {
    let mut inp = input(SeatingMethod::Random, 16);
    inp.options
        .insert("rounds_remaining".into(), serde_json::json!(5));
    let mut history = History::default();
    let mut plan = None;
    for round in 1..=5 {
        inp.round = round;
        inp.history = history.clone();
        inp.plan = plan.clone();
        let d = draw_round(&inp, &mut rng(round as u8)).unwrap();
        assert_eq!(d.report.repeat_count, 0, "round {round}");
        history
            .tables
            .extend(d.tables.iter().map(|t| t.seats.clone()));
        plan = d.plan.clone();
    }
    assert_eq!(plan.map(|p| p.rounds.len()), Some(0));
}

#[test]
fn missing_standing_is_an_error() {
    let mut inp = input(SeatingMethod::Swiss, 8);
    inp.standings.pop();
    assert_eq!(
        draw_round(&inp, &mut rng(1)).unwrap_err(),
        SeatingError::MissingStanding(PlayerId(8))
    );
}

#[test]
fn golden_danish_seats() {
    let d = draw_round(&input(SeatingMethod::Danish, 8), &mut rng(7)).unwrap();
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
    assert_eq!((seats, starts), golden_danish());
}

fn golden_danish() -> (Vec<Vec<i64>>, Vec<i64>) {
    (vec![vec![3, 4, 2, 1], vec![5, 7, 8, 6]], vec![2, 5])
}

#[test]
fn golden_random_seeded() {
    let mut inp = input(SeatingMethod::RandomSeeded, 12);
    for (i, p) in inp.players.iter_mut().enumerate() {
        p.rating = Some(1500.0 - 10.0 * i as f64);
        p.rated_games = 9;
    }
    let d = draw_round(&inp, &mut rng(11)).unwrap();
    let seats: Vec<Vec<i64>> = d
        .tables
        .iter()
        .map(|t| t.seats.iter().map(|p| p.0).collect())
        .collect();
    assert_eq!(seats, golden_random_seeded_12());
}

fn golden_random_seeded_12() -> Vec<Vec<i64>> {
    vec![vec![10, 6, 9, 3], vec![12, 7, 4, 1], vec![8, 2, 5, 11]]
}

fn method_strategy() -> impl Strategy<Value = SeatingMethod> {
    prop_oneof![
        Just(SeatingMethod::Random),
        Just(SeatingMethod::RandomSeeded),
        Just(SeatingMethod::FixedSeeded),
        Just(SeatingMethod::PlacementEven),
        Just(SeatingMethod::Swiss),
        Just(SeatingMethod::Danish),
        Just(SeatingMethod::Clarification),
        Just(SeatingMethod::ClarificationBonus),
        Just(SeatingMethod::FinalGroups),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn every_player_seated_once_valid_sizes(
        method in method_strategy(),
        n in 3usize..60,
        seed in any::<u8>(),
        rated in 0usize..60,
        hist in proptest::collection::vec(proptest::collection::vec(1i64..60, 2..5), 0..30),
    ) {
        prop_assume!(table_sizes(n).is_ok());
        let mut inp = input(method, n);
        for (i, p) in inp.players.iter_mut().enumerate().take(rated) {
            p.rating = Some(1000.0 + ((i * 37) % 101) as f64);
            p.rated_games = 5;
        }
        inp.history.tables = hist.iter().map(|t| ids(t)).collect();
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        assert_each_once(&inp, &d);
        prop_assert!(d.tables.iter().all(|t| t.seats.len() == 3 || t.seats.len() == 4));
        prop_assert_eq!(d.tables.len(), n.div_ceil(4));
        for t in &d.tables {
            let sp = t.starting_player.unwrap();
            prop_assert!(t.seats.contains(&sp));
        }
    }

    #[test]
    fn seeding_groups_spread_one_per_table(
        y in 1usize..12,
        rated in 0usize..48,
        seed in any::<u8>(),
        fixed in any::<bool>(),
    ) {
        let n = 4 * y;
        let mut inp = input(if fixed { SeatingMethod::FixedSeeded } else { SeatingMethod::RandomSeeded }, n);
        for (i, p) in inp.players.iter_mut().enumerate().take(rated.min(n)) {
            p.rating = Some(2000.0 - i as f64);
            p.rated_games = 7;
        }
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        for (g, spread) in d.groups.iter().zip(&d.report.seeding_groups) {
            // A group of Y players: exactly one per table; the rest group of kY: k per table.
            let per = (g.len() / y) as u32;
            prop_assert_eq!(spread.max_at_one_table, per.max(1));
            prop_assert_eq!(spread.tables as usize, y.min(g.len()));
        }
    }

    #[test]
    fn swiss4_top_player_meets_new_players_first(
        n in 3usize..40,
        hist in proptest::collection::vec(proptest::collection::vec(1i64..40, 2..5), 0..40),
    ) {
        prop_assume!(table_sizes(n).is_ok());
        let mut inp = input(SeatingMethod::Swiss, n);
        inp.history.tables = hist.iter().map(|t| ids(t)).collect();
        let m = Meetings::from_history(&inp.history);
        let d = draw_round(&inp, &mut rng(0)).unwrap();
        // Replay: tables in order; the top player of what is left must not meet anyone
        // again while enough players new to them are left.
        let mut left: Vec<PlayerId> = (1..=n as i64).map(PlayerId).collect();
        for t in &d.tables {
            let top = left[0];
            prop_assert!(t.seats.contains(&top));
            let fresh = left[1..].iter().filter(|&&p| m.count(top, p) == 0).count();
            let repeats = t.seats.iter().filter(|&&p| p != top && m.count(top, p) > 0).count();
            let need = t.seats.len() - 1;
            prop_assert_eq!(repeats, need.saturating_sub(fresh));
            left.retain(|p| !t.seats.contains(p));
        }
    }

    #[test]
    fn placement_even_sums_equal(y in 1usize..10, seed in any::<u8>()) {
        let n = 4 * y;
        let d = draw_round(&input(SeatingMethod::PlacementEven, n), &mut rng(seed)).unwrap();
        let sums: Vec<i64> = sorted_tables(&d).iter().map(|t| t.iter().sum()).collect();
        prop_assert!(sums.iter().all(|&s| s == sums[0]));
        prop_assert!(d.report.unsatisfied.is_empty());
    }
}

/// Seed 000 (2)/(3): one player of each seeding group per table, and over the event as many new
/// opponents as possible. 16 players in four groups can play 4 repeat-free seeded rounds, but
/// drawn round by round 18 of the 24 repeat-free second rounds leave no repeat-free third
/// round: the draw looks one round ahead. All four rounds meet only new players, for every seed
/// tried (without the lookahead, the third round repeated for most seeds).
#[test]
fn seeded_rounds_meet_new_players_whenever_that_is_possible() {
    for seed in 0..60u8 {
        let mut history = History::default();
        for round in 1..=4u32 {
            let mut inp = input(SeatingMethod::RandomSeeded, 16);
            inp.round = round;
            for p in &mut inp.players {
                p.seeding_group = Some(((p.id.0 - 1) / 4) as u32 + 1);
            }
            inp.history = history.clone();
            let d = draw_round(
                &inp,
                &mut rng(seed.wrapping_mul(7).wrapping_add(round as u8)),
            )
            .unwrap();
            assert_eq!(
                d.report.repeat_count, 0,
                "seed {seed} round {round}: {:?}",
                d.report
            );
            history
                .tables
                .extend(d.tables.iter().map(|t| t.seats.clone()));
        }
    }
}
