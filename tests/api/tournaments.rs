//! Tournaments: organisers own theirs; drafts stay private; staff rules.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app};

#[actix_web::test]
async fn drafts_are_private_until_published() {
    let app = spawn_app().await;
    let (_, org) = app.user("org").await;
    let id = app.tournament(&org, "agricola_norway").await;
    let path = format!("/api/v1/tournaments/{id}");
    problem(app.get(&path, None).await, 404).await;
    assert_eq!(app.get(&path, Some(&org)).await.status(), 200);
    let list: Value = app
        .get("/api/v1/tournaments", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 0);

    let r = app
        .patch_any(&path, Some(&org), json!({"status": "registration_open"}))
        .await;
    assert_eq!(r.status(), 200);
    let r = app.get(&path, None).await;
    assert_eq!(r.status(), 200);
    let t: Value = r.json().await.unwrap();
    assert_eq!(t["status"], "registration_open");
    assert_eq!(t["table_size"], 4);
    assert_eq!(t["version"], 2);
    let list: Value = app
        .get("/api/v1/tournaments", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);
}

#[actix_web::test]
async fn an_organiser_cannot_touch_another_organisers_tournament() {
    let app = spawn_app().await;
    let (_, alice) = app.user("alice").await;
    let (bob_id, bob) = app.user("bob").await;
    let id = app.tournament(&alice, "agricola_norway").await;
    app.tournament(&bob, "agricola_norway").await;
    let path = format!("/api/v1/tournaments/{id}");
    problem(
        app.patch_any(&path, Some(&bob), json!({"name": "Mine now"}))
            .await,
        403,
    )
    .await;
    problem(
        app.post(
            &format!("{path}/staff"),
            Some(&bob),
            json!({"user_id": bob_id, "role": "organiser"}),
        )
        .await,
        403,
    )
    .await;
    // An admin may.
    let admin = app.admin_token().await;
    assert_eq!(
        app.patch_any(&path, Some(&admin), json!({"venue": "Oslo"}))
            .await
            .status(),
        200
    );
    let t: Value = app.get(&path, Some(&alice)).await.json().await.unwrap();
    assert_eq!(t["name"], "Test Open");
    assert_eq!(t["venue"], "Oslo");
}

#[actix_web::test]
async fn stale_if_match_is_412_and_bad_status_steps_409() {
    let app = spawn_app().await;
    let (_, org) = app.user("org").await;
    let id = app.tournament(&org, "tantrix").await;
    let path = format!("/api/v1/tournaments/{id}");
    let r = app
        .patch_if_match(&path, Some(&org), 1, json!({"name": "Renamed"}))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers().get("etag").unwrap(), "\"2\"");
    let r = app
        .patch_if_match(&path, Some(&org), 1, json!({"name": "Lost update"}))
        .await;
    problem(r, 412).await;
    problem(
        app.patch_any(&path, Some(&org), json!({"status": "finished"}))
            .await,
        409,
    )
    .await;
    let t: Value = app.get(&path, Some(&org)).await.json().await.unwrap();
    assert_eq!(t["name"], "Renamed");
    assert_eq!(t["status"], "draft");
}

#[actix_web::test]
async fn the_ruleset_fixes_the_table_size_and_days_fix_the_end() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let body = json!({"name": "Tantrix Cup", "game": "Tantrix", "ruleset": "tantrix",
                      "planned_rounds": 5, "starts_on": "2026-06-12", "days": 3,
                      "time_zone": "Europe/Berlin"});
    let t: Value = app
        .post("/api/v1/tournaments", Some(&token), body)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(t["table_size"], 2);
    assert_eq!(t["ends_on"], "2026-06-14");
    let mut body = json!({"name": "Agricola", "game": "Agricola", "ruleset": "agricola_norway",
                          "planned_rounds": 5, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo",
                          "table_size": 3});
    let p = problem(
        app.post("/api/v1/tournaments", Some(&token), body.clone())
            .await,
        422,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("table_size"));
    body.as_object_mut().unwrap().remove("table_size");
    let t: Value = app
        .post("/api/v1/tournaments", Some(&token), body)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(t["table_size"], 4);
    assert_eq!(t["days"], 1);
    assert_eq!(t["ends_on"], "2026-06-12");
}

#[actix_web::test]
async fn staff_appointments_follow_the_committee_rules() {
    let app = spawn_app().await;
    let (_, org) = app.user("org").await;
    let (referee, _) = app.user("referee").await;
    let mut committee = Vec::new();
    for name in ["member1", "member2", "member3", "member4"] {
        committee.push(app.user(name).await.0);
    }
    let id = app.tournament(&org, "agricola_norway").await;
    let staff = format!("/api/v1/tournaments/{id}/staff");
    let r = app
        .post(
            &staff,
            Some(&org),
            json!({"user_id": referee, "role": "referee"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    problem(
        app.post(
            &staff,
            Some(&org),
            json!({"user_id": referee, "role": "referee"}),
        )
        .await,
        409,
    )
    .await;
    problem(
        app.post(
            &staff,
            Some(&org),
            json!({"user_id": referee, "role": "appeals_committee"}),
        )
        .await,
        409,
    )
    .await;
    for member in &committee[..3] {
        let r = app
            .post(
                &staff,
                Some(&org),
                json!({"user_id": member, "role": "appeals_committee"}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    let p = problem(
        app.post(
            &staff,
            Some(&org),
            json!({"user_id": committee[3], "role": "appeals_committee"}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("three"));
    let list: Value = app.get(&staff, Some(&org)).await.json().await.unwrap();
    let list = list["items"].clone();
    assert_eq!(list.as_array().unwrap().len(), 5);

    let me: Value = app.me(&org).await;
    let org_id = me["id"].as_i64().unwrap();
    let r = app
        .req(
            Method::DELETE,
            &format!("{staff}/{org_id}/organiser"),
            Some(&org),
        )
        .send()
        .await
        .unwrap();
    problem(r, 409).await;
    let r = app
        .req(
            Method::DELETE,
            &format!("{staff}/{referee}/referee"),
            Some(&org),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
}
