//! Issue 32, item 5: a database made by an earlier version of the service survives the
//! migrations. `tests/fixtures/upgrade/main-4d3c751.sql` is a `pg_dump --inserts` of the
//! embedded cluster of main at commit 4d3c751 after `play.py` (beside it) played and rated a
//! three-round Agricola event with a correction through the API; `.served.json` holds what that
//! service answered. The current service, after migrating the dump, serves the same. Every
//! migration's down step is run too (and the schema built again on top of it).

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel_migrations::MigrationHarness;
use serde_json::Value;

use crate::helpers::{cluster_admin, fresh_database, serve_existing};

const DUMP: &str = include_str!("../fixtures/upgrade/main-4d3c751.sql");
const SERVED: &str = include_str!("../fixtures/upgrade/main-4d3c751.served.json");

/// An empty database on the test cluster with the dump loaded; returns its URL.
/// Whatever the earlier version served is served the same now: every field it sent, with the
/// same value, and every list as long and in the same order. Fields added since (e.g. the
/// `total_exact` of a cursor-paged list) are allowed; clients of the earlier version ignore them.
fn served_the_same(now: &Value, then: &Value, at: &str) {
    match (now, then) {
        (Value::Object(now), Value::Object(then)) => {
            for (key, was) in then {
                let is = now
                    .get(key)
                    .unwrap_or_else(|| panic!("{at}.{key} is no longer served"));
                served_the_same(is, was, &format!("{at}.{key}"));
            }
        }
        (Value::Array(now), Value::Array(then)) => {
            assert_eq!(now.len(), then.len(), "{at}: how many");
            for (i, (is, was)) in now.iter().zip(then).enumerate() {
                served_the_same(is, was, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(now, then, "{at} after the upgrade"),
    }
}

fn database_from_dump() -> String {
    let template_copy = fresh_database();
    let (mut admin, name) = cluster_admin(&template_copy);
    let empty = format!("{name}_dump");
    diesel::sql_query(format!("CREATE DATABASE {empty} OWNER tourney"))
        .execute(&mut admin)
        .expect("an empty database");
    let url = template_copy.replacen(&format!("///{name}?"), &format!("///{empty}?"), 1);
    let mut conn = PgConnection::establish(&url).expect("connect to the empty database");
    conn.batch_execute(DUMP).expect("the dump loads");
    url
}

#[actix_web::test]
async fn a_rated_event_from_an_earlier_version_is_served_the_same_after_the_upgrade() {
    let url = database_from_dump();
    {
        let mut conn = PgConnection::establish(&url).expect("connect");
        let pending = conn
            .pending_migrations(tourney::db::MIGRATIONS)
            .expect("pending migrations")
            .len();
        // The dump's migration table knows what it had; the current code adds the rest.
        let applied: Vec<String> = conn
            .applied_migrations()
            .expect("applied migrations")
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert!(
            applied.iter().any(|v| v.ends_with("000018")),
            "the dump carries its schema version: {applied:?} ({pending} pending)"
        );
    }
    tourney::runtime::startup::migrate(&url).expect("the upgrade runs on the old database");
    let app = serve_existing(&url).await;
    let served: Value = serde_json::from_str(SERVED).unwrap();
    let tid = served["tournament_id"].as_i64().unwrap();
    let pool = served["pool_id"].as_i64().unwrap();

    let standings: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    served_the_same(&standings, &served["standings"], "standings");
    let board_path =
        format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true&limit=50");
    let board: Value = app.get(&board_path, None).await.json().await.unwrap();
    assert_eq!(board["total"], 8, "{board}");
    served_the_same(&board, &served["leaderboard"], "leaderboard");
    for p in served["players"].as_array().unwrap() {
        let history: Value = app
            .get(&format!("/api/v1/players/{p}/ratings"), None)
            .await
            .json()
            .await
            .unwrap();
        served_the_same(
            &history,
            &served["ratings"][p.to_string()],
            &format!("player {p}'s ratings"),
        );
    }
    // A rebuild of the upgraded list from its games gives the same list.
    let admin = app.token("alice", "correct horse battery staple").await;
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool}/rebuild"),
            Some(&admin),
            serde_json::json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let rebuilt: Value = app.get(&board_path, None).await.json().await.unwrap();
    assert_eq!(rebuilt["items"], served["leaderboard"]["items"]);
    // Issue 37 item 4: the draws the earlier version made (ratings of many decimals in their
    // inputs) stay verifiable: the tournament's archive recomputes every draw and imports.
    let r = app
        .get(&format!("/api/v1/tournaments/{tid}/archive"), Some(&admin))
        .await;
    assert_eq!(r.status(), 200);
    let archive: Value = r.json().await.unwrap();
    let r = app
        .post(
            "/api/v1/tournament-imports",
            Some(&admin),
            serde_json::json!({"archive": archive}),
        )
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "the earlier version's draws recompute: {body}");
}

#[actix_web::test]
async fn every_migration_steps_down_and_up_again() {
    let url = fresh_database();
    let mut conn = PgConnection::establish(&url).expect("connect");
    let all = conn.applied_migrations().expect("applied").len();
    assert!(all >= 18, "{all}");
    let mut reverted = Vec::new();
    while !conn.applied_migrations().expect("applied").is_empty() {
        let step = conn
            .revert_last_migration(tourney::db::MIGRATIONS)
            .unwrap_or_else(|e| panic!("a down step fails after {reverted:?}: {e}"));
        reverted.push(step.to_string());
    }
    assert_eq!(reverted.len(), all, "every down step ran");
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let left: i64 = diesel::sql_query(
        "SELECT count(*) AS n FROM information_schema.tables
         WHERE table_schema = 'public' AND table_name <> '__diesel_schema_migrations'",
    )
    .get_result::<Count>(&mut conn)
    .expect("tables")
    .n;
    assert_eq!(left, 0, "the down steps leave no table behind");
    conn.run_pending_migrations(tourney::db::MIGRATIONS)
        .expect("the schema builds again on top of the down steps");
    assert_eq!(conn.applied_migrations().expect("applied").len(), all);
    drop(conn);
    // The rebuilt schema serves: an event on it runs.
    let app = serve_existing(&url).await;
    let r = app.get("/api/v1/tournaments", None).await;
    assert_eq!(r.status(), 200);
}
