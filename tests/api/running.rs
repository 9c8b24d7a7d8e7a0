//! Running a whole event over HTTP: registrations, rounds and draws, results with versions,
//! standings, withdrawals, penalties and the live feed.

use reqwest::Method;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{fields, problem, spawn_app, TestApp};

/// An organiser's tournament of `ruleset` with `n` registered players, open for registration;
/// returns (tournament id, organiser token, referee token, player ids).
async fn event(app: &TestApp, ruleset: &str, n: usize) -> (i64, String, String, Vec<i64>) {
    let admin = app.admin_token().await;
    let (_, org) = app.user("organiser").await;
    let (referee_id, referee) = app.user("referee").await;
    let tid = app.tournament(&org, ruleset).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/staff"),
            Some(&org),
            json!({"user_id": referee_id, "role": "referee"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app
        .req(
            Method::PATCH,
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
        )
        .header("if-match", "\"1\"")
        .json(&json!({"status": "registration_open"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut ids = Vec::new();
    for i in 0..n {
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                json!({"name": format!("Player {:02}", i + 1), "country": "NO"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&org),
                json!({"player_id": pid, "seeding_rating": 1500.0 + 10.0 * i as f64, "seeding_rated_games": 10}),
            )
            .await;
        assert_eq!(r.status(), 201);
        ids.push(pid);
    }
    (tid, org, referee, ids)
}

pub(crate) async fn new_round(app: &TestApp, tid: i64, org: &str, body: Value) -> Value {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(org),
            body,
        )
        .await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    let n = v["number"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds/{n}/publish"),
            Some(org),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// Enters a result for every table: the score of a player is `score(player)`.
async fn play_round(
    app: &TestApp,
    tid: i64,
    referee: &str,
    round: &Value,
    score: impl Fn(i64) -> i64,
) {
    let n = round["number"].as_i64().unwrap();
    for t in round["draw"]["tables"].as_array().unwrap() {
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({"player_id": p, "score": score(p.as_i64().unwrap())}))
            .collect();
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                    t["number"]
                ),
                Some(referee),
            )
            .json(&json!({"seats": seats}))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
}

fn table_sizes(round: &Value) -> Vec<usize> {
    let mut s: Vec<usize> = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["seats"].as_array().unwrap().len())
        .collect();
    s.sort();
    s
}

#[actix_web::test]
async fn registrations_are_confirmed_in_multiples_of_the_table_size() {
    let app = spawn_app().await;
    let (tid, org, _, ids) = event(&app, "agricola_norway", 17).await;
    let regs: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/registrations"), None)
        .await
        .json()
        .await
        .unwrap();
    let statuses: Vec<&str> = regs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == "confirmed").count(), 16);
    assert_eq!(statuses[16], "waitlisted");
    // The second player cancels: the waitlisted 17th moves up.
    let r = app
        .req(
            Method::DELETE,
            &format!("/api/v1/tournaments/{tid}/registrations/{}", ids[1]),
            Some(&org),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let regs: Value = r.json().await.unwrap();
    assert_eq!(regs.as_array().unwrap().len(), 16);
    assert!(regs
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "confirmed"));
    // Registering twice is a conflict; a stranger cannot register someone else.
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&org),
            json!({"player_id": ids[0]}),
        )
        .await,
        409,
    )
    .await;
    let (_, stranger) = app.user("stranger").await;
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&stranger),
            json!({"player_id": ids[1]}),
        )
        .await,
        403,
    )
    .await;
}

#[actix_web::test]
async fn agricola_norway_event_end_to_end() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 16).await;
    // Score by player id, so standings are predictable: higher id, higher score.
    let score = |p: i64| 40 + p;

    // Round 1: random with seeding. The commitment is the SHA-256 of the revealed seed, and
    // the draw recomputes from the published input and seed.
    let r1 = new_round(&app, tid, &org, json!({"method": "random_seeded"})).await;
    assert_eq!(table_sizes(&r1), vec![4, 4, 4, 4]);
    let seed = r1["seed"].as_str().expect("seed revealed on publish");
    assert_eq!(
        hex::encode(Sha256::digest(hex::decode(seed).unwrap())),
        r1["seed_commitment"].as_str().unwrap()
    );
    let draws: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/1/draws"), None)
        .await
        .json()
        .await
        .unwrap();
    let input: tourney::domain::seating::DrawInput =
        serde_json::from_value(draws[0]["input"].clone()).unwrap();
    let mut rng =
        tourney::domain::DrawRng::from_seed(tourney::domain::DrawRng::seed_from_hex(seed).unwrap());
    let again = tourney::domain::seating::draw_round(&input, &mut rng).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), r1["draw"]);

    // The next round cannot be drawn before every table has a result.
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "fixed_seeded"}),
        )
        .await,
        409,
    )
    .await;
    play_round(&app, tid, &referee, &r1, score).await;
    let round: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/1"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(round["status"], "completed");

    // Round 2: fixed with seeding.
    let r2 = new_round(&app, tid, &org, json!({"method": "fixed_seeded"})).await;
    play_round(&app, tid, &referee, &r2, score).await;

    // A withdrawal after round 2: round 3 has a 3-player table.
    let quitter = ids[0];
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&referee),
            json!({"player_id": quitter, "from_round": 3, "reason": "ill"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r3 = new_round(&app, tid, &org, json!({"method": "swiss"})).await;
    assert_eq!(table_sizes(&r3), vec![3, 4, 4, 4]);
    play_round(&app, tid, &referee, &r3, score).await;

    // Round 4: clarification; round 5: the final in placement groups (weight 1.25 by default).
    let r4 = new_round(&app, tid, &org, json!({"method": "clarification"})).await;
    play_round(&app, tid, &referee, &r4, score).await;
    let r5 = new_round(
        &app,
        tid,
        &org,
        json!({"method": "final_groups", "kind": "final"}),
    )
    .await;
    play_round(&app, tid, &referee, &r5, score).await;

    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let rows = s["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    assert_eq!(s["rounds"], json!([1, 2, 3, 4, 5]));
    // The withdrawn player is last.
    assert_eq!(rows[15]["player_id"], quitter);
    assert_eq!(rows[15]["withdrawn"], true);
    // The highest scorer won every game: 10 TP x 4 rounds + 10 x 1.25 in the final.
    assert_eq!(rows[0]["player_id"], *ids.last().unwrap());
    assert_eq!(rows[0]["tp"], 52.5);
    assert_eq!(
        rows[0]["tp_by_round"],
        json!([10.0, 10.0, 10.0, 10.0, 12.5])
    );
    // Every tie-break value is shown.
    assert!(rows[0]["tie_breaks"].as_object().unwrap().len() >= 2);
    // Places are ordered and the final placement groups hold: group k within 4k-3..4k.
    for r in rows.iter().take(15) {
        if let Some(g) = r["placement_group"].as_u64() {
            let place = r["place"].as_u64().unwrap();
            assert!(place + 3 >= 4 * g - 3 + 3 && place <= 4 * g, "{r}");
        }
    }

    // CSV and caching.
    let r = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?format=csv"),
            None,
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let csv = r.text().await.unwrap();
    assert!(csv.starts_with("place,player_id,player,tp,round_1,round_2,round_3,round_4,round_5"));
    assert_eq!(csv.lines().count(), 17);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header.iter().filter(|c| **c == "tp").count(),
        1,
        "{header:?}"
    );
    assert!(header.contains(&"relative_score"));
    let r = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await;
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let r = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/standings"),
            None,
        )
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);

    // Standings after round 2 count two rounds.
    let s2: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?after_round=2&purpose=seeding"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s2["rounds"], json!([1, 2]));
    assert_eq!(s2["rows"][0]["tp"], 20.0);

    // A correction shows at once, and needs If-Match and a reason.
    let t1 = &r1["draw"]["tables"][0];
    let path = format!(
        "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
        t1["number"]
    );
    let seats: Vec<Value> = t1["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"player_id": p, "score": 100 - p.as_i64().unwrap()}))
        .collect();
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .json(&json!({"seats": seats, "reason": "scores swapped"}))
        .send()
        .await
        .unwrap();
    problem(r, 428).await;
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .header("if-match", "\"1\"")
        .json(&json!({"seats": seats}))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422).await;
    assert_eq!(fields(&p), vec!["reason"]);
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .header("if-match", "\"1\"")
        .json(&json!({"seats": seats, "reason": "scores swapped"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["current"]["version"], 2);
    assert_eq!(v["versions"].as_array().unwrap().len(), 2);
    let r = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/standings"),
            None,
        )
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the correction changed the standings");
}

#[actix_web::test]
async fn bad_results_are_refused_with_the_field_at_fault() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 8).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let t = &r1["draw"]["tables"][0];
    let seated: Vec<i64> = t["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    let stranger = ids.iter().find(|p| !seated.contains(p)).unwrap();
    let path = format!(
        "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
        t["number"]
    );
    let mut seats: Vec<Value> = seated
        .iter()
        .map(|p| json!({"player_id": p, "score": 50}))
        .collect();
    seats[3] = json!({"player_id": stranger, "score": 50});
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .json(&json!({"seats": seats}))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422).await;
    assert!(
        fields(&p).contains(&"seats[3].player_id".to_string()),
        "{p}"
    );
    // A player may not enter results; the public may not either.
    let (_, player) = app.user("someone").await;
    let ok: Vec<Value> = seated
        .iter()
        .map(|p| json!({"player_id": p, "score": 50}))
        .collect();
    let r = app
        .req(Method::PUT, &path, Some(&player))
        .json(&json!({"seats": ok}))
        .send()
        .await
        .unwrap();
    problem(r, 403).await;
    let r = app
        .req(Method::PUT, &path, None)
        .json(&json!({"seats": ok}))
        .send()
        .await
        .unwrap();
    problem(r, 401).await;
    // Nothing was stored.
    problem(app.get(&path, None).await, 404).await;
}

#[actix_web::test]
async fn fifty_concurrent_corrections_with_the_same_if_match_store_exactly_one() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let t = &r1["draw"]["tables"][0];
    let path = format!(
        "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
        t["number"]
    );
    let seats = |base: i64| -> Vec<Value> {
        t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, p)| json!({"player_id": p, "score": base + i as i64}))
            .collect()
    };
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .json(&json!({"seats": seats(30)}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut handles = Vec::new();
    for i in 0..50 {
        let req = app
            .req(Method::PUT, &path, Some(&referee))
            .header("if-match", "\"1\"")
            .json(&json!({"seats": seats(40 + i), "reason": format!("typed by client {i}")}));
        handles.push(actix_web::rt::spawn(async move {
            req.send().await.unwrap().status().as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for h in handles {
        statuses.push(h.await.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 412).count(),
        49,
        "{statuses:?}"
    );
    let v: Value = app.get(&path, None).await.json().await.unwrap();
    assert_eq!(v["versions"].as_array().unwrap().len(), 2);
    assert_eq!(v["current"]["version"], 2);
}

#[actix_web::test]
async fn a_retried_write_with_the_same_idempotency_key_is_applied_once() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let t = &r1["draw"]["tables"][0];
    let path = format!(
        "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
        t["number"]
    );
    let seats: Vec<Value> = t["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"player_id": p, "score": 44}))
        .collect();
    let body = json!({"seats": seats});
    let mut answers = Vec::new();
    for _ in 0..2 {
        let r = app
            .req(Method::PUT, &path, Some(&referee))
            .header("idempotency-key", "3f0c1c1e-retry")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        answers.push(r.json::<Value>().await.unwrap());
    }
    assert_eq!(answers[0], answers[1]);
    let v: Value = app.get(&path, None).await.json().await.unwrap();
    assert_eq!(v["versions"].as_array().unwrap().len(), 1);
    // The same key with a different request is refused.
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .header("idempotency-key", "3f0c1c1e-retry")
        .json(&json!({"seats": seats, "reason": "other"}))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422).await;
    assert_eq!(fields(&p), vec!["Idempotency-Key"]);
}

#[actix_web::test]
async fn drafts_are_private_redraws_are_kept_and_the_seed_stays_secret_until_published() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 8).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "random"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let draft: Value = r.json().await.unwrap();
    assert!(draft["seed"].is_null());
    problem(
        app.get(&format!("/api/v1/tournaments/{tid}/rounds/1"), None)
            .await,
        404,
    )
    .await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds/1/redraw"),
            Some(&org),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let redrawn: Value = r.json().await.unwrap();
    assert_eq!(redrawn["draws_made"], 2);
    assert_ne!(redrawn["seed_commitment"], draft["seed_commitment"]);
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds/1/publish"),
            Some(&org),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let draws: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/1/draws"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(draws.as_array().unwrap().len(), 2);
    for d in draws.as_array().unwrap() {
        let seed = hex::decode(d["seed"].as_str().unwrap()).unwrap();
        assert_eq!(
            hex::encode(Sha256::digest(seed)),
            d["seed_commitment"].as_str().unwrap()
        );
    }
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds/1/redraw"),
            Some(&org),
            json!({}),
        )
        .await,
        409,
    )
    .await;
    // Unknown options name the option.
    let p = problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "random", "options": {"colour": 1}}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["options.colour"]);
}

/// Enters a 2-player round: the first seat wins 10-4, except the tables in `draws` (1:1).
async fn play_duels(app: &TestApp, tid: i64, referee: &str, round: &Value, draws: &[i64]) {
    let n = round["number"].as_i64().unwrap();
    for t in round["draw"]["tables"].as_array().unwrap() {
        let s = t["seats"].as_array().unwrap();
        let seats = if draws.contains(&t["number"].as_i64().unwrap()) {
            json!([{"player_id": s[0], "score": 6, "outcome": "draw"},
                   {"player_id": s[1], "score": 6, "outcome": "draw"}])
        } else {
            json!([{"player_id": s[0], "score": 10, "outcome": "win"},
                   {"player_id": s[1], "score": 4, "outcome": "loss"}])
        };
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                    t["number"]
                ),
                Some(referee),
            )
            .json(&json!({ "seats": seats }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
}

#[actix_web::test]
async fn ashes_nine_players_four_swiss_rounds_with_byes_a_draw_and_a_removal() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "ashes_league", 9).await;
    // Two-player formats confirm everyone: the odd player out gets a bye.
    let regs: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/registrations"), None)
        .await
        .json()
        .await
        .unwrap();
    assert!(regs
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "confirmed"));
    // Follow the live feed from the start.
    let mut feed = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events?after=0"),
            None,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(feed.status(), 200);
    assert!(feed.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));

    let r1 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    assert_eq!(r1["draw"]["tables"].as_array().unwrap().len(), 4);
    let bye1 = r1["draw"]["byes"][0]
        .as_i64()
        .expect("one bye for nine players");
    let drawn_table = r1["draw"]["tables"][0]["number"].as_i64().unwrap();
    let drawn_pair: Vec<i64> = r1["draw"]["tables"][0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    play_duels(&app, tid, &referee, &r1, &[drawn_table]).await;
    let mut seen = String::new();
    while !seen.contains("event: round_completed") {
        let chunk = feed.chunk().await.unwrap().expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: round_published"));
    assert!(seen.contains("event: result_entered"));

    // Win 3, bye 3, draw 1, loss 0.
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let tp = |s: &Value, p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .unwrap()["tp"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(tp(&s, bye1), 3.0);
    assert_eq!((tp(&s, drawn_pair[0]), tp(&s, drawn_pair[1])), (1.0, 1.0));

    // Three sanctions against one player: warning, game loss (their round-2 game), removal.
    let r2 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let bye2 = r2["draw"]["byes"][0].as_i64().unwrap();
    assert_ne!(bye2, bye1, "the bye goes to someone who has not had one");
    let culprit_table = &r2["draw"]["tables"][1];
    let culprit = culprit_table["seats"][0].as_i64().unwrap();
    play_duels(&app, tid, &referee, &r2, &[]).await;
    let mut kinds = Vec::new();
    for _ in 0..3 {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/penalties"),
                Some(&referee),
                json!({"player_id": culprit, "kind": "sanction", "round": 2,
                       "table": culprit_table["number"], "reason": "slow play"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        kinds.push(
            r.json::<Value>().await.unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(kinds, vec!["warning", "game_loss", "removal"]);
    let s2: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?after_round=2"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let row = s2["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == culprit)
        .unwrap()
        .clone();
    assert_eq!(
        row["tp_by_round"][1], 0.0,
        "the game loss took the round-2 win: {row}"
    );

    // Rounds 3 and 4 go on without the removed player: eight players, no bye.
    for n in 3..=4 {
        let r = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
        let seated: Vec<i64> = r["draw"]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| {
                t["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_i64().unwrap())
            })
            .collect();
        assert!(!seated.contains(&culprit), "round {n}");
        assert_eq!(seated.len(), 8);
        assert!(r["draw"]["byes"].as_array().unwrap().is_empty());
        play_duels(&app, tid, &referee, &r, &[]).await;
    }
    let fin: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let rows = fin["rows"].as_array().unwrap();
    assert_eq!(rows.len(), ids.len());
    assert_eq!(
        rows.last().unwrap()["player_id"],
        culprit,
        "removed: placed last"
    );
    assert_eq!(rows.last().unwrap()["withdrawn"], true);
    // All four planned rounds are counted; a fifth is allowed (planned 5), a sixth is not.
    assert_eq!(fin["rounds"], json!([1, 2, 3, 4]));
}

#[actix_web::test]
async fn results_entered_over_http_feed_the_pool_and_a_correction_moves_the_leaderboard() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let (tid, org, referee, _) = event(&app, "ashes_league", 4).await;
    let t: Value = app
        .get(&format!("/api/v1/tournaments/{tid}"), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    let r = app
        .req(
            Method::PATCH,
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
        )
        .header("if-match", format!("\"{}\"", t["version"]))
        // Four Ashes players play exactly 3 rounds (seed 004).
        .json(&json!({"rating_pool_id": pool, "planned_rounds": 3}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r1 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let tables = r1["draw"]["tables"].as_array().unwrap();
    for t in tables {
        let s = t["seats"].as_array().unwrap();
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                    t["number"]
                ),
                Some(&referee),
            )
            .json(&json!({"seats": [
                {"player_id": s[0], "score": 10, "outcome": "win"},
                {"player_id": s[1], "score": 4, "outcome": "loss"}]}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let winner = tables[0]["seats"][0].as_i64().unwrap();
    let loser = tables[0]["seats"][1].as_i64().unwrap();
    let board = |app: &TestApp| {
        let url = format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true");
        let req = app.req(Method::GET, &url, None);
        async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let rating_of = |b: &Value, p: i64| {
        b["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .map(|r| r["rating"].as_f64().unwrap())
    };
    let b = board(&app).await;
    assert_eq!(rating_of(&b, winner), Some(1012.5), "{b}");
    assert_eq!(rating_of(&b, loser), Some(987.5));
    // The referee corrects the first table: the other player won. The ratings follow.
    let r = app
        .req(
            Method::PUT,
            &format!(
                "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                tables[0]["number"]
            ),
            Some(&referee),
        )
        .header("if-match", "\"1\"")
        .json(&json!({"reason": "winner misread", "seats": [
            {"player_id": winner, "score": 4, "outcome": "loss"},
            {"player_id": loser, "score": 10, "outcome": "win"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let b = board(&app).await;
    assert_eq!(rating_of(&b, winner), Some(987.5), "{b}");
    assert_eq!(rating_of(&b, loser), Some(1012.5));
}

#[actix_web::test]
async fn tantrix_round_robin_of_six_with_a_forfeit_and_a_time_penalty() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 6).await;
    let mut pairs = std::collections::HashSet::new();
    let mut forfeit_game = None;
    let mut slow_game = None;
    for n in 1..=5 {
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        let tables = round["draw"]["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 3);
        for (i, t) in tables.iter().enumerate() {
            let s: Vec<i64> = t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .collect();
            assert!(
                pairs.insert((s[0].min(s[1]), s[0].max(s[1]))),
                "pair met twice"
            );
            // Seat 1 wins 45-40 (15.0 : 5.0); round 1 has a no-show and a slow winner.
            let mut seats = vec![
                json!({"player_id": s[0], "score": 45}),
                json!({"player_id": s[1], "score": 40}),
            ];
            if n == 1 && i == 0 {
                seats[1] = json!({"player_id": s[1], "score": 0, "forfeit": true});
                seats[0] = json!({"player_id": s[0], "score": 0});
                forfeit_game = Some((s[0], s[1]));
            }
            if n == 1 && i == 1 {
                // 16:59 used: two full minutes over 14 move 2 TP to the opponent.
                seats[0] = json!({"player_id": s[0], "score": 45, "time_used_secs": 16 * 60 + 59});
                slow_game = Some((s[0], s[1]));
            }
            let r = app
                .req(
                    Method::PUT,
                    &format!(
                        "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                        t["number"]
                    ),
                    Some(&referee),
                )
                .json(&json!({"seats": seats}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        }
    }
    assert_eq!(pairs.len(), 15, "every pair of six met exactly once");
    let s: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?after_round=1"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let tp1 = |p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .unwrap()["tp"]
            .as_f64()
            .unwrap()
    };
    let (present, absent) = forfeit_game.unwrap();
    assert_eq!((tp1(present), tp1(absent)), (18.0, 2.0));
    let (slow, other) = slow_game.unwrap();
    assert_eq!((tp1(slow), tp1(other)), (13.0, 7.0));
    let full: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(full["rows"].as_array().unwrap().len(), ids.len());
    assert_eq!(full["rounds"], json!([1, 2, 3, 4, 5]));
    let total: f64 = full["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tp"].as_f64().unwrap())
        .sum();
    assert!(
        (total - 15.0 * 20.0).abs() < 1e-9,
        "every game hands out 20 TP: {total}"
    );
}

#[actix_web::test]
async fn bridge_agricola_sixteen_players_five_rounds_and_the_final() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "bridge_agricola", 16).await;
    let mut table_pairs = std::collections::HashMap::new();
    let mut group_pairs = std::collections::HashMap::new();
    let pairs_of = |members: Vec<i64>, into: &mut std::collections::HashMap<(i64, i64), u32>| {
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                *into.entry((*a.min(b), *a.max(b))).or_default() += 1;
            }
        }
    };
    let ids = |v: &Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect()
    };
    for n in 1..=5 {
        let body = if n == 1 {
            json!({"method": "bridge", "options": {"rounds_remaining": 5}})
        } else {
            json!({"method": "bridge"})
        };
        let round = new_round(&app, tid, &org, body).await;
        let draw = &round["draw"];
        assert_eq!(draw["bridge_groups"].as_array().unwrap().len(), 4);
        for t in draw["tables"].as_array().unwrap() {
            pairs_of(ids(&t["seats"]), &mut table_pairs);
        }
        for g in draw["bridge_groups"].as_array().unwrap() {
            pairs_of(ids(&g["players"]), &mut group_pairs);
        }
        // Scores differ by player so places and relative scores are not all shared.
        play_round(&app, tid, &referee, &round, |p| 30 + (p * 7) % 13).await;
        let s: Value = app
            .get(
                &format!("/api/v1/tournaments/{tid}/standings?after_round={n}"),
                None,
            )
            .await
            .json()
            .await
            .unwrap();
        let round_total: f64 = s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tp_by_round"][n as usize - 1].as_f64().unwrap())
            .sum();
        // 4 tables x 20 TP + 4 bridge groups x 20 TP.
        assert!(
            (round_total - 160.0).abs() < 0.05,
            "round {n}: {round_total}"
        );
    }
    assert_eq!(table_pairs.len(), 120, "every pair met at a table");
    assert!(table_pairs.values().all(|c| *c == 1), "and only once");
    assert_eq!(group_pairs.len(), 120, "every pair met in a bridge group");
    assert!(group_pairs.values().all(|c| *c == 1), "and only once");

    // The final: bridge groups spread the placement groups; results stay with the staff until
    // the round is completed (players at other tables hold the same cards).
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "bridge", "kind": "final", "options": {"final": true}}),
    )
    .await;
    let t1 = &fin["draw"]["tables"][0];
    let seats: Vec<Value> = t1["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"player_id": p, "score": 40}))
        .collect();
    let path = format!(
        "/api/v1/tournaments/{tid}/rounds/6/tables/{}/result",
        t1["number"]
    );
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .json(&json!({ "seats": seats }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    problem(app.get(&path, None).await, 404).await;
    assert_eq!(app.get(&path, Some(&referee)).await.status(), 200);
    for g in fin["draw"]["bridge_groups"].as_array().unwrap() {
        assert_eq!(g["players"].as_array().unwrap().len(), 4);
    }
}

/// A team tournament with `teams` teams of four; returns (tid, org, referee, team members).
async fn team_event(app: &TestApp, teams: usize) -> (i64, String, String, Vec<[i64; 4]>) {
    let (tid, org, referee, _) = event(app, "team_duplicate_2v2", 0).await;
    let admin = app.admin_token().await;
    let mut out = Vec::new();
    for t in 0..teams {
        let mut members = [0i64; 4];
        for (i, m) in members.iter_mut().enumerate() {
            let r = app
                .post(
                    "/api/v1/players",
                    Some(&admin),
                    json!({"name": format!("Team {t} member {i}")}),
                )
                .await;
            *m = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        }
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/teams"),
                Some(&org),
                json!({"name": format!("Team {t}"), "pair_a": [members[0], members[1]],
                       "pair_b": [members[2], members[3]]}),
            )
            .await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        out.push(members);
    }
    (tid, org, referee, out)
}

async fn matches(app: &TestApp, tid: i64, n: i64) -> Value {
    app.get(
        &format!("/api/v1/tournaments/{tid}/rounds/{n}/matches"),
        None,
    )
    .await
    .json()
    .await
    .unwrap()
}

#[actix_web::test]
async fn team_duplicate_best_of_three_swaps_pairs_in_game_two() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 2).await;
    let strong: Vec<i64> = teams[0].to_vec();
    // Team 1 members score 50, team 2 members 40.
    let score = |p: i64| if strong.contains(&p) { 50 } else { 40 };
    for n in 1..=3 {
        let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
        let tables = round["draw"]["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 2);
        let table_a: Vec<i64> = tables[0]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect();
        // Teammates sit opposite (seats 1 and 3, 2 and 4).
        let same_team = |a: i64, b: i64| teams.iter().any(|t| t.contains(&a) && t.contains(&b));
        assert!(same_team(table_a[0], table_a[2]) && same_team(table_a[1], table_a[3]));
        // Game 2: the second team plays with its pairs swapped (its B pair at table A).
        let second_on_a: Vec<i64> = table_a
            .iter()
            .copied()
            .filter(|p| teams[1].contains(p))
            .collect();
        let expected = if n == 2 {
            [teams[1][2], teams[1][3]]
        } else {
            [teams[1][0], teams[1][1]]
        };
        let mut got = second_on_a.clone();
        got.sort();
        let mut want = expected.to_vec();
        want.sort();
        assert_eq!(got, want, "game {n}");
        play_round(&app, tid, &referee, &round, score).await;
        let m = matches(&app, tid, n).await;
        assert_eq!(m[0]["complete"], true);
        assert_eq!(m[0]["winner_team"], 1, "{m}");
        assert_eq!(m[0]["decided_at_step"], 1);
    }
}

#[actix_web::test]
async fn team_duplicate_knockout_of_four_teams() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 4).await;
    // Lower team numbers are stronger.
    let strength = |p: i64| {
        let t = teams.iter().position(|t| t.contains(&p)).unwrap() as i64;
        60 - 5 * t
    };
    let semi = new_round(
        &app,
        tid,
        &org,
        json!({"method": "team_duplicate", "options": {"format": "knockout"}}),
    )
    .await;
    assert_eq!(semi["draw"]["team_matches"].as_array().unwrap().len(), 2);
    play_round(&app, tid, &referee, &semi, strength).await;
    let m = matches(&app, tid, 1).await;
    let mut winners: Vec<u64> = m
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["winner_team"].as_u64().unwrap())
        .collect();
    winners.sort();
    // Seeded 1 v 4 and 2 v 3: the top two seeds go through.
    assert_eq!(winners, vec![1, 2]);
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "team_duplicate", "options": {"format": "knockout"}}),
    )
    .await;
    let fm = fin["draw"]["team_matches"].as_array().unwrap();
    assert_eq!(fm.len(), 1);
    let mut finalists = vec![
        fm[0]["home_team"].as_u64().unwrap(),
        fm[0]["away_team"].as_u64().unwrap(),
    ];
    finalists.sort();
    assert_eq!(finalists, vec![1, 2]);
    assert_eq!(fin["draw"]["tables"].as_array().unwrap().len(), 2);
    play_round(&app, tid, &referee, &fin, strength).await;
    assert_eq!(matches(&app, tid, 2).await[0]["winner_team"], 1);
}

#[actix_web::test]
async fn relative_score_breaks_ties_and_a_voluntary_round_keeps_the_best_multiple_of_four() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 11).await;
    // A twelfth player whose account is linked: they opt out of the voluntary round themselves.
    let (kari_user, kari) = app.user("kari").await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Kari", "user_id": kari_user}),
        )
        .await;
    let kari_player = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&kari),
            json!({ "player_id": kari_player }),
        )
        .await;
    assert_eq!(r.status(), 201);

    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    // Every table's seat 1 wins (10 TP each) with different margins over the table average:
    // relative scores 22.5, 4.5 and 11.25.
    let table_scores = [[60, 40, 30, 20], [50, 45, 44, 43], [55, 40, 40, 40]];
    let mut winners = Vec::new();
    for (i, t) in r1["draw"]["tables"].as_array().unwrap().iter().enumerate() {
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .zip(table_scores[i])
            .map(|(p, s)| json!({"player_id": p, "score": s}))
            .collect();
        winners.push(t["seats"][0].as_i64().unwrap());
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                    t["number"]
                ),
                Some(&referee),
            )
            .json(&json!({ "seats": seats }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let s: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?purpose=qualification"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let top: Vec<i64> = s["rows"].as_array().unwrap()[..3]
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(top, vec![winners[0], winners[2], winners[1]], "{s}");
    assert_eq!(s["rows"][0]["tp"], 10.0);
    assert_eq!(s["rows"][1]["tp"], 10.0);
    assert_eq!(s["rows"][0]["tie_breaks"]["relative_score"], 22.5);
    assert_eq!(s["rows"][1]["tie_breaks"]["relative_score"], 11.25);

    // Kari opts out herself; she may not withdraw someone else.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&kari),
            json!({"player_id": kari_player, "from_round": 2, "kind": "opt_out"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&kari),
            json!({"player_id": winners[0], "from_round": 2, "kind": "opt_out"}),
        )
        .await,
        403,
    )
    .await;
    // Eleven want to go on: the best eight continue.
    let r2 = new_round(
        &app,
        tid,
        &org,
        json!({"method": "danish", "kind": "voluntary"}),
    )
    .await;
    assert_eq!(table_sizes(&r2), vec![4, 4]);
    play_round(&app, tid, &referee, &r2, |p| 40 + p).await;
    let fin: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let rows = fin["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    // The four who stopped come after all eight who continued.
    assert!(
        rows[..8]
            .iter()
            .all(|r| r["stopped_before_round"].is_null()),
        "{fin}"
    );
    assert!(
        rows[8..].iter().all(|r| r["stopped_before_round"] == 2),
        "{fin}"
    );
    let w: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/withdrawals"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(w.as_array().unwrap().len(), 4);
}

#[actix_web::test]
async fn tantrix_head_to_head_breaks_a_two_way_tie_before_wins_and_points() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 4).await;
    let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
    // A beats B 41-40 (13.3 : 6.7) and draws C and D; B beats C and D 41-40; C beats D 44-40
    // (14.7 : 5.3). A and B both end on 33.3 TP with equal wins and margins, B has more tile
    // points, but A won their game: A is above B.
    let game = |x: i64, y: i64| -> (i64, i64) {
        let table = [
            (a, b, 41, 40),
            (a, c, 40, 40),
            (a, d, 40, 40),
            (b, c, 41, 40),
            (b, d, 41, 40),
            (c, d, 44, 40),
        ];
        for (p, q, sp, sq) in table {
            if (p, q) == (x, y) {
                return (sp, sq);
            }
            if (p, q) == (y, x) {
                return (sq, sp);
            }
        }
        unreachable!()
    };
    for n in 1..=3 {
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        for t in round["draw"]["tables"].as_array().unwrap() {
            let (x, y) = (
                t["seats"][0].as_i64().unwrap(),
                t["seats"][1].as_i64().unwrap(),
            );
            let (sx, sy) = game(x, y);
            let r = app
                .req(
                    Method::PUT,
                    &format!("/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result", t["number"]),
                    Some(&referee),
                )
                .json(&json!({"seats": [{"player_id": x, "score": sx}, {"player_id": y, "score": sy}]}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
        }
    }
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let order: Vec<i64> = s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(order, vec![a, b, c, d], "{s}");
    assert_eq!(s["rows"][0]["tp"], s["rows"][1]["tp"]);
    assert_eq!(s["rows"][0]["tp_exact"], "333/10");
    assert!(
        s["rows"][1]["tie_breaks"]["game_points"].as_f64()
            > s["rows"][0]["tie_breaks"]["game_points"].as_f64()
    );
    assert_eq!(s["rows"][0]["place"], 1);
    assert_eq!(s["rows"][1]["place"], 2);
}

#[actix_web::test]
async fn a_five_point_team_penalty_is_taken_before_the_products() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 2).await;
    let first: Vec<i64> = teams[0].to_vec();
    let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    play_round(&app, tid, &referee, &round, |p| {
        if first.contains(&p) {
            42
        } else {
            40
        }
    })
    .await;
    assert_eq!(matches(&app, tid, 1).await[0]["winner_team"], 1);
    // One violation by a team-1 player: 42 - 5 = 37, and 37 x 42 < 40 x 40.
    let offender = teams[0][0];
    let table = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seats"].as_array().unwrap().contains(&json!(offender)))
        .unwrap()["number"]
        .clone();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(&referee),
            json!({"player_id": offender, "kind": "point_penalty", "round": 1, "table": table,
                   "reason": "rule violation"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert_eq!(r.json::<Value>().await.unwrap()["points"], 5);
    let m = matches(&app, tid, 1).await;
    assert_eq!(m[0]["winner_team"], 2, "{m}");
    assert_eq!(m[0]["decided_at_step"], 1);
}
