//! Issue 31, item 3: a player's profile and every anonymous page of the player, tournament and
//! rating-pool lists (the first page, a search, a filter, a page by cursor, each under its own
//! query) are kept per instance, like a tournament's reads. Each follows every write that
//! changes it: at once on the instance that took the write, soon on another (the write's
//! notification), and when a row changes in the database without the service (the triggers
//! announce it). Signed-in reads (of the tournament list, they see drafts) stay exact.

use std::time::Duration;

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::helpers::{item_names, second_instance, spawn_app, TestApp};

/// Kept public reads so far: (hits, misses).
async fn kept(app: &TestApp) -> (f64, f64) {
    app.cache_reads("public").await
}

async fn read(app: &TestApp, path: &str) -> Value {
    let r = app.get(path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

/// Reads `path` anonymously until `holds` (every 50 ms, at most 3 s); the last body.
async fn eventually(app: &TestApp, path: &str, holds: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..60 {
        let v = read(app, path).await;
        if holds(&v) {
            return v;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{path} never showed the change: {}", read(app, path).await);
}

/// Reads `path` after the writes' notifications settled until it is kept (twice: a search the
/// index answers in memory is kept once asked again, `KeptReads::missed`), then once more,
/// which the kept body answers.
async fn warm(app: &TestApp, path: &str) -> Value {
    actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    read(app, path).await;
    read(app, path).await;
    let (hits, misses) = kept(app).await;
    let v = read(app, path).await;
    assert_eq!(kept(app).await, (hits + 1.0, misses), "{path} was kept");
    v
}

fn sql(app: &TestApp, statement: &str) {
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query(statement).execute(&mut conn).unwrap();
}

#[actix_web::test]
async fn a_player_profile_is_kept_and_follows_every_change() {
    let app = spawn_app().await;
    let other = second_instance(&app).await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Ada", "club": "Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let path = format!("/api/v1/players/{id}");
    assert_eq!(warm(&app, &path).await["name"], "Ada");
    assert_eq!(warm(&other, &path).await["name"], "Ada");

    // Renamed through the first instance: it answers with the new name at once, the other soon.
    let r = app
        .patch(&path, Some(&admin), json!({"name": "Ada Lovelace"}))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(read(&app, &path).await["name"], "Ada Lovelace");
    eventually(&other, &path, |p| p["name"] == "Ada Lovelace").await;

    // Changed in the database behind the service's back: the trigger announces it.
    warm(&app, &path).await;
    sql(
        &app,
        &format!("UPDATE players SET club = 'Bergen' WHERE id = {id}"),
    );
    eventually(&app, &path, |p| p["club"] == "Bergen").await;
    eventually(&other, &path, |p| p["club"] == "Bergen").await;

    // A signed-in read is exact and not counted as kept.
    let before = kept(&app).await;
    let r = app.get(&path, Some(&admin)).await;
    assert_eq!(r.json::<Value>().await.unwrap()["club"], "Bergen");
    assert_eq!(kept(&app).await, before);
    // No such player: 404, and nothing kept under it.
    assert_eq!(app.get("/api/v1/players/987654", None).await.status(), 404);
    assert_eq!(app.get("/api/v1/players/987654", None).await.status(), 404);
}

#[actix_web::test]
async fn the_first_page_of_players_follows_new_changed_and_removed_players() {
    let app = spawn_app().await;
    let other = second_instance(&app).await;
    let admin = app.admin_token().await;
    let list = "/api/v1/players";
    assert!(item_names(&warm(&app, list).await).is_empty());
    assert!(item_names(&warm(&other, list).await).is_empty());

    let r = app.post(list, Some(&admin), json!({"name": "Bo"})).await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        item_names(&read(&app, list).await),
        ["Bo"],
        "at once where written"
    );
    eventually(&other, list, |p| item_names(p) == ["Bo"]).await;

    // Inserted, renamed and deleted in the database directly.
    warm(&app, list).await;
    sql(
        &app,
        "INSERT INTO players (name, created_by) SELECT 'Cai', min(id) FROM users",
    );
    eventually(&app, list, |p| item_names(p) == ["Bo", "Cai"]).await;
    warm(&app, list).await;
    sql(
        &app,
        &format!("UPDATE players SET name = 'Ari' WHERE id = {id}"),
    );
    eventually(&app, list, |p| item_names(p) == ["Ari", "Cai"]).await;
    eventually(&other, list, |p| item_names(p) == ["Ari", "Cai"]).await;
    warm(&app, list).await;
    sql(&app, "DELETE FROM players WHERE name = 'Cai'");
    eventually(&app, list, |p| item_names(p) == ["Ari"] && p["total"] == 1).await;

    // A page with parameters is kept under its own query.
    assert_eq!(
        item_names(&warm(&app, "/api/v1/players?limit=1").await),
        ["Ari"]
    );
    assert_eq!(item_names(&read(&app, list).await), ["Ari"]);
}

/// Reads `path` anonymously: its body and `Link` header.
async fn read_linked(app: &TestApp, path: &str) -> (Value, Option<String>) {
    let r = app.get(path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    let link = r
        .headers()
        .get("link")
        .map(|l| l.to_str().unwrap().to_string());
    (r.json().await.unwrap(), link)
}

/// The path of the `next` link in `link`.
fn next_of(link: &str) -> String {
    let start = link.find("</api/").unwrap() + 1;
    let end = start + link[start..].find(">; rel=\"next\"").unwrap();
    link[start..end].to_string()
}

#[actix_web::test]
async fn searches_and_pages_by_cursor_are_kept_per_query_with_their_links() {
    let app = spawn_app().await;
    let other = second_instance(&app).await;
    let admin = app.admin_token().await;
    for name in ["Øystein Ødegård", "Oda Berg", "Per Stad", "Åse Stadheim"] {
        let r = app
            .post("/api/v1/players", Some(&admin), json!({ "name": name }))
            .await;
        assert_eq!(r.status(), 201);
    }
    let search = "/api/v1/players?q=stad";
    actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        item_names(&warm(&app, search).await),
        ["Per Stad", "Åse Stadheim"]
    );
    assert_eq!(
        item_names(&warm(&app, "/api/v1/players?q=oystein").await),
        ["Øystein Ødegård"]
    );

    // Pages by cursor: the kept page answers with the `Link` it was kept with.
    let (first, link) = read_linked(&app, "/api/v1/players?limit=2").await;
    assert_eq!(item_names(&first), ["Oda Berg", "Per Stad"]);
    let next = next_of(&link.expect("a next link"));
    assert!(next.contains("cursor="), "{next}");
    let (second, second_link) = read_linked(&app, &next).await;
    assert_eq!(item_names(&second), ["Åse Stadheim", "Øystein Ødegård"]);
    assert_eq!(item_names(&warm(&app, &next).await), item_names(&second));
    assert_eq!(read_linked(&app, &next).await.1, second_link);

    // A rename through the API: at once where written, soon on the other instance.
    warm(&other, search).await;
    let oda = first["items"][0]["id"].as_i64().unwrap();
    let r = app
        .patch(
            &format!("/api/v1/players/{oda}"),
            Some(&admin),
            json!({"name": "Oda Stad"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        item_names(&read(&app, search).await),
        ["Oda Stad", "Per Stad", "Åse Stadheim"]
    );
    eventually(&other, search, |p| item_names(p).len() == 3).await;

    // Removed in the database: the search and the page by cursor both follow.
    warm(&app, search).await;
    warm(&app, &next).await;
    sql(&app, "DELETE FROM players WHERE name = 'Åse Stadheim'");
    eventually(&app, search, |p| item_names(p) == ["Oda Stad", "Per Stad"]).await;
    eventually(&app, &next, |p| item_names(p) == ["Øystein Ødegård"]).await;

    // Signed in: exact, never counted as kept.
    let before = kept(&app).await;
    let r = app.get(search, Some(&admin)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(kept(&app).await, before);
}

#[actix_web::test]
async fn the_first_page_of_tournaments_shows_published_ones_and_follows_changes() {
    let app = spawn_app().await;
    let other = second_instance(&app).await;
    let admin = app.admin_token().await;
    let list = "/api/v1/tournaments";
    assert!(item_names(&warm(&app, list).await).is_empty());
    assert!(item_names(&warm(&other, list).await).is_empty());

    // A draft: not in the anonymous list (kept or not), in its organiser's.
    let tid = app.tournament(&admin, "agricola_norway").await;
    assert!(item_names(&read(&app, list).await).is_empty());
    let mine: Value = app.get(list, Some(&admin)).await.json().await.unwrap();
    assert_eq!(item_names(&mine), ["Test Open"]);

    // Published: at once where written, soon on the other instance.
    let path = format!("{list}/{tid}");
    let r = app
        .patch_if_match(
            &path,
            Some(&admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(item_names(&read(&app, list).await), ["Test Open"]);
    eventually(&other, list, |p| item_names(p) == ["Test Open"]).await;

    // Renamed through the API, then in the database.
    warm(&app, list).await;
    warm(&other, list).await;
    let r = app
        .patch_if_match(&path, Some(&admin), 2, json!({"name": "Renamed Open"}))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(item_names(&read(&app, list).await), ["Renamed Open"]);
    eventually(&other, list, |p| item_names(p) == ["Renamed Open"]).await;
    warm(&other, list).await;
    sql(
        &app,
        &format!("UPDATE tournaments SET name = 'Sql Open' WHERE id = {tid}"),
    );
    eventually(&other, list, |p| item_names(p) == ["Sql Open"]).await;
}

#[actix_web::test]
async fn the_first_page_of_pools_follows_new_and_changed_pools() {
    let app = spawn_app().await;
    let other = second_instance(&app).await;
    let admin = app.admin_token().await;
    let list = "/api/v1/rating-pools";
    assert!(item_names(&warm(&app, list).await).is_empty());
    assert!(item_names(&warm(&other, list).await).is_empty());

    let body = json!({"name": "Tantrix", "preset": "tantrix", "time_zone": "Europe/Berlin"});
    let r = app.post(list, Some(&admin), body).await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    assert_eq!(item_names(&read(&app, list).await), ["Tantrix"]);
    eventually(&other, list, |p| item_names(p) == ["Tantrix"]).await;

    warm(&app, list).await;
    warm(&other, list).await;
    let path = format!("{list}/{id}");
    let r = app
        .patch_if_match(&path, Some(&admin), 1, json!({"name": "Tantrix DE"}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(item_names(&read(&app, list).await), ["Tantrix DE"]);
    eventually(&other, list, |p| item_names(p) == ["Tantrix DE"]).await;
    warm(&app, list).await;
    sql(
        &app,
        &format!("UPDATE rating_pools SET name = 'Sql pool' WHERE id = {id}"),
    );
    eventually(&app, list, |p| item_names(p) == ["Sql pool"]).await;
}
