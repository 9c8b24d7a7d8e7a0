//! Issue 37, item 3: once a keeper accepted a tournament, a change of when its games count
//! (its dates, days, time zone, a completed round's time of play) goes back to the keepers:
//! an organiser alone is refused with 409 naming the field and the list stays as it was; an
//! admin, a keeper who runs the tournament, or anyone in an open pool makes it. Either way it is
//! in the tournament's rating decisions. Result corrections flow as before; a tournament not
//! accepted is not held.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

use super::support::*;

async fn patch(app: &TestApp, token: &str, path: &str, body: Value) -> reqwest::Response {
    app.patch_any(path, Some(token), body).await
}

/// The tournament's rating decisions about time, oldest first (requests and decisions on its
/// status left out): (kind, field, old, new, decided_by).
async fn decisions(app: &TestApp, tid: i64) -> Vec<(String, Value, Value, Value, i64)> {
    let admin = app.admin_token().await;
    let page = get_json(
        app,
        &format!("/api/v1/tournaments/{tid}/rating-decisions?limit=200"),
        Some(&admin),
    )
    .await;
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "status")
        .map(|d| {
            assert_eq!(d["rating_status"], "accepted", "{d}");
            (
                d["kind"].as_str().unwrap().to_string(),
                d["field"].clone(),
                d["old_value"].clone(),
                d["new_value"].clone(),
                d["decided_by"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[actix_web::test]
async fn an_accepted_tournament_is_moved_in_time_only_by_its_keepers() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let admin_id: i64 = get_json(&app, "/api/v1/me", Some(&admin)).await["id"]
        .as_i64()
        .unwrap();
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (keeper_id, keeper_token) = keeper(&app, &admin, pool_id, "rating.officer").await;
    let (org_id, org) = app.user("club.organiser").await;
    let field = players(&app, &admin, "Player", 4).await;
    let day = days_ago(30);
    let t = rated_tournament(&app, &org, Some(pool_id), &day).await;
    let tid = id(&t);
    open_with(&app, tid, &org, &field).await;
    accept(&app, &keeper_token, pool_id, tid).await;
    let round = play(&app, tid, &org, &at(&day, 12), &field).await;
    let board_before = board(&app, pool_id).await;
    let path = format!("/api/v1/tournaments/{tid}");
    let round_path = format!("/api/v1/tournaments/{tid}/rounds/1");

    // The organiser alone: each field refused, naming it; nothing moves.
    let back = days_ago(300);
    for (target, body, field) in [
        (&path, json!({"starts_on": back}), "starts_on"),
        (&path, json!({"days": 2}), "days"),
        (&path, json!({"time_zone": "America/New_York"}), "time_zone"),
        (&round_path, json!({"played_at": at(&day, 8)}), "played_at"),
        (&round_path, json!({"played_at": null}), "played_at"),
    ] {
        let r = patch(&app, &org, target, body).await;
        refused_on(r, 409, field).await;
    }
    let now = tournament(&app, tid, &org).await;
    assert_eq!(now["starts_on"], day);
    assert_eq!(now["rating_status"], "accepted");
    let r = get_json(&app, &round_path, Some(&org)).await;
    assert_eq!(r["played_at"], round["played_at"]);
    assert_eq!(board(&app, pool_id).await, board_before);
    let refused = decisions(&app, tid).await;
    let kinds: Vec<(&str, &Value, i64)> =
        refused.iter().map(|d| (d.0.as_str(), &d.1, d.4)).collect();
    assert_eq!(
        kinds,
        [
            ("time_change_refused", &json!("starts_on"), org_id),
            ("time_change_refused", &json!("days"), org_id),
            ("time_change_refused", &json!("time_zone"), org_id),
            ("time_change_refused", &json!("played_at"), org_id),
            ("time_change_refused", &json!("played_at"), org_id),
        ]
    );
    assert_eq!(refused[0].2, json!(day));
    assert_eq!(refused[0].3, json!(back));

    // What does not move games in time flows: the same dates, a name, a result correction, the
    // time of a round not yet completed.
    let r = patch(
        &app,
        &org,
        &path,
        json!({"starts_on": day, "name": "Renamed"}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let reversed: Vec<i64> = field.iter().rev().copied().collect();
    for t in tables(&round) {
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let place = reversed
                    .iter()
                    .position(|o| *o == p.as_i64().unwrap())
                    .unwrap();
                json!({"player_id": p, "score": 80 - 10 * place as i64})
            })
            .collect();
        let r = app
            .req(
                reqwest::Method::PUT,
                &format!("{round_path}/tables/{}/result", t["number"]),
                Some(&org),
            )
            .header("If-Match", "\"1\"")
            .json(&json!({ "seats": seats, "reason": "scores swapped" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
    assert_ne!(board(&app, pool_id).await, board_before);
    let second = draw(&app, tid, &org, &at(&day, 14)).await;
    let r = patch(
        &app,
        &org,
        &format!("/api/v1/tournaments/{tid}/rounds/{}", second["number"]),
        json!({"played_at": at(&day, 15)}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(decisions(&app, tid).await.len(), refused.len());

    // A keeper who does not run the tournament changes nothing of it (403, as before): they
    // withdraw the acceptance or ask an organiser. An admin moves it: kept as made.
    let r = patch(&app, &keeper_token, &path, json!({"days": 2})).await;
    assert_eq!(r.status(), 403);
    let earlier = days_ago(31);
    let r = patch(
        &app,
        &admin,
        &path,
        json!({"starts_on": earlier, "days": 2}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = patch(&app, &admin, &round_path, json!({"played_at": at(&day, 9)})).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let made = decisions(&app, tid).await;
    let made: Vec<_> = made[refused.len()..].to_vec();
    assert_eq!(
        made.iter()
            .map(|d| (d.0.as_str(), d.1.clone(), d.4))
            .collect::<Vec<_>>(),
        [
            ("time_changed", json!("starts_on"), admin_id),
            ("time_changed", json!("days"), admin_id),
            ("time_changed", json!("played_at"), admin_id),
        ]
    );
    assert_eq!((&made[0].2, &made[0].3), (&json!(day), &json!(earlier)));
    assert_eq!((&made[1].2, &made[1].3), (&json!("1"), &json!("2")));
    assert_eq!(
        tournament(&app, tid, &org).await["rating_status"],
        "accepted"
    );
    same_as_rebuild(&app, &admin, pool_id).await;

    // A keeper who runs their own tournament moves it; the change is kept as theirs.
    let kt = rated_tournament(&app, &keeper_token, Some(pool_id), &day).await;
    let ktid = id(&kt);
    assert_eq!(kt["rating_status"], "accepted");
    let r = patch(
        &app,
        &keeper_token,
        &format!("/api/v1/tournaments/{ktid}"),
        json!({"starts_on": days_ago(29)}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let d = decisions(&app, ktid).await;
    assert_eq!(
        (d[0].0.as_str(), d[0].1.clone(), d[0].4),
        ("time_changed", json!("starts_on"), keeper_id)
    );
}

#[actix_web::test]
async fn tournaments_not_accepted_or_in_open_pools_move_freely() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let closed = agricola_pool(&app, &admin, "Closed", json!({})).await;
    let open = agricola_pool(&app, &admin, "Open", json!({"open": true})).await;
    let (_, org) = app.user("club.organiser").await;
    let day = days_ago(30);
    // Pending: not held, nothing recorded beyond the request.
    let pending = id(&rated_tournament(&app, &org, Some(closed), &day).await);
    let r = patch(
        &app,
        &org,
        &format!("/api/v1/tournaments/{pending}"),
        json!({"starts_on": days_ago(300)}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let page = get_json(
        &app,
        &format!("/api/v1/tournaments/{pending}/rating-decisions"),
        Some(&admin),
    )
    .await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["items"][0]["rating_status"], "pending");
    // Accepted at once in an open pool: the organiser moves it, and it is kept.
    let t = rated_tournament(&app, &org, Some(open), &day).await;
    assert_eq!(t["rating_status"], "accepted");
    let r = patch(
        &app,
        &org,
        &format!("/api/v1/tournaments/{}", id(&t)),
        json!({"time_zone": "Europe/Warsaw"}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let d = decisions(&app, id(&t)).await;
    assert_eq!(
        (
            d[0].0.as_str(),
            d[0].1.clone(),
            d[0].2.clone(),
            d[0].3.clone()
        ),
        (
            "time_changed",
            json!("time_zone"),
            json!("Europe/Oslo"),
            json!("Europe/Warsaw")
        )
    );
}

/// The national rank sets the league's bonus the keeper accepted: once accepted it is held like
/// the dates (refused to an organiser alone, naming the field; made by an admin or a keeper
/// who runs the tournament), and kept in the rating decisions.
#[actix_web::test]
async fn an_accepted_tournaments_national_rank_is_held_like_its_dates() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let admin_id: i64 = get_json(&app, "/api/v1/me", Some(&admin)).await["id"]
        .as_i64()
        .unwrap();
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (_, keeper_token) = keeper(&app, &admin, pool_id, "rating.officer").await;
    let (org_id, org) = app.user("club.organiser").await;
    let field = players(&app, &admin, "Player", 4).await;
    let day = days_ago(30);
    let tid = id(&rated_tournament(&app, &org, Some(pool_id), &day).await);
    let path = format!("/api/v1/tournaments/{tid}");
    // Not accepted yet: the organiser sets it freely.
    let r = patch(&app, &org, &path, json!({"national_rank": true})).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    open_with(&app, tid, &org, &field).await;
    accept(&app, &keeper_token, pool_id, tid).await;
    let r = patch(&app, &org, &path, json!({"national_rank": false})).await;
    let p = refused_on(r, 409, "national_rank").await;
    assert!(p["detail"].as_str().unwrap().contains("keepers"), "{p}");
    assert_eq!(tournament(&app, tid, &org).await["national_rank"], true);
    // The same value is no change.
    let r = patch(
        &app,
        &org,
        &path,
        json!({"national_rank": true, "name": "Renamed"}),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = patch(&app, &admin, &path, json!({"national_rank": false})).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(tournament(&app, tid, &org).await["national_rank"], false);
    let kinds: Vec<(String, Value, Value, Value, i64)> = decisions(&app, tid).await;
    assert_eq!(
        kinds,
        [
            (
                "time_change_refused".to_string(),
                json!("national_rank"),
                json!("true"),
                json!("false"),
                org_id
            ),
            (
                "time_changed".to_string(),
                json!("national_rank"),
                json!("true"),
                json!("false"),
                admin_id
            ),
        ]
    );
}
