//! A whole self-scheduled Tantrix round on a moved clock (issue 18, items 2 and 5; seed 003
//! rules 8.2 and 8.4): proposals and answers, a missed time rescheduled once, a silent player
//! reported to the leader after 5 days and forfeited 2 days later, the forfeit reversed by the
//! leader, and results reported by the players.

use std::time::Duration;

use chrono::{DateTime, Duration as Days, Utc};
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::schedule_fixtures::{agreed, at, players, self_scheduled_round, two_seats};

/// Polls a read until `done` holds (the deadline job runs once a second).
async fn eventually(app: &TestApp, url: &str, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..60 {
        let r = app.get(url, Some(token)).await;
        if r.status() == 200 {
            let v: Value = r.json().await.unwrap();
            if done(&v) {
                return v;
            }
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{url} never got there");
}

#[actix_web::test]
async fn a_self_scheduled_round_with_a_rescheduling_and_a_silent_player() {
    let app = spawn_app().await;
    let (tid, org, _, tokens) = players(&app, &["kari", "ola", "per", "liv"]).await;
    let deadline = Utc::now() + Days::days(30);
    // Only two-player games, and only a future deadline.
    let p = problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "round_robin", "self_scheduled_until": at(Utc::now() - Days::days(1))}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["self_scheduled_until"]);
    let round = self_scheduled_round(&app, tid, &org, deadline).await;
    assert!(round["self_scheduled_until"].is_string());
    let (t1, a1, b1) = two_seats(&round, 0);
    let (t2, a2, b2) = two_seats(&round, 1);
    let url = |t: i64| format!("/api/v1/tournaments/{tid}/rounds/1/tables/{t}");
    let tok = |p: i64| tokens[&p].as_str();

    // Table 1: a new game waits on nobody (either player proposes); times in the player's
    // chosen zone too.
    let s: Value = app
        .get(
            &format!("{}/schedule?time_zone=America/New_York", url(t1)),
            Some(tok(b1)),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s["state"], "open");
    assert_eq!(s["waiting_on"], Value::Null);
    assert_eq!(s["forfeit_at"], Value::Null);
    assert_eq!(s["time_zone"], "America/New_York");
    problem(
        app.get(&format!("{}/schedule", url(t1)), Some(tok(a2)))
            .await,
        404,
    )
    .await;
    let now = Utc::now();
    let (first, second) = (now + Days::days(1), now + Days::days(2));
    // Table 2: b2 proposes; a2 will never answer (rule 8.2).
    let r = app
        .post(
            &format!("{}/schedule/proposals", url(t2)),
            Some(tok(b2)),
            json!({"times": [at(first)]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let p = problem(
        app.post(
            &format!("{}/schedule/proposals", url(t1)),
            Some(tok(a1)),
            json!({"times": [at(deadline + Days::days(1))]}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["times[0]"]);
    let r = app
        .post(
            &format!("{}/schedule/proposals", url(t1)),
            Some(tok(a1)),
            json!({"times": [at(first), at(second)]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    assert_eq!(
        (s["state"].as_str(), s["waiting_on"].as_i64()),
        (Some("proposed"), Some(b1))
    );
    assert!(s["answer_by"].is_string());
    // Not her turn; his answer must be one of the times.
    problem(
        app.post(
            &format!("{}/schedule/proposals", url(t1)),
            Some(tok(a1)),
            json!({"times": [at(first)]}),
        )
        .await,
        409,
    )
    .await;
    let p = problem(
        app.post(
            &format!("{}/schedule/accept", url(t1)),
            Some(tok(b1)),
            json!({"time": at(now + Days::days(3))}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["time"]);
    let r = app
        .post(
            &format!("{}/schedule/accept", url(t1)),
            Some(tok(b1)),
            json!({"time": at(first)}),
        )
        .await;
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["state"], "agreed");
    assert_eq!(s["agreed_time"]["utc"], at(first));
    // Her own view shows the agreed time and the deadline.
    let mine: Value = app
        .get("/api/v1/me/games", Some(tok(a1)))
        .await
        .json()
        .await
        .unwrap();
    let game = &mine["upcoming"][0];
    assert_eq!(game["schedule"]["state"], "agreed");
    assert_eq!(game["schedule"]["agreed_time"], at(first));
    assert!(game["schedule"]["deadline"].is_string());

    // A day and an hour later: a1 missed it and says so within 24 h (rule 8.4).
    app.clock.advance(Days::days(1) + Days::hours(1));
    let r = app
        .post(
            &format!("{}/schedule/missed", url(t1)),
            Some(tok(a1)),
            json!({"note": "power cut"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    assert_eq!(
        (s["state"].as_str(), s["waiting_on"].as_i64()),
        (Some("open"), None)
    );
    assert_eq!(s["rescheduled"], true);
    let now = app_now(&app);
    let again = now + Days::days(1);
    app.post(
        &format!("{}/schedule/proposals", url(t1)),
        Some(tok(a1)),
        json!({"times": [at(again)]}),
    )
    .await;
    let r = app
        .post(
            &format!("{}/schedule/accept", url(t1)),
            Some(tok(b1)),
            json!({"time": at(again)}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // Missed again by her: her chance of this match is used (rule 8.4: one per player).
    app.clock.advance(Days::days(1) + Days::hours(2));
    let p = problem(
        app.post(
            &format!("{}/schedule/missed", url(t1)),
            Some(tok(a1)),
            json!({"note": "sorry"}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("chance"), "{p}");
    // They play; a1 reports, b1 confirms.
    let r = app
        .post(
            &format!("{}/report", url(t1)),
            Some(tok(a1)),
            json!({"seats": [{"player_id": a1, "score": 30}, {"player_id": b1, "score": 12}]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app
        .post(
            &format!("{}/report/confirm", url(t1)),
            Some(tok(b1)),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);

    // Table 2: a2 never answers. 5 days after the proposal the leader is told...
    app.clock.advance(Days::days(3));
    let s = eventually(&app, &format!("{}/schedule", url(t2)), &org, |s| {
        s["thread"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["kind"] == "leader_told")
    })
    .await;
    assert_eq!(s["state"], "proposed");
    let mut conn = crate::rating_fixtures::db(&app);
    use diesel::prelude::*;
    let told: i64 = diesel::dsl::sql::<diesel::sql_types::BigInt>(
        "SELECT count(*) FROM tournament_events WHERE kind = 'schedule_overdue'",
    )
    .get_result(&mut conn)
    .unwrap();
    assert_eq!(told, 1, "one event on the live feed");
    // ... and 2 days later a2 forfeits: b2 wins.
    app.clock.advance(Days::days(2));
    let result = eventually(&app, &format!("{}/result", url(t2)), &org, |_| true).await;
    let seats = result["current"]["seats"].as_array().unwrap();
    let forfeit = seats.iter().find(|s| s["player_id"] == a2).unwrap();
    assert_eq!(forfeit["forfeit"], true);
    assert!(result["current"]["reason"]
        .as_str()
        .unwrap()
        .contains("8.2"));
    assert_eq!(result["round_status"], "completed");
    // The forfeit is stamped with the deadline job's clock (the caller's `now`, issue 39), a
    // week past the system clock here, not with the database's time.
    let entered: DateTime<Utc> = result["current"]["entered_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(entered > Utc::now() + Days::days(6), "entered at {entered}");
    let s: Value = app
        .get(&format!("{}/schedule", url(t2)), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (s["state"].as_str(), s["forfeited_player"].as_i64()),
        (Some("forfeited"), Some(a2))
    );
    // The leader reverses it with a reason; players cannot.
    problem(
        app.post(
            &format!("{}/schedule/reinstate", url(t2)),
            Some(tok(b2)),
            json!({"note": "x"}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .post(
            &format!("{}/schedule/reinstate", url(t2)),
            Some(&org),
            json!({"note": "a2 was in hospital; the message reached us late"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    assert_eq!(
        (s["state"].as_str(), s["waiting_on"].as_i64()),
        (Some("open"), None)
    );
    problem(app.get(&format!("{}/result", url(t2)), None).await, 404).await;
    let round_now: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/1"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(round_now["status"], "published", "the round is open again");
    // Now they schedule and play it.
    let when = app_now(&app) + Days::days(1);
    app.post(
        &format!("{}/schedule/proposals", url(t2)),
        Some(tok(a2)),
        json!({"times": [at(when)]}),
    )
    .await;
    let r = app
        .post(
            &format!("{}/schedule/accept", url(t2)),
            Some(tok(b2)),
            json!({"time": at(when)}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .post(
            &format!("{}/report", url(t2)),
            Some(tok(b2)),
            json!({"seats": [{"player_id": a2, "score": 25}, {"player_id": b2, "score": 20}]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app
        .post(
            &format!("{}/report/confirm", url(t2)),
            Some(tok(a2)),
            json!({}),
        )
        .await;
    let done: Value = r.json().await.unwrap();
    assert_eq!(done["round_status"], "completed");
    let s: Value = app
        .get(&format!("{}/schedule", url(t2)), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    let kinds: Vec<&str> = s["thread"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec![
            "propose",
            "leader_told",
            "forfeit",
            "reinstate",
            "propose",
            "accept"
        ]
    );
}

/// The instance's clock as the test moved it (the system clock plus the moves).
fn app_now(app: &TestApp) -> DateTime<Utc> {
    app.clock.now()
}

/// Rule 8.4: at most three reschedules per player and tournament (the three earlier ones are
/// written straight into the thread here, as three earlier rounds would have left them).
#[actix_web::test]
async fn a_fourth_reschedule_in_a_tournament_is_refused() {
    let app = spawn_app().await;
    let (tid, org, _, tokens) = players(&app, &["kari", "ola"]).await;
    let round = self_scheduled_round(&app, tid, &org, Utc::now() + Days::days(20)).await;
    let (_, a, b) = two_seats(&round, 0);
    let url = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/schedule");
    let when = Utc::now() + Days::hours(2);
    let r = agreed(&app, &url, &tokens[&a], &tokens[&b], when).await;
    assert_eq!(r.status(), 200);
    {
        use diesel::prelude::*;
        let mut conn = crate::rating_fixtures::db(&app);
        let round_id: i64 = diesel::dsl::sql::<diesel::sql_types::BigInt>(&format!(
            "SELECT id FROM rounds WHERE tournament_id = {tid} AND number = 1"
        ))
        .get_result(&mut conn)
        .unwrap();
        for _ in 0..3 {
            diesel::sql_query(format!(
                "INSERT INTO schedule_messages (round_id, table_number, player_id, kind, at)
                 VALUES ({round_id}, 1, {a}, 'missed', now())"
            ))
            .execute(&mut conn)
            .unwrap();
        }
    }
    // The agreed time has come and gone (plus the 15 minutes of rule 8.3).
    app.clock.advance(Days::hours(3));
    let p = problem(
        app.post(
            &format!("{url}/missed"),
            Some(&tokens[&a]),
            json!({"note": "again"}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("three"), "{p}");
    // The opponent has none used: the game is rescheduled for him.
    let r = app
        .post(
            &format!("{url}/missed"),
            Some(&tokens[&b]),
            json!({"note": "my turn"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["state"], "open");
    assert_eq!(
        s["waiting_on"],
        Value::Null,
        "either player proposes the new times"
    );
}

/// Rule 8.4: a missed time told more than 24 hours after it is not rescheduled.
#[actix_web::test]
async fn a_missed_time_told_after_a_day_is_too_late() {
    let app = spawn_app().await;
    let (tid, org, _, tokens) = players(&app, &["kari", "ola"]).await;
    let round = self_scheduled_round(&app, tid, &org, Utc::now() + Days::days(20)).await;
    let (_, a, b) = two_seats(&round, 0);
    let url = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/schedule");
    let when = Utc::now() + Days::hours(2);
    agreed(&app, &url, &tokens[&a], &tokens[&b], when).await;
    app.clock.advance(Days::hours(27));
    let p = problem(
        app.post(
            &format!("{url}/missed"),
            Some(&tokens[&a]),
            json!({"note": "late"}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("24 hours"), "{p}");
}
