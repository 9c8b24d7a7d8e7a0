//! Issue 37, item 5: a draw never leaves a tournament that cannot finish. Every seating method
//! is checked against the ruleset before it draws (422 on `method`), an organiser can withdraw
//! a round that has no result yet and draw it again, and errors number tables from 1.

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_duels, play_round, team_event};
use crate::helpers::{fields, problem, spawn_app, TestApp};

const METHODS: [&str; 14] = [
    "random",
    "random_seeded",
    "fixed_seeded",
    "placement_even",
    "swiss",
    "danish",
    "clarification",
    "clarification_bonus",
    "final_groups",
    "bridge",
    "team_duplicate",
    "swiss_2p",
    "round_robin",
    "knockout",
];

async fn rounds_post(app: &TestApp, tid: i64, token: &str, body: Value) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{tid}/rounds"),
        Some(token),
        body,
    )
    .await
}

async fn withdraw(
    app: &TestApp,
    tid: i64,
    n: i64,
    token: Option<&str>,
    body: Value,
) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{tid}/rounds/{n}/withdraw"),
        token,
        body,
    )
    .await
}

/// Every (ruleset, method) pair either draws tables whose results the service then takes, or is
/// refused with 422 naming `method`; never a draw whose results would be refused.
#[actix_web::test]
async fn every_method_against_every_preset_draws_what_the_rules_score_or_is_refused() {
    for (preset, seats) in [
        ("agricola_norway", 3..=4),
        ("bridge_agricola", 3..=4),
        ("team_duplicate_2v2", 4..=4),
        ("tantrix", 2..=2),
        ("ashes_league", 2..=2),
    ] {
        let app = spawn_app().await;
        let (tid, org, referee) = if preset == "team_duplicate_2v2" {
            let (tid, org, referee, _) = team_event(&app, 2).await;
            (tid, org, referee)
        } else {
            let (tid, org, referee, _) = event(&app, preset, 12).await;
            (tid, org, referee)
        };
        let mut drawn = Vec::new();
        for method in METHODS {
            let r = rounds_post(&app, tid, &org, json!({ "method": method })).await;
            let status = r.status().as_u16();
            if status == 422 {
                let p = problem(r, 422).await;
                assert_eq!(fields(&p), ["method"], "{preset} / {method}: {p}");
                continue;
            }
            let round: Value = r.json().await.unwrap();
            assert_eq!(status, 201, "{preset} / {method}: {round}");
            for t in round["draw"]["tables"].as_array().unwrap() {
                let n = t["seats"].as_array().unwrap().len();
                assert!(
                    seats.contains(&n),
                    "{preset} / {method}: table {} has {n} seats",
                    t["number"]
                );
            }
            // The results of every table are taken: the round completes.
            let n = round["number"].as_i64().unwrap();
            let r = app
                .post(
                    &format!("/api/v1/tournaments/{tid}/rounds/{n}/publish"),
                    Some(&org),
                    json!({}),
                )
                .await;
            assert_eq!(r.status(), 200, "{preset} / {method}");
            let published: Value = r.json().await.unwrap();
            if *seats.end() == 2 {
                play_duels(&app, tid, &referee, &published, &[]).await;
            } else {
                play_round(&app, tid, &referee, &published, |p| 40 + p).await;
            }
            let done: Value = app
                .get(&format!("/api/v1/tournaments/{tid}/rounds/{n}"), None)
                .await
                .json()
                .await
                .unwrap();
            assert_eq!(done["status"], "completed", "{preset} / {method}");
            drawn.push(method);
        }
        assert!(!drawn.is_empty(), "{preset}: no method drew");
    }
}

#[actix_web::test]
async fn a_four_seat_method_on_two_player_rules_is_refused_naming_what_fits() {
    for preset in ["tantrix", "ashes_league"] {
        let app = spawn_app().await;
        let (tid, org, _, _) = event(&app, preset, 8).await;
        let p = problem(
            rounds_post(&app, tid, &org, json!({"method": "random"})).await,
            422,
        )
        .await;
        assert_eq!(fields(&p), ["method"], "{p}");
        let message = p["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains("tables of 2"), "{message}");
        assert!(
            message.contains("swiss_2p, round_robin, knockout"),
            "{message}"
        );
        // Nothing was drawn.
        let rounds: Value = app
            .get(&format!("/api/v1/tournaments/{tid}/rounds"), Some(&org))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(rounds["items"].as_array().unwrap().len(), 0);
    }
}

/// The tournament of the issue: a published round whose table the rules cannot score (drawn
/// before the check existed). Its results are refused naming table 1; the organiser withdraws
/// it and draws it again with a method that fits, and the event goes on.
#[actix_web::test]
async fn a_stuck_round_is_withdrawn_with_its_reason_and_drawn_again() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 8).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let table1 = r1["draw"]["tables"][0]["seats"].clone();
    // As the old service drew it: one table of four.
    let stuck = json!({"round": 1, "method": "random", "tables": [{"number": 1, "seats": ids[..4],
        "starting_player": null, "label": null}], "bridge_groups": [], "shared_deal": null,
        "byes": [], "groups": [], "team_matches": [], "seeds": [], "plan": null,
        "report": {"repeat_meetings": [], "repeat_count": 0, "bridge_repeat_meetings": [],
            "table_rating_spread": [], "seeding_groups": [], "byes": [], "unsatisfied": []}});
    {
        use diesel::prelude::*;
        let sql = format!(
            "UPDATE rounds SET draw = '{stuck}'::json, colours = NULL WHERE tournament_id = {tid}"
        );
        let mut conn = diesel::PgConnection::establish(&app.database_url).unwrap();
        diesel::sql_query(sql).execute(&mut conn).unwrap();
    }
    let seats: Vec<Value> = ids[..4]
        .iter()
        .map(|p| json!({"player_id": p, "score": 30}))
        .collect();
    let p = problem(
        app.put(
            &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            Some(&referee),
            json!({ "seats": seats }),
        )
        .await,
        422,
    )
    .await;
    let message = p["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("table 1 has 4 seats"), "{message}");
    assert!(!message.contains("table 0"), "{message}");
    assert!(table1.is_array());

    // Who may withdraw: organisers (and admins) only.
    let (_, stranger) = app.user("stranger").await;
    let reason = json!({"reason": "drawn at a table of four; Tantrix is played in pairs"});
    problem(withdraw(&app, tid, 1, None, reason.clone()).await, 401).await;
    problem(
        withdraw(&app, tid, 1, Some(&stranger), reason.clone()).await,
        403,
    )
    .await;
    problem(
        withdraw(&app, tid, 1, Some(&referee), reason.clone()).await,
        403,
    )
    .await;
    let p = problem(
        withdraw(&app, tid, 1, Some(&org), json!({"reason": "  "})).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["reason"]);

    let mut feed = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events"),
            None,
        )
        .send()
        .await
        .unwrap();
    feed.chunk().await.unwrap().expect("stream open");
    let r = withdraw(&app, tid, 1, Some(&org), reason.clone()).await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["status"], "draft");
    assert_eq!(out["withdrawals"][0]["reason"], reason["reason"]);
    assert_eq!(out["withdrawals"][0]["was_published"], true);
    assert_eq!(out["withdrawals"][0]["withdrawn_by"], "organiser");
    assert_eq!(out["withdrawals"][0]["attempt"], 1);
    assert!(out["metadata"].get("withdrawals").is_none());
    let mut seen = String::new();
    while !seen.contains("event: round_withdrawn") {
        let chunk = feed.chunk().await.unwrap().expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("Tantrix is played in pairs"), "{seen}");

    // Twice is refused; so is publishing the withdrawn draw again.
    problem(
        withdraw(&app, tid, 1, Some(&org), reason.clone()).await,
        409,
    )
    .await;
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds/1/publish"),
            Some(&org),
            json!({}),
        )
        .await,
        409,
    )
    .await;
    // The public no longer sees a draw of round 1 until it is drawn again.
    let public: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(public["items"].as_array().unwrap().len(), 0);

    // Drawn again, with another method: still round 1, its history kept.
    let again = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
    assert_eq!(again["number"], 1);
    assert_eq!(again["method"], "round_robin");
    assert_eq!(again["draws_made"], 2);
    assert_eq!(again["withdrawals"].as_array().unwrap().len(), 1);
    let draws: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/1/draws"), None)
        .await
        .json()
        .await
        .unwrap();
    let draws = draws["items"].as_array().unwrap();
    assert_eq!(draws.len(), 2);
    assert!(draws.iter().all(|d| d["seed"].is_string()), "{draws:?}");
    play_duels(&app, tid, &referee, &again, &[]).await;

    // A round with a result cannot be withdrawn; nor can any round but the last.
    let r2 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let first = &r2["draw"]["tables"][0];
    let s = first["seats"].as_array().unwrap();
    let r = app
        .put(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/2/tables/{}/result",
                first["number"]
            ),
            Some(&referee),
            json!({"seats": [{"player_id": s[0], "score": 40}, {"player_id": s[1], "score": 30}]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let p = problem(
        withdraw(&app, tid, 2, Some(&org), reason.clone()).await,
        409,
    )
    .await;
    assert_eq!(fields(&p), ["round"], "{p}");
    let p = problem(
        withdraw(&app, tid, 1, Some(&org), reason.clone()).await,
        409,
    )
    .await;
    assert_eq!(fields(&p), ["round"], "{p}");
}

/// A withdrawn later round: standings and the next draw never see its tables; the round drawn
/// after it follows from the rounds that stand.
#[actix_web::test]
async fn standings_and_later_rounds_do_not_see_a_withdrawn_draw() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &r1, |p| 40 + p).await;
    let before: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    new_round(&app, tid, &org, json!({"method": "danish"})).await;
    let r = withdraw(&app, tid, 2, Some(&org), json!({"reason": "wrong method"})).await;
    assert_eq!(r.status(), 200);
    let after: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(before["rows"], after["rows"]);
    let r2 = new_round(&app, tid, &org, json!({"method": "swiss"})).await;
    assert_eq!(r2["number"], 2);
    assert_eq!(r2["withdrawals"][0]["method"], "danish");
    play_round(&app, tid, &referee, &r2, |p| 40 + p).await;
    let r3 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    assert_eq!(r3["number"], 3);
    // Round 3's draw input holds the tables of rounds 1 and 2 as they stand, not the withdrawn.
    let draws: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/3/draws"), None)
        .await
        .json()
        .await
        .unwrap();
    let history = &draws["items"][0]["input"]["history"]["tables"];
    let mut expected: Vec<Value> = Vec::new();
    for r in [&r1, &r2] {
        for t in r["draw"]["tables"].as_array().unwrap() {
            expected.push(t["seats"].clone());
        }
    }
    assert_eq!(history.as_array().unwrap(), &expected);
}
