//! Complaints, rulings and appeals over HTTP: who decides (the conflict-of-interest rules),
//! votes, remedies applied with the decision, visibility and the appeal window.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app, TestApp};

/// An Ashes event of four players (each with an account) and one played round, a referee and
/// an appeals committee of three.
struct Event {
    tid: i64,
    org: String,
    referee_id: i64,
    referee: String,
    /// (user id, token) of the three committee members.
    committee: Vec<(i64, String)>,
    /// (player id, user id, token) of the players.
    players: Vec<(i64, i64, String)>,
    /// Round 1's tables: (table number, winner player id, loser player id).
    tables: Vec<(i64, i64, i64)>,
    pool: Option<i64>,
}

impl Event {
    fn token_of_player(&self, player: i64) -> &str {
        &self.players.iter().find(|p| p.0 == player).unwrap().2
    }
}

async fn patch_tournament(app: &TestApp, tid: i64, org: &str, body: Value) {
    let t: Value = app
        .get(&format!("/api/v1/tournaments/{tid}"), Some(org))
        .await
        .json()
        .await
        .unwrap();
    let r = app
        .req(
            Method::PATCH,
            &format!("/api/v1/tournaments/{tid}"),
            Some(org),
        )
        .header("if-match", format!("\"{}\"", t["version"]))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

async fn setup(app: &TestApp, with_pool: bool) -> Event {
    let admin = app.admin_token().await;
    let (_, org) = app.user("organiser").await;
    let (referee_id, referee) = app.user("referee").await;
    let tid = app.tournament(&org, "ashes_league").await;
    let appoint = |user: i64, role: &'static str| {
        let req = app
            .req(
                Method::POST,
                &format!("/api/v1/tournaments/{tid}/staff"),
                Some(&org),
            )
            .json(&json!({"user_id": user, "role": role}));
        async move {
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 201);
        }
    };
    appoint(referee_id, "referee").await;
    let mut committee = Vec::new();
    for name in ["member1", "member2", "member3"] {
        let (id, token) = app.user(name).await;
        appoint(id, "appeals_committee").await;
        committee.push((id, token));
    }
    let mut pool = None;
    if with_pool {
        let r = app
            .post(
                "/api/v1/rating-pools",
                Some(&admin),
                json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        patch_tournament(app, tid, &org, json!({"rating_pool_id": id})).await;
        pool = Some(id);
    }
    patch_tournament(
        app,
        tid,
        &org,
        json!({"status": "registration_open", "planned_rounds": 3}),
    )
    .await;
    let mut players = Vec::new();
    for i in 1..=4 {
        let (uid, token) = app.user(&format!("player{i}")).await;
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                json!({"name": format!("Player {i}"), "user_id": uid}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&org),
                json!({"player_id": pid}),
            )
            .await;
        assert_eq!(r.status(), 201);
        players.push((pid, uid, token));
    }
    let round = crate::running::new_round(app, tid, &org, json!({"method": "swiss_2p"})).await;
    let mut tables = Vec::new();
    for t in round["draw"]["tables"].as_array().unwrap() {
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
        tables.push((
            t["number"].as_i64().unwrap(),
            s[0].as_i64().unwrap(),
            s[1].as_i64().unwrap(),
        ));
    }
    Event {
        tid,
        org,
        referee_id,
        referee,
        committee,
        players,
        tables,
        pool,
    }
}

async fn ok(r: reqwest::Response, status: u16) -> Value {
    let got = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(got, status, "{body}");
    body
}

async fn open_case(app: &TestApp, e: &Event, token: &str, body: Value) -> Value {
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases", e.tid),
            Some(token),
            body,
        )
        .await,
        201,
    )
    .await
}

fn panel(case: &Value) -> Vec<(i64, String)> {
    case["panel"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["user_id"].as_i64().unwrap(),
                m["seat"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn vote(app: &TestApp, e: &Event, cid: i64, token: &str, body: Value) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{}/cases/{cid}/votes", e.tid),
        Some(token),
        body,
    )
    .await
}

#[actix_web::test]
async fn a_complaint_is_decided_by_the_referee_and_its_remedy_applied() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, loser) = e.tables[0];
    // The loser complains about the winner's conduct and asks for a warning.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({
            "subject": "conduct",
            "statement": "My opponent kept rushing me and mocked my moves.",
            "evidence": {"text": "chat log attached", "links": ["https://example.org/chat.png"]},
            "respondents": [{"player_id": winner}],
            "remedies": [{"kind": "add_penalty", "player_id": winner, "penalty": "warning"}]
        }),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    assert_eq!(case["status"], "open");
    assert_eq!(case["panel"]["mode"], "referee");
    assert_eq!(panel(&case), vec![(e.referee_id, "referee".to_string())]);
    let roles: Vec<&str> = case["parties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, vec!["complainant", "respondent"]);

    // While open: the public and an uninvolved player do not see it; the respondent does.
    let url = format!("/api/v1/tournaments/{}/cases/{cid}", e.tid);
    problem(app.get(&url, None).await, 404).await;
    let other = e
        .players
        .iter()
        .find(|p| p.0 != winner && p.0 != loser)
        .unwrap();
    problem(app.get(&url, Some(&other.2)).await, 404).await;
    let seen = ok(app.get(&url, Some(e.token_of_player(winner))).await, 200).await;
    assert!(seen["statement"].as_str().unwrap().contains("rushing"));
    let listed = ok(
        app.get(&format!("/api/v1/tournaments/{}/cases", e.tid), None)
            .await,
        200,
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 0);

    // A committee member who is not on the panel does not even see the open case.
    problem(
        vote(
            &app,
            &e,
            cid,
            &e.committee[0].1,
            json!({"vote": "uphold", "reason": "agree"}),
        )
        .await,
        404,
    )
    .await;
    let decision = format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid);
    let decided = ok(
        app.post(
            &decision,
            Some(&e.referee),
            json!({"verdict": "uphold", "reason": "confirmed by the table next to them"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(decided["status"], "decided");
    assert_eq!(decided["outcome"], "upheld");
    assert_eq!(decided["decided_by"], e.referee_id);
    assert!(decided["appeal_until"].is_string());
    assert_eq!(decided["is_final"], false);
    let whats: Vec<&str> = decided["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["what"].as_str().unwrap())
        .collect();
    assert_eq!(
        whats,
        vec![
            "opened",
            "party_added",
            "party_added",
            "panel_computed",
            "remedy_applied",
            "decided"
        ]
    );
    assert!(decided["history"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["author"].is_i64() && h["at"].is_string()));
    // The warning was recorded through the penalties path, linked to the case.
    let penalties: Value = app
        .get(&format!("/api/v1/tournaments/{}/penalties", e.tid), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(penalties[0]["player_id"], winner);
    assert_eq!(penalties[0]["kind"], "warning");
    assert_eq!(penalties[0]["case_id"], cid);
    // Deciding twice is a conflict.
    problem(
        app.post(
            &decision,
            Some(&e.referee),
            json!({"verdict": "dismiss", "reason": "changed my mind"}),
        )
        .await,
        409,
    )
    .await;
    // Once decided the public sees the outcome and the remedy, not the statement or evidence.
    let public = ok(app.get(&url, None).await, 200).await;
    assert_eq!(public["outcome"], "upheld");
    assert_eq!(public["remedies"][0]["order"]["kind"], "add_penalty");
    assert!(public["statement"].is_null());
    assert!(public["evidence"].is_null());
    assert!(public["parties"].is_null());
    assert!(public["votes"].is_null());
}

#[actix_web::test]
async fn a_complaint_against_the_referee_is_decided_by_the_committee() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, _, loser) = e.tables[0];
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({
            "subject": "conduct",
            "statement": "The referee told my opponent what to play.",
            "respondents": [{"user_id": e.referee_id}]
        }),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    assert_eq!(case["panel"]["mode"], "vote");
    let members: Vec<i64> = panel(&case).iter().map(|m| m.0).collect();
    assert_eq!(members, e.committee.iter().map(|c| c.0).collect::<Vec<_>>());
    assert!(case["panel"]["rule"]
        .as_str()
        .unwrap()
        .contains("involves the referee"));
    // The referee is a party: no ruling, no vote.
    let body = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "dismiss", "reason": "I did nothing wrong"}),
        )
        .await,
        403,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("party"));
    // Two of three members dismiss: decided.
    let v1 = ok(
        vote(
            &app,
            &e,
            cid,
            &e.committee[0].1,
            json!({"vote": "dismiss", "reason": "no evidence"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(v1["status"], "open");
    let v2 = ok(
        vote(
            &app,
            &e,
            cid,
            &e.committee[1].1,
            json!({"vote": "dismiss", "reason": "witnesses disagree"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(v2["status"], "decided");
    assert_eq!(v2["outcome"], "dismissed");
    assert_eq!(v2["votes"].as_array().unwrap().len(), 2);
    assert_eq!(v2["is_final"], true, "a committee decision is final");
    // The third member is too late; the decision cannot be appealed.
    problem(
        vote(
            &app,
            &e,
            cid,
            &e.committee[2].1,
            json!({"vote": "uphold", "reason": "late"}),
        )
        .await,
        409,
    )
    .await;
    let body = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
            Some(e.token_of_player(loser)),
            json!({"statement": "I disagree"}),
        )
        .await,
        409,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("final"));
}

#[actix_web::test]
async fn a_complaint_involving_a_committee_member_goes_to_the_referee_and_the_other_two() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, _, loser) = e.tables[0];
    let (c2, c2_token) = e.committee[1].clone();
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({
            "subject": "conduct",
            "statement": "A committee member coached my opponent during the game."
        }),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    assert_eq!(case["panel"]["mode"], "referee");
    // The member is named as a respondent afterwards: the panel is recomputed.
    let case = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/parties", e.tid),
            Some(e.token_of_player(loser)),
            json!({"user_id": c2, "role": "respondent"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(case["panel"]["mode"], "vote");
    assert_eq!(
        panel(&case),
        vec![
            (e.referee_id, "referee".to_string()),
            (e.committee[0].0, "committee".to_string()),
            (e.committee[2].0, "committee".to_string()),
        ]
    );
    // The member who is a party may not vote.
    let body = problem(
        vote(
            &app,
            &e,
            cid,
            &c2_token,
            json!({"vote": "dismiss", "reason": "I am innocent"}),
        )
        .await,
        403,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("party"));
    // Each member votes once.
    ok(
        vote(
            &app,
            &e,
            cid,
            &e.committee[0].1,
            json!({"vote": "uphold", "reason": "seen it"}),
        )
        .await,
        201,
    )
    .await;
    let body = problem(
        vote(
            &app,
            &e,
            cid,
            &e.committee[0].1,
            json!({"vote": "uphold", "reason": "again"}),
        )
        .await,
        409,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("already voted"));
    // The referee votes with the panel; two of three uphold.
    let decided = ok(
        vote(
            &app,
            &e,
            cid,
            &e.referee,
            json!({"vote": "uphold", "reason": "confirmed"}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(decided["status"], "decided");
    assert_eq!(decided["outcome"], "upheld");
    assert_eq!(decided["decided_by"], e.referee_id);
    let votes: Vec<(i64, &str)> = decided["votes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["member_id"].as_i64().unwrap(),
                v["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        votes,
        vec![(e.committee[0].0, "seen it"), (e.referee_id, "confirmed")]
    );
}

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
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "dismiss", "reason": "the score sheet says otherwise"}),
        )
        .await,
        200,
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
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "dismiss", "reason": "standard tables"}),
        )
        .await,
        200,
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
    // A replay order is recorded.
    let decided = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "remedy", "reason": "replay it",
                   "remedies": [{"kind": "replay_table", "round": 1, "table": 1}]}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(decided["outcome"], "remedied");
    assert_eq!(
        decided["remedies"][0]["effect"]["replay_ordered"]["table"],
        1
    );
}
