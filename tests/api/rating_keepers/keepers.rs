//! Open pools, keepers and their reach, a keeper's API key.

#![allow(unused_imports)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, HttpResponse};
use futures_util::future::join_all;
use reqwest::{Method, Response};
use serde_json::{json, Value};

use crate::event_fixtures::new_round;
use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{db, listed, log, player, pool, rebuild_over_http};

use super::support::*;

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
    // Withdrawn by the keeper, asked again: accepted at once in an open pool, rated again.
    let rated = board(&app, club).await;
    decided(
        &app,
        &keeper_token,
        club,
        tid,
        json!({"decision": "withdraw", "reason": "a friendly, not a club evening"}),
    )
    .await;
    assert_eq!(board(&app, club).await["total"], 0);
    let r = ask_again(&app, &stranger, tid).await;
    let status = r.status();
    let again: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["rating_status"], "accepted");
    assert_eq!(board(&app, club).await, rated);
    same_as_rebuild(&app, &keeper_token, club).await;
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
    assert_eq!(hooks["items"].as_array().unwrap().len(), 1, "{hooks}");
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
    // A key cannot give its owner a role they lack.
    let (_, nobody) = app.user("nobody").await;
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(&nobody),
            json!({"name": "try", "scopes": ["read", "pools:write"], "pool_id": pool_a}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let nobodys_key = r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    problem(
        decide(
            &app,
            &nobodys_key,
            pool_a,
            t_a2,
            json!({"decision": "accept"}),
        )
        .await,
        403,
    )
    .await;
    assert_eq!(
        tournament(&app, t_a2, &org).await["rating_status"],
        "pending"
    );
}
