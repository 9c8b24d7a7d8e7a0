//! The panels of open cases follow the officials: appointing or dismissing a referee or a
//! committee member recomputes them in the same transaction, and a decision ordering a penalty
//! never deadlocks with a staff change (the tournament's lock is taken before the case's).

use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

#[allow(unused_imports)]
use crate::case_fixtures::*;

async fn case_as(app: &TestApp, e: &Event, cid: i64) -> Value {
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

async fn appoint(app: &TestApp, e: &Event, user: i64) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{}/staff", e.tid),
            Some(&e.org),
            json!({"user_id": user, "role": "referee"}),
        )
        .await;
    ok(r, 201).await;
}

async fn dismiss(app: &TestApp, e: &Event, user: i64) {
    let path = format!("/api/v1/tournaments/{}/staff/{user}/referee", e.tid);
    assert_eq!(app.delete_req(&path, &e.org).await.status(), 204);
}

fn members(case: &Value) -> Vec<i64> {
    panel(case).into_iter().map(|m| m.0).collect()
}

#[actix_web::test]
async fn open_panels_follow_appointments_and_dismissals() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, loser) = e.tables[0];
    let [c1, c2, c3] = [e.committee[0].0, e.committee[1].0, e.committee[2].0];
    let r = e.referee_id;
    // For the referee alone; for the referee and the two members not complained about; the
    // same, with a vote cast.
    let ruled = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "conduct", "statement": "Mocked my moves.",
               "respondents": [{"player_id": winner}]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let against_member = json!({"subject": "conduct", "statement": "The member coached my opponent.",
                                "respondents": [{"user_id": c1}]});
    let voting = open_case(&app, &e, e.token_of_player(loser), against_member.clone()).await["id"]
        .as_i64()
        .unwrap();
    let begun = open_case(&app, &e, e.token_of_player(loser), against_member).await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(members(&case_as(&app, &e, voting).await), vec![r, c2, c3]);
    ok(
        vote(
            &app,
            &e,
            begun,
            &e.committee[1].1,
            json!({"vote": "dismiss", "reason": "no"}),
        )
        .await,
        201,
    )
    .await;

    // A new referee takes the seats they are eligible for (the vote that has begun keeps its
    // panel while its members hold their seats).
    let (r2, r2_token) = app.user("referee2").await;
    appoint(&app, &e, r2).await;
    assert_eq!(members(&case_as(&app, &e, ruled).await), vec![r, r2]);
    assert_eq!(
        members(&case_as(&app, &e, voting).await),
        vec![r, r2, c2, c3]
    );
    assert_eq!(members(&case_as(&app, &e, begun).await), vec![r, c2, c3]);

    // The dismissed referee is replaced; the vote cast still counts.
    dismiss(&app, &e, r).await;
    assert_eq!(members(&case_as(&app, &e, ruled).await), vec![r2]);
    assert_eq!(members(&case_as(&app, &e, voting).await), vec![r2, c2, c3]);
    let begun_case = case_as(&app, &e, begun).await;
    assert_eq!(members(&begun_case), vec![r2, c2, c3]);
    assert_eq!(begun_case["votes"].as_array().unwrap().len(), 1);
    let history = begun_case["history"].as_array().unwrap();
    assert_eq!(history.last().unwrap()["what"], "panel_computed");
    let decided = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{ruled}/decision", e.tid),
            Some(&r2_token),
            json!({"verdict": "dismiss", "reason": "no witness"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(decided["decided_by"], r2);

    // Without a free referee the panel of two members is vacant: nobody decides it ...
    dismiss(&app, &e, r2).await;
    let vacant = case_as(&app, &e, voting).await;
    assert!(members(&vacant).is_empty());
    assert!(vacant["panel"]["rule"].as_str().unwrap().contains("waits"));
    // (a member off every panel no longer sees the open case).
    crate::helpers::problem(
        vote(
            &app,
            &e,
            voting,
            &e.committee[1].1,
            json!({"vote": "dismiss", "reason": "no"}),
        )
        .await,
        404,
    )
    .await;
    // ... until a referee is appointed, who takes the seat.
    let (r3, r3_token) = app.user("referee3").await;
    appoint(&app, &e, r3).await;
    assert_eq!(members(&case_as(&app, &e, voting).await), vec![r3, c2, c3]);
    assert_eq!(members(&case_as(&app, &e, begun).await), vec![r3, c2, c3]);
    ok(
        vote(
            &app,
            &e,
            voting,
            &r3_token,
            json!({"vote": "dismiss", "reason": "no"}),
        )
        .await,
        201,
    )
    .await;
}

/// A decision ordering a penalty takes the tournament's lock (to count a sanction's step) and
/// a staff change takes it and then the open cases' rows: both take the tournament first, so
/// many at once all answer (a deadlock would be a 500).
#[actix_web::test]
async fn decisions_with_penalties_and_staff_changes_at_once_do_not_deadlock() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, loser) = e.tables[0];
    for trial in 0..4 {
        let mut cases = Vec::new();
        for _ in 0..6 {
            let c = open_case(
                &app,
                &e,
                e.token_of_player(loser),
                json!({"subject": "conduct", "statement": "Mocked my moves.",
                       "respondents": [{"player_id": winner}]}),
            )
            .await;
            cases.push(c["id"].as_i64().unwrap());
        }
        let mut users = Vec::new();
        for i in 0..6 {
            users.push(app.user(&format!("extra{trial}_{i}")).await.0);
        }
        let (app, e) = (&app, &e);
        let decisions = cases.iter().map(|cid| {
            let path = format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid);
            async move {
                app.post(
                    &path,
                    Some(&e.referee),
                    json!({"verdict": "remedy", "reason": "unsporting",
                           "remedies": [{"kind": "add_penalty", "player_id": winner, "penalty": "warning"}]}),
                )
                .await
            }
        });
        let appointments = users.iter().map(|u| {
            let path = format!("/api/v1/tournaments/{}/staff", e.tid);
            async move {
                app.post(
                    &path,
                    Some(&e.org),
                    json!({"user_id": u, "role": "referee"}),
                )
                .await
            }
        });
        let (decided, appointed) =
            futures_util::future::join(join_all(decisions), join_all(appointments)).await;
        for r in decided {
            let status = r.status().as_u16();
            assert_eq!(status, 200, "{}", r.text().await.unwrap());
        }
        for r in appointed {
            let status = r.status().as_u16();
            assert_eq!(status, 201, "{}", r.text().await.unwrap());
        }
        let dismissals = users.iter().map(|u| {
            let path = format!("/api/v1/tournaments/{}/staff/{u}/referee", e.tid);
            async move { app.delete_req(&path, &e.org).await.status().as_u16() }
        });
        assert!(join_all(dismissals).await.iter().all(|s| *s == 204));
    }
}

/// Seed 000 section (4): three committee members appointed beforehand. Once a round is drawn
/// or the tournament runs, the committee neither grows nor loses a member (409 naming `role`);
/// referees still change.
#[actix_web::test]
async fn the_appeals_committee_is_fixed_once_the_tournament_started() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (member_id, _) = app.user("late_member").await;
    let staff = format!("/api/v1/tournaments/{}/staff", e.tid);
    let before = ok(app.get(&staff, Some(&e.org)).await, 200).await;
    // Round 1 is drawn: no appointment, no dismissal.
    let p = crate::helpers::problem(
        app.post(
            &staff,
            Some(&e.org),
            json!({"user_id": member_id, "role": "appeals_committee"}),
        )
        .await,
        409,
    )
    .await;
    assert_eq!(crate::helpers::fields(&p), vec!["role".to_string()]);
    let path = format!("{staff}/{}/appeals_committee", e.committee[0].0);
    let r = app.delete_req(&path, &e.org).await;
    let p = crate::helpers::problem(r, 409).await;
    assert_eq!(crate::helpers::fields(&p), vec!["role".to_string()]);
    assert_eq!(ok(app.get(&staff, Some(&e.org)).await, 200).await, before);
    // Referees are not the committee.
    appoint(&app, &e, member_id).await;
    dismiss(&app, &e, member_id).await;

    // Before the start the committee changes; once running it does not.
    let tid = app.tournament(&e.org, "ashes_league").await;
    let staff = format!("/api/v1/tournaments/{tid}/staff");
    let body = json!({"user_id": member_id, "role": "appeals_committee"});
    ok(app.post(&staff, Some(&e.org), body.clone()).await, 201).await;
    let path = format!("{staff}/{member_id}/appeals_committee");
    assert_eq!(app.delete_req(&path, &e.org).await.status(), 204);
    ok(app.post(&staff, Some(&e.org), body.clone()).await, 201).await;
    patch_tournament(&app, tid, &e.org, json!({"status": "registration_open"})).await;
    patch_tournament(&app, tid, &e.org, json!({"status": "running"})).await;
    let (other_id, _) = app.user("other_member").await;
    let p = crate::helpers::problem(
        app.post(
            &staff,
            Some(&e.org),
            json!({"user_id": other_id, "role": "appeals_committee"}),
        )
        .await,
        409,
    )
    .await;
    assert_eq!(crate::helpers::fields(&p), vec!["role".to_string()]);
    let p = crate::helpers::problem(app.delete_req(&path, &e.org).await, 409).await;
    assert_eq!(crate::helpers::fields(&p), vec!["role".to_string()]);
}
