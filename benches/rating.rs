//! Replay benchmarks: rating 1,000,000 2-player games and 250,000 4-player tables from scratch,
//! in memory. Run: `cargo bench --bench rating -- --warm-up-time 1 --measurement-time 3`.

use chrono::{DateTime, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use tourney::domain::rating::{
    replay, replay_into, DuelOutcome, GameResult, RatedGame, RatingPoolParams, RatingState, Seat,
};
use tourney::domain::rng::DrawRng;

const PLAYERS: u32 = 10_000;

fn at(i: usize) -> DateTime<Utc> {
    Utc.timestamp_opt(1_500_000_000 + i as i64 * 60, 0).unwrap()
}

fn distinct(rng: &mut DrawRng, k: usize) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::with_capacity(k);
    while v.len() < k {
        let p = rng.below(PLAYERS as u64) as u32;
        if !v.contains(&p) {
            v.push(p);
        }
    }
    v
}

fn duels(n: usize) -> Vec<RatedGame> {
    let mut rng = DrawRng::from_seed([1; 32]);
    (0..n)
        .map(|i| {
            let p = distinct(&mut rng, 2);
            let outcome = match rng.below(10) {
                0 => DuelOutcome::Draw,
                1..=5 => DuelOutcome::FirstWins,
                _ => DuelOutcome::SecondWins,
            };
            RatedGame {
                id: i as i64,
                at: at(i),
                exclusion: None,
                result: GameResult::Duel {
                    first: p[0],
                    second: p[1],
                    outcome,
                },
            }
        })
        .collect()
}

fn tables(n: usize) -> Vec<RatedGame> {
    let mut rng = DrawRng::from_seed([2; 32]);
    (0..n)
        .map(|i| {
            let seats = distinct(&mut rng, 4)
                .into_iter()
                .map(|player| Seat {
                    player,
                    score: (20 + rng.below(40)) as f64,
                })
                .collect();
            RatedGame {
                id: i as i64,
                at: at(i),
                exclusion: None,
                result: GameResult::Table { seats },
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    group.sample_size(10);

    let ashes = RatingPoolParams::ashes_poland();
    let games = duels(1_000_000);
    group.throughput(Throughput::Elements(games.len() as u64));
    group.bench_function("duels_1m_from_scratch", |b| {
        b.iter(|| {
            let start = RatingState::new(&ashes, PLAYERS as usize);
            black_box(replay(&ashes, start, black_box(&games)).unwrap())
        })
    });
    let mut out = Vec::new();
    group.bench_function("duels_1m_reused_buffers", |b| {
        b.iter_batched_ref(
            || RatingState::new(&ashes, PLAYERS as usize),
            |state| {
                out.clear();
                replay_into(&ashes, state, black_box(&games), &mut out).unwrap();
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    drop(games);

    let agricola = RatingPoolParams::agricola_norway();
    let games = tables(250_000);
    group.throughput(Throughput::Elements(games.len() as u64));
    group.bench_function("tables4_250k_from_scratch", |b| {
        b.iter(|| {
            let start = RatingState::new(&agricola, PLAYERS as usize);
            black_box(replay(&agricola, start, black_box(&games)).unwrap())
        })
    });
    out = Vec::new();
    group.bench_function("tables4_250k_reused_buffers", |b| {
        b.iter_batched_ref(
            || RatingState::new(&agricola, PLAYERS as usize),
            |state| {
                out.clear();
                replay_into(&agricola, state, black_box(&games), &mut out).unwrap();
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
