//! A decision's remedies stay within its case: a table remedy names the case's table, a player
//! remedy a party or a player at its table (`src/domain/case_scope.rs`); anything else is 422
//! naming the remedy's field, and nothing is applied.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};

#[allow(unused_imports)]
use crate::case_fixtures::*;

fn decision_url(e: &Event, cid: i64) -> String {
    format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid)
}

/// The referee's `remedy` ruling on `cid` ordering `remedies` is refused naming `field`, and
/// the case stays open.
async fn refused(app: &TestApp, e: &Event, cid: i64, remedies: Value, field: &str) {
    let p = problem(
        app.post(
            &decision_url(e, cid),
            Some(&e.referee),
            json!({"verdict": "remedy", "reason": "x", "remedies": remedies}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec![field.to_string()], "{remedies}: {p}");
    let case = ok(
        app.get(
            &format!("/api/v1/tournaments/{}/cases/{cid}", e.tid),
            Some(&e.referee),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(case["status"], "open");
}

async fn penalty(app: &TestApp, e: &Event, player: i64) -> i64 {
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/penalties", e.tid),
            Some(&e.referee),
            json!({"player_id": player, "kind": "warning", "reason": "Slow play."}),
        )
        .await,
        201,
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

async fn penalties(app: &TestApp, e: &Event) -> Vec<Value> {
    let list = ok(
        app.get(&format!("/api/v1/tournaments/{}/penalties", e.tid), None)
            .await,
        200,
    )
    .await;
    list["items"].as_array().unwrap().clone()
}

#[actix_web::test]
async fn a_decisions_remedies_stay_within_its_case() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (t1, w0, l0) = e.tables[0];
    let (t2, w1, _) = e.tables[1];
    let others_penalty = penalty(&app, &e, w1).await;
    let own_penalty = penalty(&app, &e, l0).await;
    // A complaint about table 1 of round 1: its players are the case's players.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(l0),
        json!({"subject": "table", "round": 1, "table": t1,
               "statement": "My opponent moved a tile back."}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    let seats = json!([{"player_id": w1, "score": 4, "outcome": "loss"}]);
    for (remedies, field) in [
        // Another table of the round, another round.
        (
            json!([{"kind": "replay_table", "round": 1, "table": t2}]),
            "remedies[0].table",
        ),
        (
            json!([{"kind": "replay_table", "round": 2, "table": t1}]),
            "remedies[0].round",
        ),
        (
            json!([{"kind": "correct_result", "round": 1, "table": t2, "seats": seats}]),
            "remedies[0].table",
        ),
        (
            json!([{"kind": "correct_result", "round": 3, "table": t1, "seats": seats}]),
            "remedies[0].round",
        ),
        // A player who is no party and does not sit at the table.
        (
            json!([{"kind": "add_penalty", "player_id": w1, "penalty": "warning"}]),
            "remedies[0].player_id",
        ),
        // A party's penalty at another table.
        (
            json!([{"kind": "add_penalty", "player_id": w0, "penalty": "game_loss",
                    "round": 1, "table": t2}]),
            "remedies[0].table",
        ),
        (
            json!([{"kind": "add_penalty", "player_id": w0, "penalty": "game_loss",
                    "round": 2, "table": t1}]),
            "remedies[0].round",
        ),
        // Someone else's penalty, a penalty of no case of this tournament.
        (
            json!([{"kind": "annul_penalty", "penalty_id": others_penalty}]),
            "remedies[0].penalty_id",
        ),
        (
            json!([{"kind": "annul_penalty", "penalty_id": others_penalty + 1000}]),
            "remedies[0].penalty_id",
        ),
        // One remedy outside the case refuses the whole decision.
        (
            json!([{"kind": "add_penalty", "player_id": w0, "penalty": "warning"},
                   {"kind": "add_penalty", "player_id": w1, "penalty": "warning"}]),
            "remedies[1].player_id",
        ),
    ] {
        refused(&app, &e, cid, remedies, field).await;
    }
    assert_eq!(penalties(&app, &e).await.len(), 2, "nothing was applied");
    // Within the case: its table, its players, a penalty of one of them.
    let decided = referee_decides(
        &app,
        &e,
        cid,
        json!({"verdict": "remedy", "reason": "the tile was moved back",
               "remedies": [
                   {"kind": "annul_penalty", "penalty_id": own_penalty},
                   {"kind": "add_penalty", "player_id": w0, "penalty": "warning"},
                   {"kind": "replay_table", "round": 1, "table": t1}]}),
    )
    .await;
    assert_eq!(decided["outcome"], "remedied");
    assert_eq!(decided["remedies"].as_array().unwrap().len(), 3);
}

#[actix_web::test]
async fn a_case_about_no_table_orders_no_table_remedy_and_upholding_checks_the_request() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (t1, w0, l0) = e.tables[0];
    let (_, w1, _) = e.tables[1];
    // A complaint about the winner's conduct: no table.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(l0),
        json!({"subject": "conduct", "statement": "Mocked my moves.",
               "respondents": [{"player_id": w0}],
               "remedies": [{"kind": "add_penalty", "player_id": w1, "penalty": "warning"}]}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    refused(
        &app,
        &e,
        cid,
        json!([{"kind": "replay_table", "round": 1, "table": t1}]),
        "remedies[0]",
    )
    .await;
    refused(
        &app,
        &e,
        cid,
        json!([{"kind": "correct_result", "round": 1, "table": t1,
                "seats": [{"player_id": w0, "score": 4, "outcome": "loss"}]}]),
        "remedies[0]",
    )
    .await;
    // Upholding applies the remedies asked for: they are checked the same way.
    let p = problem(
        app.post(
            &decision_url(&e, cid),
            Some(&e.referee),
            json!({"verdict": "uphold", "reason": "as asked"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["remedies[0].player_id".to_string()]);
    assert!(penalties(&app, &e).await.is_empty());
    // The respondent's penalty on their own game is within the case.
    let decided = referee_decides(
        &app,
        &e,
        cid,
        json!({"verdict": "remedy", "reason": "mocking is unsporting",
               "remedies": [{"kind": "add_penalty", "player_id": w0, "penalty": "warning",
                             "round": 1, "table": t1}]}),
    )
    .await;
    assert_eq!(decided["outcome"], "remedied");
}

#[actix_web::test]
async fn a_panel_member_votes_for_remedies_within_the_case_only() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (t1, w0, l0) = e.tables[0];
    let (t2, w1, _) = e.tables[1];
    // A complaint about table 1 against the referee: the committee votes.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(l0),
        json!({"subject": "result", "round": 1, "table": t1,
               "statement": "The referee entered our result wrongly.",
               "respondents": [{"user_id": e.referee_id}]}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    assert_eq!(case["panel"]["mode"], "vote");
    for (remedies, field) in [
        (
            json!([{"kind": "replay_table", "round": 1, "table": t2}]),
            "remedies[0].table",
        ),
        (
            json!([{"kind": "add_penalty", "player_id": w1, "penalty": "warning"}]),
            "remedies[0].player_id",
        ),
    ] {
        let p = problem(
            vote(
                &app,
                &e,
                cid,
                &e.committee[0].1,
                json!({"vote": "remedy", "reason": "x", "remedies": remedies}),
            )
            .await,
            422,
        )
        .await;
        assert_eq!(fields(&p), vec![field.to_string()], "{p}");
    }
    // Nothing was stored: the member still votes, for remedies within the case.
    let voted = ok(
        vote(
            &app,
            &e,
            cid,
            &e.committee[0].1,
            json!({"vote": "remedy", "reason": "replay it",
                   "remedies": [{"kind": "replay_table", "round": 1, "table": t1},
                                {"kind": "add_penalty", "player_id": w0, "penalty": "warning"}]}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(voted["votes"].as_array().unwrap().len(), 1);
}
