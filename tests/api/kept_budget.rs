//! Issue 33: the kept public bodies are bounded by bytes and leave one at a time by a policy that
//! keeps what is read often. With a budget of about twenty standings bodies, five bodies read
//! often, then three hundred distinct bodies read once: the five are still served from memory
//! (kept hits, no miss), the budget holds, and the evictions show in the metrics. A correction
//! afterwards is never answered with the old body.

use serde_json::json;

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{metric, spawn_app_with_kept_budget, TestApp};

struct Kept {
    hits: f64,
    misses: f64,
    evictions: f64,
    bytes: f64,
    budget: f64,
}

async fn kept(app: &TestApp) -> Kept {
    let text = app.get("/metrics", None).await.text().await.unwrap();
    Kept {
        hits: metric(
            &text,
            r#"tourney_cache_reads_total{cache="public",outcome="hit"}"#,
        ),
        misses: metric(
            &text,
            r#"tourney_cache_reads_total{cache="public",outcome="miss"}"#,
        ),
        evictions: metric(&text, r#"tourney_cache_evictions_total{cache="public"}"#),
        bytes: metric(&text, r#"tourney_cache_bytes{cache="public"}"#),
        budget: metric(&text, r#"tourney_cache_budget_bytes{cache="public"}"#),
    }
}

fn standings(tid: i64, after: u32) -> String {
    format!("/api/v1/tournaments/{tid}/standings?after_round={after}")
}

async fn body_of(app: &TestApp, path: &str) -> String {
    let r = app.get(path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    r.text().await.unwrap()
}

#[actix_web::test]
async fn hot_bodies_stay_kept_when_many_more_are_read_than_the_budget_holds() {
    // One standings body of an 8-player event weighs about 2.5 KB with its key and overhead.
    let budget: u64 = 20 * 2_600;
    let app = spawn_app_with_kept_budget(budget).await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;
    // Read after the writes' notifications arrived (they drop what was kept before).
    app.changes_heard().await;
    let size = body_of(&app, &standings(tid, 1)).await.len();
    assert!(
        (1_000..2_400).contains(&size),
        "a body of {size} bytes: the budget above holds about twenty"
    );

    // The policy counts reads once the budget is half used: a dozen bodies read once first.
    for after in 50..62 {
        body_of(&app, &standings(tid, after)).await;
    }
    // Five hot bodies, read often.
    let mut hot = Vec::new();
    for after in 1..=5 {
        hot.push(body_of(&app, &standings(tid, after)).await);
    }
    for _ in 0..10 {
        for after in 1..=5 {
            body_of(&app, &standings(tid, after)).await;
        }
    }
    let warm = kept(&app).await;
    assert_eq!(warm.budget, budget as f64);
    assert!(
        warm.hits >= 50.0,
        "the hot bodies were kept: {} hits",
        warm.hits
    );

    // Three hundred distinct bodies, fifteen times what the budget holds, each read once; the
    // hot ones still read now and then, and every time from memory.
    for after in 100..400 {
        body_of(&app, &standings(tid, after)).await;
        if after % 20 == 19 {
            for (i, after) in (1..=5).enumerate() {
                assert_eq!(body_of(&app, &standings(tid, after)).await, hot[i]);
            }
        }
    }
    let cold = kept(&app).await;
    assert_eq!(
        cold.misses - warm.misses,
        300.0,
        "each cold body was a miss, no hot one was"
    );
    assert_eq!(cold.hits - warm.hits, 75.0, "every hot read was a hit");
    assert!(cold.bytes <= budget as f64, "{} bytes kept", cold.bytes);
    assert!(cold.bytes > 0.0);
    assert!(
        cold.evictions >= 270.0,
        "the budget pushed out bodies one at a time: {}",
        cold.evictions
    );

    let cold_before = body_of(&app, &standings(tid, 100)).await;

    // A correction is never answered with a kept body of before (kept or evicted alike).
    let r = app
        .put_if_match(
            &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            Some(&referee),
            1,
            corrected_seats(&app, tid).await,
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    app.changes_heard().await;
    for (i, after) in (1..=5).enumerate() {
        assert_ne!(body_of(&app, &standings(tid, after)).await, hot[i]);
    }
    assert_ne!(body_of(&app, &standings(tid, 100)).await, cold_before);
}

/// Table 1's seats with 30 bonus points for its first player, and a reason.
async fn corrected_seats(app: &TestApp, tid: i64) -> serde_json::Value {
    let path = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result");
    let current: serde_json::Value = app.get(&path, None).await.json().await.unwrap();
    let mut seats = current["current"]["seats"].clone();
    seats[0]["bonus"] = json!(30);
    json!({"seats": seats, "reason": "a bonus was left out"})
}
