//! A webhook's deliveries by cursor (issue 31 item 1): newest first, the `next` link's cursor
//! walks the whole log however long, deliveries made meanwhile move nothing, the total is
//! counted up to 1,000; a cursor is refused on another webhook, altered, or with an offset.

use diesel::sql_types::Int8;
use diesel::{Connection, RunQueryDsl};
use serde_json::{json, Value};

use crate::event_fixtures::event;
use crate::helpers::{fields, problem, spawn_app, TestApp};

async fn subscribe(app: &TestApp, tid: i64, token: &str, url: &str) -> i64 {
    crate::webhooks_manage::subscribe(app, tid, token, url)
        .await
        .0
}

/// Writes `n` delivered pings into `hook`'s log (the API would take minutes to make them).
fn delivered(app: &TestApp, hook: i64, n: i64) {
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query(
        "INSERT INTO webhook_deliveries
             (endpoint_id, event_id, kind, body, status, attempts, delivered_at)
         SELECT $1, NULL, 'ping', jsonb_build_object('n', g), 'delivered', 1, now()
         FROM generate_series(1, $2) g",
    )
    .bind::<Int8, _>(hook)
    .bind::<Int8, _>(n)
    .execute(&mut conn)
    .unwrap();
}

fn link(r: &reqwest::Response, rel: &str) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?.to_string();
    link.split(", ")
        .find(|l| l.ends_with(&format!("rel=\"{rel}\"")))
        .map(|l| l[1..l.find('>').unwrap()].to_string())
}

fn ids(page: &Value) -> Vec<i64> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect()
}

async fn read(app: &TestApp, path: &str, token: &str) -> (Value, Option<String>) {
    let r = app.get(path, Some(token)).await;
    assert_eq!(r.status(), 200, "{path}");
    let next = link(&r, "next");
    if path.contains("cursor=") {
        assert_eq!(link(&r, "prev"), None, "{path}");
    }
    let page: Value = r.json().await.unwrap();
    match (&next, page["next_cursor"].as_str()) {
        (Some(l), Some(c)) => assert!(l.contains(&format!("cursor={c}")), "{l}"),
        (None, None) => {}
        other => panic!("link and next_cursor disagree: {other:?}"),
    }
    (page, next)
}

#[actix_web::test]
async fn a_long_log_walks_by_cursor_newest_first_and_counts_to_the_cap() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    let hook = subscribe(&app, tid, &org, "https://8.8.8.8/hook").await;
    delivered(&app, hook, 1005);
    let path = format!("/api/v1/webhooks/{hook}/deliveries?limit=200");
    let (first, _) = read(&app, &path, &org).await;
    assert_eq!(
        (first["total"].clone(), first["total_exact"].clone()),
        (json!(1000), json!(false))
    );
    // A delivery made after the first page was read: the cursor's walk goes on below it; the
    // offsets would show the first page's last line again.
    delivered(&app, hook, 1);
    let (by_offset, _) = read(&app, &format!("{path}&offset=200"), &org).await;
    assert_eq!(ids(&by_offset)[0], *ids(&first).last().unwrap());

    let mut walked = ids(&first);
    let mut next = Some(format!(
        "{path}&cursor={}",
        first["next_cursor"].as_str().unwrap()
    ));
    let mut pages = 1;
    while let Some(p) = next {
        let (page, n) = read(&app, &p, &org).await;
        assert_eq!(page["offset"], 0);
        assert_eq!(page["total"], 1000);
        assert_eq!(page["total_exact"], false);
        walked.extend(ids(&page));
        next = n;
        pages += 1;
        assert!(pages < 20, "the walk does not end");
    }
    assert_eq!(pages, 6);
    assert_eq!(walked.len(), 1005);
    assert!(
        walked.windows(2).all(|w| w[0] > w[1]),
        "newest first, each once"
    );
    // The walk from an offset page goes on by cursor where the offsets would.
    let base = format!("/api/v1/webhooks/{hook}/deliveries");
    let (at_400, n) = read(&app, &format!("{base}?offset=400&limit=100"), &org).await;
    assert!(n.unwrap().contains("cursor="));
    // (one delivery was added above the 1,005 walked: offset 400 is walked[399])
    assert_eq!(ids(&at_400), walked[399..499]);
}

#[actix_web::test]
async fn a_short_log_counts_exactly_and_a_cursor_is_refused_elsewhere() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let hook = subscribe(&app, tid, &org, "https://8.8.8.8/a").await;
    let other = subscribe(&app, tid, &org, "https://8.8.8.8/b").await;
    delivered(&app, hook, 3);
    delivered(&app, other, 3);
    let path = format!("/api/v1/webhooks/{hook}/deliveries");
    let (whole, next) = read(&app, &path, &org).await;
    assert_eq!(
        (whole["total"].clone(), whole["total_exact"].clone()),
        (json!(3), json!(true))
    );
    assert!(next.is_none() && whole.get("next_cursor").is_none());
    let (first, next) = read(&app, &format!("{path}?limit=2"), &org).await;
    assert_eq!(first["total"], 3);
    let next = next.expect("a next page");
    let (last, after) = read(&app, &next, &org).await;
    assert!(after.is_none() && last.get("next_cursor").is_none());
    let mut both = ids(&first);
    both.extend(ids(&last));
    assert_eq!(both, ids(&whole));

    let c = first["next_cursor"].as_str().unwrap().to_string();
    let (body, _) = c.split_once('.').unwrap();
    for bad in [
        format!("/api/v1/webhooks/{other}/deliveries?cursor={c}"),
        format!("{path}?cursor={body}.0000000000000000"),
        format!("{path}?cursor={body}"),
        format!("{path}?cursor="),
        format!("/api/v1/players?cursor={c}"),
    ] {
        let p = problem(app.get(&bad, Some(&org)).await, 422).await;
        assert_eq!(fields(&p), ["cursor"], "{bad}");
    }
    let p = problem(
        app.get(&format!("{path}?offset=1&cursor={c}"), Some(&org))
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["offset"]);
    let p = problem(
        app.get(&format!("{path}?offset=10001"), Some(&org)).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["offset"]);
    // A valid cursor opens nothing to those who do not manage the webhook.
    problem(
        app.get(&format!("{path}?cursor={c}"), Some(&referee)).await,
        404,
    )
    .await;
}
