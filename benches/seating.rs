//! Criterion benchmarks of the seating engine (issue 4 targets):
//! - a 4-player Swiss round for 1,000 players (250 tables), after 3 random rounds;
//! - a 2-player Swiss round for 1,000 and for 4,096 entrants after 6 simulated rounds;
//! - a full random-without-repeats plan for 100 players over 8 rounds;
//! - a seeded round of 64 players in four groups: the first (no history, so the lookahead
//!   stops at once) as the reference, and the fourth (the lookahead at its limit);
//! - seeded and fixed seeded round 2 of 1,000 players in four groups, by algorithm 1 (before
//!   issue 44) and algorithm 2, with the 1,000-player Swiss round as the reference.
//!
//! Run: `cargo bench --bench seating -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::collections::BTreeMap;
use std::hint::black_box;
use tourney::domain::ids::PlayerId;
use tourney::domain::rng::DrawRng;
use tourney::domain::seating::{
    draw_round, plan_random_schedule, DrawInput, History, PlayerEntry, SeatingMethod, Standing,
    SEATING_ALGORITHM,
};

fn base_input(method: SeatingMethod, n: usize) -> DrawInput {
    DrawInput {
        algorithm: SEATING_ALGORITHM,
        round: 1,
        method,
        players: (1..=n as i64).map(PlayerEntry::new).collect(),
        standings: vec![],
        history: History::default(),
        options: BTreeMap::new(),
        plan: None,
        teams: vec![],
    }
}

/// 1,000 players after 3 rounds of random tables, standings in a random order.
fn swiss4_input() -> DrawInput {
    let n = 1000;
    let mut rng = DrawRng::from_seed([1; 32]);
    let mut inp = base_input(SeatingMethod::Swiss, n);
    for _ in 0..3 {
        let mut ids: Vec<PlayerId> = (1..=n as i64).map(PlayerId).collect();
        rng.shuffle(&mut ids);
        inp.history.tables.extend(ids.chunks(4).map(|c| c.to_vec()));
    }
    let mut order: Vec<PlayerId> = (1..=n as i64).map(PlayerId).collect();
    rng.shuffle(&mut order);
    inp.standings = order
        .into_iter()
        .enumerate()
        .map(|(i, p)| Standing {
            player: p,
            place: i as u32 + 1,
            score: None,
        })
        .collect();
    inp
}

/// `n` entrants after 6 rounds of 2-player Swiss with random results (win 3, loss 0).
pub fn swiss2_input(n: usize) -> DrawInput {
    let mut rng = DrawRng::from_seed([2; 32]);
    let mut inp = base_input(SeatingMethod::Swiss2p, n);
    let mut score: BTreeMap<PlayerId, u32> = (1..=n as i64).map(|i| (PlayerId(i), 0)).collect();
    for round in 1..=6 {
        inp.round = round;
        inp.standings = standings(&score);
        let d = draw_round(&inp, &mut rng).expect("draw");
        for t in &d.tables {
            let winner = t.seats[rng.index(2)];
            *score.get_mut(&winner).expect("player") += 3;
            inp.history.pairings.push([t.seats[0], t.seats[1]]);
        }
        for b in &d.byes {
            *score.get_mut(b).expect("player") += 3;
            inp.history.byes.push(*b);
        }
    }
    inp.round = 7;
    inp.standings = standings(&score);
    inp
}

fn standings(score: &BTreeMap<PlayerId, u32>) -> Vec<Standing> {
    let mut v: Vec<(u32, PlayerId)> = score.iter().map(|(&p, &s)| (s, p)).collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    for (i, &(s, p)) in v.iter().enumerate() {
        let place = if i > 0 && v[i - 1].0 == s {
            out.last().map(|x: &Standing| x.place).unwrap_or(1)
        } else {
            i as u32 + 1
        };
        out.push(Standing {
            player: p,
            place,
            score: Some(s as f64),
        });
    }
    out
}

fn benches(c: &mut Criterion) {
    let swiss4 = swiss4_input();
    let d = draw_round(&swiss4, &mut DrawRng::from_seed([3; 32])).expect("draw");
    eprintln!(
        "swiss4 1000: {} tables, {} repeat meetings",
        d.tables.len(),
        d.report.repeat_count
    );
    c.bench_function("swiss4_round_1000_players", |b| {
        b.iter(|| draw_round(black_box(&swiss4), &mut DrawRng::from_seed([3; 32])))
    });
    for n in [1000usize, 4096] {
        let inp = swiss2_input(n);
        let d = draw_round(&inp, &mut DrawRng::from_seed([4; 32])).expect("draw");
        eprintln!(
            "swiss_2p {n} after 6 rounds: {} tables, {} repeat pairings, {} byes",
            d.tables.len(),
            d.report.repeat_count,
            d.byes.len()
        );
        c.bench_function(&format!("swiss2p_round7_{n}_entrants"), |b| {
            b.iter(|| draw_round(black_box(&inp), &mut DrawRng::from_seed([4; 32])))
        });
    }
    let players: Vec<PlayerId> = (1..=100).map(PlayerId).collect();
    c.bench_function("random_plan_100_players_8_rounds", |b| {
        b.iter(|| {
            plan_random_schedule(
                black_box(&players),
                8,
                &History::default(),
                &mut DrawRng::from_seed([5; 32]),
            )
        })
    });
}

/// 64 players in four seeding groups, with the seeded rounds before `round` in the history.
fn seeded_input(round: u32) -> DrawInput {
    let mut inp = base_input(SeatingMethod::RandomSeeded, 64);
    for p in &mut inp.players {
        p.seeding_group = Some(((p.id.0 - 1) / 16) as u32 + 1);
    }
    for r in 1..round {
        inp.round = r;
        let d = draw_round(&inp, &mut DrawRng::from_seed([r as u8; 32])).expect("draw");
        inp.history
            .tables
            .extend(d.tables.iter().map(|t| t.seats.clone()));
    }
    inp.round = round;
    inp
}

fn seeded_benches(c: &mut Criterion) {
    for round in [1u32, 4] {
        let inp = seeded_input(round);
        let d = draw_round(&inp, &mut DrawRng::from_seed([6; 32])).expect("draw");
        eprintln!(
            "random_seeded 64 round {round}: {} repeat meetings",
            d.report.repeat_count
        );
        c.bench_function(&format!("random_seeded_64_players_round_{round}"), |b| {
            b.iter(|| draw_round(black_box(&inp), &mut DrawRng::from_seed([6; 32])))
        });
    }
}

/// 1,000 players in four seeding groups of 250 (250 tables), round 2 after a first round that
/// seated member k of every group at table k (so round 2 must split every first-round table).
fn seeded_1000_input(method: SeatingMethod) -> DrawInput {
    let n = 1000usize;
    let y = n / 4;
    let mut inp = base_input(method, n);
    for p in &mut inp.players {
        p.seeding_group = Some(((p.id.0 - 1) as usize / y) as u32 + 1);
    }
    let mut rng = DrawRng::from_seed([7; 32]);
    let mut groups: Vec<Vec<PlayerId>> = (0..4)
        .map(|g| (1..=y as i64).map(|k| PlayerId(g * y as i64 + k)).collect())
        .collect();
    for g in &mut groups {
        rng.shuffle(g);
    }
    inp.history.tables = (0..y)
        .map(|t| groups.iter().map(|g| g[t]).collect())
        .collect();
    inp.round = 2;
    inp
}

/// Seeded draws of 1,000 players (issue 44), with the Swiss round of 1,000 as the reference
/// measured in the same run.
fn seeded_1000_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("seeded_1000");
    group.sample_size(10);
    let swiss4 = swiss4_input();
    group.bench_function("reference_swiss4_round_1000_players", |b| {
        b.iter(|| draw_round(black_box(&swiss4), &mut DrawRng::from_seed([3; 32])))
    });
    // Algorithm 1 is the engine before issue 44 (still used to recompute old draws): the
    // "before" of docs/performance.md, measured in the same run as the "after".
    for method in [SeatingMethod::FixedSeeded, SeatingMethod::RandomSeeded] {
        for algorithm in [1, SEATING_ALGORITHM] {
            let mut inp = seeded_1000_input(method);
            inp.algorithm = algorithm;
            let d = draw_round(&inp, &mut DrawRng::from_seed([8; 32])).expect("draw");
            eprintln!(
                "{method} 1000 round 2, algorithm {algorithm}: {} repeat meetings, bound {:?}, proven {:?}",
                d.report.repeat_count, d.report.repeats_lower_bound, d.report.repeats_proven_minimal
            );
            group.bench_function(
                format!("{method}_1000_players_round_2_algorithm_{algorithm}"),
                |b| b.iter(|| draw_round(black_box(&inp), &mut DrawRng::from_seed([8; 32]))),
            );
        }
    }
    group.finish();
}

criterion_group!(seating, benches, seeded_benches, seeded_1000_benches);
criterion_main!(seating);
