//! The search index of the registry's names (issue 42): the searches a person makes as they
//! type, over 100,000 names spread as `scripts/registry_load.py`'s `NAMES=varied` spreads
//! them (a first name of two syllables, a surname of three, each drawn from 16, and a number).
//! Each bench answers a batch of distinct searches (every keystroke from the third letter of
//! a few hundred names, and those names in full) as `GET /players?q=..&limit=20` asks them:
//! ranked, a page of 21, counted to 1,001.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tourney::domain::rng::DrawRng;
use tourney::infra::search::{NameRow, Names, Order, Query, Words};

const SYLLABLES: [&str; 16] = [
    "kar", "ø", "sten", "ma", "lu", "kasz", "ber", "gå", "ni", "sø", "ri", "ta", "je", "ló", "vik",
    "ha",
];

/// The syllables as `tourney_fold` leaves them (lower case, no marks).
fn folded(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'ø' => 'o',
            'å' => 'a',
            'ó' => 'o',
            c => c,
        })
        .collect()
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn names(n: i64, rng: &mut DrawRng) -> Vec<NameRow> {
    (1..=n)
        .map(|id| {
            let s: Vec<&str> = (0..5).map(|_| SYLLABLES[rng.below(16) as usize]).collect();
            let (first, last) = (s[..2].concat(), s[2..].concat());
            NameRow {
                id,
                name: format!("{} {} {id}", cap(&first), cap(&last)),
                folded: format!("{} {} {id}", folded(&first), folded(&last)),
                tag: None,
                shown: None,
            }
        })
        .collect()
}

fn search(index: &Names, q: &str) -> usize {
    let (hits, total) = index.search(&Query::first(q, Order::Ranked, 21, 1_001));
    hits.len() + total
}

fn bench(c: &mut Criterion) {
    let mut rng = DrawRng::from_seed([42; 32]);
    let rows = names(100_000, &mut rng);
    let index = Names::of(rows.clone(), Words::Unicode);
    // 200 names, as typed: the full name (without its number) and every keystroke from the
    // third letter.
    let mut full = Vec::new();
    let mut typed = Vec::new();
    for _ in 0..200 {
        let r = &rows[rng.below(rows.len() as u64) as usize];
        let words: Vec<&str> = r.folded.split(' ').take(2).collect();
        let name = words.join(" ");
        typed.extend((3..=name.len()).map(|k| name[..k].to_string()));
        full.push(r.folded.clone());
    }
    let mut g = c.benchmark_group("search 100,000 names");
    g.sample_size(10);
    g.bench_function("200 full names", |b| {
        b.iter(|| {
            full.iter()
                .map(|q| search(&index, black_box(q)))
                .sum::<usize>()
        })
    });
    g.bench_function(format!("{} keystrokes", typed.len()), |b| {
        b.iter(|| {
            typed
                .iter()
                .map(|q| search(&index, black_box(q)))
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
