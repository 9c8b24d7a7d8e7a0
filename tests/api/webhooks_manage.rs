//! Webhooks you can manage (issue 30, items 5 and 6): read and change a subscription, pause it,
//! rotate its secret with an overlap, ping it, page its deliveries; `webhook-id`s that never
//! repeat; the last error with its cause; the log kept after a deletion; the limit per
//! tournament; a receiver that never answers delays no one else; and a claim counts the
//! deliveries in flight.

use serde_json::{json, Value};

use crate::event_fixtures::event;
use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::webhooks::{receiver, signature_valid, wait_for};

pub(crate) async fn subscribe(app: &TestApp, tid: i64, token: &str, url: &str) -> (i64, String) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/webhooks"),
            Some(token),
            json!({"url": url, "kinds": ["round_published"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let created: Value = r.json().await.unwrap();
    let id = created["webhook"]["id"].as_i64().unwrap();
    assert_eq!(location, format!("/api/v1/webhooks/{id}"));
    (id, created["secret"].as_str().unwrap().to_string())
}

pub(crate) async fn ping(app: &TestApp, hook: i64, token: &str) -> Value {
    let r = app
        .post(
            &format!("/api/v1/webhooks/{hook}/ping"),
            Some(token),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let d: Value = r.json().await.unwrap();
    assert_eq!(
        location,
        format!("/api/v1/webhooks/{hook}/deliveries/{}", d["id"])
    );
    assert_eq!(d["kind"], "ping");
    d
}

pub(crate) async fn read(app: &TestApp, path: &str, token: &str) -> Value {
    let r = app.get(path, Some(token)).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

#[actix_web::test]
async fn a_subscription_is_read_changed_paused_pinged_and_rotated() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let (url, rx) = receiver().await;
    let (hook, secret) = subscribe(&app, tid, &org, &url).await;
    let path = format!("/api/v1/webhooks/{hook}");
    let got = read(&app, &path, &org).await;
    assert_eq!(got["paused"], false);
    assert_eq!(got["url"], url);
    assert!(!got.to_string().contains(&secret));
    problem(app.get(&path, Some(&referee)).await, 404).await;
    // Bad changes name their field and change nothing.
    for (body, field) in [
        (json!({"url": "http://a.example/\r\nX: y"}), "url"),
        (json!({"url": "ftp://8.8.8.8/"}), "url"),
        (json!({"kinds": ["leaderboard_changed"]}), "kinds[0]"),
        (json!({"kinds": []}), "kinds"),
    ] {
        let p = problem(app.patch(&path, Some(&org), body).await, 422).await;
        assert_eq!(fields(&p), vec![field]);
    }
    problem(
        app.patch(&path, Some(&referee), json!({"paused": true}))
            .await,
        404,
    )
    .await;
    // Paused: a ping waits, while a second subscription's ping is sent.
    let changed: Value = app
        .patch(
            &path,
            Some(&org),
            json!({"paused": true, "kinds": ["round_published", "game_forfeited"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(changed["paused"], true);
    assert_eq!(
        changed["kinds"],
        json!(["game_forfeited", "round_published"])
    );
    assert_eq!(changed["url"], url);
    let held = ping(&app, hook, &org).await;
    let (other, _) = subscribe(&app, tid, &org, &format!("{url}/other")).await;
    let sent = ping(&app, other, &org).await;
    let ids = |d: &Value| d["webhook_id"].as_str().unwrap().to_string();
    assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == ids(&sent))).await);
    assert!(!rx.answered_ok().iter().any(|g| g.0 == ids(&held)));
    let d = read(&app, &format!("{path}/deliveries/{}", held["id"]), &org).await;
    assert_eq!(d["status"], "pending");
    // Resumed: it goes out, signed with the secret.
    app.patch(&path, Some(&org), json!({"paused": false})).await;
    assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == ids(&held))).await);
    let g = rx
        .answered_ok()
        .into_iter()
        .find(|g| g.0 == ids(&held))
        .unwrap();
    assert!(signature_valid(&secret, &g));
    let body: Value = serde_json::from_str(&g.3).unwrap();
    assert_eq!(body["type"], "ping");
    assert_eq!(body["data"]["webhook"], hook);
    // Rotation with an overlap: both secrets sign; without one, only the new.
    let rotate = format!("{path}/rotate-secret");
    let p = problem(
        app.post(&rotate, Some(&org), json!({"overlap_hours": 169}))
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["overlap_hours"]);
    let r: Value = app
        .post(&rotate, Some(&org), json!({"overlap_hours": 24}))
        .await
        .json()
        .await
        .unwrap();
    let fresh = r["secret"].as_str().unwrap().to_string();
    assert_ne!(fresh, secret);
    assert!(r["previous_secret_until"].is_string());
    let overlap = ping(&app, hook, &org).await;
    assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == ids(&overlap))).await);
    let g = rx
        .answered_ok()
        .into_iter()
        .find(|g| g.0 == ids(&overlap))
        .unwrap();
    assert_eq!(g.2.split(' ').count(), 2);
    assert!(signature_valid(&fresh, &g) && signature_valid(&secret, &g));
    let r: Value = app
        .post(&rotate, Some(&org), json!({"overlap_hours": 0}))
        .await
        .json()
        .await
        .unwrap();
    let last = r["secret"].as_str().unwrap().to_string();
    assert!(r["previous_secret_until"].is_null());
    let alone = ping(&app, hook, &org).await;
    assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == ids(&alone))).await);
    let g = rx
        .answered_ok()
        .into_iter()
        .find(|g| g.0 == ids(&alone))
        .unwrap();
    assert!(signature_valid(&last, &g));
    assert!(!signature_valid(&fresh, &g) && !signature_valid(&secret, &g));
    // webhook-ids are random, never a counter.
    let all: Vec<String> = [&held, &sent, &overlap, &alone]
        .iter()
        .map(|d| ids(d))
        .collect();
    for id in &all {
        assert!(id.starts_with("msg_") && id.len() == 36, "{id}");
        assert!(id[4..].chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    }
    let distinct: std::collections::HashSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), all.len());
    // The log pages in the envelope, with Link.
    let r = app
        .get(&format!("{path}/deliveries?limit=1"), Some(&org))
        .await;
    assert!(r.headers()["link"]
        .to_str()
        .unwrap()
        .contains("rel=\"next\""));
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["total"], 3);
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["items"][0]["id"], alone["id"]);
    let p = problem(
        app.get(&format!("{path}/deliveries?limit=0"), Some(&org))
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["limit"]);
}

#[actix_web::test]
async fn the_last_error_names_its_cause() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    // Nothing listens on a port just freed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let (refused, _) = subscribe(&app, tid, &org, &format!("http://127.0.0.1:{port}/h")).await;
    let (url, rx) = receiver().await;
    rx.status.store(503, std::sync::atomic::Ordering::SeqCst);
    let (failing, _) = subscribe(&app, tid, &org, &url).await;
    ping(&app, refused, &org).await;
    ping(&app, failing, &org).await;
    let mut errors = (Value::Null, Value::Null);
    for _ in 0..100 {
        errors = (
            read(&app, &format!("/api/v1/webhooks/{refused}"), &org).await["last_error"].clone(),
            read(&app, &format!("/api/v1/webhooks/{failing}"), &org).await["last_error"].clone(),
        );
        if errors.0.is_string() && errors.1.is_string() {
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        errors.0.as_str().unwrap().contains("could not connect"),
        "{errors:?}"
    );
    assert_eq!(errors.1, "answered 503");
    let hook = read(&app, &format!("/api/v1/webhooks/{failing}"), &org).await;
    assert!(hook["last_error_at"].is_string());
    assert!(hook["last_delivered_at"].is_null());
    // Once it answers, the success is recorded beside the last error.
    rx.status.store(200, std::sync::atomic::Ordering::SeqCst);
    ping(&app, failing, &org).await;
    assert!(wait_for(|| !rx.answered_ok().is_empty()).await);
    let mut delivered = Value::Null;
    for _ in 0..50 {
        delivered = read(&app, &format!("/api/v1/webhooks/{failing}"), &org).await
            ["last_delivered_at"]
            .clone();
        if delivered.is_string() {
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(delivered.is_string());
}

#[actix_web::test]
async fn a_deleted_subscription_keeps_its_log_for_a_while_and_the_limit_holds() {
    use diesel::prelude::*;
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    let (url, rx) = receiver().await;
    let (hook, _) = subscribe(&app, tid, &org, &url).await;
    let d = ping(&app, hook, &org).await;
    let id = d["webhook_id"].as_str().unwrap().to_string();
    assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == id)).await);
    let path = format!("/api/v1/webhooks/{hook}");
    let r = app
        .req(reqwest::Method::DELETE, &path, Some(&org))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    // Gone as a subscription, its log still readable.
    problem(app.get(&path, Some(&org)).await, 404).await;
    problem(
        app.patch(&path, Some(&org), json!({"paused": true})).await,
        404,
    )
    .await;
    problem(
        app.post(&format!("{path}/ping"), Some(&org), json!({}))
            .await,
        404,
    )
    .await;
    let r = app
        .req(reqwest::Method::DELETE, &path, Some(&org))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let log = read(&app, &format!("{path}/deliveries"), &org).await;
    assert_eq!(log["total"], 1);
    assert_eq!(log["items"][0]["status"], "delivered");
    let listed = read(&app, &format!("/api/v1/tournaments/{tid}/webhooks"), &org).await;
    assert_eq!(listed["total"], 0);
    // Ten live subscriptions at most; a deleted one does not count.
    let mut hooks = Vec::new();
    for i in 0..10 {
        hooks.push(subscribe(&app, tid, &org, &format!("{url}/{i}")).await.0);
    }
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/webhooks"),
            Some(&org),
            json!({"url": format!("{url}/11"), "kinds": ["round_published"]}),
        )
        .await;
    let p = problem(r, 409).await;
    assert_eq!(fields(&p), vec!["url"]);
    let listed = read(
        &app,
        &format!("/api/v1/tournaments/{tid}/webhooks?limit=4"),
        &org,
    )
    .await;
    assert_eq!(listed["total"], 10);
    assert_eq!(listed["items"].as_array().unwrap().len(), 4);
    // Thirty days after the deletion, the job removes the log.
    let mut conn = crate::rating_fixtures::db(&app);
    diesel::sql_query(format!(
        "UPDATE webhook_endpoints SET deleted_at = now() - interval '31 days' WHERE id = {hook}"
    ))
    .execute(&mut conn)
    .unwrap();
    let mut gone = false;
    for _ in 0..100 {
        if app
            .get(&format!("{path}/deliveries"), Some(&org))
            .await
            .status()
            == 404
        {
            gone = true;
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "the old log was not removed");
}

/// Four receivers that accept and never answer (another organiser's) do not delay a
/// delivery to a receiver that answers: it arrives while every silent delivery is still
/// waiting for its answer (none has timed out yet).
#[actix_web::test]
async fn silent_receivers_delay_no_one_else() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming() {
            held.push(stream);
        }
    });
    let mut silent_hooks = Vec::new();
    for i in 0..4 {
        let (hook, _) = subscribe(&app, tid, &org, &format!("http://127.0.0.1:{port}/{i}")).await;
        for _ in 0..5 {
            ping(&app, hook, &org).await;
        }
        silent_hooks.push(hook);
    }
    // Let the silent ones be claimed and sent first.
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1500)).await;
    let (_, other) = app.user("other.organiser").await;
    let other_tid = app.tournament(&other, "agricola_norway").await;
    let (url, rx) = receiver().await;
    let (hook, _) = subscribe(&app, other_tid, &other, &url).await;
    let d = ping(&app, hook, &other).await;
    let id = d["webhook_id"].as_str().unwrap().to_string();
    assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == id)).await);
    for silent in silent_hooks {
        let log = read(&app, &format!("/api/v1/webhooks/{silent}/deliveries"), &org).await;
        let items = log["items"].as_array().unwrap();
        assert_eq!(items.len(), 5);
        assert!(items.iter().all(|d| d["status"] == "pending"));
        // Sent (at most two at once per endpoint), and none has an outcome yet.
        assert!(items.iter().any(|d| d["attempts"] == 1), "{log}");
        assert!(items.iter().all(|d| d["last_error"].is_null()), "{log}");
        assert!(
            items.iter().filter(|d| d["attempts"] == 1).count() <= 2,
            "{log}"
        );
    }
}

/// A claim takes a delivery only where its endpoint has a place left on this instance: with
/// one of its two places taken, a claim of its three due deliveries leases one; with both
/// taken, none; with none taken, two. (A delivery claimed past its places was leased and
/// counted an attempt without being sent: the log showed three attempted at once.)
#[actix_web::test]
async fn a_claim_counts_the_deliveries_in_flight() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    use tourney::services::integrations::webhook_queue;
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    let (hook, _) = subscribe(&app, tid, &org, "http://127.0.0.1:9/never").await;
    let r = app
        .patch(
            &format!("/api/v1/webhooks/{hook}"),
            Some(&org),
            json!({"paused": true}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // Paused, the instance's own job leaves them (and queues each ping all the same).
    for _ in 0..3 {
        ping(&app, hook, &org).await;
    }
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    conn.begin_test_transaction().unwrap();
    diesel::sql_query(format!(
        "UPDATE webhook_endpoints SET paused = false WHERE id = {hook}"
    ))
    .execute(&mut conn)
    .unwrap();
    for (in_flight, expected) in [(0, 2), (1, 1), (2, 0)] {
        let flying = if in_flight == 0 {
            vec![]
        } else {
            vec![(hook, in_flight)]
        };
        let mut claimed = 0;
        let _ = conn.transaction::<(), diesel::result::Error, _>(|c| {
            claimed = webhook_queue::claim(c, 10, 2, &flying).unwrap().len();
            Err(diesel::result::Error::RollbackTransaction)
        });
        assert_eq!(claimed, expected, "{in_flight} in flight");
    }
    // Another endpoint in flight takes no place of this one.
    let mut claimed = 0;
    let _ = conn.transaction::<(), diesel::result::Error, _>(|c| {
        claimed = webhook_queue::claim(c, 10, 2, &[(hook + 1000, 2)])
            .unwrap()
            .len();
        Err(diesel::result::Error::RollbackTransaction)
    });
    assert_eq!(claimed, 2);
}

/// A subscription names the account that made it (`created_by`, one by one and in the list),
/// so its managers see whose it is: still while that account is disabled, enabled again or
/// dismissed, `null` once it is erased. Its deliveries go on through all of it: the
/// subscription is the tournament's (docs/decisions/integrators.md, "Creator").
#[actix_web::test]
async fn a_subscription_names_its_creator_until_erased_and_delivers_regardless() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    let (co_id, co) = app.user("co.organiser").await;
    let staff = format!("/api/v1/tournaments/{tid}/staff");
    let r = app
        .post(
            &staff,
            Some(&org),
            json!({"user_id": co_id, "role": "organiser"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let (url, rx) = receiver().await;
    let (hook, _) = subscribe(&app, tid, &co, &url).await;
    let (path, list) = (
        format!("/api/v1/webhooks/{hook}"),
        format!("/api/v1/tournaments/{tid}/webhooks"),
    );
    let creator_then_delivered = || {
        let (app, org, path, list, rx) = (&app, &org, &path, &list, &rx);
        async move {
            let one = read(app, path, org).await["created_by"].clone();
            assert_eq!(read(app, list, org).await["items"][0]["created_by"], one);
            let d = ping(app, hook, org).await;
            let id = d["webhook_id"].as_str().unwrap().to_string();
            assert!(wait_for(|| rx.answered_ok().iter().any(|g| g.0 == id)).await);
            one
        }
    };
    let change = |path: String, body: Option<Value>| {
        let (app, admin, org) = (&app, &admin, &org);
        async move {
            let r = match body {
                Some(b) if path.ends_with("erasure") => app.post(&path, Some(admin), b).await,
                Some(b) => app.patch(&path, Some(admin), b).await,
                None => app.delete_req(&path, org).await,
            };
            assert!(r.status().is_success(), "{path}: {}", r.status());
        }
    };
    assert_eq!(creator_then_delivered().await, json!(co_id));
    let account = format!("/api/v1/users/{co_id}");
    for (what, path, body) in [
        ("disabled", account.clone(), Some(json!({"disabled": true}))),
        ("enabled", account.clone(), Some(json!({"disabled": false}))),
        ("dismissed", format!("{staff}/{co_id}/organiser"), None),
    ] {
        change(path, body).await;
        assert_eq!(creator_then_delivered().await, json!(co_id), "{what}");
    }
    change(format!("{account}/erasure"), Some(json!({}))).await;
    assert_eq!(creator_then_delivered().await, Value::Null, "erased");
}
