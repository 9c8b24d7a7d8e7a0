//! The attack of issue 26, acceptance after play in time order, refusal, a new request and
//! withdrawal.

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
    // When it was decided: the decision's time (to the clock's precision; the two are stamped
    // by different clocks, the service's and the database's).
    let instant = |v: &Value| {
        chrono::DateTime::parse_from_rfc3339(v.as_str().expect("a time")).expect("RFC 3339")
    };
    let apart = instant(&t["rating_decided_at"]) - instant(&d["decided_at"]);
    assert!(apart.num_milliseconds().abs() < 1000, "{t} / {d}");
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
