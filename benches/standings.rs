//! Standings benchmarks (issue 3): 1,000 players over 10 rounds of 4-player tables, and a
//! Bridge-Agricola event of 64 players over 6 rounds. Target: both under 10 ms.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tourney::domain::ids::PlayerId;
use tourney::domain::rng::DrawRng;
use tourney::domain::scoring::{
    compute_standings, Preset, Purpose, RoundInput, RoundKind, Ruleset, SeatResult, StandingsInput,
    TableResult,
};

fn rounds(players: i64, count: u32, bridge: bool, rng: &mut DrawRng) -> Vec<RoundInput> {
    (1..=count)
        .map(|n| {
            let mut ids: Vec<i64> = (1..=players).collect();
            rng.shuffle(&mut ids);
            let tables: Vec<TableResult> = ids
                .chunks(4)
                .map(|c| TableResult {
                    seats: c
                        .iter()
                        .map(|&p| SeatResult {
                            bonus: rng.below(8) as i64,
                            ..SeatResult::new(PlayerId(p), 20 + rng.below(40) as i64)
                        })
                        .collect(),
                    clarification: None,
                    double_crash: false,
                })
                .collect();
            // Bridge groups: within each block of 4 tables, seat s of every table.
            let bridge_groups = if bridge {
                tables
                    .chunks(4)
                    .flat_map(|block| {
                        (0..4)
                            .map(|s| block.iter().map(|t| t.seats[s].player).collect())
                            .collect::<Vec<Vec<PlayerId>>>()
                    })
                    .collect()
            } else {
                vec![]
            };
            RoundInput {
                number: n,
                kind: if n == count {
                    RoundKind::Final
                } else {
                    RoundKind::Preliminary
                },
                weight: None,
                tables,
                bridge_groups,
                games_per_player: 1,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = DrawRng::from_seed([42; 32]);
    let big = StandingsInput {
        ruleset: Ruleset::preset(Preset::AgricolaNorway),
        players: vec![],
        rounds: rounds(1000, 10, false, &mut rng),
        withdrawals: vec![],
        opt_outs: vec![],
        after_round: None,
        purpose: Purpose::Final,
        lot_order: None,
        decisive_places: 1,
    };
    c.bench_function("agricola_1000_players_10_rounds_final", |b| {
        b.iter(|| compute_standings(black_box(&big), None).expect("valid"))
    });
    let mut seeding = big.clone();
    seeding.purpose = Purpose::Seeding;
    c.bench_function("agricola_1000_players_10_rounds_seeding_with_lot", |b| {
        b.iter(|| {
            let mut g = DrawRng::from_seed([1; 32]);
            compute_standings(black_box(&seeding), Some(&mut g)).expect("valid")
        })
    });
    let bridge = StandingsInput {
        ruleset: Ruleset::preset(Preset::BridgeAgricola),
        players: vec![],
        rounds: rounds(64, 6, true, &mut rng),
        withdrawals: vec![],
        opt_outs: vec![],
        after_round: None,
        purpose: Purpose::Final,
        lot_order: None,
        decisive_places: 1,
    };
    c.bench_function("bridge_64_players_6_rounds_final", |b| {
        b.iter(|| compute_standings(black_box(&bridge), None).expect("valid"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
