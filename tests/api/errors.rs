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
    // Summed over the methods and routes the class is counted under.
    let count = |class: &str| -> u64 {
        text.lines()
            .filter(|l| l.starts_with("tourney_http_requests_total{"))
            .filter(|l| l.contains(&format!("class=\"{class}\"")))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    };
    assert!(count("2xx") >= 1, "{text}");
    assert!(count("4xx") >= 1, "{text}");
    assert!(text.contains("tourney_db_pool_connections"));
}

/// Sends `request` on a fresh connection and reads until the server closes it.
async fn raw_exchange(app: &crate::helpers::TestApp, request: Vec<u8>) -> (u16, String, String) {
    use std::io::{Read, Write};
    let addr = app.base.trim_start_matches("http://").to_string();
    let answer = actix_web::rt::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        // The server may answer and close before it has read all of a large head.
        let _ = s.write_all(&request);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    })
    .await
    .unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head[9..12].parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

fn assert_problem(head: &str, body: &str, status: u16, kind: &str) {
    assert!(
        head.contains("content-type: application/problem+json"),
        "{head}"
    );
    assert!(
        head.contains(&format!("content-length: {}\r\n", body.len())),
        "{head}"
    );
    let p: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    assert_eq!(p["status"], status);
    assert_eq!(p["type"], format!("/problems/{kind}"));
    assert!(!p["detail"].as_str().unwrap().is_empty());
}

#[actix_web::test]
async fn the_http_parsers_own_answers_are_problem_json() {
    let app = spawn_app().await;

    // More than 96 headers.
    let mut many = b"GET /healthz HTTP/1.1\r\nhost: x\r\n".to_vec();
    for i in 0..120 {
        many.extend_from_slice(format!("x-h{i}: {i}\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    let (status, head, body) = raw_exchange(&app, many).await;
    assert_eq!(status, 431);
    assert_problem(&head, &body, 431, "header-too-large");

    // A 100 KB path: the parser reads it as a malformed request line.
    let long = format!(
        "GET /api/v1/tournaments/{} HTTP/1.1\r\nhost: x\r\n\r\n",
        "9".repeat(100_000)
    );
    let (status, head, body) = raw_exchange(&app, long.into_bytes()).await;
    assert_eq!(status, 400);
    assert_problem(&head, &body, 400, "bad-request");

    // A request line that is not HTTP.
    let (status, head, body) = raw_exchange(&app, b"GET / HTTP/9 9\r\n\r\n".to_vec()).await;
    assert_eq!(status, 400);
    assert_problem(&head, &body, 400, "bad-request");

    // A head that never ends: the parser gives up after its 5 s.
    let (status, head, body) =
        raw_exchange(&app, b"GET /healthz HTTP/1.1\r\nhost: x\r\n".to_vec()).await;
    assert_eq!(status, 408);
    assert_problem(&head, &body, 408, "request-timeout");

    // The service's own answers on the same kind of connection are untouched.
    let (status, head, body) = raw_exchange(
        &app,
        b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".to_vec(),
    )
    .await;
    assert_eq!(status, 200, "{head}{body}");
    let (status, head, body) = raw_exchange(
        &app,
        b"GET /api/v1/tournaments/abc HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".to_vec(),
    )
    .await;
    assert_eq!(status, 404, "{head}{body}");
    assert!(head.contains("application/problem+json"), "{head}");
}
