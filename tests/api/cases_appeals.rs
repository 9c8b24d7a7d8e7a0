//! Appeals to the committee, the appeal window, and refused cases.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app};

#[allow(unused_imports)]
use crate::case_fixtures::*;

#[actix_web::test]
async fn an_appeal_upheld_two_to_one_corrects_the_result_standings_and_ratings() {
    let app = spawn_app().await;
    let e = setup(&app, true).await;
    let pool = e.pool.unwrap();
    let (table, winner, loser) = e.tables[0];
    let board = || {
        let req = app.req(
            Method::GET,
            &format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true"),
            None,
        );
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
    let tp_of = |s: &Value, p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .map(|r| r["tp"].as_f64().unwrap())
    };
    let standings = || {
        let req = app.req(
            Method::GET,
            &format!("/api/v1/tournaments/{}/standings", e.tid),
            None,
        );
        async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let b = board().await;
    assert_eq!(rating_of(&b, winner), Some(1012.5), "{b}");
    let s = standings().await;
    assert!(tp_of(&s, winner).unwrap() > tp_of(&s, loser).unwrap());

    let correction = json!([{"kind": "correct_result", "round": 1, "table": table, "seats": [
        {"player_id": winner, "score": 4, "outcome": "loss"},
        {"player_id": loser, "score": 10, "outcome": "win"}]}]);
    // The loser says the result was entered the wrong way round; the players at the table
    // become parties.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "result", "round": 1, "table": table,
               "statement": "I won 10-4; the result was entered the wrong way round.",
               "remedies": correction}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    let players: Vec<i64> = case["parties"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["player_id"].as_i64())
        .collect();
    assert_eq!(players, vec![loser, winner]);
    // The referee dismisses; the loser appeals within the window.
    referee_decides(
        &app,
        &e,
        cid,
        json!({"verdict": "dismiss", "reason": "the score sheet says otherwise"}),
    )
    .await;
    let appeal = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
            Some(e.token_of_player(loser)),
            json!({"statement": "The score sheet was filled in by my opponent.",
                   "evidence": {"links": ["https://example.org/sheet.jpg"]},
                   "remedies": correction}),
        )
        .await,
        201,
    )
    .await;
    let aid = appeal["id"].as_i64().unwrap();
    assert_eq!(appeal["kind"], "appeal");
    assert_eq!(appeal["appeal_of"], cid);
    assert_eq!(appeal["panel"]["mode"], "vote");
    assert_eq!(
        panel(&appeal).iter().map(|m| m.0).collect::<Vec<_>>(),
        e.committee.iter().map(|c| c.0).collect::<Vec<_>>()
    );
    assert!(appeal["parties"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["user_id"] == e.referee_id && p["role"] == "official_appealed"));
    let original = ok(
        app.get(
            &format!("/api/v1/tournaments/{}/cases/{cid}", e.tid),
            Some(&e.org),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(original["status"], "appealed");
    assert_eq!(original["appealed_by"], aid);
    // A second appeal of the same decision is refused.
    problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
            Some(e.token_of_player(winner)),
            json!({"statement": "me too"}),
        )
        .await,
        409,
    )
    .await;

    // 2-1: uphold, dismiss, uphold.
    let v = ok(
        vote(
            &app,
            &e,
            aid,
            &e.committee[0].1,
            json!({"vote": "uphold", "reason": "the sheet is in the winner's hand"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(v["status"], "open");
    let v = ok(
        vote(
            &app,
            &e,
            aid,
            &e.committee[1].1,
            json!({"vote": "dismiss", "reason": "the referee saw the game"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(v["status"], "open");
    let decided = ok(
        vote(
            &app,
            &e,
            aid,
            &e.committee[2].1,
            json!({"vote": "uphold", "reason": "the photo shows 10-4"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(decided["status"], "decided");
    assert_eq!(decided["outcome"], "upheld");
    assert_eq!(decided["is_final"], true);
    assert_eq!(decided["remedies"][0]["effect"]["result_version"], 2);
    assert!(decided["decision_reason"]
        .as_str()
        .unwrap()
        .contains("2 of 3"));

    // The result has a new version linked to the appeal; standings and ratings follow.
    let result = ok(
        app.get(
            &format!(
                "/api/v1/tournaments/{}/rounds/1/tables/{table}/result",
                e.tid
            ),
            None,
        )
        .await,
        200,
    )
    .await;
    assert_eq!(result["current"]["version"], 2);
    assert_eq!(result["current"]["case_id"], aid);
    assert_eq!(result["versions"][0]["case_id"], Value::Null);
    let s = standings().await;
    assert!(
        tp_of(&s, loser).unwrap() > tp_of(&s, winner).unwrap(),
        "{s}"
    );
    let b = board().await;
    assert_eq!(rating_of(&b, winner), Some(987.5), "{b}");
    assert_eq!(rating_of(&b, loser), Some(1012.5));

    // An appeal's decision is final.
    let body = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{aid}/appeal", e.tid),
            Some(e.token_of_player(winner)),
            json!({"statement": "appeal of the appeal"}),
        )
        .await,
        409,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("final"));
    // The public sees both outcomes, without statements.
    let listed = ok(
        app.get(&format!("/api/v1/tournaments/{}/cases", e.tid), None)
            .await,
        200,
    )
    .await;
    let listed = listed["items"].clone();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|c| c["statement"].is_null()));
    assert_eq!(listed[1]["outcome"], "upheld");
}

#[actix_web::test]
async fn an_appeal_after_the_window_is_refused_with_a_clear_error() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    patch_tournament(&app, e.tid, &e.org, json!({"appeal_window_minutes": 0})).await;
    let (_, winner, loser) = e.tables[0];
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "table", "round": 1, "table": e.tables[0].0,
               "statement": "The table was too small to lay out all tiles."}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    referee_decides(
        &app,
        &e,
        cid,
        json!({"verdict": "dismiss", "reason": "standard tables"}),
    )
    .await;
    // Someone who is not a party may not appeal.
    let outsider = e
        .players
        .iter()
        .find(|p| p.0 != winner && p.0 != loser)
        .unwrap();
    problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
            Some(&outsider.2),
            json!({"statement": "I want to appeal"}),
        )
        .await,
        403,
    )
    .await;
    let body = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
            Some(e.token_of_player(loser)),
            json!({"statement": "Please reconsider"}),
        )
        .await,
        409,
    )
    .await;
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("appeal window of 0 minutes") && detail.contains("closed"),
        "{detail}"
    );
}

/// A decision's appeal deadline is fixed when it is given: widening the window later does not
/// reopen a final decision, narrowing it does not close an appeal still allowed.
#[actix_web::test]
async fn changing_the_appeal_window_does_not_move_a_decisions_deadline() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (table, _, loser) = e.tables[0];
    let decided = |statement: &'static str| {
        let (app, e) = (&app, &e);
        async move {
            let case = open_case(
                app,
                e,
                e.token_of_player(loser),
                json!({"subject": "table", "round": 1, "table": table, "statement": statement}),
            )
            .await;
            let cid = case["id"].as_i64().unwrap();
            referee_decides(
                app,
                e,
                cid,
                json!({"verdict": "dismiss", "reason": "standard tables"}),
            )
            .await
        }
    };
    let appeal = |cid: i64| {
        let (app, e) = (&app, &e);
        async move {
            app.post(
                &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
                Some(e.token_of_player(loser)),
                json!({"statement": "Please reconsider"}),
            )
            .await
        }
    };
    let read = |cid: i64| {
        let (app, e) = (&app, &e);
        async move {
            ok(
                app.get(
                    &format!("/api/v1/tournaments/{}/cases/{cid}", e.tid),
                    Some(&e.org),
                )
                .await,
                200,
            )
            .await
        }
    };
    // Decided under a window of 0: final at once, and still final once the window widens.
    patch_tournament(&app, e.tid, &e.org, json!({"appeal_window_minutes": 0})).await;
    let closed = decided("The table was too small.").await;
    let closed = closed["id"].as_i64().unwrap();
    patch_tournament(&app, e.tid, &e.org, json!({"appeal_window_minutes": 60})).await;
    let body = problem(appeal(closed).await, 409).await;
    assert!(body["detail"]
        .as_str()
        .unwrap()
        .contains("appeal window of 0 minutes"));
    let case = read(closed).await;
    assert_eq!(case["is_final"], true);
    assert!(case["appeal_until"].is_null());
    // Decided under 60 minutes: narrowing the window to 0 leaves the hour to appeal.
    let open = decided("The chairs were broken.").await;
    let until = open["appeal_until"].as_str().unwrap().to_string();
    let open = open["id"].as_i64().unwrap();
    patch_tournament(&app, e.tid, &e.org, json!({"appeal_window_minutes": 0})).await;
    let case = read(open).await;
    assert_eq!(case["is_final"], false);
    assert_eq!(case["appeal_until"], until.as_str());
    ok(appeal(open).await, 201).await;
}

#[actix_web::test]
async fn bad_cases_are_refused_with_the_field_at_fault() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let url = format!("/api/v1/tournaments/{}/cases", e.tid);
    // A stranger (no registered player, no role) may not open a case.
    let (_, stranger) = app.user("stranger").await;
    problem(
        app.post(
            &url,
            Some(&stranger),
            json!({"subject": "conduct", "statement": "hi"}),
        )
        .await,
        403,
    )
    .await;
    let token = &e.players[0].2;
    for (body, field) in [
        (json!({"subject": "result", "statement": "x"}), "round"),
        (
            json!({"subject": "penalty", "statement": "x"}),
            "penalty_id",
        ),
        (
            json!({"subject": "conduct", "statement": "  "}),
            "statement",
        ),
        (
            json!({"subject": "conduct", "statement": "x", "evidence": {"links": ["ftp://x"]}}),
            "evidence.links[0]",
        ),
        (
            json!({"subject": "conduct", "statement": "x", "respondents": [{}]}),
            "respondents[0]",
        ),
        (
            json!({"subject": "conduct", "statement": "x",
                   "remedies": [{"kind": "replay_table", "round": 0, "table": 1}]}),
            "remedies[0].round",
        ),
    ] {
        let p = problem(app.post(&url, Some(token), body.clone()).await, 422).await;
        assert!(
            crate::helpers::fields(&p).contains(&field.to_string()),
            "{body}: {p}"
        );
    }
    // A vote on a case the referee rules on alone is a conflict for the referee, and an
    // uphold carries no remedies.
    let case = open_case(
        &app,
        &e,
        token,
        json!({"subject": "conduct", "statement": "x"}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    problem(
        vote(
            &app,
            &e,
            cid,
            &e.referee,
            json!({"vote": "uphold", "reason": "x"}),
        )
        .await,
        409,
    )
    .await;
    let p = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "uphold", "reason": "x",
                   "remedies": [{"kind": "replay_table", "round": 1, "table": 1}]}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(crate::helpers::fields(&p), vec!["remedies"]);
    // A remedy that cannot be applied leaves the case open.
    let p = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "remedy", "reason": "x",
                   "remedies": [{"kind": "replay_table", "round": 9, "table": 1}]}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(crate::helpers::fields(&p), vec!["remedies[0]"]);
    let again = ok(
        app.get(&format!("{url}/{cid}"), Some(&e.referee)).await,
        200,
    )
    .await;
    assert_eq!(again["status"], "open");
    // A replay order of the case's table is recorded.
    let table_case = open_case(
        &app,
        &e,
        token,
        json!({"subject": "table", "round": 1, "table": 1, "statement": "x"}),
    )
    .await;
    let decided = referee_decides(
        &app,
        &e,
        table_case["id"].as_i64().unwrap(),
        json!({"verdict": "remedy", "reason": "replay it",
                   "remedies": [{"kind": "replay_table", "round": 1, "table": 1}]}),
    )
    .await;
    assert_eq!(decided["outcome"], "remedied");
    assert_eq!(
        decided["remedies"][0]["effect"]["replay_ordered"]["table"],
        1
    );
}
