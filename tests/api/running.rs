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

#[actix_web::test]
async fn ashes_sanctions_escalate_to_removal_and_the_live_feed_reports_results() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "ashes_league", 9).await;
    // Tables of 2: 8 confirmed, the 9th waits.
    let regs: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/registrations"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(regs[8]["status"], "waitlisted");
    let r1 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;

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

    for t in r1["draw"]["tables"].as_array().unwrap() {
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
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
    let mut seen = String::new();
    while !seen.contains("event: round_completed") {
        let chunk = feed.chunk().await.unwrap().expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: round_published"));
    assert!(seen.contains("event: result_entered"));

    // Three sanctions: warning, game loss, removal.
    let culprit = r1["draw"]["tables"][0]["seats"][0].as_i64().unwrap();
    let mut kinds = Vec::new();
    for _ in 0..3 {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/penalties"),
                Some(&referee),
                json!({"player_id": culprit, "kind": "sanction", "round": 1,
                       "table": r1["draw"]["tables"][0]["number"], "reason": "slow play"}),
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
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let row = s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == culprit)
        .unwrap()
        .clone();
    assert_eq!(row["tp"], 0.0, "the game loss took the win: {row}");
    let w: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/withdrawals"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(w[0]["player_id"], culprit);
    assert_eq!(w[0]["from_round"], 2);
    let r2 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let seated: Vec<i64> = r2["draw"]["tables"]
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
    assert!(!seated.contains(&culprit));
    assert_eq!(
        r2["draw"]["byes"].as_array().unwrap().len(),
        1,
        "7 players: one bye"
    );
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
        .json(&json!({"rating_pool_id": pool}))
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
