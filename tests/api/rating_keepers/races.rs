//! Races (acceptance against result entries, keepers stepping down at once) and what the live
//! feed and the pool's webhooks are told.

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
        o.rotate_left(i * 5 % 12);
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

    // Two keepers accept the same played tournament at once: one decision, its games once.
    let (_, k2) = keeper(&app, &admin, pool_id, "keeper.two").await;
    let day = days_ago(5);
    let tid = id(&rated_tournament(&app, &org, Some(pool_id), &day).await);
    open_with(&app, tid, &org, &p).await;
    play(&app, tid, &org, &at(&day, 12), &orders[1]).await;
    let (a, b) = tokio::join!(
        decide(&app, &k, pool_id, tid, json!({"decision": "accept"})),
        decide(&app, &k2, pool_id, tid, json!({"decision": "accept"})),
    );
    let mut statuses = vec![a.status().as_u16(), b.status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, vec![200, 409]);
    let loser = if a.status() == 409 { a } else { b };
    refused_on(loser, 409, "rating_status").await;
    let now = listed(&app, pool_id).await;
    let want = games_per_table * 8;
    assert!(now.values().all(|v| v.1 == want), "{now:?}");
    let hist = get_json(
        &app,
        &format!("/api/v1/tournaments/{tid}/rating-decisions"),
        None,
    )
    .await;
    assert_eq!(hist["total"], 2, "one request, one acceptance: {hist}");
    same_as_rebuild(&app, &admin, pool_id).await;
}

/// Two keepers of a pool with accepted tournaments step down at once: one of them stays.
#[actix_web::test]
async fn two_keepers_stepping_down_at_once_leave_one() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (k1_id, k1) = keeper(&app, &admin, pool_id, "keeper.one").await;
    let (k2_id, k2) = keeper(&app, &admin, pool_id, "keeper.two").await;
    let t = rated_tournament(&app, &k1, Some(pool_id), &days_ago(3)).await;
    assert_eq!(t["rating_status"], "accepted");
    for _ in 0..3 {
        let (a, b) = tokio::join!(
            revoke(&app, &k1, pool_id, k1_id),
            revoke(&app, &k2, pool_id, k2_id)
        );
        let mut statuses = vec![a.status().as_u16(), b.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, vec![204, 409]);
        let loser = if a.status() == 409 { a } else { b };
        refused_on(loser, 409, "user_id").await;
        let left = get_json(
            &app,
            &format!("/api/v1/rating-pools/{pool_id}/keepers"),
            None,
        )
        .await;
        assert_eq!(left["total"], 1, "{left}");
        // The admin restores the one who left, for the next round.
        let gone = if left["items"][0]["user_id"] == k1_id {
            k2_id
        } else {
            k1_id
        };
        assert_eq!(grant(&app, &admin, pool_id, gone).await.status(), 201);
    }
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
    let refused = |f: &[(String, Value)]| {
        rating_events(f)
            .into_iter()
            .find(|e| e["payload"]["rating_status"] == "refused")
    };
    let frames = read_frames(&mut live, |f| refused(f).is_some()).await;
    let seen = refused(&frames).unwrap();
    assert_eq!(seen["kind"], "rating_status_changed");
    assert_eq!(seen["payload"]["tournament_id"], tid);
    assert_eq!(seen["payload"]["reason"], "no rules published");
    assert_eq!(seen["payload"]["decided_by"], k_id);
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
