//! Issue 16: the live feed from PostgreSQL notifications. One LISTEN connection per instance
//! fans out to every SSE client: idle subscribers send no query to the database (each polled
//! it once a second before), and an event written through one instance reaches the streams of
//! another.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use reqwest::Method;
use serde_json::json;

use crate::helpers::{cluster_admin, second_instance, spawn_app, TestApp};

/// A public tournament of the admin's, open for registration.
async fn open_tournament(app: &TestApp, admin: &str) -> i64 {
    let tid = app.tournament(admin, "tantrix").await;
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    tid
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Queries the service's connections to `db` started in the last `seconds` (its own
/// connections only: ours go to the `postgres` database; the scheduling job's connection, one
/// fixed query a second whatever the number of subscribers, is left out).
fn recent_queries(conn: &mut PgConnection, db: &str, seconds: i32) -> i64 {
    diesel::sql_query(
        "SELECT count(*) AS n FROM pg_stat_activity
         WHERE datname = $1 AND query_start > now() - make_interval(secs => $2)
           AND application_name <> 'tourney-jobs'",
    )
    .bind::<Text, _>(db)
    .bind::<diesel::sql_types::Integer, _>(seconds)
    .get_result::<Count>(conn)
    .expect("pg_stat_activity")
    .n
}

#[actix_web::test]
async fn idle_subscribers_send_no_queries() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let tid = open_tournament(&app, &admin).await;
    let mut streams = Vec::new();
    for _ in 0..20 {
        let mut s = app
            .req(
                Method::GET,
                &format!("/api/v1/tournaments/{tid}/events"),
                None,
            )
            .send()
            .await
            .unwrap();
        assert_eq!(s.status(), 200);
        // The first chunk (a keep-alive comment) says the stream is set up.
        s.chunk().await.unwrap().expect("stream open");
        streams.push(s);
    }
    let (mut su, db) = cluster_admin(&app.database_url);
    actix_web::rt::time::sleep(std::time::Duration::from_millis(3500)).await;
    // Twenty streams polling once a second would have queried within the last 2 s.
    assert_eq!(recent_queries(&mut su, &db, 2), 0);

    // And an event still reaches every one of them.
    let p = app
        .post("/api/v1/players", Some(&admin), json!({"name": "Live"}))
        .await;
    let pid = p.json::<serde_json::Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&admin),
            json!({"player_id": pid}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(&admin),
            json!({"player_id": pid, "kind": "warning", "reason": "late"}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    for s in &mut streams {
        let mut seen = String::new();
        while !seen.contains("event: penalty") {
            let chunk = s.chunk().await.unwrap().expect("stream open");
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

#[actix_web::test]
async fn an_event_written_through_one_instance_reaches_the_other() {
    let a = spawn_app().await;
    let b = second_instance(&a).await;
    let admin = a.admin_token().await;
    let tid = open_tournament(&a, &admin).await;
    let mut feed = b
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events"),
            None,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(feed.status(), 200);
    feed.chunk().await.unwrap().expect("stream open");
    let p = a
        .post("/api/v1/players", Some(&admin), json!({"name": "Across"}))
        .await;
    let pid = p.json::<serde_json::Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    let r = a
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&admin),
            json!({"player_id": pid}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = a
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(&admin),
            json!({"player_id": pid, "kind": "warning", "reason": "late"}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let mut seen = String::new();
    while !seen.contains("event: penalty") {
        let chunk = feed.chunk().await.unwrap().expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains(&format!("\"player_id\":{pid}")), "{seen}");
}
