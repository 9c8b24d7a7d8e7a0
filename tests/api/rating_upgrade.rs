//! Issue 26, item 4: the upgrade that brings pool keepers accepts every tournament already
//! attached to a pool, so no rating list changes; its down migration gives the old schema back.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel_migrations::MigrationHarness;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{second_instance, spawn_app};

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Nullable<Text>)]
    rating_status: Option<String>,
    #[diesel(sql_type = BigInt)]
    decisions: i64,
}

fn status_of(conn: &mut PgConnection, tid: i64) -> Status {
    diesel::sql_query(
        "SELECT rating_status,
                (SELECT count(*) FROM rating_decisions d WHERE d.tournament_id = t.id) AS decisions
         FROM tournaments t WHERE id = $1",
    )
    .bind::<BigInt, _>(tid)
    .get_result(conn)
    .expect("the tournament's rating status")
}

#[actix_web::test]
async fn tournaments_attached_before_the_upgrade_are_accepted_and_keep_feeding_their_list() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway", "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    // An organiser's rated tournament played under the new rules stays pending: nothing rated.
    let (tid, org, referee, players) = event(&app, "agricola_norway", 8).await;
    crate::case_fixtures::patch_tournament(&app, tid, &org, json!({"rating_pool_id": pool})).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;
    let board_path = format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true");
    let board: Value = app.get(&board_path, None).await.json().await.unwrap();
    assert_eq!(
        board["total"], 0,
        "a pending tournament feeds nothing: {board}"
    );

    // Back to the schema before keepers (the tournament was attached, as before the upgrade),
    // then upgrade again.
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    // (Later migrations are reverted first, down to the keepers' one.)
    loop {
        let reverted = conn
            .revert_last_migration(tourney::db::MIGRATIONS)
            .expect("the down migration runs");
        if reverted.to_string().ends_with("000017") {
            break;
        }
    }
    let columns: i64 = diesel::sql_query(
        "SELECT count(*) AS n FROM information_schema.columns
         WHERE table_name = 'tournaments' AND column_name = 'rating_status'",
    )
    .get_result::<Count>(&mut conn)
    .expect("columns")
    .n;
    assert_eq!(columns, 0, "the down migration removes the status");
    conn.run_pending_migrations(tourney::db::MIGRATIONS)
        .expect("the upgrade runs");
    let s = status_of(&mut conn, tid);
    assert_eq!(s.rating_status.as_deref(), Some("accepted"));
    assert_eq!(s.decisions, 1, "the upgrade's acceptance is in the history");

    // A fresh instance (new connections on the upgraded schema) rates it as the old code did.
    let next = second_instance(&app).await;
    let r = next
        .post(
            &format!("/api/v1/rating-pools/{pool}/rebuild"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let rebuilt: Value = r.json().await.unwrap();
    assert_eq!(rebuilt["games"], 2, "two tables of four: {rebuilt}");
    let board: Value = next.get(&board_path, None).await.json().await.unwrap();
    assert_eq!(board["total"], players.len(), "{board}");
    let history: Value = next
        .get(&format!("/api/v1/tournaments/{tid}/rating-decisions"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        history["items"][0]["rating_status"], "accepted",
        "{history}"
    );
    assert!(history["items"][0]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("before")));
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}
