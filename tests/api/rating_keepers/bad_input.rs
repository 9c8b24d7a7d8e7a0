//! Bad input names its field; moving a tournament to another pool is a new request.

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
    // A draft tournament's history is its staff's: hidden from the public, shown to them.
    let url = format!("/api/v1/tournaments/{pending}/rating-decisions");
    problem(app.get(&url, None).await, 404).await;
    assert_eq!(get_json(&app, &url, Some(&org)).await["total"], 1);
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
    // A missing field is named by the body extractor (`body`, the field in the message).
    let p = problem(dec(pending, json!({})).await, 422).await;
    assert!(p["detail"].as_str().unwrap().contains("decision"), "{p}");
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
