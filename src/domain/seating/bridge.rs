//! Bridge-Agricola (seed 001; domain.md section 6): tables plus bridge groups, one player from
//! each table in each group, all of a group on the same seat position; one shared deal per round.
//!
//! The perfect 16-player schedule: think of the 16 players as the vectors of GF(2)^4. A *spread*
//! is 5 two-dimensional subspaces meeting pairwise only in 0; the cosets of one subspace form a
//! round of 4 tables of 4, and the 5 subspaces of a spread give 5 rounds in which every pair
//! meets exactly once (this is the affine plane of order 4). We use two spreads with no subspace
//! in common, [`BRIDGE16_TABLES`] for the tables and [`BRIDGE16_GROUPS`] for the bridge groups,
//! matched so that in each round the table subspace and the group subspace meet only in 0. Then:
//! - every pair meets exactly once at a table and exactly once in a bridge group (each spread
//!   covers every non-zero difference once);
//! - each bridge group holds exactly one player of each table (U + W = GF(2)^4);
//! - no bridge group is ever the same four players as a table of any round (no common subspace).
//!
//! Both spreads were found by exhaustive search over the 56 spreads of PG(3,2) and are checked by
//! the tests below. Players are relabelled at random, and the round order is drawn by lot.

use super::{
    fewest, four_player, opt_bool, opt_u32, ranked_players_by_lot, schedule, table_sizes,
    BridgeGroup, Draw, DrawInput, DrawReport, History, Meetings, PlannedRound, Schedule,
    SeatingError, SharedDeal, Table,
};
use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use std::collections::{BTreeSet, HashMap};

/// The table subspaces of the 16-player bridge schedule, round by round (see module docs).
pub const BRIDGE16_TABLES: [[u8; 4]; 5] = [
    [0, 7, 8, 15],
    [0, 1, 12, 13],
    [0, 2, 4, 6],
    [0, 5, 11, 14],
    [0, 3, 9, 10],
];

/// The bridge-group subspaces of the 16-player bridge schedule, round by round.
pub const BRIDGE16_GROUPS: [[u8; 4]; 5] = [
    [0, 1, 10, 11],
    [0, 6, 8, 14],
    [0, 5, 9, 12],
    [0, 3, 4, 7],
    [0, 2, 13, 15],
];

/// The 4 cosets of a subspace of GF(2)^4, as sorted point lists, ordered by smallest point.
fn cosets(sub: &[u8; 4]) -> Vec<Vec<usize>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for x in 0..16u8 {
        if seen.contains(&x) {
            continue;
        }
        let mut c: Vec<usize> = sub.iter().map(|&u| (x ^ u) as usize).collect();
        c.sort();
        for &p in &c {
            seen.insert(p as u8);
        }
        out.push(c);
    }
    out
}

/// Plans `rounds` bridge rounds: tables (as [`schedule::plan_random_schedule`]) plus bridge
/// groups. Group `g` of a round holds the player on seat position `g + 1` of every table (the seat
/// number itself is drawn when the round is drawn, see [`draw`]).
///
/// 16 players, at most 5 rounds, nobody has met before: the perfect schedule of the module docs.
/// Otherwise the tables come from the random planner and, round by round, a seeded local search
/// over seat swaps within a table keeps bridge-group repeats (against the history and the earlier
/// planned rounds) low and avoids a group equal to a table. Repeats are reported by the draw.
pub fn plan_bridge_schedule(
    players: &[PlayerId],
    rounds: u32,
    history: &History,
    rng: &mut DrawRng,
) -> Result<Schedule, SeatingError> {
    plan_bridge(players, rounds, history, rng, 1).map(|(plan, _)| plan)
}

/// [`plan_bridge_schedule`] by the given seating algorithm. From algorithm 2 on, a single round
/// planned alone gets the fewest table repeats the field allows (issue 44) before its seats are
/// arranged, and the search's result comes back.
fn plan_bridge(
    players: &[PlayerId],
    rounds: u32,
    history: &History,
    rng: &mut DrawRng,
    algorithm: u32,
) -> Result<(Schedule, Option<fewest::Fewest>), SeatingError> {
    let sizes = table_sizes(players.len())?;
    let met_before = {
        let set: BTreeSet<PlayerId> = players.iter().copied().collect();
        history
            .tables
            .iter()
            .chain(history.bridge_groups.iter())
            .any(|t| t.iter().filter(|p| set.contains(p)).count() >= 2)
            || history
                .pairings
                .iter()
                .any(|[a, b]| set.contains(a) && set.contains(b))
    };
    if players.len() == 16 && rounds <= 5 && !met_before {
        let mut labels = players.to_vec();
        labels.sort();
        rng.shuffle(&mut labels);
        let mut order: Vec<usize> = (0..5).collect();
        rng.shuffle(&mut order);
        let rounds: Vec<PlannedRound> = order
            .into_iter()
            .take(rounds as usize)
            .map(|r| {
                let tables = cosets(&BRIDGE16_TABLES[r]);
                let groups = cosets(&BRIDGE16_GROUPS[r]);
                // Seat g of each table: the table's member in group g.
                let tables: Vec<Vec<PlayerId>> = tables
                    .iter()
                    .map(|t| {
                        groups
                            .iter()
                            .map(|g| {
                                let p = *t
                                    .iter()
                                    .find(|p| g.contains(p))
                                    .expect("group meets each table once");
                                labels[p]
                            })
                            .collect()
                    })
                    .collect();
                let bridge_groups = groups_from_seats(&tables);
                PlannedRound {
                    tables,
                    bridge_groups,
                }
            })
            .collect();
        let proof = (algorithm >= 2 && rounds.len() == 1).then_some(fewest::Fewest {
            tables: Vec::new(),
            repeats: 0,
            lower_bound: 0,
            proven: true,
        });
        return Ok((Schedule { rounds }, proof));
    }
    let mut plan = schedule::plan_random_schedule(players, rounds, history, rng)?;
    let mut proof = None;
    if algorithm >= 2 && plan.rounds.len() == 1 {
        let everyone = vec![players.to_vec()];
        let best = fewest::fewest_repeats(&everyone, &sizes, history, &plan.rounds[0].tables);
        plan.rounds[0].tables = best.tables.clone();
        proof = Some(best);
    }
    let mut group_meet = Meetings::from_groups(&history.bridge_groups);
    let mut all_tables: BTreeSet<Vec<PlayerId>> =
        history.tables.iter().map(|t| sorted_ids(t)).collect();
    for r in &plan.rounds {
        for t in &r.tables {
            all_tables.insert(sorted_ids(t));
        }
    }
    for round in plan.rounds.iter_mut() {
        arrange_seats(&mut round.tables, &group_meet, &all_tables, rng);
        round.bridge_groups = groups_from_seats(&round.tables);
        for g in &round.bridge_groups {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    group_meet.add(a, b);
                }
            }
        }
    }
    Ok((plan, proof))
}

fn sorted_ids(t: &[PlayerId]) -> Vec<PlayerId> {
    let mut v = t.to_vec();
    v.sort();
    v
}

/// Group `g` = the players on seat position `g` of every table.
fn groups_from_seats(tables: &[Vec<PlayerId>]) -> Vec<Vec<PlayerId>> {
    let width = tables.iter().map(|t| t.len()).max().unwrap_or(0);
    (0..width)
        .map(|s| tables.iter().filter_map(|t| t.get(s).copied()).collect())
        .collect()
}

/// Orders each table's players (= assigns them to bridge groups) to keep group repeats low and
/// groups different from any table.
fn arrange_seats(
    tables: &mut [Vec<PlayerId>],
    met: &Meetings,
    all_tables: &BTreeSet<Vec<PlayerId>>,
    rng: &mut DrawRng,
) {
    for t in tables.iter_mut() {
        rng.shuffle(t);
    }
    let cost = |tables: &[Vec<PlayerId>]| -> u32 {
        let groups = groups_from_seats(tables);
        let mut c = 0;
        for g in &groups {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    c += met.count(a, b);
                }
            }
            if all_tables.contains(&sorted_ids(g)) {
                c += 100;
            }
        }
        c
    };
    let mut cur = cost(tables);
    for _pass in 0..30 {
        if cur == 0 {
            break;
        }
        let mut improved = false;
        for ti in 0..tables.len() {
            let len = tables[ti].len();
            for i in 0..len {
                for j in i + 1..len {
                    tables[ti].swap(i, j);
                    let c = cost(tables);
                    if c < cur {
                        cur = c;
                        improved = true;
                    } else {
                        tables[ti].swap(i, j);
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// How often each player already sat on each seat (history tables are in seat order).
fn seat_counts(history: &History) -> HashMap<PlayerId, [u32; 4]> {
    let mut m: HashMap<PlayerId, [u32; 4]> = HashMap::new();
    for t in &history.tables {
        for (s, p) in t.iter().enumerate().take(4) {
            m.entry(*p).or_insert([0; 4])[s] += 1;
        }
    }
    m
}

/// All permutations of `0..k` in lexicographic order.
fn permutations(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(k - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, k - 1);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// Draws a bridge round (seed 001). Options: `rounds_remaining` (rounds to plan, this one
/// included; default 1), `final` (true: the final, tables are the placement groups 1-4, 5-8, ...
/// of the standings and the bridge groups take one 1st, 2nd, 3rd and 4th of different placement
/// groups).
///
/// The shared deal: the seat of each bridge group is drawn once for all tables, among the seat
/// assignments that keep players' seats most balanced given the seats they had before (so no
/// player sits on seat 1 all event); the starting seat is drawn once for all tables.
pub(crate) fn draw(input: &DrawInput, rng: &mut DrawRng) -> Result<Draw, SeatingError> {
    let is_final = opt_bool(input, "final")?.unwrap_or(false);
    let mut plan_out = None;
    let mut report = DrawReport::default();
    let (tables, groups_out): (Vec<Vec<PlayerId>>, Vec<Vec<PlayerId>>) = if is_final {
        let ranked = ranked_players_by_lot(input, true, rng)?;
        let sizes = table_sizes(ranked.len())?;
        let placement = four_player::in_order(&ranked, &sizes);
        (final_bridge_seats(&placement, rng), placement)
    } else {
        let active: BTreeSet<PlayerId> = input.players.iter().map(|p| p.id).collect();
        let stored = input.plan.as_ref().and_then(|plan| {
            let first = plan.rounds.first()?;
            let seated: BTreeSet<PlayerId> = first.tables.iter().flatten().copied().collect();
            let count: usize = first.tables.iter().map(|t| t.len()).sum();
            (seated == active && count == active.len() && !first.bridge_groups.is_empty())
                .then(|| (first.tables.clone(), plan.rounds[1..].to_vec()))
        });
        let (tables, rest) = match stored {
            Some(x) => x,
            None => {
                let rounds = opt_u32(input, "rounds_remaining")?.unwrap_or(1);
                if rounds == 0 {
                    return Err(SeatingError::InvalidOption {
                        option: "rounds_remaining".into(),
                        reason: "must be at least 1 (this round included)".into(),
                    });
                }
                let ids: Vec<PlayerId> = active.into_iter().collect();
                let (mut plan, proof) =
                    plan_bridge(&ids, rounds, &input.history, rng, input.algorithm)?;
                if let Some(best) = proof {
                    report.record_fewest(best.lower_bound, best.proven);
                }
                let first = plan.rounds.remove(0);
                (first.tables, plan.rounds)
            }
        };
        plan_out = Some(Schedule { rounds: rest });
        (tables, vec![])
    };
    // Shared deal: group -> seat.
    let width = tables.iter().map(|t| t.len()).max().unwrap_or(0);
    let perm = &shared_deal(&tables, width, &input.history, rng);
    let min_size = tables.iter().map(|t| t.len()).min().unwrap_or(1).max(1);
    let starting_seat = rng.index(min_size) as u32 + 1;
    let out_tables: Vec<Table> = tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut seats = vec![None; width];
            for (g, p) in t.iter().enumerate() {
                seats[perm[g]] = Some(*p);
            }
            let seats: Vec<PlayerId> = seats.into_iter().flatten().collect();
            let starting_player = seats.get(starting_seat as usize - 1).copied();
            Table {
                number: i as u32 + 1,
                seats,
                starting_player,
                label: None,
            }
        })
        .collect();
    let bridge_groups: Vec<BridgeGroup> = groups_from_seats(&tables)
        .into_iter()
        .enumerate()
        .map(|(g, players)| BridgeGroup {
            number: g as u32 + 1,
            seat: perm[g] as u32 + 1,
            players,
        })
        .collect();
    let all_tables: BTreeSet<Vec<PlayerId>> =
        input.history.tables.iter().map(|t| sorted_ids(t)).collect();
    for g in &bridge_groups {
        if g.players.len() > 2 && all_tables.contains(&sorted_ids(&g.players)) {
            report.unsatisfied.push(format!(
                "bridge group {} is the same players as an earlier table",
                g.number
            ));
        }
    }
    Ok(Draw {
        round: input.round,
        method: input.method,
        tables: out_tables,
        shared_deal: Some(SharedDeal {
            group_seats: bridge_groups.iter().map(|g| g.seat).collect(),
            starting_seat,
        }),
        bridge_groups,
        byes: vec![],
        groups: groups_out,
        team_matches: vec![],
        seeds: vec![],
        plan: plan_out,
        report,
    })
}

/// The shared deal's seat of each bridge group (seed 001): drawn by lot among the assignments
/// that keep players' seats most balanced given the seats they had before.
fn shared_deal(
    tables: &[Vec<PlayerId>],
    width: usize,
    history: &History,
    rng: &mut DrawRng,
) -> Vec<usize> {
    let counts = seat_counts(history);
    let perms = permutations(width);
    let mut best: Vec<usize> = Vec::new();
    let mut best_key = (u32::MAX, u32::MAX);
    for (k, perm) in perms.iter().enumerate() {
        let mut max = 0;
        let mut sq = 0;
        for t in tables {
            for (g, p) in t.iter().enumerate() {
                let c = counts.get(p).map(|c| c[perm[g].min(3)]).unwrap_or(0) + 1;
                max = max.max(c);
                sq += c * c;
            }
        }
        let key = (max, sq);
        if key < best_key {
            best_key = key;
            best.clear();
        }
        if key == best_key {
            best.push(k);
        }
    }
    perms[best[rng.index(best.len())]].clone()
}

/// Final bridge groups (seed 001): tables are the placement groups; bridge group `j` takes from
/// placement group `i` its member of in-group place `L[i][j]`, where `L` is a Latin square drawn
/// by lot (`L[i][j] = (a(i) + b(j)) mod 4` for random permutations `a`, `b`). With 4 placement
/// groups each bridge group then holds one 1st, one 2nd, one 3rd and one 4th, from four different
/// placement groups. Returns the tables in group order (seat position `j` = group `j`).
fn final_bridge_seats(placement: &[Vec<PlayerId>], rng: &mut DrawRng) -> Vec<Vec<PlayerId>> {
    let mut a: Vec<usize> = (0..4).collect();
    let mut b: Vec<usize> = (0..4).collect();
    rng.shuffle(&mut a);
    rng.shuffle(&mut b);
    placement
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let w = t.len();
            let mut seats: Vec<Option<PlayerId>> = vec![None; w];
            let mut used = vec![false; w];
            for (j, &bj) in b.iter().enumerate().take(w.min(4)) {
                let mut want = (a[i % 4] + bj) % 4;
                // 3-player groups: skip missing or taken in-group places.
                while want >= w || used[want] {
                    want = (want + 1) % 4;
                }
                seats[j] = Some(t[want]);
                used[want] = true;
            }
            seats.into_iter().flatten().collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::seating::test_util::*;
    use crate::domain::seating::{draw_round, SeatingMethod};
    use proptest::prelude::*;

    type Round = (Vec<Vec<PlayerId>>, Vec<Vec<PlayerId>>);

    fn check_perfect(rounds: &[Round]) {
        let mut table_pairs = BTreeSet::new();
        let mut group_pairs = BTreeSet::new();
        let mut all_tables = BTreeSet::new();
        for (tables, _) in rounds {
            for t in tables {
                all_tables.insert(sorted_ids(t));
                for (i, &a) in t.iter().enumerate() {
                    for &b in &t[i + 1..] {
                        assert!(table_pairs.insert(crate::domain::seating::ordered(a, b)));
                    }
                }
            }
        }
        for (tables, groups) in rounds {
            for g in groups {
                assert!(!all_tables.contains(&sorted_ids(g)), "group equals a table");
                for t in tables {
                    assert_eq!(t.iter().filter(|p| g.contains(p)).count(), 1);
                }
                for (i, &a) in g.iter().enumerate() {
                    for &b in &g[i + 1..] {
                        assert!(group_pairs.insert(crate::domain::seating::ordered(a, b)));
                    }
                }
            }
        }
        if rounds.len() == 5 {
            assert_eq!(table_pairs.len(), 120);
            assert_eq!(group_pairs.len(), 120);
        }
    }

    #[test]
    fn spreads_are_spreads_and_matched() {
        for set in [BRIDGE16_TABLES, BRIDGE16_GROUPS] {
            let mut nonzero = BTreeSet::new();
            for s in &set {
                for &x in &s[1..] {
                    assert!(nonzero.insert(x));
                }
                // Closed under XOR.
                for &x in s {
                    for &y in s {
                        assert!(s.contains(&(x ^ y)));
                    }
                }
            }
            assert_eq!(nonzero.len(), 15);
        }
        for (u, w) in BRIDGE16_TABLES.iter().zip(&BRIDGE16_GROUPS) {
            assert_eq!(u.iter().filter(|x| w.contains(x)).count(), 1);
        }
    }

    #[test]
    fn sixteen_player_bridge_event() {
        let mut inp = input(SeatingMethod::Bridge, 16);
        inp.options
            .insert("rounds_remaining".into(), serde_json::json!(5));
        let mut rounds = Vec::new();
        let mut seat_of: HashMap<PlayerId, Vec<u32>> = HashMap::new();
        for r in 1..=5u32 {
            inp.round = r;
            let d = draw_round(&inp, &mut rng(r as u8 + 40)).unwrap();
            assert_eq!(d.report.repeat_count, 0);
            assert!(d.report.bridge_repeat_meetings.is_empty());
            for g in &d.bridge_groups {
                for p in &g.players {
                    let t = d.tables.iter().find(|t| t.seats.contains(p)).unwrap();
                    assert_eq!(t.seats[g.seat as usize - 1], *p, "same seat in group");
                }
            }
            let deal = d.shared_deal.clone().unwrap();
            for t in &d.tables {
                assert_eq!(
                    t.starting_player,
                    Some(t.seats[deal.starting_seat as usize - 1])
                );
                for (s, p) in t.seats.iter().enumerate() {
                    seat_of.entry(*p).or_default().push(s as u32 + 1);
                }
            }
            rounds.push((
                d.tables.iter().map(|t| t.seats.clone()).collect::<Vec<_>>(),
                d.bridge_groups
                    .iter()
                    .map(|g| g.players.clone())
                    .collect::<Vec<_>>(),
            ));
            inp.history
                .tables
                .extend(d.tables.iter().map(|t| t.seats.clone()));
            inp.history
                .bridge_groups
                .extend(d.bridge_groups.iter().map(|g| g.players.clone()));
            inp.plan = d.plan.clone();
        }
        check_perfect(&rounds);
        // Balanced seats: nobody on the same seat more than 3 times in 5 rounds (the seat draw
        // is made round by round, so 2 cannot be promised), and everyone sits on 2+ seats.
        for seats in seat_of.values() {
            for s in 1..=4 {
                assert!(seats.iter().filter(|&&x| x == s).count() <= 3, "{seats:?}");
            }
            let distinct: BTreeSet<u32> = seats.iter().copied().collect();
            assert!(distinct.len() >= 2);
        }
    }

    #[test]
    fn final_groups_one_of_each_place() {
        let mut inp = input(SeatingMethod::Bridge, 16);
        inp.options.insert("final".into(), serde_json::json!(true));
        for seed in 0..10 {
            let d = draw_round(&inp, &mut rng(seed)).unwrap();
            assert_eq!(
                sorted_tables(&d),
                vec![
                    vec![1, 2, 3, 4],
                    vec![5, 6, 7, 8],
                    vec![9, 10, 11, 12],
                    vec![13, 14, 15, 16]
                ]
            );
            for g in &d.bridge_groups {
                let mut in_group_places: Vec<i64> =
                    g.players.iter().map(|p| (p.0 - 1) % 4).collect();
                in_group_places.sort();
                assert_eq!(in_group_places, vec![0, 1, 2, 3]);
                let mut pgroups: Vec<i64> = g.players.iter().map(|p| (p.0 - 1) / 4).collect();
                pgroups.sort();
                assert_eq!(pgroups, vec![0, 1, 2, 3]);
            }
        }
    }

    #[test]
    fn final_with_three_player_tables() {
        let mut inp = input(SeatingMethod::Bridge, 6);
        inp.options.insert("final".into(), serde_json::json!(true));
        let d = draw_round(&inp, &mut rng(1)).unwrap();
        assert_each_once(&inp, &d);
        assert_eq!(d.bridge_groups.len(), 3);
    }

    #[test]
    fn golden_bridge_round_one() {
        let mut inp = input(SeatingMethod::Bridge, 16);
        inp.options
            .insert("rounds_remaining".into(), serde_json::json!(5));
        let d = draw_round(&inp, &mut rng(21)).unwrap();
        let seats: Vec<Vec<i64>> = d
            .tables
            .iter()
            .map(|t| t.seats.iter().map(|p| p.0).collect())
            .collect();
        let deal = d.shared_deal.unwrap();
        assert_eq!(
            (seats, deal.group_seats, deal.starting_seat),
            golden_bridge()
        );
    }

    fn golden_bridge() -> (Vec<Vec<i64>>, Vec<u32>, u32) {
        (
            vec![
                vec![11, 3, 6, 9],
                vec![4, 10, 16, 8],
                vec![5, 14, 1, 15],
                vec![7, 13, 12, 2],
            ],
            vec![3, 4, 2, 1],
            1,
        )
    }

    #[test]
    fn other_sizes_plan_and_report() {
        let mut inp = input(SeatingMethod::Bridge, 20);
        inp.options
            .insert("rounds_remaining".into(), serde_json::json!(4));
        let d = draw_round(&inp, &mut rng(3)).unwrap();
        assert_eq!(d.bridge_groups.len(), 4);
        assert!(d.bridge_groups.iter().all(|g| g.players.len() == 5));
        assert_eq!(d.plan.as_ref().unwrap().rounds.len(), 3);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn sixteen_player_schedule_is_perfect(seed in any::<u8>(), rounds in 1u32..=5) {
            let players: Vec<PlayerId> = (100..116).map(PlayerId).collect();
            let s = plan_bridge_schedule(&players, rounds, &History::default(), &mut rng(seed)).unwrap();
            prop_assert_eq!(s.rounds.len(), rounds as usize);
            let rs: Vec<_> = s.rounds.iter().map(|r| (r.tables.clone(), r.bridge_groups.clone())).collect();
            check_perfect(&rs);
        }
    }
}
