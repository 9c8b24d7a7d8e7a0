//! A country stored before archives were checked (`=1+2`) is written to the leaderboard's CSV
//! as text, like the name and club.

use diesel::prelude::*;
use serde_json::json;

use crate::helpers::spawn_app;
use crate::rating_fixtures::db;

use super::support::*;

#[actix_web::test]
async fn the_leaderboard_csv_writes_the_country_as_text() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = agricola_pool(&app, &admin, "Club list", json!({"open": true})).await;
    let field = players(&app, &admin, "Player", 4).await;
    diesel::sql_query("UPDATE players SET country = '=1+2' WHERE id = $1")
        .bind::<diesel::sql_types::BigInt, _>(field[0])
        .execute(&mut db(&app))
        .unwrap();
    let day = days_ago(10);
    let tid = id(&rated_tournament(&app, &admin, Some(pool_id), &day).await);
    open_with(&app, tid, &admin, &field).await;
    play(&app, tid, &admin, &at(&day, 12), &field).await;
    let path = format!(
        "/api/v1/rating-pools/{pool_id}/leaderboard?format=csv&include_provisional=true&limit=200"
    );
    let csv = app.get(&path, None).await.text().await.unwrap();
    assert!(csv.contains(",'=1+2,"), "the player is listed: {csv}");
    for line in csv.lines() {
        for cell in line.split(',') {
            assert!(!cell.starts_with(['=', '+', '@']), "a live formula: {line}");
        }
    }
}
