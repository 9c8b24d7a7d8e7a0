//! Quality benchmark of the random-without-repeats planner (domain.md 4.1): for each size, the
//! repeat meetings left (each extra meeting of a pair counts one) and the time taken, over a few
//! seeds. Prints a markdown table. Run: `cargo bench --bench schedule_quality`.

use std::time::Instant;
use tourney::domain::ids::PlayerId;
use tourney::domain::rng::DrawRng;
use tourney::domain::seating::{plan_random_schedule, schedule_repeats, History};

fn main() {
    let sizes: [(usize, u32); 8] = [
        (16, 5),
        (20, 5),
        (24, 6),
        (32, 8),
        (32, 9),
        (32, 10),
        (64, 10),
        (100, 8),
    ];
    let seeds = 3u8;
    println!("| players/tables/rounds | repeats per seed | best | mean time |");
    println!("| --- | --- | --- | --- |");
    for (n, rounds) in sizes {
        let players: Vec<PlayerId> = (1..=n as i64).map(PlayerId).collect();
        let mut reps = Vec::new();
        let mut total = 0.0;
        for seed in 0..seeds {
            let mut rng = DrawRng::from_seed([seed; 32]);
            let t = Instant::now();
            let plan = plan_random_schedule(&players, rounds, &History::default(), &mut rng)
                .expect("valid size");
            total += t.elapsed().as_secs_f64();
            reps.push(schedule_repeats(&plan, &History::default()));
        }
        println!(
            "| {}/{}/{} | {:?} | {} | {:.1} ms |",
            n,
            n / 4,
            rounds,
            reps,
            reps.iter().min().unwrap(),
            total / seeds as f64 * 1000.0
        );
    }
}
