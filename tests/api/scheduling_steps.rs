//! The scheduling steps of a self-scheduled game are for a game still to be played: a time
//! accepted is still to come, and nothing is scheduled once the table has a result or the round
//! is completed.

use chrono::Duration;
use serde_json::{json, Value};

use crate::helpers::{refused, spawn_app};
use crate::schedule_fixtures::{at, players, self_scheduled_round, two_seats};

/// Items 5 and 6: a proposed time that has passed is not accepted (422 naming `time`); once a
/// table has a result its players neither propose, accept nor report a missed time (409 naming
/// `table`), and once the round is completed nothing is proposed (409 naming `round`).
#[actix_web::test]
async fn scheduling_is_for_a_game_still_to_be_played() {
    let app = spawn_app().await;
    let (tid, org, referee, tokens) = players(&app, &["kari", "ola", "per", "liv"]).await;
    let now = app.clock.now();
    let round = self_scheduled_round(&app, tid, &org, now + Duration::days(30)).await;
    let (t1, a1, b1) = two_seats(&round, 0);
    let (t2, a2, b2) = two_seats(&round, 1);
    let url = |t: i64, step: &str| format!("/api/v1/tournaments/{tid}/rounds/1/tables/{t}{step}");
    let tok = |p: i64| tokens[&p].clone();
    let (first, second) = (now + Duration::days(1), now + Duration::days(2));
    let result = |t: i64, a: i64, b: i64| {
        let (app, referee) = (&app, referee.clone());
        async move {
            let r = app
                .put(
                    &url(t, "/result"),
                    Some(&referee),
                    json!({"seats": [{"player_id": a, "score": 10}, {"player_id": b, "score": 4}]}),
                )
                .await;
            assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        }
    };
    // Table 2: proposed, and a day later the first time has passed.
    let r = app
        .post(
            &url(t2, "/schedule/proposals"),
            Some(&tok(a2)),
            json!({"times": [at(first), at(second)]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    app.clock.advance(Duration::hours(25));
    let r = app
        .post(
            &url(t2, "/schedule/accept"),
            Some(&tok(b2)),
            json!({"time": at(first)}),
        )
        .await;
    assert_eq!(refused(r, 422).await, ["time"]);
    let s: Value = app
        .get(&url(t2, "/schedule"), Some(&tok(b2)))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s["state"], "proposed");
    let r = app
        .post(
            &url(t2, "/schedule/accept"),
            Some(&tok(b2)),
            json!({"time": at(second)}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // Table 1: a proposal waits when the referee enters the result.
    let third = app.clock.now() + Duration::days(3);
    let r = app
        .post(
            &url(t1, "/schedule/proposals"),
            Some(&tok(a1)),
            json!({"times": [at(third)]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    result(t1, a1, b1).await;
    let steps = [
        (b1, "/schedule/accept", json!({"time": at(third)})),
        (b1, "/schedule/proposals", json!({"times": [at(third)]})),
        (a1, "/schedule/missed", json!({"note": "I was not there"})),
    ];
    for (p, step, body) in &steps {
        let r = app.post(&url(t1, step), Some(&tok(*p)), body.clone()).await;
        assert_eq!(refused(r, 409).await, ["table"], "{step}");
    }
    // Table 2's result completes the round: nothing is scheduled in it any more.
    result(t2, a2, b2).await;
    let r = app
        .post(
            &url(t2, "/schedule/proposals"),
            Some(&tok(a2)),
            json!({"times": [at(third)]}),
        )
        .await;
    assert_eq!(refused(r, 409).await, ["round"]);
}
