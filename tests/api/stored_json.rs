//! Issue 28, item 4: stored JSON that does not parse is an internal error (500, its cause in the
//! log), never a silent default that would show an empty draw, no options or no seats.

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{problem, spawn_app, TestApp};

fn corrupt(app: &TestApp, sql: &str) {
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    let n = diesel::sql_query(sql).execute(&mut conn).expect("corrupt");
    assert!(n > 0, "{sql} changed nothing");
}

async fn status_of(app: &TestApp, path: &str, token: Option<&str>) -> u16 {
    app.get(path, token).await.status().as_u16()
}

#[actix_web::test]
async fn a_corrupt_stored_draw_options_or_seats_is_an_internal_error_not_a_default() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;
    let round_path = format!("/api/v1/tournaments/{tid}/rounds/1");
    let result_path = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result");
    let standings_path = format!("/api/v1/tournaments/{tid}/standings");
    for path in [&round_path, &result_path, &standings_path] {
        assert_eq!(status_of(&app, path, Some(&org)).await, 200, "{path}");
    }

    // A result's seats that are not seats.
    corrupt(
        &app,
        &format!(
            "UPDATE results SET seats = '{{\"not\": \"seats\"}}' WHERE round_id = \
             (SELECT id FROM rounds WHERE tournament_id = {tid} AND number = 1) AND table_number = 1"
        ),
    );
    let r = app.get(&result_path, Some(&org)).await;
    let p: Value = problem(r, 500).await;
    assert_eq!(p["type"], "/problems/internal", "{p}");

    // The round's options, then its draw (its version moved, as any write moves it: the staff
    // standings are kept while the inputs' versions stay).
    corrupt(
        &app,
        &format!("UPDATE rounds SET options = '[1, 2]' WHERE tournament_id = {tid} AND number = 1"),
    );
    assert_eq!(status_of(&app, &round_path, Some(&org)).await, 500);
    corrupt(
        &app,
        &format!(
            "UPDATE rounds SET options = '{{}}', draw = '{{\"tables\": \"none\"}}', version = version + 1 \
             WHERE tournament_id = {tid} AND number = 1"
        ),
    );
    let r = app.get(&standings_path, Some(&org)).await;
    let p: Value = problem(r, 500).await;
    assert_eq!(p["type"], "/problems/internal", "{p}");
    // The answer names no internals; nothing was written by the failed reads.
    assert!(
        !p["detail"].as_str().unwrap_or("").contains("tables"),
        "{p}"
    );
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let results: Count = diesel::sql_query(format!(
        "SELECT count(*) AS n FROM results x JOIN rounds r ON r.id = x.round_id \
         WHERE r.tournament_id = {tid}"
    ))
    .get_result(&mut conn)
    .expect("count");
    assert_eq!(results.n, 2, "the two tables' results are still there");
}
