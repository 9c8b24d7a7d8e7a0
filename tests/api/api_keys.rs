//! API keys for scripts and club websites (issue 17): shown once, stored hashed, scoped,
//! limited to a tournament or a pool, revocable, acting as their owner and no more.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player_with, new_round};
use crate::helpers::{fields, problem, spawn_app, TestApp};

async fn create_key(app: &TestApp, token: &str, body: Value) -> (String, Value) {
    let r = app.post("/api/v1/me/api-keys", Some(token), body).await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    (v["key"].as_str().unwrap().to_string(), v["api_key"].clone())
}

fn result_body(round: &Value) -> (i64, Value) {
    let table = &round["draw"]["tables"][0];
    let seats: Vec<Value> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"player_id": p, "score": 50 - i as i64 * 5}))
        .collect();
    (table["number"].as_i64().unwrap(), json!({ "seats": seats }))
}

#[actix_web::test]
async fn a_results_key_limited_to_one_tournament_is_refused_on_another() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 8).await;
    let other = app.tournament(&org, "agricola_norway").await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let (key, shown) = create_key(
        &app,
        &org,
        json!({"name": "results importer", "scopes": ["read", "results:write"], "tournament_id": tid}),
    )
    .await;
    assert!(key.starts_with("tk_") && key.len() > 60);
    assert!(key.starts_with(shown["prefix"].as_str().unwrap()));
    assert_eq!(shown["scopes"], json!(["read", "results:write"]));
    // Its own tournament: reads and result entry.
    let (table, body) = result_body(&round);
    let url = format!("/api/v1/tournaments/{tid}/rounds/1/tables/{table}/result");
    let r = app.put(&url, Some(&key), body.clone()).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let entered: Value = app.get(&url, Some(&key)).await.json().await.unwrap();
    let me: Value = app.me(&org).await;
    assert_eq!(
        entered["current"]["entered_by"], me["id"],
        "the key acts as its owner"
    );
    // Not a round (no tournaments:write scope), not another tournament.
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&key),
            json!({"method": "random"}),
        )
        .await,
        403,
    )
    .await;
    let p = problem(
        app.get(
            &format!("/api/v1/tournaments/{other}/standings"),
            Some(&key),
        )
        .await,
        403,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains(&tid.to_string()));
    problem(app.get("/api/v1/tournaments", Some(&key)).await, 403).await;
    // The owner may see his keys (never the secret) and the key's last use.
    let listed: Value = app
        .get("/api/v1/me/api-keys", Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["items"].as_array().unwrap().len(), 1);
    assert!(!listed.to_string().contains(&key));
    assert!(listed["items"][0]["last_used_at"].is_string());
}

#[actix_web::test]
async fn a_key_acts_as_its_owner_and_no_more() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    // A referee's key with tournaments:write cannot draw a round: the owner may not.
    let (key, _) = create_key(
        &app,
        &referee,
        json!({"name": "referee script", "scopes": ["read", "tournaments:write"]}),
    )
    .await;
    problem(
        app.req(
            Method::PATCH,
            &format!("/api/v1/tournaments/{tid}/rounds/1"),
            Some(&key),
        )
        .json(&json!({"played_at": null}))
        .send()
        .await
        .unwrap(),
        403,
    )
    .await;
    // Admin scope only for admins; unknown scopes and both limits refused.
    let p = problem(
        app.post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "too much", "scopes": ["admin"]}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["scopes"]);
    let p = problem(
        app.post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "x", "scopes": ["write-everything"]}),
        )
        .await,
        422,
    )
    .await;
    assert!(fields(&p)[0].starts_with("scopes"));
    let p = problem(
        app.post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "x", "scopes": ["read", "read", "read", "read", "read"]}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["scopes"]);
    let p = problem(
        app.post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "x", "scopes": ["read"], "tournament_id": tid, "pool_id": 1}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["pool_id"]);
    let p = problem(
        app.post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "x", "scopes": ["read"], "tournament_id": 999999}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["tournament_id"]);
    // A key manages no credentials, not even with the admin scope.
    let admin = app.admin_token().await;
    let (admin_key, _) =
        create_key(&app, &admin, json!({"name": "ops", "scopes": ["admin"]})).await;
    problem(
        app.post(
            "/api/v1/me/api-keys",
            Some(&admin_key),
            json!({"name": "child", "scopes": ["read"]}),
        )
        .await,
        403,
    )
    .await;
    problem(
        app.post(
            "/api/v1/me/password",
            Some(&admin_key),
            json!({"current_password": "x", "new_password": "a brand new passphrase"}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin_key),
            json!({"username": "made.by.key", "password": "a long passphrase"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    // A read-only key cannot write anything.
    let (reader, _) = create_key(&app, &admin, json!({"name": "site", "scopes": ["read"]})).await;
    assert_eq!(app.get("/api/v1/users", Some(&reader)).await.status(), 200);
    problem(
        app.post("/api/v1/players", Some(&reader), json!({"name": "Nobody"}))
            .await,
        403,
    )
    .await;
}

#[actix_web::test]
async fn a_revoked_key_or_a_disabled_owners_key_is_refused_within_seconds() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (uid, token) = app.user("scripter").await;
    let (key, shown) = create_key(&app, &token, json!({"name": "cron", "scopes": ["read"]})).await;
    let (second, _) = create_key(&app, &token, json!({"name": "site", "scopes": ["read"]})).await;
    assert_eq!(app.get("/api/v1/me", Some(&key)).await.status(), 200);
    let r = app
        .req(
            Method::DELETE,
            &format!("/api/v1/me/api-keys/{}", shown["id"]),
            Some(&token),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let refused = |k: String| {
        let app = &app;
        async move {
            for _ in 0..40 {
                if app.get("/api/v1/me", Some(&k)).await.status() == 401 {
                    return true;
                }
                actix_web::rt::time::sleep(Duration::from_millis(100)).await;
            }
            false
        }
    };
    assert!(refused(key.clone()).await);
    assert_eq!(app.get("/api/v1/me", Some(&second)).await.status(), 200);
    // Someone else's key is not yours to revoke.
    let (_, stranger) = app.user("stranger").await;
    problem(
        app.req(
            Method::DELETE,
            &format!("/api/v1/me/api-keys/{}", shown["id"]),
            Some(&stranger),
        )
        .send()
        .await
        .unwrap(),
        404,
    )
    .await;
    // The owner disabled: every key goes.
    let r = app
        .patch(
            &format!("/api/v1/users/{uid}"),
            Some(&admin),
            json!({"disabled": true}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(refused(second).await);
    problem(app.get("/api/v1/me", Some("tk_forged")).await, 401).await;
}

#[actix_web::test]
async fn a_pool_key_reads_its_pool_only() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut pools = Vec::new();
    for name in ["Norway", "Poland"] {
        let r = app
            .post(
                "/api/v1/rating-pools",
                Some(&admin),
                json!({"name": name, "time_zone": "Europe/Oslo"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        pools.push(r.json::<Value>().await.unwrap()["id"].as_i64().unwrap());
    }
    let (key, _) = create_key(
        &app,
        &admin,
        json!({"name": "club list", "scopes": ["read"], "pool_id": pools[0]}),
    )
    .await;
    let ok = app
        .get(
            &format!("/api/v1/rating-pools/{}/leaderboard", pools[0]),
            Some(&key),
        )
        .await;
    assert_eq!(ok.status(), 200);
    problem(
        app.get(
            &format!("/api/v1/rating-pools/{}/leaderboard", pools[1]),
            Some(&key),
        )
        .await,
        403,
    )
    .await;
}

/// A key's limits read the path the router matches, percent-decoded: an encoded letter
/// (`/api/v1/%6De/api-keys` is `/me/api-keys`) does not let an admin-scoped key make a key or
/// change a password; where its scope reaches, the encoded path works as the plain one.
#[actix_web::test]
async fn a_key_is_limited_by_the_decoded_path_it_reaches() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (admin_key, _) =
        create_key(&app, &admin, json!({"name": "ops", "scopes": ["admin"]})).await;
    for path in [
        "/api/v1/%6De/api-keys",
        "/api/v1/%6d%65/api-keys",
        "/api/v1/m%65/api-keys",
    ] {
        let p = problem(
            app.post(
                path,
                Some(&admin_key),
                json!({"name": "child", "scopes": ["read"]}),
            )
            .await,
            403,
        )
        .await;
        assert!(
            p["detail"].as_str().unwrap().contains("cannot manage"),
            "{path}: {p}"
        );
    }
    problem(
        app.post(
            "/api/v1/%6De/password",
            Some(&admin_key),
            json!({"current_password": crate::helpers::PASSWORD, "new_password": "a brand new passphrase"}),
        )
        .await,
        403,
    )
    .await;
    let r = app.get("/api/v1/me/api-keys", Some(&admin)).await;
    let keys: Value = r.json().await.unwrap();
    assert_eq!(keys["items"].as_array().map(Vec::len), Some(1), "{keys}");
    assert_eq!(
        app.sign_in(crate::helpers::ADMIN, crate::helpers::PASSWORD)
            .await
            .status(),
        200
    );
    // The decoded path is still the key's to use where its scope reaches.
    let r = app
        .post(
            "/api/v1/%75sers",
            Some(&admin_key),
            json!({"username": "made.by.key", "password": "a long passphrase"}),
        )
        .await;
    assert_eq!(r.status(), 201);
}

/// A limited key reads nothing of its owner's beyond its limit, even through `/me`: a stolen
/// key limited to one tournament used to list the owner's other tournaments (drafts too) and
/// games in every tournament.
#[actix_web::test]
async fn a_limited_key_reads_its_owners_lists_within_its_limit() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, org, _, _) = event(&app, "tantrix", 3).await;
    let draft = app.tournament(&org, "tantrix").await;
    let (kari_player, kari) = linked_player_with(&app, tid, "Kari", json!({})).await;
    new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Tantrix Norway", "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let ids = |v: &Value| -> Vec<i64> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["tournament_id"].as_i64().unwrap())
            .collect()
    };
    let read = |token: String, path: &'static str| {
        let app = &app;
        async move {
            let r = app.get(path, Some(&token)).await;
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    // The organiser's keys: the unlimited one lists both tournaments (the draft too), the one
    // limited to the event that one only, the one limited to the draft the draft only, the
    // pool's none.
    let limits = [
        (json!({}), vec![tid, draft]),
        (json!({"tournament_id": tid}), vec![tid]),
        (json!({"tournament_id": draft}), vec![draft]),
        (json!({"pool_id": pool}), vec![]),
    ];
    for (limit, expected) in &limits {
        let mut body = json!({"name": "lists", "scopes": ["read"]});
        body.as_object_mut()
            .unwrap()
            .extend(limit.as_object().unwrap().clone());
        let (key, _) = create_key(&app, &org, body).await;
        let mut listed = ids(&read(key, "/api/v1/me/tournaments").await);
        listed.sort();
        let mut expected = expected.clone();
        expected.sort();
        assert_eq!(listed, expected, "{limit}");
    }
    // The player's games: all of them unlimited or limited to the event, none through a key
    // limited to another tournament or to a pool.
    for (limit, games) in [
        (json!({}), 1),
        (json!({"tournament_id": tid}), 1),
        (json!({"tournament_id": draft}), 0),
        (json!({"pool_id": pool}), 0),
    ] {
        let mut body = json!({"name": "games", "scopes": ["read"]});
        body.as_object_mut()
            .unwrap()
            .extend(limit.as_object().unwrap().clone());
        let (key, _) = create_key(&app, &kari, body).await;
        let mine = read(key.clone(), "/api/v1/me/games").await;
        assert_eq!(mine["player_id"], kari_player, "{limit}");
        assert_eq!(mine["upcoming"].as_array().unwrap().len(), games, "{limit}");
        let theirs = ids(&read(key, "/api/v1/me/tournaments").await);
        assert_eq!(theirs.len(), games, "{limit}");
    }
    // Signed in, nothing is held back.
    let signed_in = read(kari.clone(), "/api/v1/me/games").await;
    assert_eq!(signed_in["upcoming"].as_array().unwrap().len(), 1);
}

/// A key outlives every session, so a token alone makes one only within ten minutes of the
/// password that started it (a sign-in or a password change); past them, or with a refreshed
/// token, the account's password is asked for, and a wrong one counts as a failed sign-in.
#[actix_web::test]
async fn a_key_needs_the_password_unless_the_token_was_answered_to_it_just_now() {
    let app = spawn_app().await;
    let (_, kari) = app.user("kari").await;
    let key = |password: Option<&str>| {
        let mut body = json!({"name": "club site", "scopes": ["read"]});
        if let Some(p) = password {
            body["current_password"] = json!(p);
        }
        body
    };
    let make = |token: String, body: Value| {
        let app = &app;
        async move { app.post("/api/v1/me/api-keys", Some(&token), body).await }
    };
    // Just signed in: the token is enough.
    create_key(&app, &kari, key(None)).await;
    // Ten minutes later (the instance's clock), the same token still reads, but makes no key
    // without the password; a wrong password is refused, the right one makes it.
    app.clock.advance(chrono::Duration::minutes(9));
    create_key(&app, &kari, key(None)).await;
    app.clock.advance(chrono::Duration::minutes(2));
    assert_eq!(app.get("/api/v1/me", Some(&kari)).await.status(), 200);
    let r = make(kari.clone(), key(None)).await;
    assert_eq!(fields(&problem(r, 422).await), ["current_password"]);
    let r = make(kari.clone(), key(Some("not it at all"))).await;
    assert_eq!(fields(&problem(r, 422).await), ["current_password"]);
    create_key(&app, &kari, key(Some(crate::helpers::PASSWORD))).await;
    // A refreshed token was never answered to the password.
    let started: Value = app
        .sign_in("kari", crate::helpers::PASSWORD)
        .await
        .json()
        .await
        .unwrap();
    let fresh = started["access_token"].as_str().unwrap().to_string();
    create_key(&app, &fresh, key(None)).await;
    let refreshed: Value = app
        .post(
            "/api/v1/auth/refresh",
            None,
            json!({"refresh_token": started["refresh_token"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let refreshed = refreshed["access_token"].as_str().unwrap().to_string();
    let r = make(refreshed.clone(), key(None)).await;
    assert_eq!(fields(&problem(r, 422).await), ["current_password"]);
    create_key(&app, &refreshed, key(Some(crate::helpers::PASSWORD))).await;
    // A password change answers a token of the new password: enough for ten minutes.
    let changed: Value = app
        .post(
            "/api/v1/me/password",
            Some(&refreshed),
            json!({"current_password": crate::helpers::PASSWORD, "new_password": "a brand new passphrase"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let changed = changed["access_token"].as_str().unwrap().to_string();
    create_key(&app, &changed, key(None)).await;
    // Nothing was made by a refusal: six keys, the ones answered 201.
    let listed: Value = app
        .get("/api/v1/me/api-keys", Some(&changed))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["items"].as_array().unwrap().len(), 6, "{listed}");
    // Wrong passwords count as failed sign-ins (the one above was cleared by the sign-in
    // since): the tenth from this address is the last taken.
    app.clock.advance(chrono::Duration::minutes(11));
    for _ in 0..10 {
        let r = make(changed.clone(), key(Some("a guess"))).await;
        assert_eq!(r.status(), 422);
    }
    let r = make(changed.clone(), key(Some("a brand new passphrase"))).await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    let r = app.sign_in("kari", "a brand new passphrase").await;
    assert_eq!(
        r.status(),
        429,
        "the sign-ins of the account from here wait too"
    );
}
