//! Results reported by the players (issue 18, item 3): the opponent confirms (the report
//! becomes the result) or disputes (a case the referee decides); staff may confirm too.

use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app};
use crate::report_fixtures::{duel, next_table, reported, scores};

#[actix_web::test]
async fn a_report_is_confirmed_or_disputed_and_the_referee_decides() {
    let app = spawn_app().await;
    let (tid, org, referee, kari, kari_token, ola, ola_token) = duel(&app).await;
    let (_, stranger) = app.user("stranger").await;
    let base = next_table(&app, tid, &org).await;
    let report = format!("{base}/report");
    // Only a player seated there reports.
    problem(
        app.post(&report, Some(&stranger), scores(kari, ola)).await,
        403,
    )
    .await;
    problem(
        app.post(&report, Some(&referee), scores(kari, ola)).await,
        403,
    )
    .await;
    // Kari reports her win: pending, not a result yet.
    let r = app
        .post(&report, Some(&kari_token), scores(kari, ola))
        .await;
    assert_eq!(r.status(), 201);
    let first: Value = r.json().await.unwrap();
    assert_eq!(first["status"], "pending");
    assert_eq!(first["reported_by_player"], kari);
    problem(app.get(&format!("{base}/result"), None).await, 404).await;
    // She cannot confirm her own report; a stranger cannot read it.
    problem(
        app.post(&format!("{report}/confirm"), Some(&kari_token), json!({}))
            .await,
        403,
    )
    .await;
    problem(app.get(&report, Some(&stranger)).await, 404).await;
    // Ola disputes it with his own version: a case for the referee.
    let r = app
        .post(
            &format!("{report}/dispute"),
            Some(&ola_token),
            json!({"reason": "I won this one", "seats": [
                {"player_id": kari, "score": 12}, {"player_id": ola, "score": 30}]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let disputed: Value = r.json().await.unwrap();
    assert_eq!(disputed["status"], "disputed");
    let case_id = disputed["case_id"].as_i64().unwrap();
    let case: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/cases/{case_id}"),
            Some(&referee),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(case["subject"], "result");
    // Nothing pending now: confirming is refused.
    problem(
        app.post(&format!("{report}/confirm"), Some(&ola_token), json!({}))
            .await,
        404,
    )
    .await;
    // The referee upholds Ola: his version becomes the result.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/cases/{case_id}/decision"),
            Some(&referee),
            json!({"verdict": "uphold", "reason": "the game record shows Ola's win"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let result: Value = app
        .get(&format!("{base}/result"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(result["current"]["seats"][1]["score"], 30);
    assert_eq!(result["current"]["case_id"], case_id);
    // With a result in force, a report is refused.
    problem(
        app.post(&report, Some(&kari_token), scores(kari, ola))
            .await,
        409,
    )
    .await;
}

#[actix_web::test]
async fn the_opponent_or_the_referee_confirms_and_it_counts_as_the_result() {
    let app = spawn_app().await;
    let (tid, org, referee, kari, kari_token, ola, ola_token) = duel(&app).await;
    let kari_user = app.me(&kari_token).await["id"].clone();
    for n in 1..=2 {
        let report = format!("{}/report", next_table(&app, tid, &org).await);
        // Kari reports a loss first, then replaces it with the right result.
        reported(&app, &report, &kari_token, scores(ola, kari)).await;
        let right = reported(&app, &report, &kari_token, scores(kari, ola)).await;
        // Round 1: Ola confirms; round 2: the referee does (Ola never answered). The report
        // replaced another: the confirmation names the one read.
        let confirmer = if n == 1 { &ola_token } else { &referee };
        let r = app
            .post(
                &format!("{report}/confirm"),
                Some(confirmer),
                json!({"report_id": right}),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        assert_eq!(r.headers()["etag"], "\"1\"");
        let result: Value = r.json().await.unwrap();
        assert_eq!(
            result["current"]["entered_by"], kari_user,
            "a version by the reporter"
        );
        assert_eq!(result["current"]["seats"][0]["player_id"], kari);
        assert_eq!(result["round_status"], "completed");
        let seen: Value = app
            .get(&report, Some(&ola_token))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(seen["status"], "confirmed");
        assert_eq!(seen["seats"][0]["score"], 30);
    }
    // Confirmed reports are results: Kari leads with two wins.
    let standings: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(standings["rows"][0]["player_id"], kari);
}

fn reported_events(app: &crate::helpers::TestApp, tid: i64) -> i64 {
    use diesel::prelude::*;
    let mut conn = crate::rating_fixtures::db(app);
    diesel::dsl::sql::<diesel::sql_types::BigInt>(&format!(
        "SELECT count(*) FROM tournament_events WHERE tournament_id = {tid} AND kind = 'result_reported'"
    ))
    .get_result::<i64>(&mut conn)
    .unwrap()
}

/// The same report sent again and again (a double tap, a retrying script) is the one pending
/// report: one event, one deadline. A different report replaces it (an event), the opponent's
/// report is another one, and sending the first again after it is new again.
#[actix_web::test]
async fn repeating_the_same_report_is_not_a_new_event() {
    let app = spawn_app().await;
    let (tid, org, _, kari, kari_token, ola, ola_token) = duel(&app).await;
    let report = format!("{}/report", next_table(&app, tid, &org).await);
    let send = |token: String, body: Value| {
        let (app, report) = (&app, report.clone());
        async move {
            let r = app.post(&report, Some(&token), body).await;
            assert!(r.status().is_success(), "{}", r.status());
            r.json::<Value>().await.unwrap()
        }
    };
    let first = send(kari_token.clone(), scores(kari, ola)).await;
    for _ in 0..5 {
        let again = send(kari_token.clone(), scores(kari, ola)).await;
        assert_eq!(again["id"], first["id"]);
        assert_eq!(again["answer_by"], first["answer_by"]);
    }
    assert_eq!(reported_events(&app, tid), 1);
    let changed = send(kari_token.clone(), scores(ola, kari)).await;
    assert_ne!(changed["id"], first["id"]);
    assert_eq!(reported_events(&app, tid), 2);
    // Ola's identical report is his own: it replaces Kari's.
    let olas = send(ola_token.clone(), scores(ola, kari)).await;
    assert_ne!(olas["id"], changed["id"]);
    assert_eq!(olas["reported_by_player"], ola);
    assert_eq!(reported_events(&app, tid), 3);
    let back = send(kari_token, scores(ola, kari)).await;
    assert_ne!(back["id"], olas["id"]);
    assert_eq!(reported_events(&app, tid), 4);
}
