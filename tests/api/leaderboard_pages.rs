//! The leaderboard by cursor (issue 31 item 1): the `next` link's cursor walks the same lines
//! as offsets do, for every filter and for a season; a cursor is refused on another pool or
//! with other filters; a board that changes between pages neither repeats nor skips a line
//! whose keys did not change; the CSV checks the parameters and holds every row.

use diesel::sql_types::{Double, Int8};
use diesel::RunQueryDsl;
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{
    completed_round, crowd, db, draw, feed, notified, player, pool, result, tournament, win,
};

fn link(r: &reqwest::Response, rel: &str) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?.to_string();
    link.split(", ")
        .find(|l| l.ends_with(&format!("rel=\"{rel}\"")))
        .map(|l| l[1..l.find('>').unwrap()].to_string())
}

/// Follows `next` links from `first` to the end: every page's items in order, and how many
/// pages. Checks each page's envelope on the way.
async fn walk(app: &TestApp, first: &str, token: Option<&str>) -> (Vec<Value>, usize) {
    let (mut items, mut pages) = (Vec::new(), 0);
    let mut next = Some(first.to_string());
    let mut total = None;
    while let Some(path) = next {
        let r = app.get(&path, token).await;
        assert_eq!(r.status(), 200, "{path}");
        next = link(&r, "next");
        if path.contains("cursor=") {
            assert_eq!(link(&r, "prev"), None, "{path}");
        }
        let page: Value = r.json().await.unwrap();
        assert_eq!(page["total_exact"], true, "{path}");
        assert_eq!(*total.get_or_insert(page["total"].clone()), page["total"]);
        match (&next, page["next_cursor"].as_str()) {
            (Some(l), Some(c)) => assert!(l.contains(&format!("cursor={c}")), "{l}"),
            (None, None) => {}
            other => panic!("link and next_cursor disagree: {other:?}"),
        }
        if path.contains("cursor=") {
            assert_eq!(page["offset"], 0);
        }
        items.extend(page["items"].as_array().unwrap().iter().cloned());
        pages += 1;
        assert!(pages < 500, "the walk does not end");
    }
    (items, pages)
}

/// The same listing read by offsets: pages of `limit` until `total`.
async fn by_offsets(app: &TestApp, path: &str, limit: usize) -> Vec<Value> {
    let mut items = Vec::new();
    loop {
        let url = format!("{path}&limit={limit}&offset={}", items.len());
        let page: Value = app.get(&url, None).await.json().await.unwrap();
        let got = page["items"].as_array().unwrap();
        items.extend(got.iter().cloned());
        if got.is_empty() || items.len() as i64 >= page["total"].as_i64().unwrap() {
            return items;
        }
    }
}

fn ids(items: &[Value]) -> Vec<i64> {
    items
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect()
}

fn next_cursor(page: &Value) -> String {
    page["next_cursor"]
        .as_str()
        .expect("a next cursor")
        .to_string()
}

/// Announces a change written straight to the standings, as the service's writes do.
fn bump(conn: &mut diesel::PgConnection, pool_id: i64) {
    diesel::sql_query(
        "UPDATE rating_pools SET leaderboard_version = leaderboard_version + 1 WHERE id = $1",
    )
    .bind::<Int8, _>(pool_id)
    .execute(conn)
    .unwrap();
    notified();
}

async fn ashes(app: &TestApp, admin: &str, min_games: i64) -> i64 {
    let name = format!("Ashes {}", rand_suffix());
    pool(
        app,
        admin,
        json!({"name": name, "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": min_games},
               "seasons": [{"name": "Marzec", "first_day": "2026-03-01",
                            "last_day": "2026-03-31"}]}),
    )
    .await
}

/// Pools need distinct names.
fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

#[actix_web::test]
async fn a_walk_by_cursor_shows_the_lines_the_offsets_show_for_every_filter() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = ashes(&app, &admin, 3).await;
    crowd(&mut db(&app), pool_id);
    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let mut seen = 0;
    for filters in [
        "include_provisional=false",
        "include_provisional=true",
        "min_games=5",
        "min_games=0&country=PL",
        "include_provisional=true&club=KRAK%C3%93W",
        "country=DE&club=%C5%82%C3%B3d%C5%BA&include_provisional=true",
        "country=NO",
    ] {
        let base = format!("{path}?{filters}");
        let want = by_offsets(&app, &base, 200).await;
        for (token, limit) in [(None, 7), (Some(admin.as_str()), 23)] {
            let (got, pages) = walk(&app, &format!("{base}&limit={limit}"), token).await;
            assert_eq!(got, want, "{filters} limit={limit}");
            assert_eq!(pages, want.len().div_ceil(limit).max(1), "{filters}");
        }
        // A page reached by offset carries a cursor next link too, and the walk from there
        // goes on where the offsets would.
        let (got, _) = walk(&app, &format!("{base}&limit=5&offset=3"), None).await;
        assert_eq!(ids(&got), ids(&want[want.len().min(3)..]), "{filters}");
        seen += want.len();
    }
    assert!(seen > 400, "the walks saw lines: {seen}");
}

#[actix_web::test]
async fn a_cursor_is_refused_on_another_pool_with_other_filters_altered_or_with_an_offset() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = ashes(&app, &admin, 3).await;
    let other = ashes(&app, &admin, 3).await;
    crowd(&mut db(&app), pool_id);
    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let first: Value = app
        .get(&format!("{path}?country=PL&limit=5"), None)
        .await
        .json()
        .await
        .unwrap();
    let c = next_cursor(&first);
    let ok = app
        .get(&format!("{path}?country=pl&limit=5&cursor={c}"), None)
        .await;
    assert_eq!(ok.status(), 200, "the same filters, spelt otherwise");
    let (body, tag) = c.split_once('.').unwrap();
    for bad in [
        format!("{path}?country=PL&cursor={body}.0000000000000000"),
        format!("{path}?country=PL&cursor={body}"),
        format!("{path}?country=PL&cursor=x{c}"),
        format!("{path}?country=PL&cursor=e30.{tag}"),
        format!("{path}?country=PL&cursor="),
        format!("{path}?cursor={c}"),
        format!("{path}?country=DE&cursor={c}"),
        format!("{path}?country=PL&include_provisional=true&cursor={c}"),
        format!("{path}?country=PL&min_games=3&cursor={c}"),
        format!("{path}?country=PL&club=Kraków&cursor={c}"),
        format!("{path}?country=PL&season=1&cursor={c}"),
        format!("/api/v1/rating-pools/{other}/leaderboard?country=PL&cursor={c}"),
        format!("/api/v1/players?cursor={c}"),
        format!("{path}.csv?country=DE&cursor={c}"),
    ] {
        let p = problem(app.get(&bad, None).await, 422).await;
        assert_eq!(fields(&p), ["cursor"], "{bad}");
    }
    for both in [
        format!("{path}?country=PL&offset=5&cursor={c}"),
        format!("{path}.csv?country=PL&offset=0&cursor={c}"),
    ] {
        let p = problem(app.get(&both, None).await, 422).await;
        assert_eq!(fields(&p), ["offset"], "{both}");
    }
    // offset stops at 10,000; limit is checked as before.
    let p = problem(app.get(&format!("{path}?offset=10001"), None).await, 422).await;
    assert_eq!(fields(&p), ["offset"]);
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("cursor"));
    assert_eq!(
        app.get(&format!("{path}?offset=10000"), None)
            .await
            .status(),
        200
    );

    // The CSV takes the same query string and holds every row whatever it says.
    let whole = app
        .get(&format!("{path}.csv?country=PL"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(whole.lines().count() > 6, "{whole}");
    for same in [
        format!("{path}.csv?country=PL&limit=5&cursor={c}"),
        format!("{path}?format=csv&country=PL&limit=5&cursor={c}"),
    ] {
        let r = app.get(&same, None).await;
        assert_eq!(r.status(), 200, "{same}");
        assert_eq!(r.text().await.unwrap(), whole, "{same}");
    }
}

#[actix_web::test]
async fn a_page_by_cursor_has_its_etag_and_anonymous_reads_are_kept_until_a_change() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = ashes(&app, &admin, 3).await;
    crowd(&mut db(&app), pool_id);
    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard?include_provisional=true");
    let first: Value = app
        .get(&format!("{path}&limit=4"), None)
        .await
        .json()
        .await
        .unwrap();
    let url = format!("{path}&limit=4&cursor={}", next_cursor(&first));
    let (r1, r2) = (app.get(&url, None).await, app.get(&url, Some(&admin)).await);
    let etag = r1.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(r2.headers()["etag"].to_str().unwrap(), etag);
    let page: Value = r1.json().await.unwrap();
    assert_eq!(page, r2.json::<Value>().await.unwrap());
    assert_ne!(
        ids(page["items"].as_array().unwrap()),
        ids(first["items"].as_array().unwrap())
    );
    for token in [None, Some(admin.as_str())] {
        let r = app
            .req(reqwest::Method::GET, &url, token)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 304, "{token:?}");
    }
    // Another cursor is another page with another ETag.
    let url2 = format!("{path}&limit=4&cursor={}", next_cursor(&page));
    let r = app
        .req(reqwest::Method::GET, &url2, None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // A change of the board shows at once on the kept page, under a new ETag.
    let mut conn = db(&app);
    let top = page["items"][0]["player_id"].as_i64().unwrap();
    diesel::sql_query(
        "UPDATE rating_standings SET rating = 9999 WHERE pool_id = $1 AND player_id = $2",
    )
    .bind::<Int8, _>(pool_id)
    .bind::<Int8, _>(top)
    .execute(&mut conn)
    .unwrap();
    bump(&mut conn, pool_id);
    let r = app.get(&url, None).await;
    assert_ne!(r.headers()["etag"].to_str().unwrap(), etag);
    let after: Value = r.json().await.unwrap();
    assert!(!ids(after["items"].as_array().unwrap()).contains(&top));
}

/// Sets player `id`'s rating in the pool's standings and announces it.
fn rate(conn: &mut diesel::PgConnection, pool_id: i64, id: i64, rating: f64) {
    diesel::sql_query(
        "UPDATE rating_standings SET rating = $3 WHERE pool_id = $1 AND player_id = $2",
    )
    .bind::<Int8, _>(pool_id)
    .bind::<Int8, _>(id)
    .bind::<Double, _>(rating)
    .execute(conn)
    .unwrap();
    bump(conn, pool_id);
}

#[actix_web::test]
async fn a_board_that_changes_between_pages_neither_repeats_nor_skips_an_unchanged_line() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = ashes(&app, &admin, 1).await;
    let mut conn = db(&app);
    // P1..P10 rated 2000, 1990, ... 1910, five games each.
    let mut p = Vec::new();
    for i in 0..10 {
        let id = player(&app, &admin, &format!("P{}", i + 1), "PL", "Kraków").await;
        diesel::sql_query(
            "INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_delta,
                                           trend_games)
             VALUES ($1, $2, $3, 5, 0, 0)",
        )
        .bind::<Int8, _>(pool_id)
        .bind::<Int8, _>(id)
        .bind::<Double, _>(2000.0 - 10.0 * f64::from(i))
        .execute(&mut conn)
        .unwrap();
        p.push(id);
    }
    bump(&mut conn, pool_id);
    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard?limit=3");
    let page = |url: String| {
        let app = &app;
        async move {
            let r = app.get(&url, None).await;
            assert_eq!(r.status(), 200, "{url}");
            r.json::<Value>().await.unwrap()
        }
    };
    let page1 = page(path.clone()).await;
    assert_eq!(ids(page1["items"].as_array().unwrap()), p[0..3]);

    // P1 drops to the bottom: the offsets would now skip P4; the cursor (after P3's keys) goes
    // on with P4.
    rate(&mut conn, pool_id, p[0], 1000.0);
    let skipped = page(format!("{path}&offset=3")).await;
    assert_eq!(ids(skipped["items"].as_array().unwrap()), p[4..7]);
    let page2 = page(format!("{path}&cursor={}", next_cursor(&page1))).await;
    assert_eq!(ids(page2["items"].as_array().unwrap()), p[3..6]);

    // P9 rises to the top: the offsets would now show P7 again (their second page had it);
    // the cursor (after P6's keys) goes on with P7.
    rate(&mut conn, pool_id, p[8], 2500.0);
    let repeated = page(format!("{path}&offset=6")).await;
    assert_eq!(ids(repeated["items"].as_array().unwrap())[0], p[6]);
    let page3 = page(format!("{path}&cursor={}", next_cursor(&page2))).await;
    assert_eq!(ids(page3["items"].as_array().unwrap()), [p[6], p[7], p[9]]);

    // The line the cursor names has moved away meanwhile (P10 is now first): the next page
    // still starts where its keys sort, with P1, the line that moved below them.
    rate(&mut conn, pool_id, p[9], 3000.0);
    let page4 = page(format!("{path}&cursor={}", next_cursor(&page3))).await;
    assert_eq!(ids(page4["items"].as_array().unwrap()), [p[0]]);
    assert!(page4.get("next_cursor").is_none());
    // Every line whose keys never changed (P2..P8) was shown exactly once; the walk shows the
    // lines that moved where they were when read (P1 twice, P9 never, as it rose past).
    let walked: Vec<i64> = [&page1, &page2, &page3, &page4]
        .iter()
        .flat_map(|pg| ids(pg["items"].as_array().unwrap()))
        .collect();
    for unchanged in &p[1..8] {
        assert_eq!(walked.iter().filter(|x| *x == unchanged).count(), 1);
    }
    assert_eq!(walked.iter().filter(|x| **x == p[0]).count(), 2);
    assert!(!walked.contains(&p[8]));
}

#[actix_web::test]
async fn a_season_leaderboard_walks_by_cursor_as_by_offset() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = ashes(&app, &admin, 2).await;
    let mut p = Vec::new();
    for (i, name) in [
        "Ania", "Bartek", "Cecylia", "Darek", "Ewa", "Filip", "Gosia",
    ]
    .iter()
    .enumerate()
    {
        p.push(
            player(
                &app,
                &admin,
                name,
                if i < 4 { "PL" } else { "DE" },
                "Kraków",
            )
            .await,
        );
    }
    let t = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    for n in 1..=3 {
        let r = completed_round(&mut conn, t, n, &format!("2026-03-07T1{n}:00:00Z"));
        let k = n as usize;
        result(&mut conn, r, 1, 1, win(p[k % 7], p[(k + 1) % 7]));
        result(&mut conn, r, 2, 1, draw(p[(k + 2) % 7], p[(k + 3) % 7]));
        result(&mut conn, r, 3, 1, win(p[(k + 4) % 7], p[(k + 5) % 7]));
    }
    feed(&mut conn, t);
    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard?season=1");
    for filters in [
        "include_provisional=true",
        "min_games=2",
        "country=DE&min_games=1",
    ] {
        let base = format!("{path}&{filters}");
        let want = by_offsets(&app, &base, 200).await;
        assert!(want.len() >= 2, "{filters}: {want:?}");
        let (got, pages) = walk(&app, &format!("{base}&limit=2"), None).await;
        assert_eq!(got, want, "{filters}");
        assert_eq!(pages, want.len().div_ceil(2));
    }
    // A season's cursor is not the current board's, nor another season filter's.
    let first: Value = app
        .get(&format!("{path}&include_provisional=true&limit=2"), None)
        .await
        .json()
        .await
        .unwrap();
    let c = next_cursor(&first);
    let current = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let p = problem(
        app.get(
            &format!("{current}?include_provisional=true&cursor={c}"),
            None,
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["cursor"]);
}
