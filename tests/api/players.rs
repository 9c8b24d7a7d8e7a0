//! Players: who may create and change them; public reads with ETags.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::signup::sql;

#[actix_web::test]
async fn organisers_create_players_and_the_public_reads_them() {
    let app = spawn_app().await;
    let (_, plain) = app.user("plain").await;
    problem(
        app.post("/api/v1/players", Some(&plain), json!({"name": "Kari"}))
            .await,
        403,
    )
    .await;

    let (_, org) = app.user("org").await;
    app.tournament(&org, "agricola_norway").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&org),
            json!({"name": "  Kari Nordmann ", "club": "Oslo BK", "country": "no"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["name"], "Kari Nordmann");
    assert_eq!(p["country"], "NO");
    let id = p["id"].as_i64().unwrap();

    let r = app.get(&format!("/api/v1/players/{id}"), None).await;
    assert_eq!(r.status(), 200);
    let etag = r
        .headers()
        .get("etag")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(r
        .headers()
        .get("cache-control")
        .unwrap()
        .to_str()
        .unwrap()
        .contains("public"));
    let again = app
        .req(reqwest::Method::GET, &format!("/api/v1/players/{id}"), None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    let list: Value = app
        .get("/api/v1/players?q=nord", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);
    let list: Value = app
        .get("/api/v1/players?q=zzz", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 0);
}

#[actix_web::test]
async fn player_updates_are_validated_and_limited_to_the_creator() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post("/api/v1/players", Some(&admin), json!({"name": "Ola"}))
        .await;
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let p = problem(
        app.patch(
            &format!("/api/v1/players/{id}"),
            Some(&admin),
            json!({"country": "Norway"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["country"]);

    let (_, org) = app.user("other-org").await;
    app.tournament(&org, "tantrix").await;
    problem(
        app.patch(
            &format!("/api/v1/players/{id}"),
            Some(&org),
            json!({"name": "Hacked"}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .patch(
            &format!("/api/v1/players/{id}"),
            Some(&admin),
            json!({"club": "Bergen", "country": null}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["name"], "Ola");
    assert_eq!(p["club"], "Bergen");
    assert_eq!(p["country"], Value::Null);
}

/// Name search ignores case in every alphabet, not only ASCII (Norwegian and Polish names).
#[actix_web::test]
async fn name_search_ignores_case_for_every_alphabet() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for name in ["Øyvind Ås", "Łukasz Żółć", "Kari Nordmann"] {
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                serde_json::json!({"name": name}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    for (q, want) in [
        ("øyvind", &["Øyvind Ås"][..]),
        ("ØYVIND", &["Øyvind Ås"]),
        // diacritics are ignored (issue 31): "ås" is also the "as" of "Łukasz", ranked after
        // the whole word
        ("ås", &["Øyvind Ås", "Łukasz Żółć"]),
        ("łukasz", &["Łukasz Żółć"]),
        ("ŻÓŁĆ", &["Łukasz Żółć"]),
        ("KARI", &["Kari Nordmann"]),
    ] {
        let page: serde_json::Value = app
            .get(&format!("/api/v1/players?q={q}"), None)
            .await
            .json()
            .await
            .unwrap();
        let names: Vec<&str> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, want, "q={q}");
    }
}

async fn rename(app: &TestApp, token: &str, id: i64, body: Value) -> reqwest::Response {
    app.patch(&format!("/api/v1/players/{id}"), Some(token), body)
        .await
}

async fn key(app: &TestApp, token: &str, scopes: Value) -> String {
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(token),
            json!({"name": "script", "scopes": scopes}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A player's creator changes it only while they alone answer for it: before it is linked
/// to an account (even once), rated, or registered in another organiser's tournament. After
/// that the linked account, a keeper of a pool it is rated in (a key with `pools:write`) or an
/// admin does; a rival who typed a real person in does not rename them. Nothing is written on
/// a refusal.
#[actix_web::test]
async fn a_players_creator_loses_it_at_the_link_the_rating_or_anothers_tournament() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (_, rival) = app.user("rival").await;
    let own = app.tournament(&rival, "tantrix").await;
    let (kari_id, kari) = app.user("kari").await;
    let (_, other_org) = app.user("other-org").await;
    let elsewhere = app.tournament(&other_org, "tantrix").await;
    // Before anything: the creator's, in the creator's own tournament too; a stranger's never.
    let p = create(&app, &rival, "Ola").await;
    assert_eq!(
        rename(&app, &rival, p, json!({"name": "Ola N"}))
            .await
            .status(),
        200
    );
    register(&app, own, &rival, p).await;
    assert_eq!(
        rename(&app, &rival, p, json!({"club": "Asker"}))
            .await
            .status(),
        200
    );
    problem(rename(&app, &other_org, p, json!({"name": "X"})).await, 403).await;
    // Registered in another organiser's tournament: no longer the creator's alone.
    register(&app, elsewhere, &other_org, p).await;
    problem(rename(&app, &rival, p, json!({"name": "X"})).await, 403).await;
    problem(rename(&app, &other_org, p, json!({"name": "X"})).await, 403).await;
    assert_eq!(sql_name(&app, p).0, "Ola N");

    // Linked to an account: the creator's rights end, for every field.
    let p = create(&app, &rival, "Kari Nordmann").await;
    let r = rename(&app, &admin, p, json!({"user_id": kari_id})).await;
    assert_eq!(r.status(), 200);
    for body in [
        json!({"name": "Kari the Cheat"}),
        json!({"club": "Nowhere"}),
        json!({"country": "SE"}),
    ] {
        let p403 = problem(rename(&app, &rival, p, body).await, 403).await;
        assert!(p403["detail"].as_str().unwrap().contains("no longer yours"));
    }
    problem(rename(&app, &other_org, p, json!({"name": "X"})).await, 403).await;
    let got = sql_name(&app, p);
    assert_eq!(got, ("Kari Nordmann".to_string(), None, None));
    // The account itself changes its name, club and country (not its link).
    let r = rename(
        &app,
        &kari,
        p,
        json!({"name": "Kari N.", "club": "Asker", "country": "NO"}),
    );
    assert_eq!(r.await.status(), 200);
    problem(rename(&app, &kari, p, json!({"user_id": null})).await, 403).await;
    // Through a key with `tournaments:write`; a key without it is refused before.
    let k = key(&app, &kari, json!(["tournaments:write"])).await;
    assert_eq!(
        rename(&app, &k, p, json!({"club": "Oslo"})).await.status(),
        200
    );
    let k = key(&app, &kari, json!(["read"])).await;
    problem(rename(&app, &k, p, json!({"club": "X"})).await, 403).await;
    // An admin does.
    assert_eq!(
        rename(&app, &admin, p, json!({"club": "Bergen"}))
            .await
            .status(),
        200
    );
    // Unlinked again by an admin: it was linked once, so still not the creator's.
    let r = rename(&app, &admin, p, json!({"user_id": null})).await;
    assert_eq!(r.status(), 200);
    problem(rename(&app, &rival, p, json!({"name": "X"})).await, 403).await;
    problem(rename(&app, &kari, p, json!({"name": "X"})).await, 403).await;
    assert_eq!(
        sql_name(&app, p),
        (
            "Kari N.".to_string(),
            Some("Bergen".to_string()),
            Some("NO".to_string())
        )
    );

    // Rated in a pool: its keepers change it (a key needs `pools:write`), not its creator nor
    // another pool's keeper.
    let p = create(&app, &rival, "Per").await;
    let pool = new_pool(&app, &admin, "Norway").await;
    let other_pool = new_pool(&app, &admin, "Sweden").await;
    let (keeper_id, keeper) = app.user("keeper").await;
    let (other_keeper_id, other_keeper) = app.user("other-keeper").await;
    for (pl, k) in [(pool, keeper_id), (other_pool, other_keeper_id)] {
        sql(&app, &format!("INSERT INTO pool_keepers (pool_id, user_id, granted_by) SELECT {pl}, {k}, min(id) FROM users WHERE is_admin"));
    }
    sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({pool}, {p}, 1500, 3, 3, 0)"));
    problem(rename(&app, &rival, p, json!({"country": "SE"})).await, 403).await;
    problem(
        rename(&app, &other_keeper, p, json!({"name": "X"})).await,
        403,
    )
    .await;
    let k = key(&app, &keeper, json!(["tournaments:write"])).await;
    problem(rename(&app, &k, p, json!({"name": "X"})).await, 403).await;
    assert_eq!(sql_name(&app, p).0, "Per");
    let k = key(&app, &keeper, json!(["tournaments:write", "pools:write"])).await;
    assert_eq!(
        rename(&app, &k, p, json!({"name": "Per H"})).await.status(),
        200
    );
    assert_eq!(
        rename(&app, &keeper, p, json!({"club": "Oslo"}))
            .await
            .status(),
        200
    );
    assert_eq!(sql_name(&app, p).0, "Per H");
}

async fn new_pool(app: &TestApp, admin: &str, name: &str) -> i64 {
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(admin),
            json!({"name": name, "preset": "ashes_poland", "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

/// The player's name, club and country as stored.
fn sql_name(app: &TestApp, id: i64) -> (String, Option<String>, Option<String>) {
    use diesel::prelude::*;
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    let row = diesel::sql_query(format!(
        "SELECT name, club, country FROM players WHERE id = {id}"
    ))
    .load::<NameRow>(&mut conn)
    .expect("player")
    .remove(0);
    (row.name, row.club, row.country)
}

#[derive(diesel::QueryableByName)]
struct NameRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    club: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    country: Option<String>,
}

async fn create(app: &TestApp, token: &str, name: &str) -> i64 {
    let r = app
        .post("/api/v1/players", Some(token), json!({"name": name}))
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn register(app: &TestApp, tid: i64, token: &str, p: i64) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(token),
            json!({"player_id": p}),
        )
        .await;
    assert_eq!(r.status(), 201);
}

/// Linking a player to another account is an operation on accounts: an admin's API key needs
/// the `admin` scope for it, on `PATCH` and on `POST`; a `tournaments:write` key still changes
/// names. Nothing is written on a refusal.
#[actix_web::test]
async fn an_admins_key_links_accounts_only_with_the_admin_scope() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (kari_id, _) = app.user("kari").await;
    let p = create(&app, &admin, "Kari").await;
    let k = key(&app, &admin, json!(["tournaments:write"])).await;
    problem(rename(&app, &k, p, json!({"user_id": kari_id})).await, 403).await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&k),
            json!({"name": "Kari 2", "user_id": kari_id}),
        )
        .await;
    problem(r, 403).await;
    let linked = format!("SELECT 1 FROM players WHERE user_id = {kari_id}");
    assert_eq!(sql(&app, &linked), 0);
    assert_eq!(
        rename(&app, &k, p, json!({"club": "Asker"})).await.status(),
        200
    );
    let k = key(&app, &admin, json!(["admin"])).await;
    assert_eq!(
        rename(&app, &k, p, json!({"user_id": kari_id}))
            .await
            .status(),
        200
    );
    assert_eq!(sql(&app, &linked), 1);
    assert_eq!(
        rename(&app, &admin, p, json!({"user_id": null}))
            .await
            .status(),
        200
    );
    let r = app
        .post(
            "/api/v1/players",
            Some(&k),
            json!({"name": "Kari 2", "user_id": kari_id}),
        )
        .await;
    assert_eq!(r.status(), 201);
}
