//! Issue 14, item 9 (second part): Tantrix cup matches of several games (seed 003, Tie-Breaks
//! 1: "Bei Punktgleichheit entscheidet die größere Zahl gewonnener Spiele, dann die höhere
//! Gesamtpunktzahl, dann weitere 5-Minuten-Spiele"), played through the API.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::event_fixtures::new_round;
use crate::helpers::{fields, problem, spawn_app, TestApp};

/// A Tantrix cup of `n` registered players, open for registration; their ids by name order.
async fn cup(app: &TestApp, org: &str, admin: &str, names: &[&str]) -> (i64, Vec<i64>) {
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(org),
            json!({"name": "Pokal", "game": "Tantrix", "ruleset": "tantrix", "planned_rounds": 3,
                   "starts_on": "2026-04-03", "time_zone": "Europe/Berlin", "cup": true}),
        )
        .await;
    let t: Value = r.json().await.unwrap();
    let tid = t["id"].as_i64().unwrap();
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(org),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let mut ids = Vec::new();
    for name in names {
        let r = app
            .post("/api/v1/players", Some(admin), json!({"name": name}))
            .await;
        let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(org),
                json!({"player_id": pid}),
            )
            .await;
        assert_eq!(r.status(), 201);
        ids.push(pid);
    }
    (tid, ids)
}

/// The matches of a round: (players, tables).
fn matches_of(round: &Value, per_match: usize) -> Vec<([i64; 2], Vec<i64>)> {
    let tables = round["draw"]["tables"].as_array().unwrap();
    tables
        .chunks(per_match)
        .map(|games| {
            let s = &games[0]["seats"];
            let players = [s[0].as_i64().unwrap(), s[1].as_i64().unwrap()];
            for g in games {
                let here: HashSet<i64> = g["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_i64().unwrap())
                    .collect();
                assert_eq!(here, players.into_iter().collect(), "one match, one pair");
            }
            (
                players,
                games
                    .iter()
                    .map(|g| g["number"].as_i64().unwrap())
                    .collect(),
            )
        })
        .collect()
}

async fn game(app: &TestApp, org: &str, tid: i64, round: i64, table: i64, score: [(i64, i64); 2]) {
    let r = app
        .put(
            &format!("/api/v1/tournaments/{tid}/rounds/{round}/tables/{table}/result"),
            Some(org),
            json!({"seats": [{"player_id": score[0].0, "score": score[0].1},
                             {"player_id": score[1].0, "score": score[1].1}]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

async fn cup_matches(app: &TestApp, tid: i64, round: i64) -> Value {
    let r = app
        .get(
            &format!("/api/v1/tournaments/{tid}/rounds/{round}/cup-matches"),
            None,
        )
        .await;
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["items"].clone()
}

/// Four players, matches of two games, then a final of three. Match 1: one win each by 36 or
/// more (20-0 TP each), tiles 60-56: the tiles decide. Match 2: level on TP, wins and tiles: the
/// next round waits (409) until the play-off winner is recorded. The final: 13.3 + 13.3 + 3.4
/// = 30.0 TP against 30.0, games won 2-1: the games decide although the winner has fewer tiles.
/// Only match winners are seated in the next round.
#[actix_web::test]
async fn cup_matches_of_several_games_follow_the_tie_break_chain() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (_, org) = app.user("leader").await;
    let (tid, _) = cup(&app, &org, &admin, &["Ada", "Bo", "Cy", "Di"]).await;

    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "knockout", "options": {"games_per_match": 10}}),
        )
        .await;
    assert_eq!(
        fields(&problem(r, 422).await),
        vec!["options.games_per_match"]
    );
    let round = new_round(
        &app,
        tid,
        &org,
        json!({"method": "knockout", "options": {"games_per_match": 2}}),
    )
    .await;
    assert_eq!(round["draw"]["tables"].as_array().unwrap().len(), 4);
    let m = matches_of(&round, 2);
    let ([p, q], t1) = m[0].clone();
    let ([r_, s], t2) = m[1].clone();
    game(&app, &org, tid, 1, t1[0], [(p, 50), (q, 10)]).await;
    game(&app, &org, tid, 1, t1[1], [(p, 10), (q, 46)]).await;
    game(&app, &org, tid, 1, t2[0], [(r_, 40), (s, 30)]).await;
    game(&app, &org, tid, 1, t2[1], [(r_, 30), (s, 40)]).await;

    let ms = cup_matches(&app, tid, 1).await;
    assert_eq!(ms[0]["tp"], json!([20.0, 20.0]), "{ms}");
    assert_eq!(ms[0]["wins"], json!([1.0, 1.0]));
    assert_eq!(ms[0]["winner"], p, "{ms}");
    assert_eq!(ms[0]["decided_by"], "tiles");
    assert_eq!(ms[1]["playoff_needed"], true);
    assert_eq!(ms[1]["winner"], Value::Null);
    // Every game counts in the standings: 20 TP each in match 1 (one 20-0 win each).
    let st: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    for row in st["rows"].as_array().unwrap() {
        if row["player_id"] == p || row["player_id"] == q {
            assert_eq!(row["tp"], 20.0, "{st}");
        }
    }

    // The next round waits for the play-off.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "knockout", "options": {"games_per_match": 3}}),
        )
        .await;
    let pr = problem(r, 409).await;
    assert!(pr["detail"].as_str().unwrap().contains("play-off"), "{pr}");

    // Only a seated player can win the play-off, and only in a knockout.
    let url = format!("/api/v1/tournaments/{tid}/rounds/1/tables/{}/result", t2[1]);
    let body = |winner: i64| {
        json!({"seats": [{"player_id": r_, "score": 30}, {"player_id": s, "score": 40}],
               "playoff_winner": winner, "reason": "5-minute play-off games"})
    };
    let r = app.put_if_match(&url, Some(&org), 1, body(p)).await;
    assert_eq!(fields(&problem(r, 422).await), vec!["playoff_winner"]);
    let r = app.put_if_match(&url, Some(&org), 1, body(s)).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let ms = cup_matches(&app, tid, 1).await;
    assert_eq!(ms[1]["winner"], s, "{ms}");
    assert_eq!(ms[1]["playoff_winner"], s);
    assert_eq!(ms[1]["playoff_needed"], false);
    assert_eq!(ms[1]["decided_by"], Value::Null);

    let round = new_round(
        &app,
        tid,
        &org,
        json!({"method": "knockout", "options": {"games_per_match": 3}}),
    )
    .await;
    let m = matches_of(&round, 3);
    assert_eq!(m.len(), 1, "{round}");
    let (players, tables) = m[0].clone();
    assert_eq!(
        players.into_iter().collect::<HashSet<i64>>(),
        HashSet::from([p, s])
    );
    game(&app, &org, tid, 2, tables[0], [(p, 21), (s, 20)]).await;
    game(&app, &org, tid, 2, tables[1], [(p, 21), (s, 20)]).await;
    game(&app, &org, tid, 2, tables[2], [(p, 20), (s, 32)]).await;
    let ms = cup_matches(&app, tid, 2).await;
    let i = if ms[0]["players"][0] == p { 0 } else { 1 };
    assert_eq!(ms[0]["tp"], json!([30.0, 30.0]), "{ms}");
    assert_eq!(ms[0]["wins"][i], 2.0);
    assert_eq!(ms[0]["tiles"][i], 62);
    assert_eq!(ms[0]["winner"], p);
    assert_eq!(ms[0]["decided_by"], "wins");
}

/// A play-off winner belongs to a cup match only.
#[actix_web::test]
async fn a_playoff_winner_is_refused_outside_a_knockout() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (_, org) = app.user("leader").await;
    let (tid, _) = cup(&app, &org, &admin, &["Ada", "Bo"]).await;
    let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
    let s = &round["draw"]["tables"][0]["seats"];
    let r = app
        .put(
            &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            Some(&org),
            json!({"seats": [{"player_id": s[0], "score": 30}, {"player_id": s[1], "score": 30}],
                   "playoff_winner": s[0]}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), vec!["playoff_winner"]);
}
