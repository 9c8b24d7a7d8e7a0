//! A keeper's decision needs a key that may do a keeper's work: a keeper's (or an admin's) API
//! key without `pools:write` (a tournament's software holding `tournaments:write`) asks to be
//! rated as an organiser does, and does not move an accepted tournament in time; the same
//! account signed in, or with a key carrying `pools:write`, still does.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

use super::support::*;

/// A new API key of `token`'s account with this body: its secret.
async fn key_of(app: &TestApp, token: &str, body: Value) -> String {
    let r = app.post("/api/v1/me/api-keys", Some(token), body).await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    v["key"].as_str().unwrap().to_string()
}

fn status_of(t: &Value) -> &str {
    t["rating_status"].as_str().unwrap()
}

#[actix_web::test]
async fn a_key_without_pools_write_asks_to_be_rated_as_an_organiser_does() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_a = agricola_pool(&app, &admin, "Pool A", json!({})).await;
    let (_, k) = keeper(&app, &admin, pool_a, "keeper").await;
    let software = key_of(
        &app,
        &k,
        json!({"name": "scoring software", "scopes": ["read", "tournaments:write"]}),
    )
    .await;
    let full = key_of(
        &app,
        &k,
        json!({"name": "all my work", "scopes": ["read", "tournaments:write", "pools:write"]}),
    )
    .await;

    // Created naming the pool: with the narrow key the request waits for a keeper...
    let t1 = rated_tournament(&app, &software, Some(pool_a), &days_ago(5)).await;
    assert_eq!(status_of(&t1), "pending", "{t1}");
    // ...with a key carrying pools:write, or signed in, the keeper's own request is accepted.
    let t2 = rated_tournament(&app, &full, Some(pool_a), &days_ago(5)).await;
    assert_eq!(status_of(&t2), "accepted", "{t2}");
    let t3 = rated_tournament(&app, &k, Some(pool_a), &days_ago(5)).await;
    assert_eq!(status_of(&t3), "accepted", "{t3}");

    // Moved into the pool with the narrow key: pending.
    let t4 = id(&rated_tournament(&app, &k, None, &days_ago(5)).await);
    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{t4}"),
            Some(&software),
            json!({"rating_pool_id": pool_a}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(status_of(&r.json::<Value>().await.unwrap()), "pending");

    // Asking again after a refusal with the narrow key: pending.
    let t1 = id(&t1);
    decided(
        &app,
        &k,
        pool_a,
        t1,
        json!({"decision": "refuse", "reason": "not announced"}),
    )
    .await;
    let r = ask_again(&app, &software, t1).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    assert_eq!(status_of(&tournament(&app, t1, &k).await), "pending");
    // The keeper's sign-in decides it as before.
    accept(&app, &k, pool_a, t1).await;

    // An accepted tournament is held in time against the narrow key (409 naming the field, the
    // dates unchanged); the key with pools:write moves it.
    let t2 = id(&t2);
    let path = format!("/api/v1/tournaments/{t2}");
    let moved = days_ago(6);
    let r = app
        .patch_any(&path, Some(&software), json!({"starts_on": moved}))
        .await;
    refused_on(r, 409, "starts_on").await;
    assert_eq!(tournament(&app, t2, &k).await["starts_on"], days_ago(5));
    let r = app
        .patch_any(&path, Some(&full), json!({"starts_on": moved}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(tournament(&app, t2, &k).await["starts_on"], moved);

    // An admin's key: without pools:write (or admin) it asks as an organiser; with admin it is
    // an admin's request.
    let admins_software = key_of(
        &app,
        &admin,
        json!({"name": "admin's scoring software", "scopes": ["read", "tournaments:write"]}),
    )
    .await;
    let admins_all = key_of(
        &app,
        &admin,
        json!({"name": "admin's robot", "scopes": ["admin"]}),
    )
    .await;
    let t5 = rated_tournament(&app, &admins_software, Some(pool_a), &days_ago(5)).await;
    assert_eq!(status_of(&t5), "pending", "{t5}");
    let t6 = rated_tournament(&app, &admins_all, Some(pool_a), &days_ago(5)).await;
    assert_eq!(status_of(&t6), "accepted", "{t6}");
    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{}", id(&t6)),
            Some(&admins_software),
            json!({"starts_on": moved}),
        )
        .await;
    refused_on(r, 409, "starts_on").await;
}
