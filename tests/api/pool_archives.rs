//! Issue 32, item 2: a rating pool's archive (settings, seasons, rating imports, accepted
//! tournaments, rating log) imported into another instance gives the same leaderboard.

use serde_json::{json, Value};

use crate::case_fixtures::{ok, patch_tournament};
use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{problem, spawn_app, TestApp};

fn board_rows(board: &Value) -> Vec<Value> {
    board["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["player_name"], r["rating"], r["games"], r["rank"]]))
        .collect()
}

async fn board(app: &TestApp, pool: i64) -> Value {
    let path =
        format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true&limit=200");
    ok(app.get(&path, None).await, 200).await
}

#[actix_web::test]
async fn a_pool_moves_to_another_instance_with_the_same_leaderboard() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let admin = a.admin_token().await;
    let r = a
        .post("/api/v1/rating-pools", Some(&admin),
              json!({"name": "Agricola Norway", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}))
        .await;
    let pool = ok(r, 201).await["id"].as_i64().unwrap();
    // Two accepted tournaments sharing players, and a third that was not accepted.
    let (t1, org, referee, players) = event(&a, "agricola_norway", 8).await;
    patch_tournament(&a, t1, &org, json!({"rating_pool_id": pool})).await;
    a.accept_rating(pool, t1).await;
    let r1 = new_round(&a, t1, &org, json!({"method": "random"})).await;
    play_round(&a, t1, &referee, &r1, |p| 10 + p % 7).await;
    // A rating import of an earlier list for two of them.
    let csv = format!(
        "player_id,rating,games\n{},1612.5,41\n{},1420,12\n",
        players[0], players[1]
    );
    let r = a
        .post(
            &format!("/api/v1/rating-pools/{pool}/imports"),
            Some(&admin),
            json!({"applies_from": "2026-01-01", "source": "NAF list 2025", "csv": csv}),
        )
        .await;
    ok(r, 201).await;
    let r2 = new_round(&a, t1, &org, json!({"method": "random"})).await;
    play_round(&a, t1, &referee, &r2, |p| 30 - p % 5).await;
    let t3 = a.tournament(&org, "agricola_norway").await;
    patch_tournament(&a, t3, &org, json!({"rating_pool_id": pool})).await;

    let path = format!("/api/v1/rating-pools/{pool}/archive");
    problem(a.get(&path, Some(&org)).await, 403).await;
    let archive = ok(a.get(&path, Some(&admin)).await, 200).await;
    assert_eq!(archive["format"], "tourney.pool-archive");
    assert_eq!(
        archive["content"]["tournaments"].as_array().unwrap().len(),
        1,
        "only the accepted one"
    );
    assert_eq!(
        archive["content"]["import_rows"].as_array().unwrap().len(),
        2
    );
    assert!(!archive["content"]["rating_log"]
        .as_array()
        .unwrap()
        .is_empty());

    let admin_b = b.admin_token().await;
    ok(
        b.post(
            "/api/v1/players",
            Some(&admin_b),
            json!({"name": "Someone else"}),
        )
        .await,
        201,
    )
    .await;
    // A changed archive is refused whole.
    let mut changed = archive.clone();
    changed["content"]["pool"]["name"] = json!("Renamed");
    let p = problem(
        b.post(
            "/api/v1/pool-imports",
            Some(&admin_b),
            json!({"archive": changed, "trust_key": a.archive_key().await}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(p["errors"][0]["field"], "archive.digest", "{p}");
    let out = ok(
        b.post(
            "/api/v1/pool-imports",
            Some(&admin_b),
            json!({"archive": archive, "trust_key": a.archive_key().await}),
        )
        .await,
        201,
    )
    .await;
    let pool_b = out["pool_id"].as_i64().unwrap();
    let (la, lb) = (board(&a, pool).await, board(&b, pool_b).await);
    assert_eq!(la["total"], 8);
    assert_eq!(
        board_rows(&la),
        board_rows(&lb),
        "the imported leaderboard equals the original"
    );
    let pa = ok(
        a.get(&format!("/api/v1/rating-pools/{pool}"), None).await,
        200,
    )
    .await;
    let pb = ok(
        b.get(&format!("/api/v1/rating-pools/{pool_b}"), None).await,
        200,
    )
    .await;
    for k in ["name", "time_zone", "league", "open", "seasons"] {
        assert_eq!(pa[k], pb[k], "{k}");
    }
    let ia = ok(
        a.get(&format!("/api/v1/rating-pools/{pool}/imports"), None)
            .await,
        200,
    )
    .await;
    let ib = ok(
        b.get(&format!("/api/v1/rating-pools/{pool_b}/imports"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(ia["total"], ib["total"]);
}
