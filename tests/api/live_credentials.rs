//! A live stream opened with credentials lives no longer than they do: once the access token or
//! API key it was opened with no longer holds (its session signed out or revoked, every session
//! ended, the password changed, the key revoked, the account disabled, erased or deleted), the
//! stream ends before it sends anything more: neither the draft tournament's next event nor a
//! keep-alive. A public stream, and one whose credentials still hold, go on.

use std::time::Duration;

use reqwest::{Method, Response};
use serde_json::{json, Value};
use tokio::time::{sleep, timeout_at, Instant};

use crate::helpers::{TestApp, PASSWORD};

/// A tournament of the admin's with one registered player, back in `draft` (only its staff and
/// admins see it, and its feed) unless `public`; returns (tournament id, player id).
async fn tournament_with_player(app: &TestApp, admin: &str, public: bool) -> (i64, i64) {
    let tid = app.tournament(admin, "tantrix").await;
    let path = format!("/api/v1/tournaments/{tid}");
    let status = |s: &str| json!({ "status": s });
    let r = app
        .patch_any(&path, Some(admin), status("registration_open"))
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .post("/api/v1/players", Some(admin), json!({"name": "Streamed"}))
        .await;
    let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(admin),
            json!({"player_id": pid}),
        )
        .await;
    assert_eq!(r.status(), 201);
    if !public {
        let r = app.patch_any(&path, Some(admin), status("draft")).await;
        assert_eq!(r.status(), 200);
    }
    (tid, pid)
}

/// A new account on the draft tournament's staff (a referee: it sees the tournament); its id
/// and the whole sign-in answer (access and refresh token).
async fn referee(app: &TestApp, admin: &str, tid: i64, name: &str) -> (i64, Value) {
    let (uid, _) = app.user(name).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/staff"),
            Some(admin),
            json!({"user_id": uid, "role": "referee"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app.sign_in(name, PASSWORD).await;
    assert_eq!(r.status(), 200);
    (uid, r.json().await.unwrap())
}

/// A `read` key of the account `token` signs in; the secret and the key's id.
async fn read_key(app: &TestApp, token: &str) -> (String, i64) {
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(token),
            json!({"name": "feed", "scopes": ["read"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    (
        v["key"].as_str().unwrap().to_string(),
        v["api_key"]["id"].as_i64().unwrap(),
    )
}

/// The tournament's live feed, opened (its first chunk read) with `credential`, if any.
async fn open(app: &TestApp, tid: i64, credential: Option<&str>) -> Response {
    let mut s = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events"),
            credential,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(s.status(), 200);
    s.chunk().await.unwrap().expect("stream open");
    s
}

/// Reads `s` for at most `wait`, until it ends or sends `until`: whether it ended, and what it
/// sent meanwhile.
async fn read(s: &mut Response, wait: Duration, until: &str) -> (bool, String) {
    let deadline = Instant::now() + wait;
    let mut seen = String::new();
    while until.is_empty() || !seen.contains(until) {
        match timeout_at(deadline, s.chunk()).await {
            Err(_) => return (false, seen),
            Ok(chunk) => match chunk.expect("the stream ends cleanly") {
                Some(c) => seen.push_str(&String::from_utf8_lossy(&c)),
                None => return (true, seen),
            },
        }
    }
    (false, seen)
}

/// Gives player `pid` of `tid` a warning: a `penalty` event on its feed.
async fn penalty(app: &TestApp, admin: &str, tid: i64, pid: i64) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(admin),
            json!({"player_id": pid, "kind": "warning", "reason": "late"}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

async fn refresh(app: &TestApp, refresh_token: &Value) -> Response {
    app.post(
        "/api/v1/auth/refresh",
        None,
        json!({ "refresh_token": refresh_token }),
    )
    .await
}

/// Signs out of the session of `signed_in` (a sign-in's answer), or of every session.
async fn sign_out(app: &TestApp, signed_in: &Value, everywhere: bool) {
    let body = json!({"refresh_token": signed_in["refresh_token"], "everywhere": everywhere});
    let r = app.post("/api/v1/auth/logout", None, body).await;
    assert_eq!(r.status(), 204);
}

#[actix_web::test]
async fn a_stream_ends_before_the_next_event_once_its_credentials_are_revoked() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, pid) = tournament_with_player(&app, &admin, false).await;
    let (open_tid, open_pid) = tournament_with_player(&app, &admin, true).await;
    let (_, out) = referee(&app, &admin, tid, "signed.out").await;
    let (_, everywhere) = referee(&app, &admin, tid, "out.everywhere").await;
    let (_, reused) = referee(&app, &admin, tid, "refresh.reused").await;
    let (_, changed) = referee(&app, &admin, tid, "password.changed").await;
    let (disabled_id, disabled) = referee(&app, &admin, tid, "disabled").await;
    let (_, erased) = referee(&app, &admin, tid, "erased").await;
    let (deleted_id, deleted) = referee(&app, &admin, tid, "deleted").await;
    let (_, keeps) = referee(&app, &admin, tid, "keeps.going").await;
    let access = |v: &Value| v["access_token"].as_str().unwrap().to_string();
    let (key, key_id) = read_key(&app, &access(&keeps)).await;
    let (disabled_key, _) = read_key(&app, &access(&disabled)).await;
    let (live_key, _) = read_key(&app, &access(&keeps)).await;
    // The reused session's newest access token: its first refresh token comes back below.
    let r = refresh(&app, &reused["refresh_token"]).await;
    assert_eq!(r.status(), 200);
    let rotated: Value = r.json().await.unwrap();

    let revoked = [
        ("a signed-out session's token", tid, access(&out)),
        (
            "a signed-out session's token, on a public feed",
            open_tid,
            access(&out),
        ),
        (
            "a token of before a sign-out everywhere",
            tid,
            access(&everywhere),
        ),
        (
            "a token of a session revoked for a reused refresh token",
            tid,
            access(&rotated),
        ),
        ("a token of before a password change", tid, access(&changed)),
        ("a disabled account's token", tid, access(&disabled)),
        ("a disabled account's key", tid, disabled_key),
        ("an erased account's token", tid, access(&erased)),
        ("a deleted account's token", tid, access(&deleted)),
        ("a revoked key", tid, key),
    ];
    let mut ending = Vec::new();
    for (what, feed, credential) in revoked {
        ending.push((what, open(&app, feed, Some(&credential)).await));
    }
    let mut going = vec![
        ("a live token", open(&app, tid, Some(&access(&keeps))).await),
        ("a live key", open(&app, tid, Some(&live_key)).await),
        ("a public stream", open(&app, open_tid, None).await),
    ];

    sign_out(&app, &out, false).await;
    sign_out(&app, &everywhere, true).await;
    assert_eq!(refresh(&app, &reused["refresh_token"]).await.status(), 401);
    let r = app
        .post(
            "/api/v1/me/password",
            Some(&access(&changed)),
            json!({"current_password": PASSWORD, "new_password": "a brand new passphrase"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .patch(
            &format!("/api/v1/users/{disabled_id}"),
            Some(&admin),
            json!({"disabled": true}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(app.erase_me(&access(&erased)).await.status(), 200);
    let path = format!("/api/v1/users/{deleted_id}");
    assert_eq!(app.delete_req(&path, &admin).await.status(), 204);
    let path = format!("/api/v1/me/api-keys/{key_id}");
    assert_eq!(app.delete_req(&path, &access(&keeps)).await.status(), 204);
    // Past the 2 s an account (or key) looked up is trusted, then the draft's private event.
    sleep(tourney::services::accounts::auth::ACCOUNT_TTL + Duration::from_millis(200)).await;
    penalty(&app, &admin, tid, pid).await;
    penalty(&app, &admin, open_tid, open_pid).await;

    for (what, s) in &mut ending {
        let (ended, seen) = read(s, Duration::from_secs(10), "").await;
        assert!(ended, "{what}: the stream goes on");
        assert!(!seen.contains("event:"), "{what}: {seen}");
    }
    for (what, s) in &mut going {
        let (ended, seen) = read(s, Duration::from_secs(10), "event: penalty").await;
        assert!(!ended && seen.contains("event: penalty"), "{what}: {seen}");
    }
}

/// With no event to send, the keep-alive checks: a revoked stream ends within the 15 s between
/// keep-alives (and the 2 s an account is trusted), having sent nothing; a public one goes on.
#[actix_web::test]
async fn a_quiet_stream_ends_at_its_keep_alive_once_its_credentials_are_revoked() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, _) = tournament_with_player(&app, &admin, false).await;
    let (open_tid, _) = tournament_with_player(&app, &admin, true).await;
    let (_, out) = referee(&app, &admin, tid, "quiet.out").await;
    let token = out["access_token"].as_str().unwrap().to_string();
    let (key, key_id) = read_key(&app, &token).await;
    let mut ending = [
        (
            "a signed-out session's token",
            open(&app, tid, Some(&token)).await,
        ),
        ("a revoked key", open(&app, tid, Some(&key)).await),
    ];
    let mut public = open(&app, open_tid, None).await;
    let path = format!("/api/v1/me/api-keys/{key_id}");
    assert_eq!(app.delete_req(&path, &token).await.status(), 204);
    sign_out(&app, &out, false).await;
    for (what, s) in &mut ending {
        let (ended, seen) = read(s, Duration::from_secs(20), "").await;
        assert!(ended, "{what}: the stream goes on");
        assert_eq!(seen, "", "{what}: nothing more is sent");
    }
    let (ended, seen) = read(&mut public, Duration::from_secs(5), "keep-alive").await;
    assert!(!ended && seen.contains(": keep-alive"), "{seen}");
}
