//! Issue 28, item 5: `GET /metrics` from the `prometheus-client` registry. A few requests (a
//! 200, a 404 on a matched route, a path no route matches, a kept public read twice), a webhook
//! delivery that cannot be sent, then a scrape: requests and latency histograms under the route
//! pattern (never the raw id) and status class, the pool gauges, kept hits and misses (and the
//! caches' bytes against their budgets), the
//! webhook queue's depth and oldest age, and the background jobs' lag.

use std::time::Duration;

use serde_json::json;

use crate::event_fixtures::{event, new_round};
use crate::helpers::{spawn_app, TestApp};

/// The value of the series written exactly as `series` (name and labels), if there is one.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn must(text: &str, series: &str) -> f64 {
    value(text, series).unwrap_or_else(|| panic!("no series {series} in\n{text}"))
}

async fn scrape(app: &TestApp) -> String {
    let r = app.get("/metrics", None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    assert_eq!(r.headers()["cache-control"], "no-store");
    r.text().await.unwrap()
}

/// Scrapes until `ready` holds for the scrape (the jobs tick once a second), at most 10 s.
async fn scrape_until(app: &TestApp, ready: impl Fn(&str) -> bool) -> String {
    for _ in 0..50 {
        let text = scrape(app).await;
        if ready(&text) {
            return text;
        }
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
    scrape(app).await
}

/// One run of requests, then every family checked in the scrape.
#[actix_web::test]
async fn a_scrape_shows_routes_classes_pool_kept_reads_queue_and_jobs() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    // A receiver that is not there: the delivery stays pending, retried.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/webhooks"),
            Some(&org),
            json!({"url": "http://127.0.0.1:9/hook", "kinds": ["round_published"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    // The writes' notifications drop what is kept: read after they arrived.
    actix_web::rt::time::sleep(Duration::from_millis(200)).await;

    let tournament = format!("/api/v1/tournaments/{tid}");
    for _ in 0..2 {
        assert_eq!(app.get(&tournament, None).await.status(), 200);
    }
    assert_eq!(
        app.get("/api/v1/tournaments/987654", None).await.status(),
        404
    );
    assert_eq!(app.get("/no/such/thing", None).await.status(), 404);
    assert_eq!(app.get("/healthz", None).await.status(), 200);

    let text = scrape_until(&app, |t| {
        value(t, "tourney_webhook_queue_pending").unwrap_or(0.0) >= 1.0
            && value(
                t,
                r#"tourney_job_last_success_timestamp_seconds{job="webhooks"}"#,
            )
            .unwrap_or(0.0)
                > 0.0
            && value(
                t,
                r#"tourney_job_last_success_timestamp_seconds{job="deadlines"}"#,
            )
            .unwrap_or(0.0)
                > 0.0
    })
    .await;

    // Requests and latency by route pattern, method and status class; never the raw path.
    let route = r#"method="GET",route="/api/v1/tournaments/{id}""#;
    let ok = must(
        &text,
        &format!("tourney_http_requests_total{{{route},class=\"2xx\"}}"),
    );
    assert!(ok >= 2.0, "{text}");
    let missing = format!("tourney_http_requests_total{{{route},class=\"4xx\"}}");
    assert_eq!(must(&text, &missing), 1.0);
    let unmatched = r#"tourney_http_requests_total{method="GET",route="unmatched",class="4xx"}"#;
    assert_eq!(must(&text, unmatched), 1.0);
    let health = r#"tourney_http_requests_total{method="GET",route="/healthz",class="2xx"}"#;
    assert!(must(&text, health) >= 1.0);
    assert!(!text.contains("987654") && !text.contains(&format!("/tournaments/{tid}")));
    assert!(!text.contains("/no/such/thing"));
    assert!(text.contains(r#"method="POST",route="/api/v1/tournaments/{id}/rounds",class="2xx""#));
    assert!(text.contains("# TYPE tourney_http_request_duration_seconds histogram"));
    let hist = |part: &str, le: &str| {
        must(
            &text,
            &format!("tourney_http_request_duration_seconds_{part}{{{route},class=\"2xx\"{le}}}"),
        )
    };
    assert_eq!(hist("count", ""), ok);
    assert_eq!(hist("bucket", ",le=\"+Inf\""), ok);
    assert!(hist("bucket", ",le=\"0.0005\"") <= hist("bucket", ",le=\"10\""));
    assert!(hist("sum", "") > 0.0);

    // The pool, sampled at the scrape.
    assert!(must(&text, "tourney_db_pool_connections") >= 1.0);
    assert!(value(&text, "tourney_db_pool_idle_connections").is_some());

    // The kept public read: rebuilt once, then served as kept.
    assert!(must(&text, r#"tourney_kept_reads_total{outcome="miss"}"#) >= 1.0);
    assert!(must(&text, r#"tourney_kept_reads_total{outcome="hit"}"#) >= 1.0);
    // The caches (issue 33): the same reads by cache, what is kept against the byte budget.
    let public_hits = r#"tourney_cache_reads_total{cache="public",outcome="hit"}"#;
    assert_eq!(
        must(&text, public_hits),
        must(&text, r#"tourney_kept_reads_total{outcome="hit"}"#)
    );
    let budget = tourney::infra::kept::DEFAULT_MAX_BYTES as f64;
    assert_eq!(
        must(&text, r#"tourney_cache_budget_bytes{cache="public"}"#),
        budget
    );
    let kept_bytes = must(&text, r#"tourney_cache_bytes{cache="public"}"#);
    assert!(kept_bytes > 0.0 && kept_bytes < budget, "{kept_bytes}");
    assert!(must(&text, r#"tourney_cache_entries{cache="public"}"#) >= 1.0);
    assert_eq!(
        must(&text, r#"tourney_cache_evictions_total{cache="public"}"#),
        0.0
    );
    let standings_budget = tourney::infra::standings_cache::DEFAULT_MAX_BYTES as f64;
    assert_eq!(
        must(&text, r#"tourney_cache_budget_bytes{cache="standings"}"#),
        standings_budget
    );

    // The delivery nobody receives waits in the queue.
    assert!(
        must(&text, "tourney_webhook_queue_pending") >= 1.0,
        "{text}"
    );
    assert!(must(&text, "tourney_webhook_queue_oldest_age_seconds") > 0.0);

    // Both jobs ticked lately.
    for job in ["deadlines", "webhooks"] {
        let lag = must(&text, &format!("tourney_job_lag_seconds{{job=\"{job}\"}}"));
        assert!((0.0..5.0).contains(&lag), "{job} lags {lag} s");
        let ticks = format!("tourney_job_tick_duration_seconds_count{{job=\"{job}\"}}");
        assert!(must(&text, &ticks) >= 1.0);
    }
    assert!(value(&text, "tourney_uptime_seconds").is_some());
}

/// A HEAD is counted as HEAD, though it is routed as GET.
#[actix_web::test]
async fn head_requests_count_under_their_own_method() {
    let app = spawn_app().await;
    let r = app
        .req(reqwest::Method::HEAD, "/healthz", None)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = scrape(&app).await;
    let head = r#"tourney_http_requests_total{method="HEAD",route="/healthz",class="2xx"}"#;
    assert_eq!(must(&text, head), 1.0, "{text}");
}
