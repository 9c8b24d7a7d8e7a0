//! Our trigram index (src/infra/search) against tantivy 0.22 in RAM, over the same generated
//! names and the same distinct queries, one search at a time on one thread.
//!
//! Usage: search-compare <players> [queries per kind, default 2000]
//! See README.md for what is and is not compared.

// The six files of the service's index, included as they are.
#[allow(dead_code)]
#[path = "../../../src/infra/search/codes.rs"]
mod codes;
#[allow(dead_code)]
#[path = "../../../src/infra/search/lists.rs"]
mod lists;
#[allow(dead_code)]
#[path = "../../../src/infra/search/names.rs"]
mod names;
#[allow(dead_code)]
#[path = "../../../src/infra/search/plain.rs"]
mod plain;
#[allow(dead_code)]
#[path = "../../../src/infra/search/trgm.rs"]
mod trgm;
#[allow(dead_code)]
#[path = "../../../src/infra/search/walk.rs"]
mod walk;

use names::{NameRow, Names, Order, Query as OurQuery};
use std::time::{Duration, Instant};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED};
use tantivy::store::Compressor;
use tantivy::tokenizer::{LowerCaser, NgramTokenizer, TextAnalyzer};
use tantivy::{Index, IndexSettings, Searcher, TantivyDocument, Term};

/// The sbench's generator (same constants, same seed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// The CPU time this (main) thread has run, in ns (`/proc/thread-self/schedstat`): on a
/// shared machine the wall time of a search includes the time it waited for a core.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

struct Tv {
    searcher: Searcher,
    analyzer: TextAnalyzer,
    name: tantivy::schema::Field,
    id: tantivy::schema::Field,
}

impl Tv {
    fn build(rows: &[NameRow]) -> tantivy::Result<(Self, u64)> {
        let mut sb = Schema::builder();
        let opts = TextOptions::default()
            .set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("ngram3")
                    .set_index_option(IndexRecordOption::WithFreqs),
            )
            .set_stored();
        let name = sb.add_text_field("name", opts);
        let id = sb.add_i64_field("id", STORED);
        let index = Index::builder()
            .schema(sb.build())
            .settings(IndexSettings {
                docstore_compression: Compressor::None,
                ..IndexSettings::default()
            })
            .create_in_ram()?;
        let analyzer = TextAnalyzer::builder(NgramTokenizer::all_ngrams(3, 3)?)
            .filter(LowerCaser)
            .build();
        index.tokenizers().register("ngram3", analyzer.clone());
        let mut w = index.writer_with_num_threads(1, 512_000_000)?;
        for r in rows {
            let mut d = TantivyDocument::default();
            d.add_text(name, &r.folded);
            d.add_i64(id, r.id);
            w.add_document(d)?;
        }
        w.commit()?;
        let segs = index.searchable_segment_ids()?;
        if segs.len() > 1 {
            w.merge(&segs).wait()?;
        }
        w.wait_merging_threads()?;
        let reader = index.reader()?;
        reader.reload()?;
        let searcher = reader.searcher();
        let bytes = searcher.space_usage()?.total().get_bytes();
        Ok((
            Tv {
                searcher,
                analyzer,
                name,
                id,
            },
            bytes,
        ))
    }

    fn grams(&self, q: &str) -> Vec<String> {
        let mut a = self.analyzer.clone();
        let mut ts = a.token_stream(q);
        let mut out = Vec::new();
        while ts.advance() {
            out.push(ts.token().text.clone());
        }
        out
    }

    /// OR of the query's distinct 3-grams, BM25, top 21 (their id and name read from the
    /// store) and the full count.
    fn search_or(&self, q: &str) -> (usize, usize) {
        let mut g = self.grams(q);
        g.sort();
        g.dedup();
        let clauses: Vec<(Occur, Box<dyn Query>)> = g
            .iter()
            .map(|t| {
                let tq: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(self.name, t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, tq)
            })
            .collect();
        self.run(&BooleanQuery::new(clauses))
    }

    /// The substring arm (`LIKE '%q%'`) as tantivy does it over n-grams: every distinct 3-gram
    /// of the query required (a superset of the names holding the text; tantivy's
    /// NgramTokenizer gives every gram position 0, so a phrase query cannot check the order),
    /// top 21 by BM25 and the full count.
    fn search_and(&self, q: &str) -> (usize, usize) {
        let mut g = self.grams(q);
        g.sort();
        g.dedup();
        let clauses: Vec<(Occur, Box<dyn Query>)> = g
            .iter()
            .map(|t| {
                let tq: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(self.name, t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Must, tq)
            })
            .collect();
        self.run(&BooleanQuery::new(clauses))
    }

    fn run(&self, q: &dyn Query) -> (usize, usize) {
        let (top, count) = self
            .searcher
            .search(q, &(TopDocs::with_limit(21), Count))
            .unwrap();
        let mut hits = 0;
        for (_, addr) in top {
            let d: TantivyDocument = self.searcher.doc(addr).unwrap();
            let _id = d.get_first(self.id).and_then(|v| v.as_i64()).unwrap();
            let nm = d.get_first(self.name).and_then(|v| v.as_str()).unwrap();
            hits += usize::from(!nm.is_empty());
        }
        (hits, count)
    }
}

fn stats(mut t: Vec<Duration>) -> String {
    t.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let mean = t.iter().map(|d| us(*d)).sum::<f64>() / t.len() as f64;
    let p = |f: f64| us(t[((t.len() as f64 * f) as usize).min(t.len() - 1)]);
    format!(
        "mean {:>9.1} p50 {:>9.1} p90 {:>9.1} p99 {:>9.1} max {:>9.1}",
        mean,
        p(0.5),
        p(0.9),
        p(0.99),
        us(t[t.len() - 1])
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().expect("players").parse().unwrap();
    let per_kind: usize = args.next().map(|a| a.parse().unwrap()).unwrap_or(2000);
    let engines: String = std::env::var("ENGINES").unwrap_or_else(|_| "ours,or,and".into());
    let syl = [
        "kar", "o", "sten", "ma", "lu", "kasz", "ber", "ga", "ni", "so", "ri", "ta", "je", "lo",
        "vik", "ha",
    ];
    let mut r = Lcg(7);
    let mut rows = Vec::with_capacity(n);
    for g in 0..n {
        let mut s =
            |k: usize| -> String { (0..k).map(|_| syl[(r.next() % 16) as usize]).collect() };
        let (a, b) = (s(2), s(3));
        let name = format!("{} {} {}", a, b, g);
        rows.push(NameRow {
            id: g as i64,
            folded: name.clone(),
            name,
            tag: None,
            shown: None,
        });
    }
    // The sbench's queries: 2,000 full names, and from each a prefix of 3, 4, 6 letters and
    // "first-word surname-initial".
    let (mut full, mut t3, mut t4, mut t6, mut tw) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..per_kind {
        let nm = rows[(r.next() as usize) % n].folded.clone();
        let w: Vec<&str> = nm.split(' ').collect();
        t3.push(nm[..3].to_string());
        t4.push(nm[..4].to_string());
        t6.push(nm[..6.min(nm.len())].to_string());
        tw.push(format!("{} {}", w[0], &w[1][..1]));
        full.push(nm);
    }
    let distinct = |v: &Vec<String>| {
        let mut d = v.clone();
        d.sort();
        d.dedup();
        d.len()
    };
    println!(
        "players {n}; queries per kind {per_kind} (distinct: full {} t3 {} t4 {} t6 {} w+i {})",
        distinct(&full),
        distinct(&t3),
        distinct(&t4),
        distinct(&t6),
        distinct(&tw)
    );

    let rss0 = rss_kb();
    let t = Instant::now();
    let ours = Names::build(rows.clone());
    let ours_build = t.elapsed();
    let rss1 = rss_kb();
    let t = Instant::now();
    let (tv, tv_bytes) = Tv::build(&rows).unwrap();
    let tv_build = t.elapsed();
    let rss2 = rss_kb();
    println!(
        "build ours   {:>8.0} ms  Names::bytes() {:>6.1} MB  RSS +{:>6.1} MB",
        ours_build.as_secs_f64() * 1e3,
        ours.bytes() as f64 / 1e6,
        (rss1 as f64 - rss0 as f64) / 1e3
    );
    println!(
        "build tantivy {:>7.0} ms  segment files   {:>6.1} MB  RSS +{:>6.1} MB  (1 thread, merged to {} segment(s))",
        tv_build.as_secs_f64() * 1e3,
        tv_bytes as f64 / 1e6,
        (rss2 as f64 - rss1 as f64) / 1e3,
        tv.searcher.segment_readers().len()
    );
    drop(rows);

    let kinds: [(&str, &Vec<String>); 5] = [
        ("full", &full),
        ("pre3", &t3),
        ("pre4", &t4),
        ("pre6", &t6),
        ("word+i", &tw),
    ];
    let only = std::env::var("ONLY").ok();
    for (label, qs) in kinds {
        if only.as_deref().is_some_and(|o| o != label) {
            continue;
        }
        for round in 1..=2 {
            for engine in engines.split(',') {
                let mut times = Vec::with_capacity(qs.len());
                let (mut hits, mut counted) = (0usize, 0usize);
                let cpu0 = cpu_ns();
                for q in qs.iter() {
                    let t = Instant::now();
                    let (h, c) = match engine {
                        "ours" => {
                            let query = OurQuery::first(q, Order::Ranked, 21, 1001);
                            let (h, c) = ours.search(&query);
                            (h.len(), c)
                        }
                        "or" => tv.search_or(q),
                        "and" => tv.search_and(q),
                        e => panic!("engine {e}"),
                    };
                    times.push(t.elapsed());
                    hits += h;
                    counted += c;
                }
                let cpu = (cpu_ns() - cpu0) as f64 / 1e3 / qs.len() as f64;
                println!(
                    "{label:<7} r{round} {engine:<5} {}  cpu-mean {cpu:>8.1}  (us)  hits {hits} counted {counted}",
                    stats(times)
                );
            }
        }
    }
}
