//! Races: many clients at once against one tournament. Each race is run repeatedly, because
//! before the tournament lock it was lost in most trials, not all.

use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

/// `n` players created by the admin.
async fn players(app: &TestApp, admin: &str, n: usize) -> Vec<i64> {
    let mut ids = Vec::new();
    for i in 0..n {
        let r = app
            .post(
                "/api/v1/players",
                Some(admin),
                json!({"name": format!("Racer {i:03}")}),
            )
            .await;
        assert_eq!(r.status(), 201);
        ids.push(r.json::<Value>().await.unwrap()["id"].as_i64().unwrap());
    }
    ids
}

/// An open Agricola tournament (tables of 4).
async fn open_tournament(app: &TestApp, admin: &str) -> i64 {
    let tid = app.tournament(admin, "agricola_norway").await;
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    tid
}

async fn register_all(app: &TestApp, admin: &str, tid: i64, ids: &[i64]) {
    let path = format!("/api/v1/tournaments/{tid}/registrations");
    let answers = join_all(
        ids.iter()
            .map(|p| app.post(&path, Some(admin), json!({"player_id": p}))),
    )
    .await;
    for r in answers {
        let status = r.status();
        if status != 201 {
            panic!("{status}: {}", r.text().await.unwrap_or_default());
        }
    }
}

/// The confirmed registrations are always the first floor(n / 4) x 4 in registration order.
async fn assert_confirmed_prefix(app: &TestApp, admin: &str, tid: i64, n: usize) {
    let list: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/registrations?limit=200"),
            Some(admin),
        )
        .await
        .json()
        .await
        .unwrap();
    let list = list["items"].clone();
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), n);
    let want = n / 4 * 4;
    let statuses: Vec<&str> = rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    let confirmed = statuses.iter().filter(|s| **s == "confirmed").count();
    assert_eq!(confirmed, want, "{statuses:?}");
    assert!(
        statuses[..want].iter().all(|s| *s == "confirmed"),
        "confirmed out of registration order: {statuses:?}"
    );
}

#[actix_web::test]
async fn two_registrations_at_once_never_confirm_a_partial_table() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for _ in 0..10 {
        let tid = open_tournament(&app, &admin).await;
        let ids = players(&app, &admin, 5).await;
        register_all(&app, &admin, tid, &ids[..3]).await;
        register_all(&app, &admin, tid, &ids[3..]).await;
        assert_confirmed_prefix(&app, &admin, tid, 5).await;
    }
}

#[actix_web::test]
async fn a_hundred_registrations_at_once_confirm_all_in_order() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let tid = open_tournament(&app, &admin).await;
    let ids = players(&app, &admin, 100).await;
    register_all(&app, &admin, tid, &ids).await;
    assert_confirmed_prefix(&app, &admin, tid, 100).await;
}

#[actix_web::test]
async fn ten_committee_appointments_at_once_seat_three() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut users = Vec::new();
    for i in 0..10 {
        users.push(app.user(&format!("member{i}")).await.0);
    }
    for _ in 0..3 {
        let tid = app.tournament(&admin, "agricola_norway").await;
        let path = format!("/api/v1/tournaments/{tid}/staff");
        let answers = join_all(users.iter().map(|u| {
            app.post(
                &path,
                Some(&admin),
                json!({"user_id": u, "role": "appeals_committee"}),
            )
        }))
        .await;
        let created = answers.iter().filter(|r| r.status() == 201).count();
        assert_eq!(created, 3);
        assert!(answers
            .iter()
            .all(|r| [201, 409].contains(&r.status().as_u16())));
        // One user cannot become referee and committee member at once either.
        let u = users[9];
        let both = join_all(
            ["referee", "appeals_committee"]
                .map(|role| app.post(&path, Some(&admin), json!({"user_id": u, "role": role}))),
        )
        .await;
        assert!(
            both.iter().filter(|r| r.status() == 201).count() <= 1,
            "user {u} holds both roles"
        );
    }
}

/// Retries of one request with one Idempotency-Key sent while the first is in flight get the
/// first request's answer, never a false failure (412/428), and the result is stored once.
#[actix_web::test]
async fn parallel_retries_with_one_idempotency_key_all_get_the_first_answer() {
    for trial in 0..5 {
        let app = spawn_app().await;
        let (tid, org, referee, _) = crate::event_fixtures::event(&app, "agricola_norway", 4).await;
        let r1 =
            crate::event_fixtures::new_round(&app, tid, &org, json!({"method": "random"})).await;
        let t = &r1["draw"]["tables"][0];
        let path = format!(
            "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
            t["number"]
        );
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({"player_id": p, "score": 44}))
            .collect();
        let body = json!({"seats": seats});
        let key = format!("retry-{trial}");
        let answers = join_all((0..8).map(|_| {
            app.req(reqwest::Method::PUT, &path, Some(&referee))
                .header("idempotency-key", &key)
                .json(&body)
                .send()
        }))
        .await;
        let mut bodies = Vec::new();
        for r in answers {
            let r = r.unwrap();
            assert_eq!(r.status(), 200, "a retry failed");
            bodies.push(r.json::<Value>().await.unwrap());
        }
        assert!(bodies.windows(2).all(|w| w[0] == w[1]));
        let v: Value = app.get(&path, Some(&referee)).await.json().await.unwrap();
        assert_eq!(v["versions"].as_array().unwrap().len(), 1);
    }
}

/// Every creating POST takes an Idempotency-Key: retries, in a row or at once, create one
/// resource and all get the first answer (a player and a tournament here).
#[actix_web::test]
async fn retried_creating_posts_with_one_key_create_once() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for (path, body) in [
        ("/api/v1/players", json!({"name": "Once Only"})),
        (
            "/api/v1/tournaments",
            json!({"name": "Once Open", "game": "Agricola", "ruleset": "agricola_norway",
                   "planned_rounds": 4, "starts_on": "2026-12-05", "time_zone": "Europe/Oslo"}),
        ),
    ] {
        let send = || {
            app.req(reqwest::Method::POST, path, Some(&admin))
                .header(
                    "idempotency-key",
                    format!("create-once{}", path.replace('/', "-")),
                )
                .json(&body)
                .send()
        };
        let first = send().await.unwrap();
        let status = first.status();
        let location = first.headers().get("location").cloned();
        let first: Value = first.json().await.unwrap();
        assert_eq!(status, 201, "{path}: {first}");
        let location = location.unwrap();
        for r in join_all((0..4).map(|_| send())).await {
            let r = r.unwrap();
            assert_eq!(r.status(), 201);
            assert_eq!(r.headers()["location"], location);
            assert_eq!(r.json::<Value>().await.unwrap(), first);
        }
    }
    let players: Value = app
        .get("/api/v1/players?q=once", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(players["total"], 1);
    let tournaments: Value = app
        .get("/api/v1/tournaments", Some(&admin))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(tournaments["total"], 1);
}

/// Two organisers dismissing each other at once: one dismissal wins, one organiser remains
/// (the count of organisers and the dismissal run one at a time per tournament).
#[actix_web::test]
async fn two_organisers_dismissing_each_other_at_once_leave_one() {
    let app = spawn_app().await;
    let (a, a_token) = app.user("organiser_a").await;
    let (b, b_token) = app.user("organiser_b").await;
    for _ in 0..5 {
        let tid = app.tournament(&a_token, "agricola_norway").await;
        let staff = format!("/api/v1/tournaments/{tid}/staff");
        let r = app
            .post(
                &staff,
                Some(&a_token),
                json!({"user_id": b, "role": "organiser"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let (to_b, to_a) = (
            format!("{staff}/{b}/organiser"),
            format!("{staff}/{a}/organiser"),
        );
        let (ra, rb) = futures_util::future::join(
            app.delete_req(&to_b, &a_token),
            app.delete_req(&to_a, &b_token),
        )
        .await;
        let mut statuses = [ra.status().as_u16(), rb.status().as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses[0], 204, "{statuses:?}");
        assert!([403, 409].contains(&statuses[1]), "{statuses:?}");
        let token = if ra.status() == 204 {
            &a_token
        } else {
            &b_token
        };
        let list: Value = app.get(&staff, Some(token)).await.json().await.unwrap();
        let organisers = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["role"] == "organiser")
            .count();
        assert_eq!(organisers, 1, "{list}");
    }
}

/// Two sanctions of one player at once: the first is a warning, the second a game loss (seed
/// 004), never two warnings.
#[actix_web::test]
async fn two_sanctions_at_once_take_two_steps() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = crate::event_fixtures::event(&app, "agricola_norway", 4).await;
    let round =
        crate::event_fixtures::new_round(&app, tid, &org, json!({"method": "random"})).await;
    let path = format!("/api/v1/tournaments/{tid}/penalties");
    let t = &round["draw"]["tables"][0];
    for player in t["seats"].as_array().unwrap() {
        let player = player.as_i64().unwrap();
        let body = json!({"player_id": player, "kind": "sanction", "round": 1,
                          "table": t["number"], "reason": "Abusive language."});
        let answers = join_all(
            [&referee, &org].map(|token| app.post(&path, Some(token.as_str()), body.clone())),
        )
        .await;
        let mut kinds = Vec::new();
        for r in answers {
            assert_eq!(r.status(), 201);
            kinds.push(r.json::<Value>().await.unwrap()["kind"].clone());
        }
        kinds.sort_by_key(|k| k.to_string());
        assert_eq!(kinds, vec![json!("game_loss"), json!("warning")]);
    }
}

/// A registration is judged on the tournament as it stands once locked: registration closed,
/// or its deadline passed, by a change committed while the registration waited for the lock,
/// holds (409, nothing written). Before, the status and deadline were read before the lock,
/// and a player's registration sent while the organiser closed registration got in.
#[actix_web::test]
async fn a_registration_waiting_for_the_lock_meets_the_tournament_as_changed() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let changes = [
        "status = 'running'",
        "registration_deadline = now() - interval '1 minute'",
    ];
    for (i, change) in changes.into_iter().enumerate() {
        let tid = open_tournament(&app, &admin).await;
        let (pid, token) = crate::event_fixtures::account_player(&app, &format!("late{i}")).await;
        let path = format!("/api/v1/tournaments/{tid}/registrations");
        let release = crate::event_fixtures::held_open(
            &app,
            vec![format!("UPDATE tournaments SET {change} WHERE id = {tid}")],
        );
        let mut pending = Box::pin(app.post(&path, Some(&token), json!({"player_id": pid})));
        let early = tokio::time::timeout(std::time::Duration::from_millis(1500), &mut pending);
        if let Ok(r) = early.await {
            panic!("answered during the change: {} ({change})", r.status());
        }
        release.send(()).unwrap();
        let r = pending.await;
        assert_eq!(r.status(), 409, "{change}");
        let list: Value = app.get(&path, Some(&admin)).await.json().await.unwrap();
        assert_eq!(list["total"], 0, "{change}: {list}");
    }
}
