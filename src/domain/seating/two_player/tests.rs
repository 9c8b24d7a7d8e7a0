use super::*;
use crate::domain::seating::test_util::*;
use crate::domain::seating::{draw_round, Standing};
use proptest::prelude::*;

#[test]
fn ashes_round_counts() {
    assert_eq!(ashes_round_range(4).unwrap(), (3, 3));
    assert_eq!(ashes_round_range(8).unwrap(), (3, 4));
    assert_eq!(ashes_round_range(9).unwrap(), (3, 5));
    assert_eq!(ashes_round_range(16).unwrap(), (3, 5));
    assert_eq!(ashes_round_range(32).unwrap(), (3, 6));
    assert_eq!(ashes_round_range(33).unwrap(), (3, 8));
    assert!(ashes_round_range(3).is_err());
    assert!(check_ashes_rounds(10, 5).is_ok());
    assert_eq!(
        check_ashes_rounds(10, 6),
        Err(SeatingError::RoundsOutOfRange {
            rounds: 6,
            min: 3,
            max: 5
        })
    );
    assert!(check_ashes_rounds(40, 2).is_err());
}

#[test]
fn bracket_of_16() {
    let b: Vec<u32> = knockout_bracket(16).into_iter().flatten().collect();
    assert_eq!(
        b,
        vec![1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    );
}

#[test]
fn knockout_byes_go_to_top_seeds() {
    let mut inp = input(SeatingMethod::Knockout, 6);
    for p in inp.players.iter_mut() {
        p.rating = Some(1000.0 + p.id.0 as f64); // 6 is the top seed
    }
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    let mut byes: Vec<i64> = d.byes.iter().map(|p| p.0).collect();
    byes.sort();
    assert_eq!(byes, vec![5, 6]); // seeds 1 and 2
    assert_eq!(sorted_tables(&d), vec![vec![2, 3], vec![1, 4]]); // seeds 4v5, then 3v6
                                                                 // Round 2: survivors 6 (seed 1), 4 (seed 3, beat 1), 5 (seed 2), 2 (seed 5... lost) etc.
    let seed_of: HashMap<PlayerId, u32> = d.seeds.iter().copied().collect();
    let mut inp2 = input(SeatingMethod::Knockout, 0);
    inp2.round = 2;
    for id in [6, 5, 4, 3] {
        let mut p = crate::domain::seating::PlayerEntry::new(id);
        p.seed = Some(seed_of[&PlayerId(id)]);
        inp2.players.push(p);
    }
    let d2 = draw_round(&inp2, &mut rng(2)).unwrap();
    // Seeds: 6->1, 5->2, 4->3, 3->4. Bracket of 8: 1 v (4/5), 2 v (3/6).
    assert_eq!(sorted_tables(&d2), vec![vec![3, 6], vec![4, 5]]);
    assert!(d2.byes.is_empty());
}

#[test]
fn swiss_2p_everyone_met_reports_repeats() {
    let n = 100;
    let mut inp = input(SeatingMethod::Swiss2p, n);
    for a in 1..=n as i64 {
        for b in a + 1..=n as i64 {
            inp.history.pairings.push([PlayerId(a), PlayerId(b)]);
        }
    }
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_each_once(&inp, &d);
    assert_eq!(d.report.repeat_count, 50);
    assert_eq!(d.report.unsatisfied.len(), 1);
}

#[test]
fn knockout_duplicate_seed_rejected() {
    let mut inp = input(SeatingMethod::Knockout, 4);
    for p in inp.players.iter_mut() {
        p.seed = Some(1);
    }
    assert!(matches!(
        draw_round(&inp, &mut rng(1)),
        Err(SeatingError::InvalidOption { ref option, .. }) if option == "seed"
    ));
}

#[test]
fn golden_swiss_2p() {
    let mut inp = input(SeatingMethod::Swiss2p, 9);
    inp.history.pairings = vec![[PlayerId(1), PlayerId(5)], [PlayerId(2), PlayerId(6)]];
    for s in inp.standings.iter_mut() {
        s.score = Some(if s.player.0 <= 4 { 3.0 } else { 0.0 });
    }
    let d = draw_round(&inp, &mut rng(77)).unwrap();
    let seats: Vec<Vec<i64>> = d
        .tables
        .iter()
        .map(|t| t.seats.iter().map(|p| p.0).collect())
        .collect();
    assert_eq!((seats, d.byes[0].0), golden_swiss_2p_9());
}

fn golden_swiss_2p_9() -> (Vec<Vec<i64>>, i64) {
    // Score group 1-4 (top half v bottom half), group 5-8, bye to 9 (the lowest).
    (vec![vec![3, 1], vec![2, 4], vec![5, 7], vec![8, 6]], 9)
}

#[test]
fn round_robin_everyone_meets_once() {
    for n in [4usize, 5, 8, 9] {
        let ranked: Vec<PlayerId> = (1..=n as i64).map(PlayerId).collect();
        let m = n + n % 2;
        let mut met = std::collections::BTreeSet::new();
        let mut byes = 0;
        for r in 1..m as u32 {
            let (pairs, b) = round_robin(&ranked, r);
            byes += b.len();
            for [a, b] in pairs {
                assert!(met.insert(crate::domain::seating::ordered(a, b)));
            }
        }
        assert_eq!(met.len(), n * (n - 1) / 2);
        assert_eq!(byes, if n % 2 == 1 { n } else { 0 });
    }
}

#[test]
fn round_robin_ignores_changing_standings() {
    let mut met = std::collections::BTreeSet::new();
    for r in 1..=5u32 {
        let mut inp = input(SeatingMethod::RoundRobin, 6);
        inp.round = r;
        // Standings that change every round (a different leader each time).
        inp.standings = (0..6)
            .map(|i| Standing {
                player: PlayerId(((i + r as i64) % 6) + 1),
                place: i as u32 + 1,
                score: None,
            })
            .collect();
        let d = draw_round(&inp, &mut rng(r as u8)).unwrap();
        for t in &d.tables {
            assert!(met.insert(crate::domain::seating::ordered(t.seats[0], t.seats[1])));
        }
    }
    assert_eq!(met.len(), 15);
}

/// Seed 003, 10.2: in a round robin "spielt jeder gegen jeden". The circle is fixed at the first
/// round: ratings that change after every rated round (a pool feeding on the event) must not
/// reorder it, and a player who withdraws leaves an empty place (their opponent has the bye).
#[test]
fn round_robin_keeps_the_first_rounds_circle_while_ratings_change() {
    let n = 10;
    let mut met = std::collections::BTreeMap::new();
    let mut seeds: Vec<(PlayerId, u32)> = Vec::new();
    for r in 1..=9u32 {
        let mut inp = input(SeatingMethod::RoundRobin, n);
        inp.round = r;
        for p in &mut inp.players {
            // A rating that moves every round, in a different direction for each player.
            p.rating = Some(1500.0 + ((p.id.0 * 37 + r as i64 * 91) % 200) as f64);
            p.seed = seeds.iter().find(|(id, _)| *id == p.id).map(|(_, s)| *s);
        }
        // Player 10 withdraws after round 6.
        if r > 6 {
            inp.players.retain(|p| p.id != PlayerId(10));
        }
        let d = draw_round(&inp, &mut rng(r as u8)).unwrap();
        if r == 1 {
            seeds = d.seeds.clone();
            assert_eq!(seeds.len(), n);
        }
        for t in &d.tables {
            let pair = crate::domain::seating::ordered(t.seats[0], t.seats[1]);
            *met.entry(pair).or_insert(0) += 1;
        }
        if r > 6 {
            assert_eq!(
                d.byes.len(),
                1,
                "round {r}: the withdrawn player's opponent rests"
            );
        }
    }
    assert!(met.values().all(|c| *c == 1), "a pair met twice: {met:?}");
    // 45 pairs, less the three games player 10 would have played in rounds 7-9.
    assert_eq!(met.len(), 42);
}

#[test]
fn swiss_2p_bye_to_lowest_without_one() {
    let mut inp = input(SeatingMethod::Swiss2p, 7);
    inp.history.byes = vec![PlayerId(7)];
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(d.byes, vec![PlayerId(6)]);
    assert_eq!(d.report.byes, vec![PlayerId(6)]);
}

#[test]
fn swiss_2p_top_half_meets_bottom_half() {
    // One score group of 8: 1-5, 2-6, 3-7, 4-8.
    let mut inp = input(SeatingMethod::Swiss2p, 8);
    for s in inp.standings.iter_mut() {
        s.place = 1;
        s.score = Some(0.0);
    }
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(
        sorted_tables(&d),
        vec![vec![1, 5], vec![2, 6], vec![3, 7], vec![4, 8]]
    );
}

#[test]
fn swiss_2p_floats_and_avoids_repeats() {
    // Scores 3,3,3,0,0,0: 1 v 2 would be natural; 1 met 2 before.
    let mut inp = input(SeatingMethod::Swiss2p, 6);
    let scores = [3.0, 3.0, 3.0, 0.0, 0.0, 0.0];
    inp.standings = (0..6)
        .map(|i| Standing {
            player: PlayerId(i as i64 + 1),
            place: if i < 3 { 1 } else { 4 },
            score: Some(scores[i]),
        })
        .collect();
    inp.history.pairings = vec![[PlayerId(1), PlayerId(2)], [PlayerId(3), PlayerId(4)]];
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(d.report.repeat_count, 0);
    let t = sorted_tables(&d);
    assert!(t.contains(&vec![1, 3]), "{t:?}");
}

#[test]
fn greedy_repair_removes_repeats() {
    // Force the fallback: 4 players, 1-2 and 3-4 met; greedy pairs 1-3? check repair works
    // on a crafted case where the preference order pairs repeats.
    let group = vec![0, 0, 0, 0];
    let met = |a: usize, b: usize| ((a, b) == (0, 2) || (a, b) == (1, 3)) as u32;
    let pairs = greedy_with_repair(4, &group, &|a, b| met(a.min(b), a.max(b)));
    assert!(pairs.iter().all(|&(a, b)| met(a, b) == 0), "{pairs:?}");
}

/// Brute force: does a perfect repeat-free matching exist?
fn exists(n: usize, met: &dyn Fn(usize, usize) -> bool) -> bool {
    fn rec(left: &mut Vec<usize>, met: &dyn Fn(usize, usize) -> bool) -> bool {
        if left.is_empty() {
            return true;
        }
        let p = left.remove(0);
        for i in 0..left.len() {
            let q = left[i];
            if !met(p, q) {
                left.remove(i);
                let ok = rec(left, met);
                left.insert(i, q);
                if ok {
                    left.insert(0, p);
                    return true;
                }
            }
        }
        left.insert(0, p);
        false
    }
    let mut v: Vec<usize> = (0..n).collect();
    rec(&mut v, met)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn swiss_2p_no_repeat_when_avoidable(
        half in 1usize..7,
        hist in proptest::collection::vec((1i64..15, 1i64..15), 0..40),
        scores in proptest::collection::vec(0u8..3, 14),
        seed in any::<u8>(),
    ) {
        let n = 2 * half;
        let mut inp = input(SeatingMethod::Swiss2p, n);
        let mut sc: Vec<u8> = scores[..n].to_vec();
        sc.sort_by(|a, b| b.cmp(a));
        for (i, s) in inp.standings.iter_mut().enumerate() {
            s.score = Some(sc[i] as f64);
        }
        inp.history.pairings = hist
            .iter()
            .filter(|(a, b)| a != b && *a <= n as i64 && *b <= n as i64)
            .map(|&(a, b)| [PlayerId(a), PlayerId(b)])
            .collect();
        let m = Meetings::from_history(&inp.history);
        let possible = exists(n, &|a, b| m.count(PlayerId(a as i64 + 1), PlayerId(b as i64 + 1)) > 0);
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        assert_each_once(&inp, &d);
        if possible {
            prop_assert_eq!(d.report.repeat_count, 0);
        }
    }

    #[test]
    fn swiss_2p_each_once_with_byes(n in 2usize..80, seed in any::<u8>()) {
        let inp = input(SeatingMethod::Swiss2p, n);
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        assert_each_once(&inp, &d);
        prop_assert_eq!(d.byes.len(), n % 2);
    }

    #[test]
    fn knockout_each_once(n in 2usize..70, seed in any::<u8>()) {
        let inp = input(SeatingMethod::Knockout, n);
        let d = draw_round(&inp, &mut rng(seed)).unwrap();
        assert_each_once(&inp, &d);
        prop_assert_eq!(d.byes.len(), n.next_power_of_two() - n);
    }
}

/// Seed 003 (cup): the winners of a round meet their bracket neighbours, whichever seeds won.
/// Winners at slots that are not adjacent (seeds 1 and 3 of 4; the lower seeds 5-8 of 8) were
/// all given byes.
#[test]
fn survivors_meet_their_bracket_neighbours() {
    use super::bracket_matches;
    // Four entrants: 1 v 4 and 2 v 3; 1 and 3 won.
    assert_eq!(bracket_matches(&[1, 3]), (vec![(0, 1)], vec![]));
    assert_eq!(bracket_matches(&[1, 2]), (vec![(0, 1)], vec![]));
    // Eight: 1 v 8, 4 v 5, 2 v 7, 3 v 6; the lower seeds won: 8 v 5 and 7 v 6.
    let (pairs, byes) = bracket_matches(&[5, 6, 7, 8]);
    let seeds = [5, 6, 7, 8];
    let mut met: Vec<[u32; 2]> = pairs
        .iter()
        .map(|&(i, j)| {
            let mut m = [seeds[i], seeds[j]];
            m.sort();
            m
        })
        .collect();
    met.sort();
    assert_eq!(met, vec![[5, 8], [6, 7]]);
    assert!(byes.is_empty());
    // Six entrants in round 1: the top two seeds have byes.
    let (pairs, byes) = bracket_matches(&[1, 2, 3, 4, 5, 6]);
    assert_eq!(pairs.len(), 2);
    assert_eq!(byes, vec![0, 1]);
}
