//! Issue 14, items 12 and 17: ratings follow the adjudicated results (domain.md section 10),
//! penalties and game losses included, in the incremental feed and in a rebuild alike.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::event_fixtures::new_round;
use crate::helpers::{spawn_app, TestApp};
use crate::rating_fixtures::{player, pool, rebuild_over_http, tournament};

async fn ratings(app: &TestApp, pool: i64) -> HashMap<i64, f64> {
    let page: Value = app
        .get(
            &format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true&limit=200"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player_id"].as_i64().unwrap(),
                r["rating"].as_f64().unwrap(),
            )
        })
        .collect()
}

async fn penalise(app: &TestApp, tid: i64, token: &str, body: Value) -> i64 {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(token),
            body,
        )
        .await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    v["id"].as_i64().unwrap()
}

/// A Tantrix game won 30-12 is rated as a win; a game loss on the winner, or a point penalty that
/// takes their score below the opponent's, makes it a loss in the ratings as in the standings, at
/// once and after a rebuild; annulling it restores the win.
#[actix_web::test]
async fn ratings_follow_game_losses_and_point_penalties() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix", "preset": "tantrix", "time_zone": "Europe/Berlin"}),
    )
    .await;
    let tid = tournament(&app, &admin, "tantrix", pool_id, "2026-05-02").await;
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let mut ids = Vec::new();
    for name in ["Anna", "Bernd", "Carla", "Dieter"] {
        let p = player(&app, &admin, name, "DE", "Berlin").await;
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&admin),
                json!({"player_id": p}),
            )
            .await;
        assert_eq!(r.status(), 201);
        ids.push(p);
    }
    let round = new_round(&app, tid, &admin, json!({"method": "round_robin"})).await;
    let tables: Vec<(i64, i64, i64)> = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["number"].as_i64().unwrap(),
                t["seats"][0].as_i64().unwrap(),
                t["seats"][1].as_i64().unwrap(),
            )
        })
        .collect();
    for (n, winner, loser) in &tables {
        let r = app
            .put(
                &format!("/api/v1/tournaments/{tid}/rounds/1/tables/{n}/result"),
                Some(&admin),
                json!({"seats": [{"player_id": winner, "score": 30}, {"player_id": loser, "score": 12}]}),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
    let before = ratings(&app, pool_id).await;
    let (t1, w1, l1) = tables[0];
    let (t2, w2, l2) = tables[1];
    assert!(
        before[&w1] > before[&l1] && before[&w2] > before[&l2],
        "{before:?}"
    );

    // A game loss on table 1's winner and a 20-point penalty on table 2's (30 - 20 < 12).
    let gl = penalise(
        &app,
        tid,
        &admin,
        json!({"player_id": w1, "kind": "game_loss", "round": 1, "table": t1, "reason": "slow play"}),
    )
    .await;
    penalise(
        &app,
        tid,
        &admin,
        json!({"player_id": w2, "kind": "point_penalty", "points": 20, "round": 1, "table": t2,
               "reason": "illegal tile placement"}),
    )
    .await;
    let after = ratings(&app, pool_id).await;
    assert!(
        after[&w1] < after[&l1],
        "the game loss reaches the ratings: {after:?}"
    );
    assert!(
        after[&w2] < after[&l2],
        "the point penalty reaches the ratings: {after:?}"
    );
    // The rating history rates the sanctioned game as a loss.
    let history: Value = app
        .get(&format!("/api/v1/players/{w1}/ratings"), None)
        .await
        .json()
        .await
        .unwrap();
    let last = history["items"].as_array().unwrap().last().unwrap().clone();
    assert!(last["delta"].as_f64().unwrap() < 0.0, "{last}");
    // A rebuild from scratch gives the same list.
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(ratings(&app, pool_id).await, after);

    // Annulled, the win counts again.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties/{gl}/annul"),
            Some(&admin),
            json!({"reason": "the clock was faulty"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let annulled = ratings(&app, pool_id).await;
    assert!(annulled[&w1] > annulled[&l1], "{annulled:?}");
    assert_eq!(annulled[&w1], before[&w1]);
}
