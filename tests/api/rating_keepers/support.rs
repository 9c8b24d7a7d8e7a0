//! Helpers of the keeper tests: pools, keepers, rated tournaments, decisions, the feed.

#![allow(dead_code, unused_imports)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, HttpResponse};
use futures_util::future::join_all;
use reqwest::{Method, Response};
use serde_json::{json, Value};

use crate::event_fixtures::new_round;
use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{db, listed, log, player, pool, rebuild_over_http};

// --- small helpers -----------------------------------------------------------------------------

/// The date `n` days before today (UTC), `YYYY-MM-DD`.
pub(crate) fn days_ago(n: i64) -> String {
    (chrono::Utc::now().date_naive() - chrono::Duration::days(n)).to_string()
}

/// `hour`:00 UTC on `day`: within the playing day of a one-day tournament in Oslo.
pub(crate) fn at(day: &str, hour: u32) -> String {
    format!("{day}T{hour:02}:00:00Z")
}

/// An Agricola pool (the Norwegian preset), closed unless `more` says otherwise.
pub(crate) async fn agricola_pool(app: &TestApp, admin: &str, name: &str, more: Value) -> i64 {
    let mut body = json!({"name": name, "preset": "agricola_norway", "time_zone": "Europe/Oslo"});
    body.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    pool(app, admin, body).await
}

pub(crate) async fn grant(app: &TestApp, token: &str, pool_id: i64, user_id: i64) -> Response {
    app.req(
        Method::PUT,
        &format!("/api/v1/rating-pools/{pool_id}/keepers/{user_id}"),
        Some(token),
    )
    .send()
    .await
    .unwrap()
}

pub(crate) async fn revoke(app: &TestApp, token: &str, pool_id: i64, user_id: i64) -> Response {
    app.req(
        Method::DELETE,
        &format!("/api/v1/rating-pools/{pool_id}/keepers/{user_id}"),
        Some(token),
    )
    .send()
    .await
    .unwrap()
}

/// A new user made keeper of `pool_id` by the admin: (user id, token).
pub(crate) async fn keeper(app: &TestApp, admin: &str, pool_id: i64, name: &str) -> (i64, String) {
    let (id, token) = app.user(name).await;
    let r = grant(app, admin, pool_id, id).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    (id, token)
}

/// A one-day Agricola tournament on `day` naming `pool_id` (or none), created by `token`: its
/// JSON.
pub(crate) async fn rated_tournament(
    app: &TestApp,
    token: &str,
    pool_id: Option<i64>,
    day: &str,
) -> Value {
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(token),
            json!({
                "name": format!("Agricola {day}"), "game": "Agricola",
                "ruleset": "agricola_norway", "planned_rounds": 3, "starts_on": day, "days": 1,
                "time_zone": "Europe/Oslo", "rating_pool_id": pool_id
            }),
        )
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["rating_pool_id"], json!(pool_id));
    body
}

pub(crate) fn id(v: &Value) -> i64 {
    v["id"].as_i64().unwrap()
}

/// Opens registration and registers `players` (as the organiser).
pub(crate) async fn open_with(app: &TestApp, tid: i64, org: &str, players: &[i64]) {
    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{tid}"),
            Some(org),
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    for p in players {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(org),
                json!({"player_id": p}),
            )
            .await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    }
}

/// `n` new players created by `token` (an admin or an organiser).
pub(crate) async fn players(app: &TestApp, token: &str, prefix: &str, n: usize) -> Vec<i64> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push(player(app, token, &format!("{prefix} {i}"), "NO", "Oslo").await);
    }
    out
}

/// Draws and publishes the next round, played at `played_at`: the round's JSON.
pub(crate) async fn draw(app: &TestApp, tid: i64, org: &str, played_at: &str) -> Value {
    new_round(
        app,
        tid,
        org,
        json!({"method": "random", "played_at": played_at}),
    )
    .await
}

/// Enters the result of one table of `round`: players earlier in `order` score more.
pub(crate) async fn enter(
    app: &TestApp,
    tid: i64,
    token: &str,
    round: &Value,
    table: &Value,
    order: &[i64],
) {
    let r = enter_response(app, tid, token, round, table, order).await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
}

pub(crate) async fn enter_response(
    app: &TestApp,
    tid: i64,
    token: &str,
    round: &Value,
    table: &Value,
    order: &[i64],
) -> Response {
    let seats: Vec<Value> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let p = p.as_i64().unwrap();
            let place = order.iter().position(|o| *o == p).expect("a listed player") as i64;
            json!({"player_id": p, "score": 80 - 10 * place})
        })
        .collect();
    app.put(
        &format!(
            "/api/v1/tournaments/{tid}/rounds/{}/tables/{}/result",
            round["number"], table["number"]
        ),
        Some(token),
        json!({ "seats": seats }),
    )
    .await
}

pub(crate) fn tables(round: &Value) -> Vec<Value> {
    round["draw"]["tables"].as_array().unwrap().clone()
}

/// Draws a round played at `played_at` and enters every table: earlier in `order`, more points.
pub(crate) async fn play(
    app: &TestApp,
    tid: i64,
    org: &str,
    played_at: &str,
    order: &[i64],
) -> Value {
    let round = draw(app, tid, org, played_at).await;
    for t in tables(&round) {
        enter(app, tid, org, &round, &t, order).await;
    }
    let r: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/rounds/{}", round["number"]),
            Some(org),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    round
}

pub(crate) async fn get_json(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let r = app.get(path, token).await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    body
}

pub(crate) async fn tournament(app: &TestApp, tid: i64, token: &str) -> Value {
    get_json(app, &format!("/api/v1/tournaments/{tid}"), Some(token)).await
}

/// The whole leaderboard of a pool (provisional players included) as the public sees it.
pub(crate) async fn board(app: &TestApp, pool_id: i64) -> Value {
    get_json(
        app,
        &format!("/api/v1/rating-pools/{pool_id}/leaderboard?include_provisional=true&limit=200"),
        None,
    )
    .await
}

pub(crate) fn board_players(board: &Value) -> Vec<i64> {
    let mut ids: Vec<i64> = board["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    ids.sort();
    ids
}

pub(crate) fn board_row(board: &Value, player: i64) -> Value {
    board["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == player)
        .cloned()
        .unwrap_or_else(|| panic!("player {player} not on the board: {board}"))
}

/// A player's rating history in a pool, oldest first.
pub(crate) async fn history(app: &TestApp, player: i64, pool_id: i64) -> Value {
    get_json(
        app,
        &format!("/api/v1/players/{player}/ratings?pool={pool_id}&limit=200"),
        None,
    )
    .await
}

pub(crate) async fn decide(
    app: &TestApp,
    token: &str,
    pool_id: i64,
    tid: i64,
    body: Value,
) -> Response {
    app.post(
        &format!("/api/v1/rating-pools/{pool_id}/tournaments/{tid}/decision"),
        Some(token),
        body,
    )
    .await
}

/// A decision that must succeed: the decision record.
pub(crate) async fn decided(
    app: &TestApp,
    token: &str,
    pool_id: i64,
    tid: i64,
    body: Value,
) -> Value {
    let r = decide(app, token, pool_id, tid, body).await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["tournament_id"], tid);
    assert_eq!(v["pool_id"], pool_id);
    v
}

pub(crate) async fn accept(app: &TestApp, token: &str, pool_id: i64, tid: i64) -> Value {
    let d = decided(app, token, pool_id, tid, json!({"decision": "accept"})).await;
    assert_eq!(d["rating_status"], "accepted");
    d
}

pub(crate) async fn ask_again(app: &TestApp, token: &str, tid: i64) -> Response {
    app.post(
        &format!("/api/v1/tournaments/{tid}/rating-request"),
        Some(token),
        json!({}),
    )
    .await
}

/// A 409 or 422 problem naming exactly `field` first: its body.
pub(crate) async fn refused_on(r: Response, status: u16, field: &str) -> Value {
    let p = problem(r, status).await;
    assert_eq!(p["errors"][0]["field"], field, "{p}");
    p
}

/// The incremental list equals a rebuild: the public leaderboard and the pool's log, row by row.
pub(crate) async fn same_as_rebuild(app: &TestApp, token: &str, pool_id: i64) -> Value {
    let incremental = board(app, pool_id).await;
    let incremental_log = log(&mut db(app), pool_id);
    rebuild_over_http(app, token, pool_id).await;
    let rebuilt = board(app, pool_id).await;
    assert_eq!(
        incremental, rebuilt,
        "the incremental board equals a rebuild"
    );
    assert_eq!(
        incremental_log,
        log(&mut db(app), pool_id),
        "the incremental log equals a rebuild"
    );
    rebuilt
}

/// The pool's keepers' queue (or any status).
pub(crate) async fn queue(app: &TestApp, token: &str, pool_id: i64, status: &str) -> Response {
    app.get(
        &format!("/api/v1/rating-pools/{pool_id}/tournaments?rating_status={status}"),
        Some(token),
    )
    .await
}

/// The frames of the tournament's live feed from its first event until `done` holds (10 s at
/// most): (event kind, data).
pub(crate) async fn feed_until(
    app: &TestApp,
    tid: i64,
    after: Option<i64>,
    done: impl Fn(&[(String, Value)]) -> bool,
) -> Vec<(String, Value)> {
    let path = match after {
        Some(a) => format!("/api/v1/tournaments/{tid}/events?after={a}"),
        None => format!("/api/v1/tournaments/{tid}/events"),
    };
    let mut stream = app.req(Method::GET, &path, None).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    read_frames(&mut stream, done).await
}

pub(crate) async fn read_frames(
    stream: &mut Response,
    done: impl Fn(&[(String, Value)]) -> bool,
) -> Vec<(String, Value)> {
    let mut text = String::new();
    let read = async {
        loop {
            let frames = parse_frames(&text);
            if done(&frames) {
                return frames;
            }
            let chunk = stream
                .chunk()
                .await
                .unwrap()
                .expect("the stream stays open");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the expected events within 10 s")
}

pub(crate) fn parse_frames(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter_map(|frame| {
            let kind = frame.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = frame.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((kind.to_string(), serde_json::from_str(data).ok()?))
        })
        .collect()
}

pub(crate) fn rating_events(frames: &[(String, Value)]) -> Vec<Value> {
    frames
        .iter()
        .filter(|(k, _)| k == "rating_status_changed")
        .map(|(_, d)| d.clone())
        .collect()
}

/// A webhook receiver on 127.0.0.1 that answers 200 and keeps every body: (url, bodies).
pub(crate) async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let got: Arc<Mutex<Vec<Value>>> = Arc::default();
    let shared = got.clone();
    let server = actix_web::HttpServer::new(move || {
        let shared = shared.clone();
        actix_web::App::new().default_service(web::to(move |body: web::Bytes| {
            let shared = shared.clone();
            async move {
                if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                    shared.lock().unwrap().push(v);
                }
                HttpResponse::Ok().finish()
            }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let port = server.addrs()[0].port();
    actix_web::rt::spawn(server.run());
    (format!("http://127.0.0.1:{port}/hooks/pool"), got)
}

pub(crate) async fn wait_for(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    false
}
