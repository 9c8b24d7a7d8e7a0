//! An archive re-signed by a key the importer trusts holds no more players, registrations and
//! cases than any event has (`services::archives::sizes`: the routes set no cap on them, so
//! one upload of 64 MiB wrote some hundred thousand rows): at the bounds (10,000 players and
//! registrations, 1,000 cases) it imports; one beyond any of them is refused naming the
//! section (422) and nothing is written.

use serde_json::{json, Value};

use crate::archives::{count, forger, json_of, played_event, resign};
use crate::case_fixtures::ok;
use crate::helpers::{fields, problem, spawn_app, TestApp};

const MOST_PLAYERS: usize = 10_000;
const MOST_REGISTRATIONS: usize = 10_000;
const MOST_CASES: usize = 1_000;

/// Players added to the archive's directory until it lists `n` (new ids, named by nothing
/// unless registered later).
fn pad_players(c: &mut Value, n: usize) {
    let players = c["players"].as_array_mut().unwrap();
    let mut k = 0;
    while players.len() < n {
        k += 1;
        players.push(json!({"id": 3_000_000 + k, "name": format!("Walk-in {k}"),
                            "club": null, "country": null}));
    }
}

/// Registrations added (copies of the first) until there are `n`, each for a listed player not
/// registered yet, or for the first registration's player once none is left.
fn pad_registrations(c: &mut Value, n: usize) {
    let first = c["registrations"][0].clone();
    let registered: Vec<Value> = c["registrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].clone())
        .collect();
    let mut free: Vec<Value> = c["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].clone())
        .filter(|id| !registered.contains(id))
        .collect();
    let registrations = c["registrations"].as_array_mut().unwrap();
    let mut k = 0;
    while registrations.len() < n {
        k += 1;
        let mut r = first.clone();
        r["id"] = json!(4_000_000 + k);
        r["player_id"] = free.pop().unwrap_or_else(|| first["player_id"].clone());
        registrations.push(r);
    }
}

/// Cases added (complaints like the first) until there are `n`.
fn pad_cases(c: &mut Value, n: usize) {
    let mut first = c["cases"][0].clone();
    first["appeal_of"] = Value::Null;
    first["penalty_id"] = Value::Null;
    let cases = c["cases"].as_array_mut().unwrap();
    let mut k = 0;
    while cases.len() < n {
        k += 1;
        let mut case = first.clone();
        case["id"] = json!(5_000_000 + k);
        cases.push(case);
    }
}

fn counts(app: &TestApp) -> Vec<i64> {
    ["tournaments", "players", "registrations", "cases", "users"]
        .iter()
        .map(|t| count(&app.database_url, t))
        .collect()
}

#[actix_web::test]
async fn an_archive_of_more_players_registrations_or_cases_than_any_event_is_refused() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let archive = json_of(&a, &path, Some(&e.org)).await;
    let trusted_forger = forger().public_hex();
    let send = |archive: Value| {
        let body = json!({"archive": archive, "trust_key": trusted_forger});
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
    };
    let before = counts(&b);
    type Forge = Box<dyn Fn(&mut Value)>;
    let refused: Vec<(&str, Forge, &str)> = vec![
        (
            "one player too many",
            Box::new(|c| pad_players(c, MOST_PLAYERS + 1)),
            "players",
        ),
        (
            "one registration too many",
            Box::new(|c| pad_registrations(c, MOST_REGISTRATIONS + 1)),
            "registrations",
        ),
        (
            "one case too many",
            Box::new(|c| pad_cases(c, MOST_CASES + 1)),
            "cases",
        ),
    ];
    for (what, forge, section) in refused {
        let mut forged = archive.clone();
        forge(&mut forged["content"]);
        resign(&mut forged);
        let p = problem(send(forged).await, 422).await;
        let at = format!("archive.content.{section}");
        assert_eq!(fields(&p), vec![at], "{what}: {p}");
    }
    assert_eq!(before, counts(&b), "nothing was written");
    // At every bound at once it imports: every player and registration, every case.
    let mut at_bounds = archive.clone();
    let c = &mut at_bounds["content"];
    pad_players(c, MOST_PLAYERS);
    pad_registrations(c, MOST_REGISTRATIONS);
    pad_cases(c, MOST_CASES);
    let regs = c["registrations"].as_array().unwrap();
    let mut players: Vec<&Value> = regs.iter().map(|r| &r["player_id"]).collect();
    players.sort_by_key(|p| p.as_i64());
    players.dedup();
    assert_eq!(
        players.len(),
        MOST_REGISTRATIONS,
        "one registration a player"
    );
    resign(&mut at_bounds);
    ok(send(at_bounds).await, 201).await;
    let after = counts(&b);
    assert_eq!(after[0], before[0] + 1);
    assert_eq!(after[1], before[1] + MOST_PLAYERS as i64);
    assert_eq!(after[2], before[2] + MOST_REGISTRATIONS as i64);
    assert_eq!(after[3], before[3] + MOST_CASES as i64);
}
