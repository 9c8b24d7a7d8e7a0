//! Running a whole event over HTTP: registrations, rounds and draws, results with versions,
//! standings, withdrawals, penalties and the live feed.

use reqwest::Method;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{fields, problem, spawn_app};

#[allow(unused_imports)]
use crate::event_fixtures::*;

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
    let regs = regs["items"].clone();
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
    let regs = regs["items"].clone();
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
    let draws = draws["items"].clone();
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
    assert!(
        csv.starts_with("place,player_id,player_name,tp,round_1,round_2,round_3,round_4,round_5")
    );
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
        .put_if_match(&path, Some(&referee), 1, json!({"seats": seats}))
        .await;
    let p = problem(r, 422).await;
    assert_eq!(fields(&p), vec!["reason"]);
    let r = app
        .put_if_match(
            &path,
            Some(&referee),
            1,
            json!({"seats": seats, "reason": "scores swapped"}),
        )
        .await;
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
    let draws = draws["items"].clone();
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

/// The draw record of every attempt of round `n`, each checked: its revealed input and seed
/// recompute its draw. Returns the inputs.
async fn recomputed_draws(app: &crate::helpers::TestApp, tid: i64, n: i64) -> Vec<Value> {
    let records: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/{n}/draws"), None)
        .await
        .json()
        .await
        .unwrap();
    let mut inputs = Vec::new();
    for record in records["items"].as_array().unwrap() {
        let input: tourney::domain::seating::DrawInput =
            serde_json::from_value(record["input"].clone()).unwrap();
        let seed = record["seed"].as_str().unwrap();
        let mut rng = tourney::domain::DrawRng::from_seed(
            tourney::domain::DrawRng::seed_from_hex(seed).unwrap(),
        );
        let again = tourney::domain::seating::draw_round(&input, &mut rng).unwrap();
        assert_eq!(serde_json::to_value(&again).unwrap(), record["draw"]);
        inputs.push(record["input"].clone());
    }
    inputs
}

/// A round stores only what is new in its draw input (issue 16): the history and the plan are
/// rebuilt from the earlier rounds' draws, so the revealed input of a later round, and of each
/// of its redraws, still recomputes its draw, and a redraw follows the same plan.
#[actix_web::test]
async fn a_later_rounds_draw_record_recomputes_from_its_rebuilt_history_and_plan() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 12).await;
    let r1 = new_round(
        &app,
        tid,
        &org,
        json!({"method": "random", "options": {"rounds_remaining": 3}}),
    )
    .await;
    play_round(&app, tid, &referee, &r1, |p| 40 + p).await;
    let url = format!("/api/v1/tournaments/{tid}/rounds");
    let r = app
        .post(&url, Some(&org), json!({"method": "random"}))
        .await;
    assert_eq!(r.status(), 201);
    let r = app
        .post(&format!("{url}/2/redraw"), Some(&org), json!({}))
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .post(&format!("{url}/2/publish"), Some(&org), json!({}))
        .await;
    let r2: Value = r.json().await.unwrap();
    let inputs = recomputed_draws(&app, tid, 2).await;
    assert_eq!(inputs.len(), 2, "both attempts are kept");
    for input in &inputs {
        // Round 1's three tables are the history; round 1's plan is followed.
        assert_eq!(input["history"]["tables"].as_array().unwrap().len(), 3);
        assert_eq!(input["plan"], r1["draw"]["plan"]);
        assert!(input.get("history_and_plan_from_earlier_rounds").is_none());
    }
    play_round(&app, tid, &referee, &r2, |p| 40 + p).await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    let inputs = recomputed_draws(&app, tid, 3).await;
    assert_eq!(inputs[0]["history"]["tables"].as_array().unwrap().len(), 6);
    assert_eq!(inputs[0]["plan"], r2["draw"]["plan"]);
    // Round 1's record is unchanged by the rounds after it.
    let first = recomputed_draws(&app, tid, 1).await;
    assert_eq!(first[0]["history"]["tables"].as_array().unwrap().len(), 0);
    // What is stored per attempt does not repeat the earlier rounds' tables.
    use diesel::prelude::*;
    let mut conn = crate::rating_fixtures::db(&app);
    let stored: Vec<Option<String>> =
        diesel::dsl::sql::<diesel::sql_types::Nullable<diesel::sql_types::Text>>(
            "SELECT (draw_input -> 'history')::text FROM round_draws",
        )
        .load(&mut conn)
        .unwrap();
    assert_eq!(stored, vec![None; 4], "round 1, round 2 twice, round 3");
}
