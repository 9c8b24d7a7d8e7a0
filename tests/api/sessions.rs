//! Sessions for apps (issue 17): refresh tokens rotated on every use with reuse detection,
//! sign-out, password change, and admins disabling, demoting and deleting accounts.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp, PASSWORD};

/// Signs in; the whole answer (access and refresh token).
async fn sign_in(app: &TestApp, username: &str, password: &str) -> Value {
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": username, "password": password}),
        )
        .await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

async fn refresh(app: &TestApp, token: &Value) -> reqwest::Response {
    app.post(
        "/api/v1/auth/refresh",
        None,
        json!({"refresh_token": token.as_str().unwrap()}),
    )
    .await
}

async fn me_status(app: &TestApp, access: &Value) -> u16 {
    app.get("/api/v1/me", access.as_str())
        .await
        .status()
        .as_u16()
}

/// The status `/me` answers once it settles (account changes show within the 2 s the service
/// trusts a looked-up account).
async fn me_settles_at(app: &TestApp, access: &Value, status: u16) -> bool {
    for _ in 0..40 {
        if me_status(app, access).await == status {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[actix_web::test]
async fn a_refresh_token_rotates_and_a_reused_one_revokes_the_session() {
    let app = spawn_app().await;
    app.user("mobile").await;
    let first = sign_in(&app, "mobile", PASSWORD).await;
    assert!(first["refresh_token"].as_str().unwrap().starts_with("rt_"));
    assert!(first["refresh_expires_at"].is_string());
    // Each refresh gives a new access token and a new refresh token.
    let r = refresh(&app, &first["refresh_token"]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let second: Value = r.json().await.unwrap();
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    assert_eq!(me_status(&app, &second["access_token"]).await, 200);
    let r = refresh(&app, &second["refresh_token"]).await;
    let third: Value = r.json().await.unwrap();
    // The first token again: it leaked. The whole session is revoked, the newest token too.
    let p = problem(refresh(&app, &first["refresh_token"]).await, 401).await;
    assert!(p["detail"].as_str().unwrap().contains("already used"));
    problem(refresh(&app, &third["refresh_token"]).await, 401).await;
    // Another session of the same account is untouched.
    let other = sign_in(&app, "mobile", PASSWORD).await;
    assert_eq!(refresh(&app, &other["refresh_token"]).await.status(), 200);
    // Every access token of the revoked session stops within the documented 2 s; the other
    // session's goes on.
    for access in [&first, &second, &third].map(|t| &t["access_token"]) {
        assert!(me_settles_at(&app, access, 401).await);
    }
    let p = problem(
        app.get("/api/v1/me", third["access_token"].as_str()).await,
        401,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("session was ended"));
    assert_eq!(me_status(&app, &other["access_token"]).await, 200);
    // Unknown tokens are refused.
    problem(refresh(&app, &json!("rt_00")).await, 401).await;
}

#[actix_web::test]
async fn two_refreshes_of_one_token_at_once_never_both_succeed() {
    let app = spawn_app().await;
    app.user("racer").await;
    for _ in 0..5 {
        let session = sign_in(&app, "racer", PASSWORD).await;
        let (a, b) = tokio::join!(
            refresh(&app, &session["refresh_token"]),
            refresh(&app, &session["refresh_token"])
        );
        let ok = [a.status(), b.status()]
            .iter()
            .filter(|s| s.as_u16() == 200)
            .count();
        assert!(ok <= 1, "one token refreshed twice");
        assert!(
            [a.status(), b.status()]
                .iter()
                .all(|s| s.as_u16() == 200 || s.as_u16() == 401),
            "{} {}",
            a.status(),
            b.status()
        );
    }
}

#[actix_web::test]
async fn signing_out_ends_one_session_or_every_session() {
    let app = spawn_app().await;
    app.user("leaver").await;
    let phone = sign_in(&app, "leaver", PASSWORD).await;
    let laptop = sign_in(&app, "leaver", PASSWORD).await;
    let r = app
        .post(
            "/api/v1/auth/logout",
            None,
            json!({"refresh_token": phone["refresh_token"]}),
        )
        .await;
    assert_eq!(r.status(), 204);
    problem(refresh(&app, &phone["refresh_token"]).await, 401).await;
    // The phone's access token stops within 2 s too.
    assert!(me_settles_at(&app, &phone["access_token"], 401).await);
    // The laptop's session goes on, and its access tokens still work.
    let r = refresh(&app, &laptop["refresh_token"]).await;
    assert_eq!(r.status(), 200);
    let laptop: Value = r.json().await.unwrap();
    assert_eq!(me_status(&app, &laptop["access_token"]).await, 200);
    // Signing out twice, or with an unknown token, answers the same.
    for token in [phone["refresh_token"].clone(), json!("rt_unknown")] {
        let r = app
            .post("/api/v1/auth/logout", None, json!({"refresh_token": token}))
            .await;
        assert_eq!(r.status(), 204);
    }
    // What cannot be a refresh token is refused as such.
    let p = problem(
        app.post(
            "/api/v1/auth/logout",
            None,
            json!({"refresh_token": "x".repeat(101)}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["refresh_token"]);
    // Everywhere: every session and every access token issued so far.
    let r = app
        .post(
            "/api/v1/auth/logout",
            None,
            json!({"refresh_token": laptop["refresh_token"], "everywhere": true}),
        )
        .await;
    assert_eq!(r.status(), 204);
    problem(refresh(&app, &laptop["refresh_token"]).await, 401).await;
    assert!(me_settles_at(&app, &laptop["access_token"], 401).await);
    // A new sign-in works.
    let again = sign_in(&app, "leaver", PASSWORD).await;
    assert_eq!(me_status(&app, &again["access_token"]).await, 200);
}

#[actix_web::test]
async fn a_password_change_needs_the_current_password_and_ends_every_session() {
    let app = spawn_app().await;
    app.user("changer").await;
    let old = sign_in(&app, "changer", PASSWORD).await;
    let other = sign_in(&app, "changer", PASSWORD).await;
    let token = old["access_token"].as_str().unwrap();
    let change =
        |current: &str, new: &str| json!({"current_password": current, "new_password": new});
    let p = problem(
        app.post(
            "/api/v1/me/password",
            Some(token),
            change("wrong password", "a brand new passphrase"),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["current_password"]);
    for weak in ["password123", "changer", "short", "nine-char"] {
        let p = problem(
            app.post("/api/v1/me/password", Some(token), change(PASSWORD, weak))
                .await,
            422,
        )
        .await;
        let named = fields(&p);
        assert!(
            !named.is_empty() && named.iter().all(|f| f == "new_password"),
            "{weak}: {named:?}"
        );
    }
    let r = app
        .post(
            "/api/v1/me/password",
            Some(token),
            change(PASSWORD, "a brand new passphrase"),
        )
        .await;
    assert_eq!(r.status(), 200);
    let fresh: Value = r.json().await.unwrap();
    assert_eq!(me_status(&app, &fresh["access_token"]).await, 200);
    // Every earlier session and access token is over.
    problem(refresh(&app, &old["refresh_token"]).await, 401).await;
    problem(refresh(&app, &other["refresh_token"]).await, 401).await;
    assert!(me_settles_at(&app, &old["access_token"], 401).await);
    assert_eq!(refresh(&app, &fresh["refresh_token"]).await.status(), 200);
    // The old password is refused, the new one taken.
    problem(
        app.post(
            "/api/v1/auth/token",
            None,
            json!({"username": "changer", "password": PASSWORD}),
        )
        .await,
        401,
    )
    .await;
    sign_in(&app, "changer", "a brand new passphrase").await;
}

#[actix_web::test]
async fn admins_disable_enable_and_demote_accounts_but_keep_one_admin() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (uid, user_token) = app.user("member").await;
    let session = sign_in(&app, "member", PASSWORD).await;
    // Only admins.
    problem(
        app.patch(
            &format!("/api/v1/users/{uid}"),
            Some(&user_token),
            json!({"disabled": true}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .patch(
            &format!("/api/v1/users/{uid}"),
            Some(&admin),
            json!({"disabled": true}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["disabled"], true);
    // Sign-in, refresh and the access token are refused.
    let p = problem(
        app.post(
            "/api/v1/auth/token",
            None,
            json!({"username": "member", "password": PASSWORD}),
        )
        .await,
        401,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("disabled"));
    problem(refresh(&app, &session["refresh_token"]).await, 401).await;
    assert!(me_settles_at(&app, &json!(user_token), 401).await);
    // Enabled again: a new sign-in works, the old session stays over.
    let r = app
        .patch(
            &format!("/api/v1/users/{uid}"),
            Some(&admin),
            json!({"disabled": false}),
        )
        .await;
    assert_eq!(r.status(), 200);
    problem(refresh(&app, &session["refresh_token"]).await, 401).await;
    sign_in(&app, "member", PASSWORD).await;
    // Promote and demote; the last enabled admin cannot go.
    let admin_id = app.me(&admin).await["id"].as_i64().unwrap();
    problem(
        app.patch(
            &format!("/api/v1/users/{admin_id}"),
            Some(&admin),
            json!({"is_admin": false}),
        )
        .await,
        409,
    )
    .await;
    problem(
        app.req(
            Method::DELETE,
            &format!("/api/v1/users/{admin_id}"),
            Some(&admin),
        )
        .send()
        .await
        .unwrap(),
        409,
    )
    .await;
    let r = app
        .patch(
            &format!("/api/v1/users/{uid}"),
            Some(&admin),
            json!({"is_admin": true}),
        )
        .await;
    assert_eq!(r.json::<Value>().await.unwrap()["is_admin"], true);
    // Not by himself: the new admin demotes him.
    let p = problem(
        app.patch(
            &format!("/api/v1/users/{admin_id}"),
            Some(&admin),
            json!({"is_admin": false}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("own account"));
    // (Her account was read as disabled a moment ago: the change shows within 2 seconds.)
    let member = sign_in(&app, "member", PASSWORD).await;
    assert!(me_settles_at(&app, &member["access_token"], 200).await);
    let r = app
        .patch(
            &format!("/api/v1/users/{admin_id}"),
            member["access_token"].as_str(),
            json!({"is_admin": false}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // The demoted admin loses admin power within seconds.
    let mut refused = false;
    for _ in 0..40 {
        let r = app
            .post(
                "/api/v1/users",
                Some(&admin),
                json!({"username": "late.user", "password": "a long passphrase"}),
            )
            .await;
        if r.status() == 403 {
            refused = true;
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(refused);
}

#[actix_web::test]
async fn deleting_an_account_removes_it_or_keeps_a_nameless_tombstone() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    // Without records: gone.
    let (quiet, quiet_token) = app.user("quiet").await;
    let r = app
        .req(
            Method::DELETE,
            &format!("/api/v1/users/{quiet}"),
            Some(&admin),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    problem(
        app.get(&format!("/api/v1/users/{quiet}"), Some(&admin))
            .await,
        404,
    )
    .await;
    assert!(me_settles_at(&app, &json!(quiet_token), 401).await);
    // With records (it created a tournament): kept without name, password or power.
    let (busy, busy_token) = app.user("busy").await;
    let tid = app.tournament(&busy_token, "agricola_norway").await;
    let r = app
        .req(
            Method::DELETE,
            &format!("/api/v1/users/{busy}"),
            Some(&admin),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    // Gone from the API; the row stays, nameless, for the records that name it.
    problem(
        app.get(&format!("/api/v1/users/{busy}"), Some(&admin))
            .await,
        404,
    )
    .await;
    {
        use diesel::prelude::*;
        let mut conn = crate::rating_fixtures::db(&app);
        let name: String = diesel::dsl::sql::<diesel::sql_types::Text>(&format!(
            "SELECT username FROM users WHERE id = {busy} AND deleted_at IS NOT NULL"
        ))
        .get_result(&mut conn)
        .unwrap();
        assert_eq!(name, format!("deleted-{busy}"));
    }
    let listed: Value = app
        .get("/api/v1/users", Some(&admin))
        .await
        .json()
        .await
        .unwrap();
    assert!(!listed.to_string().contains("deleted-"));
    assert!(me_settles_at(&app, &json!(busy_token), 401).await);
    problem(
        app.post(
            "/api/v1/auth/token",
            None,
            json!({"username": "busy", "password": PASSWORD}),
        )
        .await,
        401,
    )
    .await;
    // The tournament is still there, and no longer organised by the deleted account.
    let staff: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/staff"), Some(&admin))
        .await
        .json()
        .await
        .unwrap();
    assert!(!staff.to_string().contains(&format!("\"user_id\":{busy}")));
    // The name is free again.
    app.user("busy").await;
}

/// Wrong current passwords at `POST /me/password` count like failed sign-ins: after ten, the
/// account is refused from this client (429 with Retry-After), the right password too, and its
/// sign-ins from here as well; a weak new password with the right current one is not a guess.
#[actix_web::test]
async fn guessing_the_current_password_is_throttled_like_sign_ins() {
    let app = spawn_app().await;
    let (_, token) = app.user("guessed").await;
    let change =
        |current: &str, new: &str| json!({"current_password": current, "new_password": new});
    for _ in 0..12 {
        let r = app
            .post(
                "/api/v1/me/password",
                Some(&token),
                change(PASSWORD, "short"),
            )
            .await;
        assert_eq!(fields(&problem(r, 422).await), ["new_password"]);
    }
    for i in 0..10 {
        let r = app
            .post(
                "/api/v1/me/password",
                Some(&token),
                change(&format!("guess number {i}"), "a brand new passphrase"),
            )
            .await;
        assert_eq!(fields(&problem(r, 422).await), ["current_password"], "{i}");
    }
    for current in ["guess number 10", PASSWORD] {
        let r = app
            .post(
                "/api/v1/me/password",
                Some(&token),
                change(current, "a brand new passphrase"),
            )
            .await;
        let retry: u64 = r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry > 0, "{retry}");
        problem(r, 429).await;
    }
    problem(app.sign_in("guessed", PASSWORD).await, 429).await;
    // Nothing changed: the token still works.
    assert_eq!(me_status(&app, &Value::from(token.clone())).await, 200);
}
