//! What an integrator meets at the edges of the API: HEAD on every GET, gzip, problem types
//! that resolve to a page, and path errors in plain words.

use crate::helpers::{problem, spawn_app};

#[actix_web::test]
async fn head_answers_every_get_route_without_a_body() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let tid = app.tournament(&token, "agricola_norway").await;
    for path in [
        "/healthz".to_string(),
        "/openapi.json".to_string(),
        "/api/v1/players".to_string(),
        format!("/api/v1/tournaments/{tid}"),
    ] {
        let get = app
            .req(reqwest::Method::GET, &path, Some(&token))
            .send()
            .await
            .unwrap();
        let head = app
            .req(reqwest::Method::HEAD, &path, Some(&token))
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), get.status(), "HEAD {path}");
        assert_eq!(
            head.headers().get("content-type"),
            get.headers().get("content-type"),
            "HEAD {path}"
        );
        assert!(
            head.bytes().await.unwrap().is_empty(),
            "HEAD {path} has no body"
        );
    }
    // A route without GET still says which methods it takes.
    let r = app
        .req(reqwest::Method::HEAD, "/api/v1/auth/token", None)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
}

#[actix_web::test]
async fn json_is_gzipped_when_asked_and_the_live_feed_never() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let tid = app.tournament(&token, "agricola_norway").await;
    let raw = reqwest::Client::builder().no_gzip().build().unwrap();
    let r = raw
        .get(app.url("/openapi.json"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let zipped = r.bytes().await.unwrap().len();
    let plain = raw.get(app.url("/openapi.json")).send().await.unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.bytes().await.unwrap().len();
    assert!(zipped * 4 < plain, "gzip {zipped} bytes against {plain}");
    let feed = raw
        .get(app.url(&format!("/api/v1/tournaments/{tid}/events")))
        .bearer_auth(&token)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(feed.status(), 200);
    assert_eq!(feed.headers()["content-encoding"], "identity");
}

#[actix_web::test]
async fn every_problem_type_resolves_to_a_page() {
    let app = spawn_app().await;
    for (kind, title, status, _) in tourney::error::PROBLEM_KINDS {
        let page = app.get(&format!("/problems/{kind}"), None).await;
        assert_eq!(page.status(), 200, "/problems/{kind}");
        // Kept by shared caches for a day, the page and the JSON each for their `Accept`.
        let varies_on_accept = |r: &reqwest::Response| {
            let vary = r.headers()["vary"].to_str().unwrap().to_string();
            vary.split(',')
                .any(|v| v.trim().eq_ignore_ascii_case("accept"))
        };
        assert!(varies_on_accept(&page), "{:?}", page.headers());
        assert!(page.text().await.unwrap().contains(title));
        let answer = app
            .req(reqwest::Method::GET, &format!("/problems/{kind}"), None)
            .header("accept", "application/json")
            .send()
            .await
            .unwrap();
        assert!(varies_on_accept(&answer), "{:?}", answer.headers());
        let json: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(json["status"], *status);
        assert_eq!(json["type"], format!("/problems/{kind}"));
    }
    // The type a real error carries is one of them.
    let p = problem(app.get("/api/v1/players/999999", None).await, 404).await;
    let kind = p["type"].as_str().unwrap();
    assert_eq!(app.get(kind, None).await.status(), 200);
    problem(app.get("/problems/no-such-kind", None).await, 404).await;
}

#[actix_web::test]
async fn a_path_that_does_not_parse_is_explained_without_rust_internals() {
    let app = spawn_app().await;
    let p = problem(app.get("/api/v1/players/abc", None).await, 404).await;
    let detail = p["detail"].as_str().unwrap();
    assert!(detail.contains("/api/v1/players/abc"), "{detail}");
    for internal in ["deserialize", "i64", "Path"] {
        assert!(!detail.contains(internal), "{detail}");
    }
}
