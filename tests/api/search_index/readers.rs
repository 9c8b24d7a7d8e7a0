//! Issue 42: the rating pools' names in the search index, and signed-in readers' searches
//! answered from it, compared with PostgreSQL's answers as the rest of `search_index` does.

use diesel::prelude::*;
use serde_json::{json, Value};

use super::{agree, exec, from_database, from_index, import, public, searches};
use super::{PLAYER_QUERIES, TOURNAMENT_QUERIES};
use crate::helpers::{item_names, spawn_app, TestApp};

/// Rating pools' searches asked of the index and of PostgreSQL alike.
const POOL_QUERIES: &[&str] = &[
    "q=norge",
    "q=lodz",
    "q=alesund&limit=2",
    "q=league&limit=7",
    "q=league&sort=name&limit=6",
    "q=leage%20kr",
    "q=ligue",
    "q=zzqx",
    "q=league&offset=3&limit=4",
];

/// A rating pool made through the API.
async fn pool(app: &TestApp, admin: &str, name: &str) -> i64 {
    let body = json!({"name": name, "preset": "agricola_norway", "time_zone": "Europe/Oslo"});
    let r = app.post("/api/v1/rating-pools", Some(admin), body).await;
    assert_eq!(r.status(), 201, "{name}");
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

#[actix_web::test]
async fn rating_pools_are_searched_from_the_index_as_postgresql_searches_them() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let first = pool(&app, &admin, "Agricola Norge").await;
    pool(&app, &admin, "Tantrix Łódź League").await;
    pool(&app, &admin, "Ashes Ålesund Open").await;
    // Imported straight into the table (pool names are unique).
    exec(
        &app,
        &format!(
            "INSERT INTO rating_pools (name, params, time_zone, seasons, league, created_by)
             SELECT (ARRAY['Kraków League ', 'Ålesund League ', 'Bergen Ligue '])[1 + g % 3]
                    || g, params, time_zone, seasons, league, created_by
             FROM rating_pools, generate_series(1, 40) g WHERE id = {first}"
        ),
    );
    let norge = agree(&app, "rating-pools", "q=norge").await;
    assert_eq!(item_names(&norge), ["Agricola Norge"]);
    let lodz = agree(&app, "rating-pools", "q=lodz").await;
    assert_eq!(item_names(&lodz), ["Tantrix Łódź League"]);
    for q in POOL_QUERIES {
        agree(&app, "rating-pools", q).await;
    }
    assert_eq!(
        agree(&app, "rating-pools", "q=league&limit=7").await["total"],
        28
    );

    // Renamed, removed and added straight into the table, then read at once, each time
    // under a query string never asked before.
    let (hits, _) = searches(&app).await;
    for i in 0..5 {
        exec(
            &app,
            &format!("UPDATE rating_pools SET name = 'Yarrow Pool {i}' WHERE id = {first}"),
        );
        let page = public(&app, &format!("/api/v1/rating-pools?q=yarrow%20pool%20{i}")).await;
        assert_eq!(
            item_names(&page)[0],
            format!("Yarrow Pool {i}"),
            "{i}: {page}"
        );
        let old = public(
            &app,
            &format!("/api/v1/rating-pools?q=norge&limit={}", 10 + i),
        )
        .await;
        assert_eq!(old["total"], 0, "{i}: {old}");
    }
    assert!(searches(&app).await.0 > hits);
    exec(
        &app,
        "DELETE FROM rating_pools WHERE name LIKE 'Kraków League 3%'",
    );
    pool(&app, &admin, "Kraków League Open").await;
    for q in POOL_QUERIES {
        agree(&app, "rating-pools", q).await;
    }
    let krakow = agree(&app, "rating-pools", "q=krakow&limit=50").await;
    assert_eq!(krakow["total"], 9, "{krakow}");
    assert!(item_names(&krakow)
        .iter()
        .all(|n| !n.starts_with("Kraków League 3")));
}

/// `path` read by `token` (200), and whether the search index answered it.
async fn signed_in(app: &TestApp, path: &str, token: &str) -> (Value, bool) {
    let before = searches(app).await.0;
    let r = app.get(path, Some(token)).await;
    assert_eq!(r.status(), 200, "{path}");
    let body = r.json().await.unwrap();
    (body, searches(app).await.0 == before + 1.0)
}

#[actix_web::test]
async fn a_signed_in_search_is_answered_from_the_index_with_what_the_caller_may_see() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    import(&app);
    // The index is built and answering.
    agree(&app, "players", "q=kar&limit=5").await;
    for q in PLAYER_QUERIES.iter().filter(|q| q.contains("q=")) {
        let (page, indexed) = signed_in(&app, &format!("/api/v1/players?{q}"), &admin).await;
        assert!(indexed, "{q}");
        assert_eq!(page, from_database(&app, "players", q), "{q}");
    }
    // A write, then the writer's search at once: the search sees it.
    for i in 0..5 {
        let name = format!("Qwyzzle Signed{i}");
        let r = app
            .post("/api/v1/players", Some(&admin), json!({ "name": name }))
            .await;
        assert_eq!(r.status(), 201);
        let path = format!("/api/v1/players?q=qwyzzle%20signed{i}&limit=1");
        let (page, _) = signed_in(&app, &path, &admin).await;
        assert_eq!(item_names(&page), [name], "{page}");
    }
    // A draft is seen by its organiser, from the index, and not by the public.
    let tid = app.tournament(&admin, "agricola_norway").await;
    exec(
        &app,
        &format!("UPDATE tournaments SET name = 'Zyxdraft Cup' WHERE id = {tid}"),
    );
    let (mine, indexed) = signed_in(&app, "/api/v1/tournaments?q=zyxdraft", &admin).await;
    assert!(indexed);
    assert_eq!(item_names(&mine), ["Zyxdraft Cup"], "{mine}");
    assert_eq!(mine["items"][0]["status"], "draft", "{mine}");
    let public = from_index(&app, "tournaments", "q=zyxdraft").await;
    assert_eq!(public["total"], 0, "{public}");
    // Every draft of the import is the admin's to see, as PostgreSQL answers the admin.
    let me: Value = app
        .get("/api/v1/me", Some(&admin))
        .await
        .json()
        .await
        .unwrap();
    let caller = tourney::auth::MaybeCaller(Some(tourney::auth::Caller {
        user_id: me["id"].as_i64().unwrap(),
        username: me["username"].as_str().unwrap().to_string(),
        is_admin: true,
        key: None,
        password_at: None,
    }));
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    for q in TOURNAMENT_QUERIES
        .iter()
        .filter(|q| !q.contains("starts_on"))
    {
        let path = format!("/api/v1/tournaments?{q}");
        let (all, indexed) = signed_in(&app, &path, &admin).await;
        assert!(indexed, "{q}");
        let f = serde_urlencoded::from_str(q).unwrap();
        let expected = tourney::services::running::tournament_list::list_tournaments(
            &mut conn, &caller, f, None,
        )
        .unwrap();
        assert_eq!(all, serde_json::to_value(expected).unwrap(), "{q}");
    }
    // A pool renamed beside the service, then searched by a signed-in reader at once.
    let id = pool(&app, &admin, "Signed Pool").await;
    exec(
        &app,
        &format!("UPDATE rating_pools SET name = 'Quorn Signed Pool' WHERE id = {id}"),
    );
    let (pools, indexed) = signed_in(&app, "/api/v1/rating-pools?q=quorn", &admin).await;
    assert!(indexed);
    assert_eq!(item_names(&pools), ["Quorn Signed Pool"], "{pools}");
}
