//! Every kind of bad input gets a 4xx problem+json, never a 500.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{fields, problem, spawn_app};

fn tournament_body() -> serde_json::Value {
    json!({"name": "Open", "game": "Agricola", "ruleset": "agricola_norway", "planned_rounds": 5,
           "starts_on": "2026-06-12", "days": 3, "time_zone": "Europe/Oslo"})
}

#[actix_web::test]
async fn malformed_json_is_400() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let r = app
        .req(Method::POST, "/api/v1/tournaments", Some(&token))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    problem(r, 400).await;
}

#[actix_web::test]
async fn wrong_types_unknown_enums_and_unknown_fields_name_the_field() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let mut body = tournament_body();
    body["planned_rounds"] = json!("five");
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["planned_rounds"]);

    let mut body = tournament_body();
    body["ruleset"] = json!("chess_fide");
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["ruleset"]);
    assert!(
        p["detail"].as_str().unwrap().contains("agricola_norway"),
        "lists the allowed values"
    );

    let mut body = tournament_body();
    body["colour"] = json!("red");
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        422,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("colour"));

    let mut body = tournament_body();
    body.as_object_mut().unwrap().remove("name");
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        422,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("name"));
}

#[actix_web::test]
async fn validation_reports_every_field_at_fault() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let mut body = tournament_body();
    body["name"] = json!("x".repeat(201));
    body["time_zone"] = json!("Mars/Olympus");
    body["days"] = json!(61);
    body["planned_rounds"] = json!(0);
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        422,
    )
    .await;
    let mut f = fields(&p);
    f.sort();
    assert_eq!(f, vec!["days", "name", "planned_rounds", "time_zone"]);
    // Nothing was written.
    let list: serde_json::Value = app
        .get("/api/v1/tournaments", Some(&token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 0);
}

#[actix_web::test]
async fn oversized_bodies_are_413_and_wrong_content_types_415() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let mut body = tournament_body();
    body["venue"] = json!("v".repeat(300 * 1024));
    problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        413,
    )
    .await;
    let r = app
        .req(Method::POST, "/api/v1/tournaments", Some(&token))
        .header("content-type", "text/plain")
        .body(tournament_body().to_string())
        .send()
        .await
        .unwrap();
    problem(r, 415).await;
}

#[actix_web::test]
async fn bad_ids_unknown_routes_and_wrong_methods() {
    let app = spawn_app().await;
    problem(app.get("/api/v1/tournaments/abc", None).await, 404).await;
    problem(
        app.get("/api/v1/tournaments/99999999999999999999", None)
            .await,
        404,
    )
    .await;
    problem(app.get("/api/v1/tournaments/424242", None).await, 404).await;
    problem(app.get("/api/v1/nothing-here", None).await, 404).await;
    let r = app
        .req(Method::DELETE, "/api/v1/tournaments", None)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers().get("allow").and_then(|v| v.to_str().ok()),
        Some("GET, POST")
    );
    problem(r, 405).await;
}

#[actix_web::test]
async fn bad_query_parameters_name_the_parameter() {
    let app = spawn_app().await;
    let p = problem(app.get("/api/v1/players?limit=abc", None).await, 422).await;
    assert_eq!(fields(&p), vec!["limit"]);
    let p = problem(app.get("/api/v1/players?limit=5000", None).await, 422).await;
    assert_eq!(fields(&p), vec!["limit"]);
    let p = problem(
        app.get("/api/v1/tournaments?status=secret", None).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["status"]);
}

#[actix_web::test]
async fn bodies_must_be_objects_and_integral_floats_count_as_integers() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), json!([null, null]))
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["body"]);

    let mut body = tournament_body();
    body["planned_rounds"] = json!(6.0);
    let r = app.post("/api/v1/tournaments", Some(&token), body).await;
    assert_eq!(r.status(), 201);
    let t: serde_json::Value = r.json().await.unwrap();
    assert_eq!(t["planned_rounds"], 6);

    let mut body = tournament_body();
    body["planned_rounds"] = json!(6.5);
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["planned_rounds"]);
}

#[actix_web::test]
async fn a_malformed_if_match_names_the_header() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let id = app.tournament(&token, "tantrix").await;
    for bad in ["", "1", "\"abc\"", "**", "\"1234567890\""] {
        let r = app
            .req(
                Method::PATCH,
                &format!("/api/v1/tournaments/{id}"),
                Some(&token),
            )
            .header("if-match", bad)
            .json(&json!({"name": "Renamed"}))
            .send()
            .await
            .unwrap();
        let p = problem(r, 422).await;
        assert_eq!(fields(&p), vec!["If-Match"], "If-Match: {bad:?}");
    }
    // Without If-Match the update is refused (no lost updates); `*` overwrites what is current.
    let path = format!("/api/v1/tournaments/{id}");
    let p = problem(
        app.patch(&path, Some(&token), json!({"name": "Renamed"}))
            .await,
        428,
    )
    .await;
    assert_eq!(p["type"], "/problems/precondition-required");
    let r = app
        .patch_any(&path, Some(&token), json!({"name": "Renamed"}))
        .await;
    assert_eq!(r.status(), 200);
}

/// The ETag a GET sends is what If-Match takes on the update (and If-None-Match on the read).
#[actix_web::test]
async fn the_etag_of_a_read_is_accepted_by_if_match() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let id = app.tournament(&token, "tantrix").await;
    let path = format!("/api/v1/tournaments/{id}");
    let read = app.get(&path, Some(&token)).await;
    let etag = read.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(etag, "\"1\"");
    let unchanged = app
        .req(Method::GET, &path, Some(&token))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(unchanged.status(), 304);
    let r = app
        .req(Method::PATCH, &path, Some(&token))
        .header("if-match", &etag)
        .json(&json!({"name": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["etag"], "\"2\"");
    let stale = app
        .req(Method::PATCH, &path, Some(&token))
        .header("if-match", &etag)
        .json(&json!({"name": "Lost"}))
        .send()
        .await
        .unwrap();
    problem(stale, 412).await;
}

#[actix_web::test]
async fn metrics_count_answers_by_status_class() {
    let app = spawn_app().await;
    app.get("/healthz", None).await;
    app.get("/api/v1/no-such-route", None).await;
    let r = app.get("/metrics", None).await;
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    let count = |class: &str| -> u64 {
        text.lines()
            .find(|l| l.starts_with(&format!("tourney_http_requests_total{{class=\"{class}\"}}")))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("counter line")
    };
    assert!(count("2xx") >= 1, "{text}");
    assert!(count("4xx") >= 1, "{text}");
    assert!(text.contains("tourney_db_pool_connections"));
}
