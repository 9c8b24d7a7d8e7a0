//! Issue 26: rating lists their federations can trust. A pool is kept by its keepers; a
//! tournament that names a pool asks to be rated and its games feed the list only once a keeper
//! accepts it (at once in an open pool or for a keeper's own tournament); refusals and
//! withdrawals carry a reason, a withdrawal takes the games out like a correction, and the
//! incremental list always equals a rebuild.
//!
//! Everything goes through HTTP; the pool's log is read from the database only to compare the
//! incremental feed with a rebuild row by row.

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
fn days_ago(n: i64) -> String {
    (chrono::Utc::now().date_naive() - chrono::Duration::days(n)).to_string()
}

/// `hour`:00 UTC on `day`: within the playing day of a one-day tournament in Oslo.
fn at(day: &str, hour: u32) -> String {
    format!("{day}T{hour:02}:00:00Z")
}

/// An Agricola pool (the Norwegian preset), closed unless `more` says otherwise.
async fn agricola_pool(app: &TestApp, admin: &str, name: &str, more: Value) -> i64 {
    let mut body = json!({"name": name, "preset": "agricola_norway", "time_zone": "Europe/Oslo"});
    body.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    pool(app, admin, body).await
}

async fn grant(app: &TestApp, token: &str, pool_id: i64, user_id: i64) -> Response {
    app.req(
        Method::PUT,
        &format!("/api/v1/rating-pools/{pool_id}/keepers/{user_id}"),
        Some(token),
    )
    .send()
    .await
    .unwrap()
}

async fn revoke(app: &TestApp, token: &str, pool_id: i64, user_id: i64) -> Response {
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
async fn keeper(app: &TestApp, admin: &str, pool_id: i64, name: &str) -> (i64, String) {
    let (id, token) = app.user(name).await;
    let r = grant(app, admin, pool_id, id).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    (id, token)
}

/// A one-day Agricola tournament on `day` naming `pool_id` (or none), created by `token`: its
/// JSON.
async fn rated_tournament(app: &TestApp, token: &str, pool_id: Option<i64>, day: &str) -> Value {
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

fn id(v: &Value) -> i64 {
    v["id"].as_i64().unwrap()
}

/// Opens registration and registers `players` (as the organiser).
async fn open_with(app: &TestApp, tid: i64, org: &str, players: &[i64]) {
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
async fn players(app: &TestApp, token: &str, prefix: &str, n: usize) -> Vec<i64> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push(player(app, token, &format!("{prefix} {i}"), "NO", "Oslo").await);
    }
    out
}

/// Draws and publishes the next round, played at `played_at`: the round's JSON.
async fn draw(app: &TestApp, tid: i64, org: &str, played_at: &str) -> Value {
    new_round(
        app,
        tid,
        org,
        json!({"method": "random", "played_at": played_at}),
    )
    .await
}

/// Enters the result of one table of `round`: players earlier in `order` score more.
async fn enter(app: &TestApp, tid: i64, token: &str, round: &Value, table: &Value, order: &[i64]) {
    let r = enter_response(app, tid, token, round, table, order).await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
}

async fn enter_response(
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

fn tables(round: &Value) -> Vec<Value> {
    round["draw"]["tables"].as_array().unwrap().clone()
}

/// Draws a round played at `played_at` and enters every table: earlier in `order`, more points.
async fn play(app: &TestApp, tid: i64, org: &str, played_at: &str, order: &[i64]) -> Value {
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

async fn get_json(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let r = app.get(path, token).await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    body
}

async fn tournament(app: &TestApp, tid: i64, token: &str) -> Value {
    get_json(app, &format!("/api/v1/tournaments/{tid}"), Some(token)).await
}

/// The whole leaderboard of a pool (provisional players included) as the public sees it.
async fn board(app: &TestApp, pool_id: i64) -> Value {
    get_json(
        app,
        &format!("/api/v1/rating-pools/{pool_id}/leaderboard?include_provisional=true&limit=200"),
        None,
    )
    .await
}

fn board_players(board: &Value) -> Vec<i64> {
    let mut ids: Vec<i64> = board["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    ids.sort();
    ids
}

fn board_row(board: &Value, player: i64) -> Value {
    board["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == player)
        .cloned()
        .unwrap_or_else(|| panic!("player {player} not on the board: {board}"))
}

/// A player's rating history in a pool, oldest first.
async fn history(app: &TestApp, player: i64, pool_id: i64) -> Value {
    get_json(
        app,
        &format!("/api/v1/players/{player}/ratings?pool={pool_id}&limit=200"),
        None,
    )
    .await
}

async fn decide(app: &TestApp, token: &str, pool_id: i64, tid: i64, body: Value) -> Response {
    app.post(
        &format!("/api/v1/rating-pools/{pool_id}/tournaments/{tid}/decision"),
        Some(token),
        body,
    )
    .await
}

/// A decision that must succeed: the decision record.
async fn decided(app: &TestApp, token: &str, pool_id: i64, tid: i64, body: Value) -> Value {
    let r = decide(app, token, pool_id, tid, body).await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["tournament_id"], tid);
    assert_eq!(v["pool_id"], pool_id);
    v
}

async fn accept(app: &TestApp, token: &str, pool_id: i64, tid: i64) -> Value {
    let d = decided(app, token, pool_id, tid, json!({"decision": "accept"})).await;
    assert_eq!(d["rating_status"], "accepted");
    d
}

async fn ask_again(app: &TestApp, token: &str, tid: i64) -> Response {
    app.post(
        &format!("/api/v1/tournaments/{tid}/rating-request"),
        Some(token),
        json!({}),
    )
    .await
}

/// A 409 or 422 problem naming exactly `field` first: its body.
async fn refused_on(r: Response, status: u16, field: &str) -> Value {
    let p = problem(r, status).await;
    assert_eq!(p["errors"][0]["field"], field, "{p}");
    p
}

/// The incremental list equals a rebuild: the public leaderboard and the pool's log, row by row.
async fn same_as_rebuild(app: &TestApp, token: &str, pool_id: i64) -> Value {
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
async fn queue(app: &TestApp, token: &str, pool_id: i64, status: &str) -> Response {
    app.get(
        &format!("/api/v1/rating-pools/{pool_id}/tournaments?rating_status={status}"),
        Some(token),
    )
    .await
}

/// The frames of the tournament's live feed from its first event until `done` holds (10 s at
/// most): (event kind, data).
async fn feed_until(
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

async fn read_frames(
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

fn parse_frames(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter_map(|frame| {
            let kind = frame.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = frame.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((kind.to_string(), serde_json::from_str(data).ok()?))
        })
        .collect()
}

fn rating_events(frames: &[(String, Value)]) -> Vec<Value> {
    frames
        .iter()
        .filter(|(k, _)| k == "rating_status_changed")
        .map(|(_, d)| d.clone())
        .collect()
}

/// A webhook receiver on 127.0.0.1 that answers 200 and keeps every body: (url, bodies).
async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
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

async fn wait_for(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

// --- the attack --------------------------------------------------------------------------------

/// The attack of the issue: an account with no role creates a back-dated tournament naming the
/// national pool, registers a rated player it does not own beside three of its own and makes
/// them lose. Nothing on the list moves until a keeper accepts the tournament; then its game
/// is rated where it was played.
#[actix_web::test]
async fn a_strangers_tournament_moves_no_rating_until_a_keeper_accepts_it() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (keeper_id, keeper_token) = keeper(&app, &admin, pool_id, "rating.officer").await;

    // A real player with a rating from an event the keeper runs (accepted at once).
    let real = player(&app, &admin, "Kari Nordmann", "NO", "Oslo").await;
    let rivals = players(&app, &admin, "Rival", 3).await;
    let day0 = days_ago(60);
    let t0 = rated_tournament(&app, &keeper_token, Some(pool_id), &day0).await;
    assert_eq!(t0["rating_status"], "accepted");
    let mut field = vec![real];
    field.extend(&rivals);
    open_with(&app, id(&t0), &keeper_token, &field).await;
    play(&app, id(&t0), &keeper_token, &at(&day0, 12), &field).await;
    let board_before = board(&app, pool_id).await;
    let history_before = history(&app, real, pool_id).await;
    assert_eq!(history_before["total"], 1);
    assert_eq!(board_players(&board_before).len(), 4);

    // The stranger: back-dated by a month, naming the national pool.
    let (stranger_id, stranger) = app.user("club.organiser").await;
    let day = days_ago(30);
    let t = rated_tournament(&app, &stranger, Some(pool_id), &day).await;
    let tid = id(&t);
    assert_eq!(t["rating_status"], "pending");
    assert_eq!(t["rating_reason"], Value::Null);
    assert!(t["rating_decided_at"].is_string(), "{t}");
    let own = players(&app, &stranger, "Sock puppet", 3).await;
    let mut field = own.clone();
    field.push(real);
    open_with(&app, tid, &stranger, &field).await;
    // The real player comes last.
    play(&app, tid, &stranger, &at(&day, 12), &field).await;

    // Nothing moved: the board, the real player's history, no history for the puppets.
    assert_eq!(board(&app, pool_id).await, board_before);
    assert_eq!(history(&app, real, pool_id).await, history_before);
    for p in &own {
        assert_eq!(history(&app, *p, pool_id).await["total"], 0);
    }
    assert_eq!(
        tournament(&app, tid, &stranger).await["rating_status"],
        "pending"
    );

    // The keepers' queue shows who asks, with whom, and how far they played.
    let q: Value = queue(&app, &keeper_token, pool_id, "pending")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(q["total"], 1, "{q}");
    let item = &q["items"][0];
    assert_eq!(item["tournament_id"], tid);
    assert_eq!(item["rating_status"], "pending");
    assert_eq!(item["created_by"]["user_id"], stranger_id);
    assert_eq!(item["created_by"]["username"], "club.organiser");
    let mut listed_players: Vec<i64> = item["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player_id"].as_i64().unwrap())
        .collect();
    listed_players.sort();
    let mut want = field.clone();
    want.sort();
    assert_eq!(listed_players, want);
    assert!(item["players"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["player_id"] == real && p["name"] == "Kari Nordmann"));
    assert_eq!(item["completed_rounds"], 1);
    assert_eq!(item["results"], 1);
    // The stranger neither sees the queue nor decides on their own tournament.
    problem(queue(&app, &stranger, pool_id, "pending").await, 403).await;
    problem(
        decide(&app, &stranger, pool_id, tid, json!({"decision": "accept"})).await,
        403,
    )
    .await;
    assert_eq!(board(&app, pool_id).await, board_before);

    // The keeper accepts: the game is rated at its time of play.
    let d = accept(&app, &keeper_token, pool_id, tid).await;
    assert_eq!(d["decided_by"], keeper_id);
    assert_eq!(d["reason"], Value::Null);
    let t = tournament(&app, tid, &stranger).await;
    assert_eq!(t["rating_status"], "accepted");
    assert_eq!(t["rating_decided_at"], d["decided_at"]);
    let h = history(&app, real, pool_id).await;
    assert_eq!(h["total"], 2);
    let last = &h["items"][1];
    assert_eq!(last["tournament_id"], tid);
    assert_eq!(last["rated_at"], at(&day, 12));
    assert!(last["delta"].as_f64().unwrap() < 0.0, "{last}");
    assert_eq!(
        last["rating_before"],
        history_before["items"][0]["rating_after"]
    );
    let after = board(&app, pool_id).await;
    assert!(
        board_row(&after, real)["rating"].as_f64().unwrap()
            < board_row(&board_before, real)["rating"].as_f64().unwrap()
    );
    let mut everyone = want.clone();
    everyone.extend(&rivals);
    everyone.sort();
    assert_eq!(board_players(&after), everyone);
    same_as_rebuild(&app, &admin, pool_id).await;
    let q: Value = queue(&app, &keeper_token, pool_id, "pending")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(q["total"], 0);
}

// --- acceptance after play ---------------------------------------------------------------------

/// Tournament A is played first but accepted last, after B (a keeper's, accepted at once) was
/// rated: A's games go in before B's, as if both had been accepted from the start (a second
/// pool where they were gives the same list), and the incremental list equals a rebuild.
#[actix_web::test]
async fn acceptance_after_play_rates_the_games_in_their_played_order() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let reference = agricola_pool(&app, &admin, "Reference", json!({})).await;
    let (_, keeper_token) = keeper(&app, &admin, pool_id, "rating.officer").await;
    let (_, stranger) = app.user("club.organiser").await;
    let p = players(&app, &admin, "Player", 4).await;
    let (day_a, day_b) = (days_ago(20), days_ago(10));
    let order_a = [p[0], p[1], p[2], p[3]];
    let order_b = [p[3], p[2], p[1], p[0]];

    let a = id(&rated_tournament(&app, &stranger, Some(pool_id), &day_a).await);
    open_with(&app, a, &stranger, &p).await;
    play(&app, a, &stranger, &at(&day_a, 11), &order_a).await;
    play(&app, a, &stranger, &at(&day_a, 15), &order_b).await;
    let b = rated_tournament(&app, &keeper_token, Some(pool_id), &day_b).await;
    assert_eq!(b["rating_status"], "accepted");
    let b = id(&b);
    open_with(&app, b, &keeper_token, &p).await;
    play(&app, b, &keeper_token, &at(&day_b, 12), &order_b).await;
    let only_b = listed(&app, pool_id).await;
    assert!(
        only_b.values().all(|(_, games, _)| *games == 1),
        "{only_b:?}"
    );

    accept(&app, &keeper_token, pool_id, a).await;

    // p[0]'s history: A's two games, then B's, each starting from the one before.
    let h = history(&app, p[0], pool_id).await;
    let items = h["items"].as_array().unwrap();
    let tids: Vec<i64> = items
        .iter()
        .map(|i| i["tournament_id"].as_i64().unwrap())
        .collect();
    assert_eq!(tids, vec![a, a, b], "{h}");
    let times: Vec<&str> = items
        .iter()
        .map(|i| i["rated_at"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    for w in items.windows(2) {
        assert_eq!(w[1]["rating_before"], w[0]["rating_after"], "{h}");
    }
    assert_ne!(
        items[2]["rating_before"], items[0]["rating_before"],
        "B's game is rated after A's"
    );
    let incremental = listed(&app, pool_id).await;
    same_as_rebuild(&app, &admin, pool_id).await;

    // The same games in a pool where both tournaments were accepted from the start.
    let a2 = id(&rated_tournament(&app, &admin, Some(reference), &day_a).await);
    open_with(&app, a2, &admin, &p).await;
    play(&app, a2, &admin, &at(&day_a, 11), &order_a).await;
    play(&app, a2, &admin, &at(&day_a, 15), &order_b).await;
    let b2 = id(&rated_tournament(&app, &admin, Some(reference), &day_b).await);
    open_with(&app, b2, &admin, &p).await;
    play(&app, b2, &admin, &at(&day_b, 12), &order_b).await;
    assert_eq!(listed(&app, reference).await, incremental);
    assert_ne!(incremental, only_b);
}

// --- refusal, a new request, withdrawal ---------------------------------------------------------

/// A refusal with its reason, a new request, acceptance and a withdrawal: each shows on the
/// tournament, the withdrawal takes its games out (the board is again what it was before, and
/// equals a rebuild, a later tournament's games re-rated), and the history lists every step in
/// order.
#[actix_web::test]
async fn refusal_new_request_acceptance_and_withdrawal_in_order() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (keeper_id, keeper_token) = keeper(&app, &admin, pool_id, "rating.officer").await;
    let (stranger_id, stranger) = app.user("club.organiser").await;
    let p = players(&app, &admin, "Member", 4).await;
    // Accepted events before and after the stranger's.
    let (day_e, day_t, day_l) = (days_ago(40), days_ago(30), days_ago(20));
    let e = id(&rated_tournament(&app, &keeper_token, Some(pool_id), &day_e).await);
    open_with(&app, e, &keeper_token, &p).await;
    play(&app, e, &keeper_token, &at(&day_e, 12), &p).await;
    let l = id(&rated_tournament(&app, &keeper_token, Some(pool_id), &day_l).await);
    open_with(&app, l, &keeper_token, &p).await;
    play(
        &app,
        l,
        &keeper_token,
        &at(&day_l, 12),
        &[p[3], p[1], p[2], p[0]],
    )
    .await;
    let board0 = board(&app, pool_id).await;

    let tid = id(&rated_tournament(&app, &stranger, Some(pool_id), &day_t).await);
    let guests = players(&app, &stranger, "Guest", 2).await;
    let field = [p[0], p[1], guests[0], guests[1]];
    open_with(&app, tid, &stranger, &field).await;
    play(
        &app,
        tid,
        &stranger,
        &at(&day_t, 12),
        &[guests[0], p[1], guests[1], p[0]],
    )
    .await;
    assert_eq!(board(&app, pool_id).await, board0);

    // Refused, with a reason the organiser sees.
    refused_on(
        decide(
            &app,
            &keeper_token,
            pool_id,
            tid,
            json!({"decision": "refuse"}),
        )
        .await,
        422,
        "reason",
    )
    .await;
    let refusal = "not held under the association's rules";
    let d = decided(
        &app,
        &keeper_token,
        pool_id,
        tid,
        json!({"decision": "refuse", "reason": refusal}),
    )
    .await;
    assert_eq!(d["rating_status"], "refused");
    assert_eq!(d["reason"], refusal);
    let t = tournament(&app, tid, &stranger).await;
    assert_eq!(t["rating_status"], "refused");
    assert_eq!(t["rating_reason"], refusal);
    // Not accepted without a new request; nothing rated.
    refused_on(
        decide(
            &app,
            &keeper_token,
            pool_id,
            tid,
            json!({"decision": "accept"}),
        )
        .await,
        409,
        "rating_status",
    )
    .await;
    assert_eq!(board(&app, pool_id).await, board0);

    // Only its organiser asks again; then it is pending, once.
    problem(ask_again(&app, &keeper_token, tid).await, 403).await;
    let r = ask_again(&app, &stranger, tid).await;
    let status = r.status();
    let asked: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{asked}");
    assert_eq!(asked["rating_status"], "pending");
    assert_eq!(asked["decided_by"], stranger_id);
    assert_eq!(
        tournament(&app, tid, &stranger).await["rating_status"],
        "pending"
    );
    refused_on(ask_again(&app, &stranger, tid).await, 409, "rating_status").await;

    // Accepted: rated, and equal to a rebuild.
    accept(&app, &keeper_token, pool_id, tid).await;
    let with_t = same_as_rebuild(&app, &admin, pool_id).await;
    assert_ne!(with_t, board0);
    assert!(board_players(&with_t).contains(&guests[0]));
    refused_on(ask_again(&app, &stranger, tid).await, 409, "rating_status").await;

    // Withdrawn: the games leave the list as a correction would; L's games are re-rated.
    refused_on(
        decide(
            &app,
            &keeper_token,
            pool_id,
            tid,
            json!({"decision": "withdraw"}),
        )
        .await,
        422,
        "reason",
    )
    .await;
    let withdrawal = "the results were made up";
    let d = decided(
        &app,
        &keeper_token,
        pool_id,
        tid,
        json!({"decision": "withdraw", "reason": withdrawal}),
    )
    .await;
    assert_eq!(d["rating_status"], "withdrawn");
    let t = tournament(&app, tid, &stranger).await;
    assert_eq!(t["rating_status"], "withdrawn");
    assert_eq!(t["rating_reason"], withdrawal);
    assert_eq!(board(&app, pool_id).await, board0);
    assert_eq!(same_as_rebuild(&app, &admin, pool_id).await, board0);
    assert_eq!(history(&app, guests[0], pool_id).await["total"], 0);
    let h = history(&app, p[0], pool_id).await;
    let tids: Vec<i64> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["tournament_id"].as_i64().unwrap())
        .collect();
    assert_eq!(tids, vec![e, l]);

    // Asked again after the withdrawal.
    let r = ask_again(&app, &stranger, tid).await;
    assert_eq!(r.status(), 201);
    assert_eq!(board(&app, pool_id).await, board0);

    // The history, public for a published tournament, oldest first.
    let hist = get_json(
        &app,
        &format!("/api/v1/tournaments/{tid}/rating-decisions"),
        None,
    )
    .await;
    assert_eq!(hist["total"], 6, "{hist}");
    let items = hist["items"].as_array().unwrap();
    let steps: Vec<(&str, Value, i64)> = items
        .iter()
        .map(|i| {
            (
                i["rating_status"].as_str().unwrap(),
                i["reason"].clone(),
                i["decided_by"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            ("pending", Value::Null, stranger_id),
            ("refused", json!(refusal), keeper_id),
            ("pending", Value::Null, stranger_id),
            ("accepted", Value::Null, keeper_id),
            ("withdrawn", json!(withdrawal), keeper_id),
            ("pending", Value::Null, stranger_id),
        ]
    );
    for w in items.windows(2) {
        assert!(w[0]["id"].as_i64() < w[1]["id"].as_i64());
        assert!(w[0]["decided_at"].as_str() <= w[1]["decided_at"].as_str());
    }
    assert!(items
        .iter()
        .all(|i| i["tournament_id"] == tid && i["pool_id"] == pool_id));
}

// --- open pools --------------------------------------------------------------------------------

/// A pool is closed by default; an open pool accepts a stranger's tournament at once and rates
/// it; closed again by its keeper (with If-Match), the next request waits.
#[actix_web::test]
async fn an_open_pool_accepts_every_tournament_on_request() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let closed = agricola_pool(&app, &admin, "National list", json!({})).await;
    let club = agricola_pool(&app, &admin, "Club list", json!({"open": true})).await;
    assert_eq!(
        get_json(&app, &format!("/api/v1/rating-pools/{closed}"), None).await["open"],
        false
    );
    let club_pool = get_json(&app, &format!("/api/v1/rating-pools/{club}"), None).await;
    assert_eq!(club_pool["open"], true);
    let (_, keeper_token) = keeper(&app, &admin, club, "club.keeper").await;
    let (stranger_id, stranger) = app.user("club.organiser").await;

    let day = days_ago(7);
    let t = rated_tournament(&app, &stranger, Some(club), &day).await;
    assert_eq!(t["rating_status"], "accepted");
    assert!(t["rating_reason"].as_str().unwrap().contains("open"), "{t}");
    let tid = id(&t);
    let p = players(&app, &stranger, "Club member", 4).await;
    open_with(&app, tid, &stranger, &p).await;
    play(&app, tid, &stranger, &at(&day, 12), &p).await;
    let b = board(&app, club).await;
    let mut want = p.clone();
    want.sort();
    assert_eq!(board_players(&b), want);
    assert!(b["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["games"] == 1));
    same_as_rebuild(&app, &keeper_token, club).await;
    let hist = get_json(
        &app,
        &format!("/api/v1/tournaments/{tid}/rating-decisions"),
        None,
    )
    .await;
    assert_eq!(hist["total"], 1);
    assert_eq!(hist["items"][0]["rating_status"], "accepted");
    assert_eq!(hist["items"][0]["decided_by"], stranger_id);
    // The same stranger's tournament in the closed pool waits.
    let other = rated_tournament(&app, &stranger, Some(closed), &day).await;
    assert_eq!(other["rating_status"], "pending");

    // The keeper closes the club list: the next request waits for a decision.
    let url = format!("/api/v1/rating-pools/{club}");
    problem(
        app.patch(&url, Some(&keeper_token), json!({"open": false}))
            .await,
        428,
    )
    .await;
    let r = app
        .patch_if_match(
            &url,
            Some(&keeper_token),
            club_pool["version"].as_i64().unwrap(),
            json!({"open": false}),
        )
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["open"], false);
    let later = rated_tournament(&app, &stranger, Some(club), &days_ago(1)).await;
    assert_eq!(later["rating_status"], "pending");
    // The tournament accepted while it was open stays accepted.
    assert_eq!(
        tournament(&app, tid, &stranger).await["rating_status"],
        "accepted"
    );
}

// --- keepers and their reach -------------------------------------------------------------------

/// Keepers do a pool's daily work (settings with If-Match, imports, rebuilds, webhooks, keepers,
/// decisions) and nothing on another pool; a user with no role does none of it. Keepers grant
/// keepers; the last keeper of a pool with accepted tournaments cannot step down, an admin can
/// remove them.
#[actix_web::test]
async fn a_keeper_keeps_one_pool_and_no_other() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let admin_id = get_json(&app, "/api/v1/me", Some(&admin)).await["id"]
        .as_i64()
        .unwrap();
    let pool_a = agricola_pool(&app, &admin, "Pool A", json!({})).await;
    let pool_b = agricola_pool(&app, &admin, "Pool B", json!({})).await;
    let (k_id, k) = app.user("keeper.a").await;
    let (nobody_id, nobody) = app.user("nobody").await;

    // Granted by the admin: 201 once, 200 after; listed publicly.
    let r = grant(&app, &admin, pool_a, k_id).await;
    assert_eq!(r.status(), 201);
    assert_eq!(
        r.headers()["location"],
        format!("/api/v1/rating-pools/{pool_a}/keepers/{k_id}").as_str()
    );
    let shown: Value = r.json().await.unwrap();
    assert_eq!(shown["user_id"], k_id);
    assert_eq!(shown["username"], "keeper.a");
    assert_eq!(shown["granted_by"], admin_id);
    let r = grant(&app, &admin, pool_a, k_id).await;
    assert_eq!(r.status(), 200);
    let keepers = get_json(
        &app,
        &format!("/api/v1/rating-pools/{pool_a}/keepers"),
        None,
    )
    .await;
    assert_eq!(keepers["total"], 1);
    assert_eq!(keepers["items"][0]["user_id"], k_id);
    assert_eq!(
        get_json(
            &app,
            &format!("/api/v1/rating-pools/{pool_b}/keepers"),
            None
        )
        .await["total"],
        0
    );

    // Pending tournaments in both pools, by someone else.
    let (_, org) = app.user("club.organiser").await;
    let t_a = id(&rated_tournament(&app, &org, Some(pool_a), &days_ago(5)).await);
    let t_b = id(&rated_tournament(&app, &org, Some(pool_b), &days_ago(5)).await);
    let member = player(&app, &admin, "Member", "NO", "Oslo").await;

    // The pool's daily work on A, as its keeper.
    let version_a = get_json(&app, &format!("/api/v1/rating-pools/{pool_a}"), None).await
        ["version"]
        .as_i64()
        .unwrap();
    let r = app
        .patch_if_match(
            &format!("/api/v1/rating-pools/{pool_a}"),
            Some(&k),
            version_a,
            json!({"name": "Pool A (kept)"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    problem(
        app.patch_if_match(
            &format!("/api/v1/rating-pools/{pool_a}"),
            Some(&k),
            version_a,
            json!({"name": "Stale"}),
        )
        .await,
        412,
    )
    .await;
    let import = json!({"applies_from": "2026-01-01", "source": "Ranking 2025",
                        "ratings": [{"player_id": member, "rating": 1500, "games": 10}]});
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool_a}/imports"),
            Some(&k),
            import.clone(),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    rebuild_over_http(&app, &k, pool_a).await;
    let hook = json!({"url": "https://8.8.8.8/hook", "kinds": ["rating_requested"]});
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool_a}/webhooks"),
            Some(&k),
            hook.clone(),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let hooks = get_json(
        &app,
        &format!("/api/v1/rating-pools/{pool_a}/webhooks"),
        Some(&k),
    )
    .await;
    assert_eq!(hooks.as_array().unwrap().len(), 1, "{hooks}");
    assert_eq!(queue(&app, &k, pool_a, "pending").await.status(), 200);
    accept(&app, &k, pool_a, t_a).await;

    // Nothing on B, and a user with no role nothing anywhere.
    for token in [&k, &nobody] {
        for target in [pool_a, pool_b] {
            if token == &k && target == pool_a {
                continue;
            }
            let url = format!("/api/v1/rating-pools/{target}");
            problem(
                app.patch_any(&url, Some(token), json!({"name": "Taken over"}))
                    .await,
                403,
            )
            .await;
            problem(
                app.post(&format!("{url}/imports"), Some(token), import.clone())
                    .await,
                403,
            )
            .await;
            problem(
                app.req(Method::POST, &format!("{url}/rebuild"), Some(token))
                    .send()
                    .await
                    .unwrap(),
                403,
            )
            .await;
            problem(
                app.post(&format!("{url}/webhooks"), Some(token), hook.clone())
                    .await,
                403,
            )
            .await;
            problem(app.get(&format!("{url}/webhooks"), Some(token)).await, 403).await;
            problem(grant(&app, token, target, nobody_id).await, 403).await;
            problem(queue(&app, token, target, "pending").await, 403).await;
            let t = if target == pool_a { t_a } else { t_b };
            let body = if target == pool_a {
                json!({"decision": "withdraw", "reason": "taken over"})
            } else {
                json!({"decision": "accept"})
            };
            problem(decide(&app, token, target, t, body).await, 403).await;
        }
    }
    assert_eq!(
        tournament(&app, t_b, &org).await["rating_status"],
        "pending"
    );
    assert_eq!(
        get_json(&app, &format!("/api/v1/rating-pools/{pool_b}"), None).await["name"],
        "Pool B"
    );
    // Creating a pool stays an admin's.
    problem(
        app.post(
            "/api/v1/rating-pools",
            Some(&k),
            json!({"name": "My own list", "time_zone": "Europe/Oslo"}),
        )
        .await,
        403,
    )
    .await;

    // A keeper grants another keeper; unknown users are named.
    let (k2_id, k2) = app.user("keeper.two").await;
    let r = grant(&app, &k, pool_a, k2_id).await;
    assert_eq!(r.status(), 201);
    assert_eq!(r.json::<Value>().await.unwrap()["granted_by"], k_id);
    refused_on(grant(&app, &k, pool_a, 999_999).await, 422, "user_id").await;
    problem(revoke(&app, &k, pool_a, nobody_id).await, 404).await;
    problem(grant(&app, &k, 999_999, k2_id).await, 404).await;
    let listed_keepers = get_json(
        &app,
        &format!("/api/v1/rating-pools/{pool_a}/keepers"),
        None,
    )
    .await;
    let ids: Vec<i64> = listed_keepers["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["user_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![k_id, k2_id]);

    // The second keeper steps down (one remains); the last one cannot while A has an accepted
    // tournament; an admin removes them.
    assert_eq!(revoke(&app, &k2, pool_a, k2_id).await.status(), 204);
    problem(queue(&app, &k2, pool_a, "pending").await, 403).await;
    let p = refused_on(revoke(&app, &k, pool_a, k_id).await, 409, "user_id").await;
    assert!(p["detail"].as_str().unwrap().contains("accepted"), "{p}");
    assert_eq!(revoke(&app, &admin, pool_a, k_id).await.status(), 204);
    assert_eq!(
        get_json(
            &app,
            &format!("/api/v1/rating-pools/{pool_a}/keepers"),
            None
        )
        .await["total"],
        0
    );
    problem(queue(&app, &k, pool_a, "pending").await, 403).await;

    // The last keeper of a pool without accepted tournaments may step down.
    let (k3_id, k3) = keeper(&app, &admin, pool_b, "keeper.b").await;
    assert_eq!(revoke(&app, &k3, pool_b, k3_id).await.status(), 204);
}

// --- a keeper's API key ------------------------------------------------------------------------

/// A keeper's key limited to pool A with `pools:write` decides on A's tournaments; on pool B
/// (which the keeper also keeps) and outside the pool it is refused, and without the scope it
/// decides nothing.
#[actix_web::test]
async fn a_keepers_key_limited_to_a_pool_decides_there_only() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_a = agricola_pool(&app, &admin, "Pool A", json!({})).await;
    let pool_b = agricola_pool(&app, &admin, "Pool B", json!({})).await;
    let (k_id, k) = keeper(&app, &admin, pool_a, "keeper").await;
    assert_eq!(grant(&app, &admin, pool_b, k_id).await.status(), 201);
    let (_, org) = app.user("club.organiser").await;
    let t_a = id(&rated_tournament(&app, &org, Some(pool_a), &days_ago(5)).await);
    let t_a2 = id(&rated_tournament(&app, &org, Some(pool_a), &days_ago(4)).await);
    let t_b = id(&rated_tournament(&app, &org, Some(pool_b), &days_ago(5)).await);

    let create_key = |body: Value| {
        let (app, k) = (&app, &k);
        async move {
            let r = app.post("/api/v1/me/api-keys", Some(k), body).await;
            let status = r.status();
            let v: Value = r.json().await.unwrap();
            assert_eq!(status, 201, "{v}");
            v["key"].as_str().unwrap().to_string()
        }
    };
    let key = create_key(
        json!({"name": "list robot", "scopes": ["read", "pools:write"], "pool_id": pool_a}),
    )
    .await;
    let reader = create_key(json!({"name": "reader", "scopes": ["read"], "pool_id": pool_a})).await;

    let d = accept(&app, &key, pool_a, t_a).await;
    assert_eq!(d["decided_by"], k_id, "the key acts as its owner");
    assert_eq!(
        tournament(&app, t_a, &org).await["rating_status"],
        "accepted"
    );
    assert_eq!(queue(&app, &key, pool_a, "pending").await.status(), 200);
    // Pool B: the owner keeps it, the key may not touch it.
    let p = problem(
        decide(&app, &key, pool_b, t_b, json!({"decision": "accept"})).await,
        403,
    )
    .await;
    assert!(
        p["detail"].as_str().unwrap().contains(&pool_a.to_string()),
        "{p}"
    );
    problem(queue(&app, &key, pool_b, "pending").await, 403).await;
    problem(grant(&app, &key, pool_b, k_id).await, 403).await;
    // Outside the pool's paths: a tournament's.
    problem(ask_again(&app, &key, t_b).await, 403).await;
    // Without pools:write the key decides nothing.
    problem(
        decide(&app, &reader, pool_a, t_a2, json!({"decision": "accept"})).await,
        403,
    )
    .await;
    assert_eq!(
        tournament(&app, t_a2, &org).await["rating_status"],
        "pending"
    );
    assert_eq!(
        tournament(&app, t_b, &org).await["rating_status"],
        "pending"
    );
    // The owner's own sign-in still decides on B.
    accept(&app, &k, pool_b, t_b).await;
}

// --- bad input ---------------------------------------------------------------------------------

/// Every refused step names its field: 409 on `tournament_id` for a tournament of another pool
/// (or of none), on `rating_status` for a step its status does not allow (accepting twice,
/// accepting a refused one, refusing an accepted one, withdrawing a pending one, asking again
/// while pending or accepted), 422 on `reason`, `announced_at` and `decision`.
#[actix_web::test]
async fn every_refused_step_names_its_field() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_a = agricola_pool(&app, &admin, "Pool A", json!({})).await;
    let pool_b = agricola_pool(&app, &admin, "Pool B", json!({})).await;
    let league = pool(
        &app,
        &admin,
        json!({"name": "Liga", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "league": true}),
    )
    .await;
    let (k_id, k) = keeper(&app, &admin, pool_a, "keeper").await;
    assert_eq!(grant(&app, &admin, league, k_id).await.status(), 201);
    let (_, org) = app.user("club.organiser").await;
    let day = days_ago(3);
    let pending = id(&rated_tournament(&app, &org, Some(pool_a), &day).await);
    let in_b = id(&rated_tournament(&app, &org, Some(pool_b), &day).await);
    let no_pool = rated_tournament(&app, &org, None, &day).await;
    assert_eq!(no_pool["rating_status"], Value::Null);
    assert_eq!(no_pool["rating_reason"], Value::Null);
    assert_eq!(no_pool["rating_decided_at"], Value::Null);
    let no_pool = id(&no_pool);
    let dec = |t: i64, body: Value| {
        let (app, k) = (&app, &k);
        async move { decide(app, k, pool_a, t, body).await }
    };

    // Another pool's tournament, or one naming none.
    let p = refused_on(
        dec(in_b, json!({"decision": "accept"})).await,
        409,
        "tournament_id",
    )
    .await;
    assert!(
        p["detail"].as_str().unwrap().contains(&pool_b.to_string()),
        "{p}"
    );
    refused_on(
        dec(no_pool, json!({"decision": "accept"})).await,
        409,
        "tournament_id",
    )
    .await;
    assert_eq!(
        tournament(&app, in_b, &org).await["rating_status"],
        "pending"
    );
    problem(dec(999_999, json!({"decision": "accept"})).await, 404).await;
    problem(
        decide(
            &app,
            &admin,
            999_999,
            pending,
            json!({"decision": "accept"}),
        )
        .await,
        404,
    )
    .await;

    // Malformed decisions.
    refused_on(
        dec(pending, json!({"decision": "approve"})).await,
        422,
        "decision",
    )
    .await;
    refused_on(dec(pending, json!({})).await, 422, "decision").await;
    refused_on(
        dec(pending, json!({"decision": "refuse", "reason": "  "})).await,
        422,
        "reason",
    )
    .await;
    let p = problem(
        dec(
            pending,
            json!({"decision": "refuse", "reason": "late", "announced_at": "2026-01-01T10:00:00Z"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["announced_at"]);
    let p = problem(
        dec(
            pending,
            json!({"decision": "accept", "announced_at": "2026-01-01T10:00:00Z"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["reason"]);
    // announced_at only counts in a league pool.
    refused_on(
        dec(
            pending,
            json!({"decision": "accept", "reason": "announced on the forum",
                   "announced_at": "2026-01-01T10:00:00Z"}),
        )
        .await,
        422,
        "announced_at",
    )
    .await;
    refused_on(queue(&app, &k, pool_a, "rated").await, 422, "rating_status").await;
    assert_eq!(
        tournament(&app, pending, &org).await["rating_status"],
        "pending"
    );

    // Steps the status does not allow.
    refused_on(
        dec(pending, json!({"decision": "withdraw", "reason": "x"})).await,
        409,
        "rating_status",
    )
    .await;
    accept(&app, &k, pool_a, pending).await;
    let p = refused_on(
        dec(pending, json!({"decision": "accept"})).await,
        409,
        "rating_status",
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("accepted"), "{p}");
    refused_on(
        dec(
            pending,
            json!({"decision": "refuse", "reason": "changed my mind"}),
        )
        .await,
        409,
        "rating_status",
    )
    .await;
    refused_on(ask_again(&app, &org, pending).await, 409, "rating_status").await;
    refused_on(ask_again(&app, &org, no_pool).await, 409, "rating_pool_id").await;
    let refused = id(&rated_tournament(&app, &org, Some(pool_a), &day).await);
    decided(
        &app,
        &k,
        pool_a,
        refused,
        json!({"decision": "refuse", "reason": "no rules published"}),
    )
    .await;
    let p = refused_on(
        dec(refused, json!({"decision": "accept"})).await,
        409,
        "rating_status",
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("refused"), "{p}");
    refused_on(
        dec(refused, json!({"decision": "withdraw", "reason": "x"})).await,
        409,
        "rating_status",
    )
    .await;
    refused_on(
        dec(refused, json!({"decision": "refuse", "reason": "again"})).await,
        409,
        "rating_status",
    )
    .await;
    assert_eq!(
        tournament(&app, refused, &org).await["rating_status"],
        "refused"
    );

    // A league pool takes announced_at with a reason, not in the future.
    let liga = id(&rated_tournament(&app, &org, Some(league), &day).await);
    let future = (chrono::Utc::now() + chrono::Duration::days(2)).to_rfc3339();
    refused_on(
        decide(
            &app,
            &k,
            league,
            liga,
            json!({"decision": "accept", "reason": "announced", "announced_at": future}),
        )
        .await,
        422,
        "announced_at",
    )
    .await;
    let announced = format!("{}T10:00:00Z", days_ago(20));
    let d = decided(
        &app,
        &k,
        league,
        liga,
        json!({"decision": "accept", "reason": "announced on the league forum",
               "announced_at": announced}),
    )
    .await;
    assert_eq!(d["rating_status"], "accepted");
    assert_eq!(d["announced_at"], announced);
    let t = tournament(&app, liga, &org).await;
    assert_eq!(t["announced_at"], announced);
    assert_eq!(t["rating_reason"], "announced on the league forum");
}

// --- moving to another pool --------------------------------------------------------------------

/// Moving an accepted tournament to another pool is a new request there (pending for its
/// organiser) and takes its games out of the old pool, which then equals a rebuild.
#[actix_web::test]
async fn moving_a_tournament_to_another_pool_is_a_new_request() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_a = agricola_pool(&app, &admin, "Pool A", json!({"open": true})).await;
    let pool_b = agricola_pool(&app, &admin, "Pool B", json!({})).await;
    let (_, k) = keeper(&app, &admin, pool_b, "keeper.b").await;
    let (_, org) = app.user("club.organiser").await;
    let day = days_ago(6);
    let t = rated_tournament(&app, &org, Some(pool_a), &day).await;
    assert_eq!(t["rating_status"], "accepted");
    let tid = id(&t);
    let p = players(&app, &org, "Member", 4).await;
    open_with(&app, tid, &org, &p).await;
    play(&app, tid, &org, &at(&day, 12), &p).await;
    assert_eq!(board(&app, pool_a).await["total"], 4);

    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
            json!({"rating_pool_id": pool_b}),
        )
        .await;
    let status = r.status();
    let moved: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["rating_pool_id"], pool_b);
    assert_eq!(moved["rating_status"], "pending");
    assert_eq!(moved["rating_reason"], Value::Null);
    assert_eq!(board(&app, pool_a).await["total"], 0);
    assert_eq!(board(&app, pool_b).await["total"], 0);
    same_as_rebuild(&app, &admin, pool_a).await;
    let q: Value = queue(&app, &k, pool_b, "pending")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(q["total"], 1);
    assert_eq!(q["items"][0]["tournament_id"], tid);
    accept(&app, &k, pool_b, tid).await;
    assert_eq!(board(&app, pool_b).await["total"], 4);
    same_as_rebuild(&app, &admin, pool_b).await;
    // Back out of every pool: no status at all.
    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
            json!({"rating_pool_id": null}),
        )
        .await;
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["rating_status"], Value::Null, "{body}");
    assert_eq!(board(&app, pool_b).await["total"], 0);
}

// --- racing ------------------------------------------------------------------------------------

/// A keeper accepts while the referee enters the last results of a round: each game is rated
/// exactly once whichever commits first, and the incremental list equals a rebuild.
#[actix_web::test]
async fn acceptance_racing_with_result_entries_keeps_incremental_equal_to_rebuild() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (_, k) = keeper(&app, &admin, pool_id, "keeper").await;
    let (_, org) = app.user("club.organiser").await;
    let p = players(&app, &admin, "Player", 12).await;
    let mut orders: Vec<Vec<i64>> = Vec::new();
    for i in 0..4 {
        let mut o = p.clone();
        o.rotate_left(i * 5);
        orders.push(o);
    }

    // An accepted event first: every player has one game.
    let day0 = days_ago(40);
    let e = id(&rated_tournament(&app, &k, Some(pool_id), &day0).await);
    open_with(&app, e, &k, &p).await;
    play(&app, e, &k, &at(&day0, 12), &orders[0]).await;
    let start = listed(&app, pool_id).await;
    assert_eq!(start.len(), 12);
    let games_per_table = start.values().next().unwrap().1;
    assert!(start.values().all(|v| v.1 == games_per_table));

    for (i, order) in orders.iter().enumerate().skip(1) {
        let day = days_ago(40 - 5 * i as i64);
        let tid = id(&rated_tournament(&app, &org, Some(pool_id), &day).await);
        open_with(&app, tid, &org, &p).await;
        // Two rounds: the first complete before the race, the second's last tables racing.
        play(&app, tid, &org, &at(&day, 10), order).await;
        let round = draw(&app, tid, &org, &at(&day, 14)).await;
        let all = tables(&round);
        assert_eq!(all.len(), 3);
        enter(&app, tid, &org, &round, &all[0], order).await;
        let decision = async {
            if i == 2 {
                // Let the results go first this time.
                actix_web::rt::time::sleep(Duration::from_millis(5)).await;
            }
            decide(&app, &k, pool_id, tid, json!({"decision": "accept"})).await
        };
        let results = join_all(
            all[1..]
                .iter()
                .map(|t| enter_response(&app, tid, &org, &round, t, order)),
        );
        let (d, entered) = tokio::join!(decision, results);
        assert_eq!(d.status(), 200, "{}", d.text().await.unwrap());
        for r in entered {
            assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        }
        let now = listed(&app, pool_id).await;
        let want = games_per_table * (1 + 2 * i as u64);
        assert!(
            now.values().all(|v| v.1 == want),
            "after race {i}: every game rated exactly once ({want} each): {now:?}"
        );
    }
    same_as_rebuild(&app, &admin, pool_id).await;
}

// --- the live feed and the pool's webhooks -----------------------------------------------------

/// Requests and decisions appear on the tournament's live feed (`rating_status_changed`, also
/// to an already open stream) and reach the pool's webhooks (`rating_requested`,
/// `rating_decided`).
#[actix_web::test]
async fn requests_and_decisions_reach_the_live_feed_and_the_pools_webhooks() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (k_id, k) = keeper(&app, &admin, pool_id, "keeper").await;
    let (org_id, org) = app.user("club.organiser").await;
    let (url, got) = receiver().await;
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool_id}/webhooks"),
            Some(&k),
            json!({"url": url, "kinds": ["rating_requested", "rating_decided"]}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());

    let tid = id(&rated_tournament(&app, &org, Some(pool_id), &days_ago(2)).await);
    open_with(&app, tid, &org, &[]).await;
    // A stream open before the decision sees it as it happens.
    let mut live = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events"),
            None,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 200);
    live.chunk().await.unwrap().expect("stream open");
    decided(
        &app,
        &k,
        pool_id,
        tid,
        json!({"decision": "refuse", "reason": "no rules published"}),
    )
    .await;
    let frames = read_frames(&mut live, |f| !rating_events(f).is_empty()).await;
    let seen = rating_events(&frames);
    assert_eq!(seen[0]["kind"], "rating_status_changed");
    assert_eq!(seen[0]["payload"]["rating_status"], "refused");
    assert_eq!(seen[0]["payload"]["reason"], "no rules published");
    assert_eq!(seen[0]["payload"]["decided_by"], k_id);
    assert_eq!(ask_again(&app, &org, tid).await.status(), 201);
    accept(&app, &k, pool_id, tid).await;

    // From the start: every step, in order.
    let frames = feed_until(&app, tid, Some(0), |f| rating_events(f).len() >= 4).await;
    let steps: Vec<(String, i64)> = rating_events(&frames)
        .iter()
        .map(|e| {
            assert_eq!(e["payload"]["tournament_id"], tid);
            assert_eq!(e["payload"]["pool_id"], pool_id);
            (
                e["payload"]["rating_status"].as_str().unwrap().to_string(),
                e["payload"]["decided_by"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            ("pending".to_string(), org_id),
            ("refused".to_string(), k_id),
            ("pending".to_string(), org_id),
            ("accepted".to_string(), k_id),
        ]
    );

    // The pool's webhook: two requests, two decisions.
    assert!(
        wait_for(|| got.lock().unwrap().len() >= 4).await,
        "four deliveries: {:?}",
        got.lock().unwrap()
    );
    actix_web::rt::time::sleep(Duration::from_millis(500)).await;
    let bodies = got.lock().unwrap().clone();
    assert_eq!(bodies.len(), 4, "{bodies:?}");
    let mut kinds: Vec<(String, String)> = bodies
        .iter()
        .map(|b| {
            assert_eq!(b["data"]["tournament_id"], tid, "{b}");
            (
                b["type"].as_str().unwrap().to_string(),
                b["data"]["rating_status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        vec![
            ("rating_decided".to_string(), "accepted".to_string()),
            ("rating_decided".to_string(), "refused".to_string()),
            ("rating_requested".to_string(), "pending".to_string()),
            ("rating_requested".to_string(), "pending".to_string()),
        ]
    );
}
