//! Complaints, rulings and appeals over HTTP: who decides (the conflict-of-interest rules),
//! votes, remedies applied with the decision, visibility and the appeal window.

use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app};

#[allow(unused_imports)]
use crate::case_fixtures::*;

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
    let listed = listed["items"].clone();
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
    let penalties = penalties["items"].clone();
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
    // The referee names the member as a respondent afterwards: the panel is recomputed.
    let case = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/parties", e.tid),
            Some(&e.referee),
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
