//! Issue 16: public reads (the tournament, a round's draw, the standings) kept per instance and
//! dropped by change notifications. A warm anonymous read takes no database connection; signed-in
//! reads stay exact; a write shows at once on the instance that took it and on another as soon
//! as its notification arrives; many clients missing at once all get the same answer.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{cluster_admin, second_instance, spawn_app, TestApp};

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Statements the service's connections to `db` started in the last `ms` milliseconds (a
/// connection counts once, with its latest statement; ours go to the `postgres` database; the
/// scheduling job's own connection, one fixed query a second, is left out).
fn recent_statements(conn: &mut PgConnection, db: &str, ms: i32) -> i64 {
    diesel::sql_query(
        "SELECT count(*) AS n FROM pg_stat_activity
         WHERE datname = $1 AND backend_type = 'client backend'
           AND application_name <> 'tourney-jobs'
           AND query_start > now() - make_interval(secs => $2 / 1000.0)",
    )
    .bind::<Text, _>(db)
    .bind::<diesel::sql_types::Integer, _>(ms)
    .get_result::<Count>(conn)
    .expect("pg_stat_activity")
    .n
}

#[derive(QueryableByName, Debug)]
struct Statement {
    #[diesel(sql_type = Text)]
    query: String,
}

fn what(conn: &mut PgConnection, db: &str) -> Vec<String> {
    diesel::sql_query(
        "SELECT query || ' @ ' || query_start::text AS query FROM pg_stat_activity WHERE datname = $1",
    )
    .bind::<Text, _>(db)
    .load::<Statement>(conn)
    .unwrap()
    .into_iter()
    .map(|s| s.query)
    .collect()
}

/// The three kept reads of a tournament with one played round.
fn reads(tid: i64) -> [String; 3] {
    [
        format!("/api/v1/tournaments/{tid}"),
        format!("/api/v1/tournaments/{tid}/rounds/1"),
        format!("/api/v1/tournaments/{tid}/standings"),
    ]
}

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> (String, Value) {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    (etag, r.json().await.unwrap())
}

async fn played_event(app: &TestApp) -> (i64, String, String, Value) {
    let (tid, org, referee, _) = event(app, "agricola_norway", 8).await;
    let round = new_round(app, tid, &org, json!({"method": "random"})).await;
    play_round(app, tid, &referee, &round, |p| 10 + p % 9).await;
    (tid, org, referee, round)
}

#[actix_web::test]
async fn warm_public_reads_take_no_connection_and_staff_reads_stay_exact() {
    let app = spawn_app().await;
    let (tid, org, _, _) = played_event(&app).await;
    // The writes' notifications arrive after the instance already dropped what they changed,
    // and drop the reads kept in between once more: warm up after they arrived.
    app.changes_heard().await;
    for path in reads(tid) {
        get(&app, &path, None).await;
    }
    let (mut su, db) = cluster_admin(&app.database_url);
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert_eq!(recent_statements(&mut su, &db, 1000), 0, "quiet before");

    for _ in 0..30 {
        for path in reads(tid) {
            get(&app, &path, None).await;
            // A revalidation is answered from memory too.
            let etag = app.get(&path, None).await.headers()["etag"].clone();
            let r = app
                .req(Method::GET, &path, None)
                .header("if-none-match", etag)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 304);
        }
    }
    assert_eq!(
        recent_statements(&mut su, &db, 1000),
        0,
        "270 anonymous reads sent no statement: {:?}",
        what(&mut su, &db)
    );

    // The organiser's reads are exact: they query every time.
    for path in reads(tid) {
        get(&app, &path, Some(&org)).await;
    }
    assert!(recent_statements(&mut su, &db, 1000) > 0);
}

#[actix_web::test]
async fn a_write_shows_at_once_on_its_instance_and_soon_on_another() {
    let app = spawn_app().await;
    let other = second_instance(&app).await;
    let (tid, org, referee, round) = played_event(&app).await;
    let mut before = Vec::new();
    for path in reads(tid) {
        let here = get(&app, &path, None).await;
        assert_eq!(get(&other, &path, None).await, here);
        before.push(here);
    }

    // Writes that change each: a new name for the tournament, a stated time of play for the
    // round, a corrected result for the standings. The writer's instance answers the next read
    // of each with the change (before the write's notification reaches its listener).
    let paths = reads(tid);
    let r = app
        .patch_if_match(
            &paths[0],
            Some(&org),
            before[0].1["version"].as_i64().unwrap() as i32,
            json!({"name": "Renamed Open"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let renamed = get(&app, &paths[0], None).await;
    assert_eq!(renamed.1["name"], "Renamed Open");
    let played_at = format!("{}T12:00:00Z", before[0].1["starts_on"].as_str().unwrap());
    let r = app
        .patch(&paths[1], Some(&org), json!({"played_at": played_at}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let moved = get(&app, &paths[1], None).await;
    assert_eq!(moved.1["played_at"], played_at);
    let table = &round["draw"]["tables"][0];
    let seats: Vec<Value> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"player_id": p, "score": 50 + i}))
        .collect();
    let r = app
        .put_if_match(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                table["number"]
            ),
            Some(&referee),
            1,
            json!({"seats": seats, "reason": "recounted"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let corrected = get(&app, &paths[2], None).await;
    assert_ne!(corrected.0, before[2].0, "the standings at once");
    let exact = get(&app, &paths[2], Some(&org)).await;
    assert_eq!(corrected, exact);
    let after = [renamed, moved, corrected];

    // The other instance: once the notification arrives (well within 2 s).
    for (path, expected) in reads(tid).iter().zip(&after) {
        let mut seen = get(&other, path, None).await;
        for _ in 0..200 {
            if seen == *expected {
                break;
            }
            actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
            seen = get(&other, path, None).await;
        }
        assert_eq!(seen, *expected, "{path} on the other instance");
    }
}

#[actix_web::test]
async fn many_clients_missing_at_once_get_one_answer() {
    let app = spawn_app().await;
    let (tid, _, _, _) = played_event(&app).await;
    let path = format!("/api/v1/tournaments/{tid}/standings");
    let reads = (0..32).map(|_| get(&app, &path, None));
    let answers = futures_util::future::join_all(reads).await;
    let exact = get(&app, &path, Some(&app.admin_token().await)).await;
    for a in &answers {
        assert_eq!(a.1, exact.1);
        assert_eq!(a.0, exact.0);
    }
    // A draft's reads are not kept for anyone: 404 to the public, always.
    let draft = app.tournament(&app.admin_token().await, "tantrix").await;
    for _ in 0..3 {
        let r = app
            .get(&format!("/api/v1/tournaments/{draft}/standings"), None)
            .await;
        assert_eq!(r.status(), 404);
    }
}

#[actix_web::test]
async fn a_kept_leaderboard_follows_a_corrected_result_at_once() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway", "time_zone": "Europe/Oslo"}),
        )
        .await;
    let status = r.status();
    let pool: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{pool}");
    let pool = pool["id"].as_i64().unwrap();
    crate::case_fixtures::patch_tournament(&app, tid, &org, json!({"rating_pool_id": pool})).await;
    app.accept_rating(pool, tid).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;

    let path = format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true&limit=5");
    app.changes_heard().await;
    let (etag, board) = get(&app, &path, None).await;
    assert_eq!(board["items"].as_array().unwrap().len(), 5, "{board}");
    let first = app.get(&path, None).await;
    assert!(
        first.headers().contains_key("link"),
        "a page keeps its Link header"
    );

    let (mut su, db) = cluster_admin(&app.database_url);
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1200)).await;
    for _ in 0..50 {
        assert_eq!(get(&app, &path, None).await.0, etag);
    }
    assert_eq!(recent_statements(&mut su, &db, 1000), 0);

    // A corrected result moves ratings: the next anonymous read on this instance has it.
    let table = &round["draw"]["tables"][0];
    let seats: Vec<Value> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"player_id": p, "score": 90 - 20 * i as i64}))
        .collect();
    let r = app
        .put_if_match(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                table["number"]
            ),
            Some(&referee),
            1,
            json!({"seats": seats, "reason": "recounted"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let now = get(&app, &path, None).await;
    assert_ne!(now.0, etag);
    assert_eq!(now, get(&app, &path, Some(&admin)).await);
}
