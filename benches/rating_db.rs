//! Ratings through PostgreSQL and HTTP at the sizes of issue 6: a pool of 100,000 players and
//! 1,000,000 rated 2-player games.
//!
//! What it does, in order (one run, all printed):
//! 1. starts an embedded PostgreSQL 15 cluster in a temporary folder with the service's own
//!    durable settings (fsync on), migrates it, and starts the service in-process on a free
//!    port (release build, 2 workers);
//! 2. creates the pool over HTTP (`ashes_poland` parameters, not a league) and seeds players,
//!    tournaments, completed rounds and one result per table with SQL (10 rounds of 1,000
//!    tables per tournament, random pairs from a fixed seed, decisive games);
//! 3. times the full rebuild, `POST /rating-pools/{id}/rebuild` (the admin command), over HTTP;
//! 4. times corrections of a result in the pool's last round as the results code applies them:
//!    one transaction that stores the new result version and calls
//!    `services::ratings::round_results_changed` (as `PUT .../result` does), committed;
//! 5. measures leaderboard pages over HTTP with criterion (first page, a page by offset, a deep
//!    page and a country filter's page by cursor, and a 304 answer to `If-None-Match`).
//!
//! Run: `cargo bench --bench rating_db` (about 5 minutes on 2 cores). Sizes can be lowered
//! with `TOURNEY_BENCH_PLAYERS` and `TOURNEY_BENCH_GAMES` (a multiple of 10,000).
//! Figures go into `docs/performance.md`; nothing here asserts a time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use criterion::Criterion;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Int4, Int8};
use serde_json::{json, Value};
use tourney::auth::JwtKeys;
use tourney::db::embedded::{Durability, EmbeddedPostgres};
use tourney::domain::{RoundId, TournamentId};
use tourney::runtime::state::AppState;

const TABLES_PER_ROUND: usize = 1000;
const ROUNDS_PER_TOURNAMENT: usize = 10;
const PASSWORD: &str = "bench password 1";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A minimal HTTP/1.1 keep-alive client (one connection), so the client adds as little as
/// possible to what is measured.
struct Http {
    addr: String,
    stream: BufReader<TcpStream>,
}

struct Answer {
    status: u16,
    etag: Option<String>,
    body: Vec<u8>,
}

/// The path of the page of 50 lines after the first `depth` lines of the listing `first` (a path
/// ending in `?` or `&`), found by following `next_cursor` in pages of 200.
fn after(http: &mut Http, first: &str, depth: i64) -> String {
    let mut cursor = String::new();
    let mut seen = 0;
    while seen < depth {
        let path = format!("{first}limit=200{cursor}");
        let a = http.send("GET", &path, &[], "");
        assert_eq!(a.status, 200, "{path}");
        let page = a.json();
        seen += page["items"].as_array().map_or(0, |i| i.len() as i64);
        let next = page["next_cursor"].as_str().expect("a next page");
        cursor = format!("&cursor={next}");
    }
    format!("{first}limit=50{cursor}")
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

impl Http {
    fn connect(addr: &str) -> Self {
        let s = TcpStream::connect(addr).expect("connect to the service");
        s.set_nodelay(true).expect("nodelay");
        Self {
            addr: addr.to_string(),
            stream: BufReader::new(s),
        }
    }

    fn send(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if !body.is_empty() {
            req.push_str("Content-Type: application/json\r\n");
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        let mut line = String::new();
        // The server closes a connection left idle (seeding, corrections): reconnect once.
        for attempt in 0..2 {
            let sent = self.stream.get_mut().write_all(req.as_bytes()).is_ok();
            if sent && self.stream.read_line(&mut line).unwrap_or(0) > 0 {
                break;
            }
            assert_eq!(attempt, 0, "the service closed the connection twice");
            *self = Self::connect(&self.addr.clone());
        }
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {line:?}"));
        let mut length = 0usize;
        let mut etag = None;
        loop {
            line.clear();
            self.stream.read_line(&mut line).expect("header line");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').expect("a header");
            match k.to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse().expect("content-length"),
                "transfer-encoding" => panic!("chunked answers are not handled here"),
                "etag" => etag = Some(v.trim().to_string()),
                _ => {}
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).expect("body");
        Answer { status, etag, body }
    }
}

fn stats(label: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    println!(
        "{label}: n={} min {:.1} ms, median {:.1} ms, max {:.1} ms",
        ms.len(),
        ms[0],
        median,
        ms[ms.len() - 1]
    );
}

/// Corrects a table of a round as the results code does: one transaction that stores a new
/// result version (winner and loser swapped) and feeds the round to the pool, committed.
fn correct(conn: &mut PgConnection, tournament_id: i64, round_id: i64, table: i32) {
    conn.transaction::<_, diesel::result::Error, _>(|conn| {
        diesel::sql_query(
            "INSERT INTO results (round_id, table_number, version, seats, entered_by)
             SELECT round_id, table_number, version + 1,
                    jsonb_build_array(
                      jsonb_set(seats -> 1, '{outcome}', seats -> 0 -> 'outcome'),
                      jsonb_set(seats -> 0, '{outcome}', seats -> 1 -> 'outcome')),
                    entered_by
             FROM results WHERE round_id = $1 AND table_number = $2
             ORDER BY version DESC LIMIT 1",
        )
        .bind::<Int8, _>(round_id)
        .bind::<Int4, _>(table)
        .execute(conn)?;
        tourney::services::ratings::round_results_changed(
            conn,
            TournamentId(tournament_id),
            RoundId(round_id),
        )
        .expect("round_results_changed");
        Ok(())
    })
    .expect("correction");
}

fn main() {
    let players = env_usize("TOURNEY_BENCH_PLAYERS", 100_000);
    let games = env_usize("TOURNEY_BENCH_GAMES", 1_000_000);
    let per_tournament = TABLES_PER_ROUND * ROUNDS_PER_TOURNAMENT;
    assert!(
        games >= per_tournament && games % per_tournament == 0,
        "TOURNEY_BENCH_GAMES must be a multiple of {per_tournament}"
    );
    let tournaments = games / per_tournament;

    // 1. The cluster and the service.
    let base = std::env::temp_dir().join(format!("tourney-bench-{:016x}", rand::random::<u64>()));
    std::fs::create_dir_all(&base).expect("bench folder");
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut pg =
        EmbeddedPostgres::start(&base.join("postgres"), Durability::Persistent).expect("postgres");
    pg.ensure_database("bench", None).expect("database");
    let url = pg.url("bench");
    tourney::runtime::startup::migrate(&url).expect("migrate");
    let pool = tourney::db::pool(&url, 8).expect("pool");
    {
        let mut conn = pool.get().expect("connection");
        tourney::services::accounts::users::create_user(&mut conn, "admin", PASSWORD, true)
            .expect("admin");
    }
    let state = AppState {
        pool: pool.clone(),
        replica: None,
        jwt: JwtKeys::new(
            b"bench secret bench secret bench!!",
            Duration::from_secs(3600),
        ),
        leaderboards: Default::default(),
        login_throttle: Default::default(),
        // The benchmarks measure the service, not its limits.
        rate_limits: tourney::infra::ratelimit::RateLimiter::new(
            tourney::infra::ratelimit::Limits {
                read: u32::MAX,
                write: u32::MAX,
                auth: u32::MAX,
                search_micros: 0,
            },
        ),
        accounts: Default::default(),
        circuit: Default::default(),
        live: tourney::infra::live::LiveHub::new(&url),
        standings: Default::default(),
        kept: Default::default(),
        search: Default::default(),
        clock: Default::default(),
        webhooks: Default::default(),
        metrics: Default::default(),
        archive_keys: tourney::services::archives::ArchiveKeys::derived(
            b"bench secret bench secret bench!!",
            Vec::new(),
        ),
        hall: tourney::auth::table_codes::HallKeys::derived(b"bench secret bench secret bench!!"),
        signup: Default::default(),
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            tourney::app::serve(listener, state, Some(2))
                .expect("server")
                .await
                .expect("serve")
        })
    });
    let mut http = Http::connect(&addr);
    let token = http
        .send(
            "POST",
            "/api/v1/auth/token",
            &[],
            &json!({"username": "admin", "password": PASSWORD}).to_string(),
        )
        .json()["access_token"]
        .as_str()
        .expect("a token")
        .to_string();
    let auth = format!("Bearer {token}");
    let created = http.send(
        "POST",
        "/api/v1/rating-pools",
        &[("Authorization", &auth)],
        &json!({"name": "Bench", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"})
            .to_string(),
    );
    assert_eq!(created.status, 201, "create the pool");
    let pool_id = created.json()["id"].as_i64().expect("pool id");

    // 2. Seed with SQL.
    let started = Instant::now();
    let mut conn = pool.get().expect("connection");
    conn.batch_execute(&format!(
        "SELECT setseed(0.42);
         INSERT INTO players (name, club, country, created_by)
         SELECT 'Player ' || g, 'Club ' || (g % 500),
                CASE WHEN g % 3 = 0 THEN 'PL' ELSE 'DE' END, (SELECT min(id) FROM users)
         FROM generate_series(1, {players}) g;
         INSERT INTO tournaments (name, game, ruleset, table_size, planned_rounds, starts_on,
                                  ends_on, time_zone, status, created_by, rating_pool_id,
                                  rating_status)
         SELECT 'Bench ' || t, 'Ashes', 'ashes_league', 2, {ROUNDS_PER_TOURNAMENT},
                date '2026-01-01' + t, date '2026-01-01' + t, 'Europe/Warsaw', 'finished',
                (SELECT min(id) FROM users), {pool_id}, 'accepted'
         FROM generate_series(1, {tournaments}) t;
         INSERT INTO rounds (tournament_id, number, kind, method, seed, seed_commitment,
                             draw, created_by, status, completed_at, played_at)
         SELECT t.id, n, 'preliminary', 'random', '00', '00', '{{}}'::json,
                (SELECT min(id) FROM users), 'completed',
                (t.starts_on + time '09:00') AT TIME ZONE 'UTC' + n * interval '1 hour',
                (t.starts_on + time '09:00') AT TIME ZONE 'UTC' + n * interval '1 hour'
         FROM tournaments t, generate_series(1, {ROUNDS_PER_TOURNAMENT}) n;
         INSERT INTO results (round_id, table_number, version, seats, entered_by)
         SELECT rid, k, 1,
                jsonb_build_array(
                  jsonb_build_object('player', p0 + a, 'score', 10, 'outcome', 'win'),
                  jsonb_build_object('player', p0 + (a + off) % {players}, 'score', 4,
                                     'outcome', 'loss')),
                (SELECT min(id) FROM users)
         FROM (SELECT r.id AS rid, k, (SELECT min(id) FROM players) AS p0,
                      floor(random() * {players})::int AS a,
                      1 + floor(random() * ({players} - 1))::int AS off
               FROM rounds r, generate_series(1, {TABLES_PER_ROUND}) k) x;
         ANALYZE;"
    ))
    .expect("seed");
    println!(
        "seeded {players} players, {tournaments} tournaments, {} rounds, {games} results in {:.1} s",
        tournaments * ROUNDS_PER_TOURNAMENT,
        started.elapsed().as_secs_f64()
    );

    // 3. The full rebuild, over HTTP.
    let rebuilds = env_usize("TOURNEY_BENCH_REBUILDS", 2);
    let mut times = Vec::new();
    for _ in 0..rebuilds {
        let started = Instant::now();
        let a = http.send(
            "POST",
            &format!("/api/v1/rating-pools/{pool_id}/rebuild"),
            &[("Authorization", &auth)],
            "",
        );
        let took = started.elapsed();
        assert_eq!(
            a.status,
            200,
            "rebuild: {}",
            String::from_utf8_lossy(&a.body)
        );
        println!(
            "full rebuild: {:.1} s, answer {}",
            took.as_secs_f64(),
            String::from_utf8_lossy(&a.body)
        );
        times.push(took.as_secs_f64() * 1000.0);
    }
    stats("full rebuild (ms)", times);

    // 4. Corrections in the last round: the first, a middle and the last table (the replay
    // runs from the corrected table to the end of the pool's log).
    #[derive(QueryableByName)]
    struct LastRound {
        #[diesel(sql_type = Int8)]
        round_id: i64,
        #[diesel(sql_type = Int8)]
        tournament_id: i64,
    }
    let last: LastRound = diesel::sql_query(
        "SELECT id AS round_id, tournament_id FROM rounds
         ORDER BY completed_at DESC, id DESC LIMIT 1",
    )
    .get_result(&mut conn)
    .expect("last round");
    let corrections = env_usize("TOURNEY_BENCH_CORRECTIONS", 10);
    for table in [1, TABLES_PER_ROUND as i32 / 2, TABLES_PER_ROUND as i32] {
        let mut times = Vec::new();
        for _ in 0..corrections {
            let started = Instant::now();
            correct(&mut conn, last.tournament_id, last.round_id, table);
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        stats(
            &format!("correction of table {table} of the last round"),
            times,
        );
    }
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let changed: Count = diesel::sql_query(
        "SELECT count(*) AS n FROM rating_changes WHERE pool_id = $1 AND result_version > 1",
    )
    .bind::<Int8, _>(pool_id)
    .get_result(&mut conn)
    .expect("count");
    println!(
        "log rows rated from a corrected version: {} (2 per corrected table expected)",
        changed.n
    );

    // The first leaderboard read after a change reloads the pool's board (the service caches
    // it per leaderboard version); the reads after it are the criterion figures below.
    let first_page = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let mut cold = Vec::new();
    for _ in 0..5 {
        correct(
            &mut conn,
            last.tournament_id,
            last.round_id,
            TABLES_PER_ROUND as i32,
        );
        let started = Instant::now();
        assert_eq!(http.send("GET", &first_page, &[], "").status, 200);
        cold.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    stats("first leaderboard page after a change", cold);

    // 5. Leaderboard pages over HTTP.
    let mut c = Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    // Deep pages are reached by cursor (offset stops at 10,000): the walk there is not timed.
    let board = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let pages = [
        ("first_page", board.clone()),
        (
            "offset_page",
            format!("{board}?offset={}&limit=50", (players / 20).min(10_000)),
        ),
        (
            "deep_page_by_cursor",
            after(&mut http, &format!("{board}?"), players as i64 / 2),
        ),
        (
            "country_pl_by_cursor",
            after(&mut http, &format!("{board}?country=PL&"), 1000),
        ),
    ];
    let mut group = c.benchmark_group(format!("leaderboard_{players}_players"));
    for (name, path) in &pages {
        let first = http.send("GET", path, &[], "");
        assert_eq!(first.status, 200, "{path}");
        let total = first.json()["total"].as_i64().unwrap_or(0);
        println!("{name}: {} bytes, total {total}", first.body.len());
        group.bench_function(*name, |b| {
            b.iter(|| {
                let a = http.send("GET", path, &[], "");
                assert_eq!(a.status, 200);
                a.body.len()
            })
        });
        // Signed in, a read is not answered from the instance's kept bodies: the pool's
        // versions are read and the page is cut from the board (what the cursor changes).
        group.bench_function(format!("{name}_signed_in"), |b| {
            b.iter(|| {
                let a = http.send("GET", path, &[("Authorization", &auth)], "");
                assert_eq!(a.status, 200);
                a.body.len()
            })
        });
    }
    let etag = http
        .send("GET", &pages[0].1, &[], "")
        .etag
        .expect("an ETag");
    group.bench_function("if_none_match_304", |b| {
        b.iter(|| {
            let a = http.send("GET", &pages[0].1, &[("If-None-Match", &etag)], "");
            assert_eq!(a.status, 304);
        })
    });
    group.finish();
    c.final_summary();

    drop(conn);
    drop(pool);
    pg.stop();
    let _ = std::fs::remove_dir_all(&base);
}
