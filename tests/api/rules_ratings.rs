//! Issue 14, items 12 and 17: ratings follow the adjudicated results (domain.md section 10),
//! penalties and game losses included, in the incremental feed and in a rebuild alike.

use serde_json::{json, Value};

use crate::event_fixtures::new_round;
use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{listed, player, pool, ratings, rebuild_over_http, tournament};

async fn penalise(app: &TestApp, tid: i64, token: &str, body: Value) -> i64 {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(token),
            body,
        )
        .await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    v["id"].as_i64().unwrap()
}

/// A Tantrix game won 30-12 is rated as a win; a game loss on the winner, or a point penalty that
/// takes their score below the opponent's, makes it a loss in the ratings as in the standings, at
/// once and after a rebuild; annulling it restores the win.
#[actix_web::test]
async fn ratings_follow_game_losses_and_point_penalties() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix", "preset": "tantrix", "time_zone": "Europe/Berlin"}),
    )
    .await;
    let tid = tournament(&app, &admin, "tantrix", pool_id, "2026-05-02").await;
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let mut ids = Vec::new();
    for name in ["Anna", "Bernd", "Carla", "Dieter"] {
        let p = player(&app, &admin, name, "DE", "Berlin").await;
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&admin),
                json!({"player_id": p}),
            )
            .await;
        assert_eq!(r.status(), 201);
        ids.push(p);
    }
    let round = new_round(&app, tid, &admin, json!({"method": "round_robin"})).await;
    let tables: Vec<(i64, i64, i64)> = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["number"].as_i64().unwrap(),
                t["seats"][0].as_i64().unwrap(),
                t["seats"][1].as_i64().unwrap(),
            )
        })
        .collect();
    for (n, winner, loser) in &tables {
        let r = app
            .put(
                &format!("/api/v1/tournaments/{tid}/rounds/1/tables/{n}/result"),
                Some(&admin),
                json!({"seats": [{"player_id": winner, "score": 30}, {"player_id": loser, "score": 12}]}),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
    let before = ratings(&app, pool_id).await;
    let (t1, w1, l1) = tables[0];
    let (t2, w2, l2) = tables[1];
    assert!(
        before[&w1] > before[&l1] && before[&w2] > before[&l2],
        "{before:?}"
    );

    // A game loss on table 1's winner and a 20-point penalty on table 2's (30 - 20 < 12).
    let gl = penalise(
        &app,
        tid,
        &admin,
        json!({"player_id": w1, "kind": "game_loss", "round": 1, "table": t1, "reason": "slow play"}),
    )
    .await;
    penalise(
        &app,
        tid,
        &admin,
        json!({"player_id": w2, "kind": "point_penalty", "points": 20, "round": 1, "table": t2,
               "reason": "illegal tile placement"}),
    )
    .await;
    let after = ratings(&app, pool_id).await;
    assert!(
        after[&w1] < after[&l1],
        "the game loss reaches the ratings: {after:?}"
    );
    assert!(
        after[&w2] < after[&l2],
        "the point penalty reaches the ratings: {after:?}"
    );
    // The rating history rates the sanctioned game as a loss.
    let history: Value = app
        .get(&format!("/api/v1/players/{w1}/ratings"), None)
        .await
        .json()
        .await
        .unwrap();
    let last = history["items"].as_array().unwrap().last().unwrap().clone();
    assert!(last["delta"].as_f64().unwrap() < 0.0, "{last}");
    // A rebuild from scratch gives the same list.
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(ratings(&app, pool_id).await, after);

    // Annulled, the win counts again.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties/{gl}/annul"),
            Some(&admin),
            json!({"reason": "the clock was faulty"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let annulled = ratings(&app, pool_id).await;
    assert!(annulled[&w1] > annulled[&l1], "{annulled:?}");
    assert_eq!(annulled[&w1], before[&w1]);
}

/// Issue 14, item 15: a pool starts from an existing list. The imported ratings hold from the
/// date they apply from (games played later are rated on top of them, from the imported
/// rating), the credited games count towards the listing threshold, a game played before the
/// list still rates before it, and the incremental feed agrees with a rebuild throughout.
#[actix_web::test]
async fn a_pool_starts_from_an_imported_list() {
    use crate::rating_fixtures::{completed_round, db, feed, result, standings_vs_log, win};
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ranking PL", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": 5}}),
    )
    .await;
    let a = player(&app, &admin, "Ania", "PL", "K").await;
    let b = player(&app, &admin, "Bartek", "PL", "K").await;
    let c = player(&app, &admin, "Cecylia", "PL", "K").await;
    let mut conn = db(&app);

    let list = json!({"applies_from": "2026-02-01", "source": "Ranking 2025",
                      "ratings": [{"player_id": a, "rating": 1500, "games": 40},
                                  {"player_id": b, "rating": 1400.0, "games": 3}]});
    let url = format!("/api/v1/rating-pools/{pool_id}/imports");
    let (_, user) = app.user("kibic").await;
    problem(app.post(&url, Some(&user), list.clone()).await, 403).await;
    let r = app.post(&url, Some(&admin), list).await;
    let status = r.status();
    let imported: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{imported}");
    // 00:00 in Warsaw (CET) is 23:00 UTC the day before.
    assert_eq!(imported["applies_at"], "2026-01-31T23:00:00Z");
    assert_eq!(imported["entries"], 2);

    let now = listed(&app, pool_id).await;
    assert_eq!(now[&a], (1500.0, 40, false));
    assert_eq!(now[&b], (1400.0, 3, true));

    // February, after the list: A (1500) beats C (new, 1000): A gains 25 * (1 - E), E =
    // 1 / (1 + 10^(-500/400)).
    let t2 = tournament(&app, &admin, "ashes_league", pool_id, "2026-02-14").await;
    let r = completed_round(&mut conn, t2, 1, "2026-02-14T12:00:00Z");
    result(&mut conn, r, 1, 1, win(a, c));
    feed(&mut conn, t2);
    let gain = 25.0 * (1.0 - 1.0 / (1.0 + 10f64.powf(-500.0 / 400.0)));
    let now = listed(&app, pool_id).await;
    assert!((now[&a].0 - (1500.0 + gain)).abs() < 0.06, "{now:?}");
    assert_eq!(now[&a].1, 41);

    // An older event arrives: January, before the list. C beats A there; A's rating from the
    // list on is the list's, so only C's path changes.
    let t1 = tournament(&app, &admin, "ashes_league", pool_id, "2026-01-10").await;
    let r = completed_round(&mut conn, t1, 1, "2026-01-10T12:00:00Z");
    result(&mut conn, r, 1, 1, win(c, a));
    feed(&mut conn, t1);
    let later = listed(&app, pool_id).await;
    // C (1012.5 after January) loses to A (1500) in February.
    let gain = 25.0 * (1.0 - 1.0 / (1.0 + 10f64.powf((1012.5 - 1500.0) / 400.0)));
    assert!((later[&a].0 - (1500.0 + gain)).abs() < 0.06, "{later:?}");
    assert_eq!(later[&a].1, 42);
    assert!(later[&c].0 > now[&c].0, "C's January win counts: {later:?}");
    let (stored, from_log) = standings_vs_log(&mut conn, pool_id);
    assert_eq!(stored, from_log);
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(listed(&app, pool_id).await, later);

    // The player's history shows the import in its place.
    let h: Value = app
        .get(&format!("/api/v1/players/{a}/ratings?pool={pool_id}"), None)
        .await
        .json()
        .await
        .unwrap();
    let kinds: Vec<&str> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["game", "import", "game"], "{h}");
    assert_eq!(h["items"][1]["import_id"], imported["id"]);
    assert_eq!(h["items"][1]["tournament_id"], Value::Null);
    assert_eq!(h["items"][1]["rating_after"], 1500.0);

    let listed: Value = app.get(&url, None).await.json().await.unwrap();
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["items"][0]["source"], "Ranking 2025");
}

/// The CSV form of an import, and the errors that name what is wrong.
#[actix_web::test]
async fn an_import_takes_csv_and_names_its_errors() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "NAF", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}),
    )
    .await;
    let a = player(&app, &admin, "Kari", "NO", "Oslo").await;
    let b = player(&app, &admin, "Ola", "NO", "Bergen").await;
    let url = format!("/api/v1/rating-pools/{pool_id}/imports");
    let post = |body: Value| {
        let (app, admin, url) = (&app, &admin, &url);
        async move { app.post(url, Some(admin), body).await }
    };
    let bad_line = format!("player_id,rating,games\n{a},1612.5,41\n{b},lots,7\n");
    let p = problem(
        post(json!({"applies_from": "2026-01-01", "source": "NAF", "csv": bad_line})).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["csv.line[3]"]);
    let p = problem(
        post(json!({"applies_from": "2026-01-01", "source": "NAF",
                    "ratings": [{"player_id": 999999, "rating": 1500}]}))
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["ratings[0].player_id"]);
    let p = problem(
        post(json!({"applies_from": "2026-01-01", "source": "NAF",
                    "ratings": [{"player_id": a, "rating": 1500}, {"player_id": a, "rating": 1400}]}))
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["ratings[1].player_id"]);
    let p = problem(
        post(json!({"applies_from": "2026-01-01", "source": "NAF"})).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["ratings"]);

    let csv = format!("player_id,rating,games\n{a},1612.5,41\n{b},1488,\n");
    let r = post(json!({"applies_from": "2026-01-01", "source": "NAF", "csv": csv})).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let now = listed(&app, pool_id).await;
    assert_eq!(now.get(&a), Some(&(1612.5, 41, false)), "{now:?}");
    // Without credited games B is not listed (a list shows players with games), but his
    // rating is the list's.
    assert!(!now.contains_key(&b), "{now:?}");
    let h: Value = app
        .get(&format!("/api/v1/players/{b}/ratings?pool={pool_id}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(h["items"][0]["kind"], "import");
    assert_eq!(h["items"][0]["rating_after"], 1488.0);
}
