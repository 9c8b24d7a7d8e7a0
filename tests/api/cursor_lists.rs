//! More lists by cursor (issue 31 item 1): the accounts (admin) in creation order and a pool's
//! tournaments (its keepers' queue), newest decision first with undecided ones and equal
//! times; the cursor walk equals the order in SQL, items added or removed between pages move
//! nothing, and a cursor is refused elsewhere.

use diesel::sql_types::Int8;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{pool, tournament};

fn sql(app: &TestApp, statement: &str, id: i64) {
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query(statement)
        .bind::<Int8, _>(id)
        .execute(&mut conn)
        .expect(statement);
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = Int8)]
    id: i64,
}

fn sql_ids(app: &TestApp, statement: &str, id: i64) -> Vec<i64> {
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query(statement)
        .bind::<Int8, _>(id)
        .load::<Id>(&mut conn)
        .expect(statement)
        .into_iter()
        .map(|r| r.id)
        .collect()
}

fn link(r: &reqwest::Response, rel: &str) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?.to_string();
    link.split(", ")
        .find(|l| l.ends_with(&format!("rel=\"{rel}\"")))
        .map(|l| l[1..l.find('>').unwrap()].to_string())
}

/// One page: its ids (under `key`), its body, and its `next` link (checked against
/// `next_cursor`).
async fn page(
    app: &TestApp,
    path: &str,
    token: &str,
    key: &str,
) -> (Vec<i64>, Value, Option<String>) {
    let r = app.get(path, Some(token)).await;
    assert_eq!(r.status(), 200, "{path}");
    let next = link(&r, "next");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["total_exact"], true, "{path}");
    match (&next, body["next_cursor"].as_str()) {
        (Some(l), Some(c)) => assert!(l.contains(&format!("cursor={c}")), "{l}"),
        (None, None) => {}
        other => panic!("link and next_cursor disagree: {other:?}"),
    }
    let ids = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].as_i64().unwrap())
        .collect();
    (ids, body, next)
}

/// Follows `next` links from `first` to the end: the ids in order.
async fn walk(app: &TestApp, first: &str, token: &str, key: &str) -> Vec<i64> {
    let (mut all, mut next) = (Vec::new(), Some(first.to_string()));
    while let Some(path) = next {
        let (ids, body, n) = page(app, &path, token, key).await;
        if path.contains("cursor=") {
            assert_eq!(body["offset"], 0);
        }
        all.extend(ids);
        next = n;
        assert!(all.len() < 1000, "the walk does not end");
    }
    all
}

async fn refused(app: &TestApp, path: &str, token: &str, field: &str) {
    let p = problem(app.get(path, Some(token)).await, 422).await;
    assert_eq!(fields(&p), [field], "{path}");
}

#[actix_web::test]
async fn accounts_page_by_cursor_in_creation_order() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut made = Vec::new();
    for name in ["ula", "vera", "wiktor", "xenia", "yann"] {
        made.push(app.user(name).await.0);
    }
    sql(
        &app,
        "UPDATE users SET deleted_at = now() WHERE id = $1",
        made[1],
    );
    let live = "SELECT id FROM users WHERE deleted_at IS NULL AND id > $1 ORDER BY id";
    let want = sql_ids(&app, live, 0);
    assert!(want.len() >= 5 && !want.contains(&made[1]));
    assert_eq!(
        walk(&app, "/api/v1/users?limit=2", &admin, "id").await,
        want
    );
    let (whole, body, _) = page(&app, "/api/v1/users", &admin, "id").await;
    assert_eq!(
        (whole, body["total"].clone()),
        (want.clone(), json!(want.len()))
    );

    // Between two pages one account is deleted and one made: the walk goes on after the last
    // id shown, and the new account comes at its end.
    let (first, body, _) = page(&app, "/api/v1/users?limit=2", &admin, "id").await;
    let c = body["next_cursor"].as_str().unwrap().to_string();
    sql(
        &app,
        "UPDATE users SET deleted_at = now() WHERE id = $1",
        made[2],
    );
    let newcomer = app.user("zofia").await.0;
    let rest = walk(
        &app,
        &format!("/api/v1/users?limit=2&cursor={c}"),
        &admin,
        "id",
    )
    .await;
    let mut both = first.clone();
    both.extend(rest);
    assert_eq!(both, sql_ids(&app, live, 0));
    assert_eq!(both.last(), Some(&newcomer));

    let (body_part, _) = c.split_once('.').unwrap();
    refused(
        &app,
        &format!("/api/v1/users?cursor={body_part}.0000000000000000"),
        &admin,
        "cursor",
    )
    .await;
    refused(
        &app,
        &format!("/api/v1/users?offset=2&cursor={c}"),
        &admin,
        "offset",
    )
    .await;
    refused(
        &app,
        &format!("/api/v1/players?cursor={c}"),
        &admin,
        "cursor",
    )
    .await;
    let (_, token) = app.user("nobody").await;
    problem(
        app.get(&format!("/api/v1/users?cursor={c}"), Some(&token))
            .await,
        403,
    )
    .await;
}

#[actix_web::test]
async fn a_pools_tournaments_page_by_cursor_newest_decision_first() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let body = json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"});
    let pool_id = pool(&app, &admin, body).await;
    let other = pool(
        &app,
        &admin,
        json!({"name": "Ashes B", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let mut t = Vec::new();
    for day in 1..=9 {
        t.push(
            tournament(
                &app,
                &admin,
                "ashes_league",
                pool_id,
                &format!("2026-04-0{day}"),
            )
            .await,
        );
    }
    // Decision times with ties and undecided ones (as imported archives may have), statuses
    // alternating.
    sql(
        &app,
        "UPDATE tournaments SET
             rating_decided_at = CASE id % 4
                 WHEN 0 THEN NULL
                 WHEN 1 THEN timestamptz '2026-05-01 10:00:00+00'
                 ELSE timestamptz '2026-05-01 10:00:00+00' + (id || ' minutes')::interval END,
             rating_status = CASE WHEN id % 2 = 0 THEN 'pending' ELSE 'accepted' END
         WHERE rating_pool_id = $1",
        pool_id,
    );
    let order = "ORDER BY rating_decided_at DESC NULLS FIRST, id DESC";
    let path = format!("/api/v1/rating-pools/{pool_id}/tournaments");
    for (filter, cond) in [
        ("", ""),
        ("rating_status=pending&", "AND rating_status = 'pending'"),
        ("rating_status=accepted&", "AND rating_status = 'accepted'"),
    ] {
        let want = sql_ids(
            &app,
            &format!("SELECT id FROM tournaments WHERE rating_pool_id = $1 {cond} {order}"),
            pool_id,
        );
        assert!(want.len() >= 4, "{filter}: {want:?}");
        for limit in [1, 2, 3] {
            let got = walk(
                &app,
                &format!("{path}?{filter}limit={limit}"),
                &admin,
                "tournament_id",
            )
            .await;
            assert_eq!(got, want, "{filter} limit={limit}");
        }
        let from_offset = walk(
            &app,
            &format!("{path}?{filter}limit=2&offset=1"),
            &admin,
            "tournament_id",
        )
        .await;
        assert_eq!(from_offset, want[1..], "{filter}");
    }
    assert_eq!(t.len(), 9);

    let (_, body, _) = page(
        &app,
        &format!("{path}?rating_status=pending&limit=1"),
        &admin,
        "tournament_id",
    )
    .await;
    let c = body["next_cursor"].as_str().unwrap().to_string();
    refused(
        &app,
        &format!("{path}?rating_status=accepted&cursor={c}"),
        &admin,
        "cursor",
    )
    .await;
    refused(&app, &format!("{path}?cursor={c}"), &admin, "cursor").await;
    refused(
        &app,
        &format!("/api/v1/rating-pools/{other}/tournaments?rating_status=pending&cursor={c}"),
        &admin,
        "cursor",
    )
    .await;
    refused(
        &app,
        &format!("{path}?rating_status=pending&offset=0&cursor={c}"),
        &admin,
        "offset",
    )
    .await;
    refused(&app, &format!("{path}?offset=10001"), &admin, "offset").await;
}
