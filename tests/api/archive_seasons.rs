//! Issue 37, item 4: the archives of rated events (draws seated with pool ratings of many
//! decimals) import again, on the instance that wrote them and on another one, for every event
//! of a season, not only the first.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::case_fixtures::{ok, patch_tournament};
use crate::event_fixtures::new_round;
use crate::helpers::{spawn_app, TestApp};

/// A small deterministic generator (SplitMix64): the seed is printed, so a failing case can be
/// played again.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `lo..=hi`.
    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

async fn pool(app: &TestApp, admin: &str, name: &str) -> i64 {
    let body = json!({"name": name, "preset": "agricola_norway", "time_zone": "Europe/Oslo"});
    let r = app.post("/api/v1/rating-pools", Some(admin), body).await;
    ok(r, 201).await["id"].as_i64().unwrap()
}

/// Enters every table of `round` with scores from `score`.
async fn play(app: &TestApp, tid: i64, referee: &str, round: &Value, g: &mut Gen) {
    let n = round["number"].as_i64().unwrap();
    for t in round["draw"]["tables"].as_array().unwrap() {
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({"player_id": p, "score": g.between(20, 60)}))
            .collect();
        let path = format!(
            "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
            t["number"]
        );
        ok(
            app.put(&path, Some(referee), json!({"seats": seats})).await,
            200,
        )
        .await;
    }
}

/// A season of `events` rated Agricola events of the same players in one new pool of `a` (a
/// random round, then a Swiss round each, scores 20-60): the players seat by their pool
/// ratings. Returns the pool and the events' archives, oldest first.
async fn season(
    a: &TestApp,
    g: &mut Gen,
    name: &str,
    players: usize,
    events: usize,
) -> (i64, Vec<Value>) {
    let admin = a.admin_token().await;
    let pool = pool(a, &admin, name).await;
    let tag: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    let (org, referee) = (format!("org{tag}"), format!("ref{tag}"));
    let (_, org) = a.user(&org).await;
    let (referee_id, referee) = a.user(&referee).await;
    let mut ids = Vec::new();
    for i in 0..players {
        let body = json!({"name": format!("{name} player {:02}", i + 1)});
        let r = a.post("/api/v1/players", Some(&admin), body).await;
        ids.push(ok(r, 201).await["id"].as_i64().unwrap());
    }
    let mut archives = Vec::new();
    for _ in 0..events {
        let tid = a.tournament(&org, "agricola_norway").await;
        let body = json!({"user_id": referee_id, "role": "referee"});
        let path = format!("/api/v1/tournaments/{tid}/staff");
        ok(a.post(&path, Some(&org), body).await, 201).await;
        patch_tournament(
            a,
            tid,
            &org,
            json!({"status": "registration_open", "rating_pool_id": pool}),
        )
        .await;
        a.accept_rating(pool, tid).await;
        for p in &ids {
            // No seeding rating: the draw reads the pool's ratings.
            let path = format!("/api/v1/tournaments/{tid}/registrations");
            ok(
                a.post(&path, Some(&org), json!({"player_id": p})).await,
                201,
            )
            .await;
        }
        for method in ["random", "swiss"] {
            let round = new_round(a, tid, &org, json!({"method": method})).await;
            play(a, tid, &referee, &round, g).await;
        }
        let path = format!("/api/v1/tournaments/{tid}/archive");
        archives.push(ok(a.get(&path, Some(&org)).await, 200).await);
    }
    (pool, archives)
}

/// Some pool rating in a draw input has more than 12 significant digits (what the export used
/// to change in the last digit).
fn has_long_ratings(archive: &Value) -> bool {
    archive["content"]["round_draws"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| {
            d["draw_input"]["players"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|p| p["rating"].as_f64())
        .any(|r| {
            let digits = r.to_string().chars().filter(char::is_ascii_digit).count();
            digits > 12
        })
}

fn board_rows(board: &Value) -> Vec<Value> {
    board["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["player_name"], r["rating"], r["games"], r["rank"]]))
        .collect()
}

async fn board(app: &TestApp, pool: i64) -> Vec<Value> {
    let path =
        format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true&limit=200");
    board_rows(&ok(app.get(&path, None).await, 200).await)
}

/// Imports `archives` in order into `pool` of `b` (None: copies without a pool), one player
/// map across them (the same people in every event).
async fn import_all(b: &TestApp, archives: &[Value], pool: Option<i64>, key: &str) {
    let admin = b.admin_token().await;
    let mut map: HashMap<String, i64> = HashMap::new();
    for (i, archive) in archives.iter().enumerate() {
        let body = json!({"archive": archive, "player_map": map, "rating_pool_id": pool,
                          "trust_key": key});
        let r = b
            .post("/api/v1/tournament-imports", Some(&admin), body)
            .await;
        let status = r.status().as_u16();
        let out: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "event {} of the season: {out}", i + 1);
        for m in out["players"].as_array().unwrap() {
            map.insert(m["archive_id"].to_string(), m["id"].as_i64().unwrap());
        }
    }
}

/// The season: four rated Agricola events of eight players in one pool. Every event's
/// untouched archive imports, on the instance that wrote it and on another one, and the pool
/// there rates them to the same leaderboard.
#[actix_web::test]
async fn every_event_of_a_rated_season_imports_here_and_on_another_instance() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let mut g = Gen(37);
    let (pool_a, archives) = season(&a, &mut g, "Agricola season", 8, 4).await;
    assert!(
        archives[1..].iter().any(has_long_ratings),
        "the later events seat by ratings of many decimals"
    );
    let key_a = a.archive_key().await;
    import_all(&a, &archives, None, &key_a).await;
    let admin_b = b.admin_token().await;
    let pool_b = pool(&b, &admin_b, "Agricola season").await;
    import_all(&b, &archives, Some(pool_b), &key_a).await;
    assert_eq!(board(&a, pool_a).await, board(&b, pool_b).await);
}

/// The property: for random seasons (several pools, several events each, random scores), every
/// event's archive imports on a second instance into a pool of its own, and that pool's
/// leaderboard equals the original's.
#[actix_web::test]
async fn random_rated_seasons_export_and_import_on_a_second_instance() {
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    let mut g = Gen(seed);
    let a = spawn_app().await;
    let b = spawn_app().await;
    let admin_b = b.admin_token().await;
    for s in 0..3 {
        let name = format!("Season {s}");
        let players = [8, 12][g.between(0, 1) as usize];
        let events = g.between(2, 4) as usize;
        let (pool_a, archives) = season(&a, &mut g, &name, players, events).await;
        let pool_b = pool(&b, &admin_b, &name).await;
        import_all(&b, &archives, Some(pool_b), &a.archive_key().await).await;
        assert_eq!(
            board(&a, pool_a).await,
            board(&b, pool_b).await,
            "seed {seed}, {name}"
        );
    }
}
