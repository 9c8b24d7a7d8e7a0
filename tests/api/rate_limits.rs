//! Rate limits for everyone (issue 30, item 9): per class of operation, per credential and
//! per address, answered 429 with `Retry-After`, `RateLimit` and `RateLimit-Policy`.

use serde_json::{json, Value};
use tourney::infra::ratelimit::Limits;

use crate::helpers::{spawn_app_with_limits, ADMIN, PASSWORD};

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name}"))
        .to_str()
        .unwrap()
        .to_string()
}

#[actix_web::test]
async fn every_caller_is_limited_per_class_credential_and_address() {
    let app = spawn_app_with_limits(Limits {
        read: 5,
        write: 3,
        auth: 3,
    })
    .await;
    // Sign-ins: per address. (One here, one below: the third call would be the last.)
    let token = app.token(ADMIN, PASSWORD).await;
    let second = app.token(ADMIN, PASSWORD).await;
    // Reads with one token: five, then 429; the headers count down.
    for left in (0..5).rev() {
        let r = app.get("/api/v1/players", Some(&token)).await;
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
        assert!(
            header(&r, "ratelimit").starts_with(&format!("\"read\";r={left};t=")),
            "{}",
            header(&r, "ratelimit")
        );
    }
    let r = app.get("/api/v1/tournaments", Some(&token)).await;
    assert_eq!(r.status(), 429);
    let wait: u64 = header(&r, "retry-after").parse().unwrap();
    assert!((1..=60).contains(&wait));
    assert!(header(&r, "ratelimit").starts_with("\"read\";r=0;t="));
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["type"], "/problems/too-many-requests");
    assert_eq!(p["status"], 429);
    // Writes are their own class.
    let r = app
        .post(
            "/api/v1/players",
            Some(&token),
            json!({"name": "Still Allowed"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "ratelimit-policy"), "\"write\";q=3;w=60");
    // Another credential from the same address reads until the address's 10 are used.
    for _ in 0..5 {
        assert_eq!(
            app.get("/api/v1/players", Some(&second)).await.status(),
            200
        );
    }
    let r = app.get("/api/v1/players", Some(&second)).await;
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=10;w=60");
    // Anonymous callers share the address's count.
    assert_eq!(app.get("/api/v1/players", None).await.status(), 429);
    // Probes, the document and the pages are not counted.
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    assert_eq!(app.get("/openapi.json", None).await.status(), 200);
    // The third sign-in call is the last of the minute.
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": ADMIN, "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": ADMIN, "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "ratelimit-policy"), "\"auth\";q=3;w=60");
}

/// Every operation of the API documents its 429 with the headers it sends.
#[test]
fn every_operation_documents_its_429() {
    let doc = tourney::app::openapi();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !path.starts_with("/api/v1/") {
                continue;
            }
            let headers = &op["responses"]["429"]["headers"];
            for h in ["Retry-After", "RateLimit", "RateLimit-Policy"] {
                assert!(headers.get(h).is_some(), "{method} {path}: 429 without {h}");
            }
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}
