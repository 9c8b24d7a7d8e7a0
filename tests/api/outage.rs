//! Issue 15, item 8: while the database cannot be reached, every request is answered 503
//! problem+json with `Retry-After` (never 500, never a hang), `/readyz` says so, and the
//! service recovers on its own when the database is back. The outage is real: the test's own
//! database stops taking connections and its sessions are ended, on the shared test cluster.

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::helpers::{cluster_admin, spawn_app};

fn set_reachable(conn: &mut PgConnection, db: &str, reachable: bool) {
    diesel::sql_query(format!(
        "ALTER DATABASE \"{db}\" ALLOW_CONNECTIONS {reachable}"
    ))
    .execute(conn)
    .expect("alter database");
    if !reachable {
        diesel::sql_query(format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{db}'"
        ))
        .execute(conn)
        .expect("end the sessions");
    }
}

async fn assert_unavailable(r: reqwest::Response) {
    assert_eq!(r.status(), 503);
    assert_eq!(
        r.headers()["content-type"].to_str().unwrap(),
        "application/problem+json"
    );
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After in seconds");
    assert!(retry >= 1);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["status"], 503);
    assert_eq!(p["type"], "/problems/unavailable");
    // No connection detail leaks.
    assert!(!p["detail"].as_str().unwrap().contains("host="), "{p}");
}

#[actix_web::test]
async fn an_outage_is_answered_503_and_the_service_recovers() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post("/api/v1/players", Some(&admin), json!({"name": "Before"}))
        .await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let (mut su, db) = cluster_admin(&app.database_url);

    let checker = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(3))
        .build()
        .unwrap();
    set_reachable(&mut su, &db, false);
    // Reads, writes and readiness: 503 with Retry-After, again and again (the first opens
    // the circuit, the next are answered without waiting for the pool).
    for _ in 0..3 {
        assert_unavailable(app.get(&format!("/api/v1/players/{id}"), None).await).await;
        assert_unavailable(
            app.post("/api/v1/players", Some(&admin), json!({"name": "During"}))
                .await,
        )
        .await;
        // A health checker gives up after a few seconds; readiness must answer before that
        // (it waited the pool's 10 s checkout timeout before).
        assert_unavailable(
            checker
                .get(app.url("/readyz"))
                .send()
                .await
                .expect("answered"),
        )
        .await;
    }
    // Liveness does not depend on the database.
    assert_eq!(app.get("/healthz", None).await.status(), 200);

    set_reachable(&mut su, &db, true);
    let mut recovered = false;
    for _ in 0..50 {
        if app.get("/readyz", None).await.status() == 200 {
            recovered = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(recovered, "readyz never came back");
    let r = app
        .post("/api/v1/players", Some(&admin), json!({"name": "After"}))
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let r = app.get(&format!("/api/v1/players/{id}"), None).await;
    assert_eq!(r.status(), 200);
    // Nothing written during the outage.
    let page: Value = app
        .get("/api/v1/players?q=During", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["total"], 0, "{page}");
}

fn state_on(pool: tourney::db::DbPool, url: &str) -> tourney::runtime::state::AppState {
    tourney::runtime::state::AppState {
        pool,
        replica: None,
        jwt: tourney::auth::JwtKeys::new(
            b"0123456789abcdef0123456789abcdef",
            Duration::from_secs(60),
        ),
        leaderboards: Default::default(),
        login_throttle: Default::default(),
        rate_limits: tourney::infra::ratelimit::RateLimiter::new(crate::helpers::TEST_LIMITS),
        accounts: Default::default(),
        circuit: Default::default(),
        live: tourney::infra::live::LiveHub::new(url),
        standings: Default::default(),
        kept: Default::default(),
        search: Default::default(),
        clock: Default::default(),
        webhooks: Default::default(),
        metrics: Default::default(),
        signup: Default::default(),
        archive_keys: tourney::services::archives::ArchiveKeys::derived(b"outage", Vec::new()),
        hall: tourney::auth::table_codes::HallKeys::derived(b"outage"),
    }
}

use std::time::Duration;

/// A busy pool is not an outage: when every connection is in use for the whole checkout
/// timeout, that request gets 503, but the circuit stays closed (it used to open and turn
/// every other request away for a second); a database that cannot be reached opens it.
#[actix_web::test]
async fn a_busy_pool_answers_503_without_opening_the_circuit() {
    let app = spawn_app().await;
    let pool = tourney::db::pool_with(&app.database_url, 1, Duration::from_millis(200)).unwrap();
    let state = state_on(pool.clone(), &app.database_url);
    let held = pool.get().expect("the only connection");
    let r = state.run(|_conn| Ok(())).await;
    assert!(matches!(r, Err(tourney::error::ApiError::Unavailable(_))));
    assert!(!state.circuit.is_open(), "a busy pool opened the circuit");
    drop(held);
    assert!(state.run(|_conn| Ok(())).await.is_ok());

    let gone = "postgresql:///nowhere?host=/nonexistent-socket-dir&port=5432";
    let unreachable = diesel::r2d2::Pool::builder()
        .max_size(1)
        .min_idle(Some(0))
        .connection_timeout(Duration::from_millis(200))
        .build_unchecked(diesel::r2d2::ConnectionManager::<PgConnection>::new(gone));
    let state = state_on(unreachable, gone);
    let r = state.run(|_conn| Ok(())).await;
    assert!(matches!(r, Err(tourney::error::ApiError::Unavailable(_))));
    assert!(
        state.circuit.is_open(),
        "an unreachable database keeps the circuit closed"
    );
}
