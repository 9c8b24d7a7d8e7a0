//! Rating pools, the feed from results, leaderboards, seasons and rating history.
//!
//! Rounds and results are written straight into the database (as the results code stores
//! them) and the feed is called as the results code calls it, inside a transaction.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Int4, Int8, Jsonb, Text};
use serde_json::{json, Value};
use std::collections::HashMap;

use crate::helpers::{fields, problem, spawn_app, TestApp};

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

fn db(app: &TestApp) -> PgConnection {
    PgConnection::establish(&app.database_url).expect("connect to the test database")
}

/// A completed round of `tournament`, completed at `at` (RFC 3339).
fn completed_round(conn: &mut PgConnection, tournament: i64, number: i32, at: &str) -> i64 {
    diesel::sql_query(
        "INSERT INTO rounds (tournament_id, number, kind, method, seed, seed_commitment,
                             draw_input, draw, created_by, status, completed_at)
         VALUES ($1, $2, 'preliminary', 'random', '00', '00', '{}'::jsonb, '{}'::jsonb,
                 (SELECT min(id) FROM users), 'completed', $3::timestamptz)
         RETURNING id",
    )
    .bind::<Int8, _>(tournament)
    .bind::<Int4, _>(number)
    .bind::<Text, _>(at)
    .get_result::<Id>(conn)
    .expect("insert round")
    .id
}

fn result(conn: &mut PgConnection, round: i64, table: i32, version: i32, seats: Value) {
    diesel::sql_query(
        "INSERT INTO results (round_id, table_number, version, seats, entered_by)
         VALUES ($1, $2, $3, $4, (SELECT min(id) FROM users))",
    )
    .bind::<Int8, _>(round)
    .bind::<Int4, _>(table)
    .bind::<Int4, _>(version)
    .bind::<Jsonb, _>(seats)
    .execute(conn)
    .expect("insert result");
}

/// An Ashes game: `winner` beats `loser`.
fn win(winner: i64, loser: i64) -> Value {
    json!([
        {"player": winner, "score": 10, "outcome": "win"},
        {"player": loser, "score": 4, "outcome": "loss"}
    ])
}

fn draw(a: i64, b: i64) -> Value {
    json!([
        {"player": a, "score": 5, "outcome": "draw"},
        {"player": b, "score": 5, "outcome": "draw"}
    ])
}

/// Calls the feed as the results code does: inside a transaction.
fn feed(conn: &mut PgConnection, tournament: i64) {
    conn.transaction(|c| tourney::services::ratings::results_changed(c, tournament))
        .expect("results_changed");
}

/// The pool's log: (sequence, player, before, after, delta).
fn log(conn: &mut PgConnection, pool: i64) -> Vec<(i64, i64, f64, f64, f64)> {
    use tourney::db::schema::rating_changes::dsl as rc;
    rc::rating_changes
        .filter(rc::pool_id.eq(pool))
        .order((rc::sequence, rc::player_id))
        .select((
            rc::sequence,
            rc::player_id,
            rc::rating_before,
            rc::rating_after,
            rc::delta,
        ))
        .load(conn)
        .expect("log")
}

async fn pool(app: &TestApp, token: &str, body: Value) -> i64 {
    let r = app.post("/api/v1/rating-pools", Some(token), body).await;
    assert_eq!(r.status(), 201, "create pool");
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn player(app: &TestApp, token: &str, name: &str, country: &str, club: &str) -> i64 {
    let r = app
        .post(
            "/api/v1/players",
            Some(token),
            json!({"name": name, "country": country, "club": club}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn tournament(app: &TestApp, token: &str, ruleset: &str, pool: i64, starts_on: &str) -> i64 {
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(token),
            json!({
                "name": format!("Cup {starts_on}"), "game": "Ashes", "ruleset": ruleset,
                "planned_rounds": 4, "starts_on": starts_on, "time_zone": "Europe/Warsaw",
                "rating_pool_id": pool
            }),
        )
        .await;
    assert_eq!(r.status(), 201);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["rating_pool_id"], json!(pool));
    body["id"].as_i64().unwrap()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[actix_web::test]
async fn ashes_vectors_through_the_pool_and_the_player_history() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let a = player(&app, &admin, "Ania", "PL", "Kraków").await;
    let b = player(&app, &admin, "Bartek", "PL", "Kraków").await;
    let t = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    let r1 = completed_round(&mut conn, t, 1, "2026-03-07T10:00:00Z");
    result(&mut conn, r1, 1, 1, win(a, b));
    feed(&mut conn, t);
    // 1000 beats 1000: +12.5, and the loser loses what the winner gains.
    let l = log(&mut conn, pool_id);
    assert_eq!(l.len(), 2);
    let delta = |p: i64, l: &[(i64, i64, f64, f64, f64)]| {
        l.iter().rev().find(|c| c.1 == p).map(|c| c.4).unwrap()
    };
    assert_eq!(round1(delta(a, &l)), 12.5);
    assert_eq!(round1(delta(b, &l)), -12.5);

    // Later games use the ratings the pool holds: the same formula as the engine's vectors
    // (1200 beats 1000: +6.0; 1400 beats 1000: +2.3; 1400 loses to 1000: -22.7).
    let p = tourney::domain::rating::RatingPoolParams::ashes_poland();
    let r2 = completed_round(&mut conn, t, 2, "2026-03-07T11:00:00Z");
    result(&mut conn, r2, 1, 1, win(b, a));
    feed(&mut conn, t);
    let l = log(&mut conn, pool_id);
    let want = tourney::domain::rating::duel_change(&p, 987.5, 1012.5, 1.0);
    assert_eq!(delta(b, &l), want);
    assert_eq!(delta(a, &l), -want);
    for (ra, rb, w, expect) in [
        (1200.0, 1000.0, 1.0, 6.0),
        (1400.0, 1000.0, 1.0, 2.3),
        (1400.0, 1000.0, 0.0, -22.7),
    ] {
        assert_eq!(
            round1(tourney::domain::rating::duel_change(&p, ra, rb, w)),
            expect
        );
    }

    // The history names the game behind every change.
    let r = app.get(&format!("/api/v1/players/{a}/ratings"), None).await;
    assert_eq!(r.status(), 200);
    let h: Value = r.json().await.unwrap();
    assert_eq!(h["total"], 2);
    let first = &h["items"][0];
    assert_eq!(first["pool_id"], json!(pool_id));
    assert_eq!(first["tournament_id"], json!(t));
    assert_eq!(first["round_number"], 1);
    assert_eq!(first["table_number"], 1);
    assert_eq!(first["result_version"], 1);
    assert_eq!(first["rating_before"], 1000.0);
    assert_eq!(first["rating_after"], 1012.5);
    assert_eq!(first["delta"], 12.5);
    assert_eq!(h["items"][1]["round_number"], 2);
    let r = app.get("/api/v1/players/999999/ratings", None).await;
    problem(r, 404).await;

    // Seeding at a deadline: the rating after round 1, before round 2.
    let at = chrono::DateTime::parse_from_rfc3339("2026-03-07T10:30:00Z")
        .unwrap()
        .to_utc();
    let seeds =
        tourney::services::ratings::ratings_at(&mut conn, pool_id, &[a, b, 999_999], at).unwrap();
    assert_eq!(seeds[&a], (1012.5, 1));
    assert_eq!(seeds[&b], (987.5, 1));
    assert_eq!(seeds[&999_999], (1000.0, 0));
}

#[actix_web::test]
async fn a_four_player_table_is_rated_pairwise_from_places() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Agricola Norway", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}),
    )
    .await;
    let mut ids = Vec::new();
    for n in ["A", "B", "C", "D"] {
        ids.push(player(&app, &admin, n, "NO", "Oslo").await);
    }
    let t = tournament(&app, &admin, "agricola_norway", pool_id, "2026-06-12").await;
    let mut conn = db(&app);
    let r1 = completed_round(&mut conn, t, 1, "2026-06-12T12:00:00Z");
    let seats: Vec<Value> = ids
        .iter()
        .zip([40, 30, 20, 10])
        .map(|(p, s)| json!({"player": p, "score": s}))
        .collect();
    result(&mut conn, r1, 1, 1, Value::Array(seats));
    feed(&mut conn, t);
    let l = log(&mut conn, pool_id);
    let deltas: Vec<f64> = ids
        .iter()
        .map(|p| l.iter().find(|c| c.1 == *p).unwrap().4)
        .collect();
    let want = [16.0, 16.0 / 3.0, -16.0 / 3.0, -16.0];
    for (got, w) in deltas.iter().zip(want) {
        assert!((got - w).abs() < 1e-9, "{got} vs {w}");
    }
    assert!(deltas.iter().sum::<f64>().abs() < 1e-9);
}

#[actix_web::test]
async fn draws_change_nothing_when_the_pool_ignores_them() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let ignore = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let half = pool(
        &app,
        &admin,
        json!({"name": "Ashes half", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"draws": "count_half"}}),
    )
    .await;
    let a = player(&app, &admin, "A", "PL", "X").await;
    let b = player(&app, &admin, "B", "PL", "X").await;
    let c = player(&app, &admin, "C", "PL", "X").await;
    let mut conn = db(&app);
    for (pool_id, day) in [(ignore, "2026-03-07"), (half, "2026-03-08")] {
        let t = tournament(&app, &admin, "ashes_league", pool_id, day).await;
        let r1 = completed_round(&mut conn, t, 1, &format!("{day}T10:00:00Z"));
        result(&mut conn, r1, 1, 1, win(a, b));
        let r2 = completed_round(&mut conn, t, 2, &format!("{day}T11:00:00Z"));
        result(&mut conn, r2, 1, 1, draw(a, c));
        feed(&mut conn, t);
    }
    // Ignored: only the win is rated; C has no game at all.
    let l = log(&mut conn, ignore);
    assert_eq!(l.len(), 2);
    assert!(l.iter().all(|x| x.1 != c));
    // Counted as half: A (1012.5) draws with C (1000) and loses a little; C gains it.
    let l = log(&mut conn, half);
    assert_eq!(l.len(), 4);
    let dc = l.iter().find(|x| x.1 == c).unwrap().4;
    assert!(dc > 0.0);
    let lb: Value = app
        .get(
            &format!("/api/v1/rating-pools/{ignore}/leaderboard?include_provisional=true"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(lb["total"], 2, "C played no rated game: {lb}");
}

#[actix_web::test]
async fn a_correction_recomputes_later_ratings_exactly_as_a_full_rebuild() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let mut p = Vec::new();
    for n in ["A", "B", "C", "D", "E", "F"] {
        p.push(player(&app, &admin, n, "PL", "X").await);
    }
    let t1 = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let t2 = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    // T1 rounds at 10, 12, 14; T2 (sharing players) at 11 and 13: the pool interleaves them.
    let schedule = [
        (t1, 1, "10", [(p[0], p[1]), (p[2], p[3])]),
        (t2, 1, "11", [(p[0], p[4]), (p[5], p[2])]),
        (t1, 2, "12", [(p[1], p[2]), (p[0], p[3])]),
        (t2, 2, "13", [(p[4], p[5]), (p[3], p[0])]),
        (t1, 3, "14", [(p[2], p[0]), (p[3], p[1])]),
    ];
    let mut first_round = 0;
    for (t, n, hour, games) in schedule {
        let r = completed_round(&mut conn, t, n, &format!("2026-03-07T{hour}:00:00Z"));
        if first_round == 0 {
            first_round = r;
        }
        for (i, (w, l)) in games.iter().enumerate() {
            result(&mut conn, r, i as i32 + 1, 1, win(*w, *l));
        }
        feed(&mut conn, t);
    }
    let before = log(&mut conn, pool_id);
    assert_eq!(before.len(), 20);

    // The referee corrects T1 round 1 table 1: B beat A after all.
    result(&mut conn, first_round, 1, 2, win(p[1], p[0]));
    feed(&mut conn, t1);
    let incremental = log(&mut conn, pool_id);
    assert_eq!(incremental.len(), 20);
    // Every later game of A and B (in both tournaments) changed.
    let changed = before
        .iter()
        .zip(&incremental)
        .filter(|(x, y)| x.3 != y.3)
        .count();
    assert!(changed >= 4, "only {changed} changes moved");
    // The corrected version is the one rated.
    let version: i32 = {
        use tourney::db::schema::rating_changes::dsl as rc;
        rc::rating_changes
            .filter(rc::pool_id.eq(pool_id))
            .filter(rc::round_id.eq(first_round))
            .filter(rc::table_number.eq(1))
            .select(rc::result_version)
            .first(&mut conn)
            .unwrap()
    };
    assert_eq!(version, 2);

    // Feeding again with nothing new changes nothing.
    feed(&mut conn, t2);
    assert_eq!(log(&mut conn, pool_id), incremental);

    // The full rebuild (admin route) agrees exactly.
    let r = app
        .req(
            reqwest::Method::POST,
            &format!("/api/v1/rating-pools/{pool_id}/rebuild"),
            Some(&admin),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["changes"], 20);
    assert_eq!(log(&mut conn, pool_id), incremental);
    let direct = conn
        .transaction(|c| tourney::services::ratings::rebuild_pool(c, pool_id))
        .unwrap();
    assert_eq!(direct.games, 10);
    assert_eq!(log(&mut conn, pool_id), incremental);

    // A forfeit is not rated: correcting a game into a forfeit drops it.
    result(
        &mut conn,
        first_round,
        2,
        2,
        json!([
            {"player": p[2], "score": 0, "outcome": "win"},
            {"player": p[3], "score": 0, "outcome": "loss", "forfeit": true}
        ]),
    );
    feed(&mut conn, t1);
    let after_forfeit = log(&mut conn, pool_id);
    assert_eq!(after_forfeit.len(), 18);
    conn.transaction(|c| tourney::services::ratings::rebuild_pool(c, pool_id))
        .unwrap();
    assert_eq!(log(&mut conn, pool_id), after_forfeit);

    // Unrated tables stay out of the log for good: a bye (one seat), a draw the pool ignores,
    // and the forfeit above. Feeding them changes nothing, and a later correction still starts
    // at the right game and agrees with the rebuild.
    let r4 = completed_round(&mut conn, t1, 4, "2026-03-07T15:00:00Z");
    result(&mut conn, r4, 1, 1, win(p[0], p[1]));
    result(
        &mut conn,
        r4,
        2,
        1,
        json!([
            {"player": p[2], "score": 5, "outcome": "draw"},
            {"player": p[3], "score": 5, "outcome": "draw"}
        ]),
    );
    result(&mut conn, r4, 3, 1, json!([{"player": p[4]}]));
    feed(&mut conn, t1);
    let with_r4 = log(&mut conn, pool_id);
    assert_eq!(
        with_r4.len(),
        20,
        "only the decisive game of round 4 is rated"
    );
    feed(&mut conn, t1);
    feed(&mut conn, t2);
    assert_eq!(log(&mut conn, pool_id), with_r4);
    // T2 round 2 table 1 (13:00): E beat F becomes F beat E.
    let t2_round2: i64 = {
        use tourney::db::schema::rounds::dsl as r;
        r::rounds
            .filter(r::tournament_id.eq(t2))
            .filter(r::number.eq(2))
            .select(r::id)
            .first(&mut conn)
            .unwrap()
    };
    result(&mut conn, t2_round2, 1, 2, win(p[5], p[4]));
    // As the results code feeds it: only the corrected round is compared with the log.
    conn.transaction(|c| tourney::services::ratings::round_results_changed(c, t2, t2_round2))
        .expect("round_results_changed");
    let corrected = log(&mut conn, pool_id);
    assert_eq!(corrected.len(), 20);
    assert_ne!(corrected, with_r4);
    // Before 13:00 (2 + 4 + 4 rows: the forfeit at 10:00 is not rated) nothing moved.
    let first_moved = corrected
        .iter()
        .zip(&with_r4)
        .position(|(a, b)| a != b)
        .unwrap();
    assert_eq!(corrected[..first_moved], with_r4[..first_moved]);
    assert_eq!(first_moved, 10);
    conn.transaction(|c| tourney::services::ratings::rebuild_pool(c, pool_id))
        .unwrap();
    assert_eq!(log(&mut conn, pool_id), corrected);
}

/// The stored standings of a pool, and the same aggregate computed from its log from scratch:
/// (player, rating, games, last_played, trend_games, trend_delta, last_delta).
#[allow(clippy::type_complexity)]
fn standings_vs_log(
    conn: &mut PgConnection,
    pool: i64,
) -> (
    Vec<(i64, f64, i64, Option<String>, i64, f64, Option<f64>)>,
    Vec<(i64, f64, i64, Option<String>, i64, f64, Option<f64>)>,
) {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = Int8)]
        player_id: i64,
        #[diesel(sql_type = diesel::sql_types::Double)]
        rating: f64,
        #[diesel(sql_type = BigInt)]
        games: i64,
        #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
        last_played: Option<String>,
        #[diesel(sql_type = BigInt)]
        trend_games: i64,
        #[diesel(sql_type = diesel::sql_types::Double)]
        trend_delta: f64,
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Double>)]
        last_delta: Option<f64>,
    }
    let load = |conn: &mut PgConnection, sql: &str| {
        diesel::sql_query(sql)
            .bind::<Int8, _>(pool)
            .load::<Row>(conn)
            .expect("standings")
            .into_iter()
            .map(|r| {
                (
                    r.player_id,
                    r.rating,
                    r.games,
                    r.last_played,
                    r.trend_games,
                    r.trend_delta,
                    r.last_delta,
                )
            })
            .collect::<Vec<_>>()
    };
    let stored = load(
        conn,
        "SELECT player_id, rating, games, last_played::text AS last_played, trend_games,
                trend_delta, last_delta
         FROM rating_standings WHERE pool_id = $1 ORDER BY player_id",
    );
    // From scratch: the latest change, the game count, the last five games (a plain
    // correlated form, independent of the feed's window query).
    let fresh = load(
        conn,
        "SELECT p.player_id,
                (SELECT rating_after FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id ORDER BY sequence DESC LIMIT 1) AS rating,
                (SELECT count(*) FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game') AS games,
                (SELECT max(rated_at)::text FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game') AS last_played,
                (SELECT count(*) FROM (SELECT 1 FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game'
                   ORDER BY sequence DESC LIMIT 5) t) AS trend_games,
                (SELECT coalesce(sum(delta), 0)::float8 FROM (SELECT delta FROM rating_changes c
                   WHERE c.pool_id = $1 AND c.player_id = p.player_id AND kind = 'game'
                   ORDER BY sequence DESC LIMIT 5) t) AS trend_delta,
                (SELECT delta FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game'
                   ORDER BY sequence DESC LIMIT 1) AS last_delta
         FROM (SELECT DISTINCT player_id FROM rating_changes WHERE pool_id = $1) p
         ORDER BY p.player_id",
    );
    (stored, fresh)
}

#[actix_web::test]
async fn leaderboard_summary_follows_corrections_and_rebuilds() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": 2}}),
    )
    .await;
    let mut p = Vec::new();
    for (i, name) in ["Ania", "Bartek", "Cecylia", "Darek", "Ewa", "Filip"]
        .iter()
        .enumerate()
    {
        let club = if i % 2 == 0 { "Kraków" } else { "Łódź" };
        p.push(player(&app, &admin, name, if i < 4 { "PL" } else { "DE" }, club).await);
    }
    let t1 = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let t2 = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-14").await;
    let mut conn = db(&app);
    let mut rounds = Vec::new();
    for (t, day) in [(t1, "07"), (t2, "14")] {
        for n in 1..=3 {
            let r = completed_round(&mut conn, t, n, &format!("2026-03-{day}T1{n}:00:00Z"));
            let k = n as usize;
            result(&mut conn, r, 1, 1, win(p[k % 6], p[(k + 1) % 6]));
            result(&mut conn, r, 2, 1, win(p[(k + 2) % 6], p[(k + 3) % 6]));
            result(&mut conn, r, 3, 1, draw(p[(k + 4) % 6], p[(k + 5) % 6]));
            rounds.push(r);
        }
        feed(&mut conn, t);
    }
    let (stored, fresh) = standings_vs_log(&mut conn, pool_id);
    assert_eq!(stored, fresh);
    assert_eq!(stored.len(), 6);

    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard?include_provisional=true");
    let r = app.get(&path, None).await;
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let first: Value = r.json().await.unwrap();
    assert_eq!(first["total"], 6);

    // The same version: 304, with the ETag; other queries have other ETags.
    let r = app
        .req(reqwest::Method::GET, &path, None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(r.headers()["etag"].to_str().unwrap(), etag);
    let r = app
        .req(reqwest::Method::GET, &format!("{path}&limit=2"), None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    // Corrections in the first tournament (a reversed result, a forfeit): the standings still
    // equal the log, and the old ETag no longer matches.
    result(&mut conn, rounds[0], 1, 2, win(p[2], p[1]));
    result(
        &mut conn,
        rounds[1],
        2,
        2,
        json!([
            {"player": p[4], "score": 0, "outcome": "win"},
            {"player": p[5], "score": 0, "outcome": "loss", "forfeit": true}
        ]),
    );
    feed(&mut conn, t1);
    let (stored, fresh) = standings_vs_log(&mut conn, pool_id);
    assert_eq!(stored, fresh);
    let r = app
        .req(reqwest::Method::GET, &path, None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let corrected: Value = r.json().await.unwrap();
    assert_ne!(corrected["items"], first["items"]);
    let csv_path = format!("{path}&format=csv");
    let corrected_csv = app.get(&csv_path, None).await.text().await.unwrap();
    let country = app
        .get(&format!("{path}&country=PL&club=KRAKÓW"), None)
        .await
        .json::<Value>()
        .await
        .unwrap();

    // The full rebuild gives exactly the same leaderboard (JSON, CSV, filtered).
    let r = app
        .req(
            reqwest::Method::POST,
            &format!("/api/v1/rating-pools/{pool_id}/rebuild"),
            Some(&admin),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (stored, fresh) = standings_vs_log(&mut conn, pool_id);
    assert_eq!(stored, fresh);
    let rebuilt: Value = app.get(&path, None).await.json().await.unwrap();
    assert_eq!(rebuilt, corrected);
    assert_eq!(
        app.get(&csv_path, None).await.text().await.unwrap(),
        corrected_csv
    );
    let country_after: Value = app
        .get(&format!("{path}&country=PL&club=KRAKÓW"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(country_after, country);
    assert!(country["total"].as_i64().unwrap() >= 1);

    // Ranks: 1 + the number of listed players with a higher rating.
    let items = rebuilt["items"].as_array().unwrap();
    for row in items {
        let higher = items
            .iter()
            .filter(|o| o["rating"].as_f64() > row["rating"].as_f64())
            .count();
        assert_eq!(row["rank"].as_u64().unwrap() as usize, higher + 1);
    }

    // Renaming a listed player changes the ETag (the name is on the page).
    let r = app.get(&path, None).await;
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let r = app
        .patch(
            &format!("/api/v1/players/{}", p[0]),
            Some(&admin),
            json!({"name": "Anna"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .req(reqwest::Method::GET, &path, None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert!(body["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["name"] == "Anna"));

    // Past the end: an empty page that still counts.
    let body: Value = app
        .get(&format!("{path}&offset=100"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["total"], 6);
    assert_eq!(body["items"], json!([]));
}

#[actix_web::test]
async fn leaderboard_filters_pages_csv_and_etags() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": 2}}),
    )
    .await;
    let a = player(&app, &admin, "Ania", "PL", "Kraków").await;
    let b = player(&app, &admin, "Bartek", "PL", "Warszawa").await;
    let c = player(&app, &admin, "Cecylia", "DE", "Berlin").await;
    let d = player(&app, &admin, "Darek, \"D\"", "PL", "Kraków").await;
    let t = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    let r1 = completed_round(&mut conn, t, 1, "2026-03-07T10:00:00Z");
    result(&mut conn, r1, 1, 1, win(a, b));
    result(&mut conn, r1, 2, 1, win(c, d));
    let r2 = completed_round(&mut conn, t, 2, "2026-03-07T11:00:00Z");
    result(&mut conn, r2, 1, 1, win(a, c));
    feed(&mut conn, t);

    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    // Established players only (2 games): A and C.
    let r = app.get(&path, None).await;
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    assert!(r.headers()["cache-control"]
        .to_str()
        .unwrap()
        .contains("public"));
    let lb: Value = r.json().await.unwrap();
    assert_eq!(lb["total"], 2);
    assert_eq!(lb["items"][0]["player_id"], json!(a));
    assert_eq!(lb["items"][0]["rank"], 1);
    assert_eq!(lb["items"][0]["games"], 2);
    assert_eq!(lb["items"][0]["provisional"], false);
    assert_eq!(lb["items"][0]["trend"]["games"], 2);
    assert_eq!(lb["items"][0]["trend"]["last"], "up");
    assert_eq!(lb["items"][0]["last_played"], "2026-03-07T11:00:00Z");
    assert_eq!(lb["items"][1]["player_id"], json!(c));

    // 304 for a matching If-None-Match.
    let r = app
        .req(reqwest::Method::GET, &path, None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);

    // Provisional players only when asked, flagged.
    let lb: Value = app
        .get(&format!("{path}?include_provisional=true"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(lb["total"], 4);
    let provisional: Vec<bool> = lb["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["provisional"].as_bool().unwrap())
        .collect();
    assert_eq!(provisional.iter().filter(|p| **p).count(), 2);
    // min_games overrides the pool's threshold.
    let lb: Value = app
        .get(&format!("{path}?min_games=1"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(lb["total"], 4);

    // Country and club filters keep the pool rank.
    let lb: Value = app
        .get(&format!("{path}?country=de"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(lb["total"], 1);
    assert_eq!(lb["items"][0]["player_id"], json!(c));
    assert_eq!(lb["items"][0]["rank"], 2);
    let lb: Value = app
        .get(
            &format!("{path}?club=krak%C3%B3w&include_provisional=true"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let ids: Vec<i64> = lb["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![a, d]);

    // Paging.
    let lb: Value = app
        .get(
            &format!("{path}?include_provisional=true&limit=2&offset=1"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(lb["total"], 4);
    assert_eq!(lb["limit"], 2);
    assert_eq!(lb["items"].as_array().unwrap().len(), 2);
    assert_eq!(lb["items"][0]["player_id"], json!(c));

    // CSV by parameter and by Accept.
    let r = app
        .get(&format!("{path}?format=csv&include_provisional=true"), None)
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let csv = r.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,player_id,name,club,country,rating,games,provisional,last_played,trend_delta"
    );
    assert_eq!(lines.len(), 5);
    assert!(lines[1].starts_with(&format!("1,{a},Ania,Kraków,PL,")));
    assert!(csv.contains("\"Darek, \"\"D\"\"\""), "quoted: {csv}");
    let r = app
        .req(reqwest::Method::GET, &path, None)
        .header("accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let etag_csv = r.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(etag_csv, etag);

    // Bad filters name the parameter; unknown pools and seasons are 404.
    let body = problem(app.get(&format!("{path}?limit=0"), None).await, 422).await;
    assert_eq!(fields(&body), ["limit"]);
    let body = problem(app.get(&format!("{path}?country=POL"), None).await, 422).await;
    assert_eq!(fields(&body), ["country"]);
    problem(app.get(&format!("{path}?season=1"), None).await, 404).await;
    problem(
        app.get("/api/v1/rating-pools/999999/leaderboard", None)
            .await,
        404,
    )
    .await;
    let _ = b;
}

/// The stored rating of every player of the pool, rounded as the leaderboard shows it.
fn stored_ratings(conn: &mut PgConnection, pool: i64) -> HashMap<i64, f64> {
    use tourney::db::schema::rating_standings::dsl as s;
    s::rating_standings
        .filter(s::pool_id.eq(pool))
        .select((s::player_id, s::rating))
        .load::<(i64, f64)>(conn)
        .expect("standings")
        .into_iter()
        .map(|(p, r)| (p, round1(r)))
        .collect()
}

/// A leaderboard page as (player, rating) pairs, and its total.
async fn board(app: &TestApp, path: &str) -> (Vec<Value>, i64) {
    let r = app.get(path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    let body: Value = r.json().await.unwrap();
    (
        body["items"].as_array().unwrap().clone(),
        body["total"].as_i64().unwrap(),
    )
}

fn ids(items: &[Value]) -> Vec<i64> {
    items
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect()
}

#[actix_web::test]
async fn the_cached_leaderboard_shows_every_change_at_once() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": 1}}),
    )
    .await;
    let a = player(&app, &admin, "Ania", "PL", "Kraków").await;
    let b = player(&app, &admin, "Bartek", "PL", "Warszawa").await;
    let c = player(&app, &admin, "Cecylia", "DE", "Berlin").await;
    let d = player(&app, &admin, "Darek", "PL", "Kraków").await;
    let t = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    let r1 = completed_round(&mut conn, t, 1, "2026-03-07T10:00:00Z");
    result(&mut conn, r1, 1, 1, win(a, b));
    result(&mut conn, r1, 2, 1, win(c, d));
    let r2 = completed_round(&mut conn, t, 2, "2026-03-07T11:00:00Z");
    result(&mut conn, r2, 1, 1, win(a, c));
    feed(&mut conn, t);

    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let krakow = format!("{path}?club=KRAK%C3%93W");
    let ratings_shown = |items: &[Value]| -> HashMap<i64, f64> {
        items
            .iter()
            .map(|r| {
                (
                    r["player_id"].as_i64().unwrap(),
                    r["rating"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    // Read everything once, so the pool's board is cached.
    let (items, total) = board(&app, &path).await;
    assert_eq!(total, 4);
    assert_eq!(ids(&items)[0], a);
    assert_eq!(ratings_shown(&items), stored_ratings(&mut conn, pool_id));
    let (items, _) = board(&app, &krakow).await;
    assert_eq!(ids(&items), vec![a, d]);
    let (items, _) = board(&app, &format!("{path}?country=DE")).await;
    assert_eq!(ids(&items), vec![c]);
    // The same read again answers the same.
    assert_eq!(board(&app, &path).await.0, board(&app, &path).await.0);

    // A correction: A lost both games. The next read shows the new ratings.
    let before = stored_ratings(&mut conn, pool_id);
    result(&mut conn, r1, 1, 2, win(b, a));
    result(&mut conn, r2, 1, 2, win(c, a));
    feed(&mut conn, t);
    let after = stored_ratings(&mut conn, pool_id);
    assert_ne!(before[&a], after[&a]);
    let (items, total) = board(&app, &path).await;
    assert_eq!(total, 4);
    assert_eq!(ratings_shown(&items), after);
    assert_eq!(ids(&items).last(), Some(&a), "A is last now");
    let rank_of = |items: &[Value], p: i64| {
        items.iter().find(|r| r["player_id"] == json!(p)).unwrap()["rank"].clone()
    };
    let (kr, _) = board(&app, &krakow).await;
    assert_eq!(ids(&kr), vec![d, a]);
    assert_eq!(
        rank_of(&kr, a),
        rank_of(&items, a),
        "filters keep the pool rank"
    );

    // A player's club: the club filter and the row follow at once.
    let r = app
        .patch(
            &format!("/api/v1/players/{d}"),
            Some(&admin),
            json!({"club": "Oslo Spillklubb"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let (kr, total) = board(&app, &krakow).await;
    assert_eq!((ids(&kr), total), (vec![a], 1));
    let (oslo, _) = board(&app, &format!("{path}?club=oslo%20spillklubb")).await;
    assert_eq!(ids(&oslo), vec![d]);
    assert_eq!(oslo[0]["club"], "Oslo Spillklubb");
    let (items, _) = board(&app, &path).await;
    let row_d = items.iter().find(|r| r["player_id"] == json!(d)).unwrap();
    assert_eq!(row_d["club"], "Oslo Spillklubb");

    // A player's country.
    let r = app
        .patch(
            &format!("/api/v1/players/{c}"),
            Some(&admin),
            json!({"country": "NO"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(board(&app, &format!("{path}?country=DE")).await.1, 0);
    let (no, _) = board(&app, &format!("{path}?country=no")).await;
    assert_eq!(ids(&no), vec![c]);
    assert_eq!(no[0]["country"], "NO");
    // Clearing a club.
    let r = app
        .patch(
            &format!("/api/v1/players/{a}"),
            Some(&admin),
            json!({"club": null}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(board(&app, &krakow).await.1, 0);

    // A player's name, in JSON and CSV.
    let r = app
        .patch(
            &format!("/api/v1/players/{b}"),
            Some(&admin),
            json!({"name": "Bartosz"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let (items, _) = board(&app, &path).await;
    assert!(items.iter().any(|r| r["name"] == "Bartosz"));
    assert!(!items.iter().any(|r| r["name"] == "Bartek"));
    let csv = app
        .get(&format!("{path}?format=csv"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(csv.contains(&format!("{b},Bartosz,Warszawa,PL,")), "{csv}");

    // The pool's threshold: A has 2 games, B and D 1, C 2.
    let r = app
        .patch(
            &format!("/api/v1/rating-pools/{pool_id}"),
            Some(&admin),
            json!({"params": {"min_games_listed": 2}}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let (items, total) = board(&app, &path).await;
    assert_eq!(total, 2);
    let mut listed = ids(&items);
    listed.sort_unstable();
    let mut want = vec![a, c];
    want.sort_unstable();
    assert_eq!(listed, want);
    assert_eq!(
        ratings_shown(&items)[&a],
        stored_ratings(&mut conn, pool_id)[&a]
    );
}

#[derive(QueryableByName)]
struct ReferenceRow {
    #[diesel(sql_type = Int8)]
    player_id: i64,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    club: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    country: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Double)]
    rating: f64,
    #[diesel(sql_type = BigInt)]
    games: i64,
    #[diesel(sql_type = BigInt)]
    rank: i64,
    #[diesel(sql_type = BigInt)]
    total: i64,
}

/// The leaderboard listing as the SQL before the in-memory board computed it: `rank()` over the
/// listed players, then the country and club filters (clubs matched in any case, in Rust),
/// in order. Returns the listed rows as JSON like the API's.
fn sql_listing(
    conn: &mut PgConnection,
    pool: i64,
    provisional: bool,
    min_games: i64,
    country: Option<&str>,
    club: Option<&str>,
) -> Vec<Value> {
    use diesel::sql_types::{Array, Bool, Nullable};
    let clubs: Option<Vec<String>> = club.map(|c| {
        let want = c.to_lowercase();
        diesel::sql_query(
            "SELECT DISTINCT p.club AS name FROM rating_standings s JOIN players p
             ON p.id = s.player_id WHERE s.pool_id = $1 AND p.club IS NOT NULL",
        )
        .bind::<Int8, _>(pool)
        .load::<Name>(conn)
        .unwrap()
        .into_iter()
        .map(|n| n.name)
        .filter(|n| n.to_lowercase() == want)
        .collect()
    });
    let rows: Vec<ReferenceRow> = diesel::sql_query(
        "WITH ranked AS (
            SELECT s.player_id, s.rating, s.games, rank() OVER (ORDER BY s.rating DESC) AS rank
            FROM rating_standings s
            WHERE s.pool_id = $1 AND s.games > 0 AND ($2 OR s.games >= $3)
        ), listed AS (
            SELECT r.player_id, p.name, p.club, p.country, r.rating, r.games, r.rank
            FROM ranked r JOIN players p ON p.id = r.player_id
            WHERE ($4::text IS NULL OR p.country = $4)
              AND ($5::text[] IS NULL OR p.club = ANY($5))
        )
        SELECT l.*, count(*) OVER () AS total FROM listed l
        ORDER BY l.rating DESC, l.games DESC, l.player_id",
    )
    .bind::<Int8, _>(pool)
    .bind::<Bool, _>(provisional)
    .bind::<BigInt, _>(min_games)
    .bind::<Nullable<Text>, _>(country)
    .bind::<Nullable<Array<Text>>, _>(clubs.as_deref())
    .load(conn)
    .unwrap();
    let total = rows.len() as i64;
    rows.into_iter()
        .map(|r| {
            assert_eq!(r.total, total);
            json!({
                "rank": r.rank, "player_id": r.player_id, "name": r.name, "club": r.club,
                "country": r.country, "rating": round1(r.rating), "games": r.games,
                "provisional": r.games < min_games,
            })
        })
        .collect()
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[actix_web::test]
async fn leaderboard_ranks_ties_thresholds_and_filters_as_the_sql_did() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": 3}}),
    )
    .await;
    // 240 players written straight into the standings: few distinct ratings (many ties, 0 and
    // -0 among them), 0-6 games, clubs differing only in case, countries, and missing ones.
    let mut conn = db(&app);
    diesel::sql_query(
        "WITH n AS (SELECT g FROM generate_series(1, 240) g),
         p AS (
             INSERT INTO players (name, club, country, created_by)
             SELECT 'Player ' || g,
                    (ARRAY['Kraków', 'KRAKÓW', 'kraków', 'Łódź', NULL])[1 + g % 5],
                    (ARRAY['PL', 'DE', NULL])[1 + g % 3],
                    (SELECT min(id) FROM users)
             FROM n ORDER BY g
             RETURNING id
         )
         INSERT INTO rating_standings
             (pool_id, player_id, rating, games, last_played, trend_delta, trend_games,
              last_delta)
         SELECT $1, id,
                CASE id % 11 WHEN 0 THEN 0.0 WHEN 1 THEN -0.0
                     ELSE 1000 + (id * 7 % 9) * 12.5 END,
                id % 7, CASE WHEN id % 7 > 0 THEN now() END, 0, least(id % 7, 5), NULL
         FROM p",
    )
    .bind::<Int8, _>(pool_id)
    .execute(&mut conn)
    .unwrap();
    diesel::sql_query(
        "UPDATE rating_pools SET leaderboard_version = leaderboard_version + 1 WHERE id = $1",
    )
    .bind::<Int8, _>(pool_id)
    .execute(&mut conn)
    .unwrap();

    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard");
    let mut checked = 0;
    for (provisional, min_games) in [
        (false, None),
        (true, None),
        (false, Some(5)),
        (false, Some(0)),
    ] {
        for country in [None, Some("PL"), Some("DE"), Some("NO")] {
            for club in [None, Some("KRAKÓW"), Some("łódź"), Some("Oslo")] {
                for (limit, offset) in [(200usize, 0usize), (7, 3), (10, 150), (5, 1000)] {
                    let mut q = vec![
                        format!("include_provisional={provisional}"),
                        format!("limit={limit}"),
                        format!("offset={offset}"),
                    ];
                    if let Some(g) = min_games {
                        q.push(format!("min_games={g}"));
                    }
                    if let Some(c) = country {
                        q.push(format!("country={c}"));
                    }
                    if let Some(c) = club {
                        q.push(format!(
                            "club={}",
                            form_urlencoded::byte_serialize(c.as_bytes()).collect::<String>()
                        ));
                    }
                    let url = format!("{path}?{}", q.join("&"));
                    let (items, total) = board(&app, &url).await;
                    let listing = sql_listing(
                        &mut conn,
                        pool_id,
                        provisional,
                        min_games.unwrap_or(3),
                        country,
                        club,
                    );
                    assert_eq!(total, listing.len() as i64, "{url}");
                    let want: Vec<Value> = listing.into_iter().skip(offset).take(limit).collect();
                    let got: Vec<Value> = items
                        .iter()
                        .map(|r| {
                            json!({
                                "rank": r["rank"], "player_id": r["player_id"],
                                "name": r["name"], "club": r["club"], "country": r["country"],
                                "rating": r["rating"], "games": r["games"],
                                "provisional": r["provisional"],
                            })
                        })
                        .collect();
                    assert_eq!(got, want, "{url}");
                    checked += items.len();
                }
            }
        }
    }
    assert!(checked > 1000, "the comparison saw rows: {checked}");
}

#[actix_web::test]
async fn season_standings_show_who_is_classified() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({
            "name": "Ashes 2026", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
            "seasons": [
                {"name": "Zima", "first_day": "2026-01-01", "last_day": "2026-02-28"},
                {"name": "Wiosna", "first_day": "2026-03-01", "last_day": "2026-04-30"}
            ]
        }),
    )
    .await;
    let a = player(&app, &admin, "Ania", "PL", "K").await;
    let b = player(&app, &admin, "Bartek", "PL", "K").await;
    let c = player(&app, &admin, "Cecylia", "PL", "K").await;
    let mut conn = db(&app);
    // January: A beats B, C beats B. February: A beats C, then C beats A late on the last
    // day. A and C play both months; B only January.
    let t1 = tournament(&app, &admin, "ashes_league", pool_id, "2026-01-10").await;
    let r = completed_round(&mut conn, t1, 1, "2026-01-10T12:00:00Z");
    result(&mut conn, r, 1, 1, win(a, b));
    let r = completed_round(&mut conn, t1, 2, "2026-01-10T13:00:00Z");
    result(&mut conn, r, 1, 1, win(c, b));
    feed(&mut conn, t1);
    let t2 = tournament(&app, &admin, "ashes_league", pool_id, "2026-02-14").await;
    let r = completed_round(&mut conn, t2, 1, "2026-02-14T12:00:00Z");
    result(&mut conn, r, 1, 1, win(a, c));
    feed(&mut conn, t2);
    // A game after 22:00 local on the last day counts for the next season only.
    let t3 = tournament(&app, &admin, "ashes_league", pool_id, "2026-02-28").await;
    let r = completed_round(&mut conn, t3, 1, "2026-02-28T21:30:00Z");
    result(&mut conn, r, 1, 1, win(c, a));
    feed(&mut conn, t3);

    let seasons: Value = app
        .get(&format!("/api/v1/rating-pools/{pool_id}/seasons"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(seasons[0]["number"], 1);
    // 22:00 in Warsaw (CET, +01:00) is 21:00 UTC.
    assert_eq!(seasons[0]["standings_at"], "2026-02-28T21:00:00Z");

    let r = app
        .get(&format!("/api/v1/rating-pools/{pool_id}/seasons/1"), None)
        .await;
    assert_eq!(r.status(), 200);
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["season"]["name"], "Zima");
    let rows = s["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["player_id"], json!(a));
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(rows[0]["classified"], true);
    assert_eq!(rows[0]["classified_by"], "every_month");
    assert_eq!(rows[0]["tournaments"], 3);
    assert_eq!(rows[1]["player_id"], json!(c));
    assert_eq!(rows[1]["classified"], true);
    assert_eq!(rows[2]["player_id"], json!(b));
    assert_eq!(rows[2]["classified"], false);
    assert_eq!(rows[2]["rank"], Value::Null);
    assert_eq!(rows[2]["months_missing"], json!(["2026-02"]));
    assert_eq!(s["winners"], json!([a]));
    // The late game of 28 February is not in the season's ratings.
    let a_now = conn
        .transaction(|c| {
            tourney::services::ratings::ratings_at(
                c,
                pool_id,
                &[a],
                chrono::Utc::now() + chrono::Duration::days(3650),
            )
        })
        .unwrap()[&a]
        .0;
    assert!(round1(a_now) < rows[0]["rating"].as_f64().unwrap());

    problem(
        app.get(&format!("/api/v1/rating-pools/{pool_id}/seasons/3"), None)
            .await,
        404,
    )
    .await;
}

#[actix_web::test]
async fn only_admins_write_pools_and_bad_params_name_the_field() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (_, user) = app.user("olga").await;
    let body = json!({"name": "Tantrix", "preset": "tantrix", "time_zone": "Europe/Berlin"});
    problem(
        app.post("/api/v1/rating-pools", None, body.clone()).await,
        401,
    )
    .await;
    problem(
        app.post("/api/v1/rating-pools", Some(&user), body.clone())
            .await,
        403,
    )
    .await;
    let id = pool(&app, &admin, body.clone()).await;
    problem(
        app.patch(
            &format!("/api/v1/rating-pools/{id}"),
            Some(&user),
            json!({"name": "Mine"}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .req(
            reqwest::Method::POST,
            &format!("/api/v1/rating-pools/{id}/rebuild"),
            Some(&user),
        )
        .send()
        .await
        .unwrap();
    problem(r, 403).await;
    // Same name again: 409.
    problem(
        app.post("/api/v1/rating-pools", Some(&admin), body).await,
        409,
    )
    .await;

    // Every bad parameter is named.
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Bad", "time_zone": "Mars/Olympus",
            "params": {"k": 0, "scale": -400, "event_bonus": -1, "min_games_listed": -1},
            "seasons": [
                {"name": "S1", "first_day": "2026-03-01", "last_day": "2026-02-01"}
            ]}),
        )
        .await;
    let p = problem(r, 422).await;
    let f = fields(&p);
    for want in [
        "params.k",
        "params.scale",
        "params.event_bonus",
        "params.min_games_listed",
        "time_zone",
    ] {
        assert!(f.iter().any(|x| x == want), "{want} in {f:?}");
    }
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Bad", "time_zone": "Europe/Oslo",
            "seasons": [
                {"name": "S1", "first_day": "2026-03-01", "last_day": "2026-02-01"}
            ]}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), ["seasons[0]"]);
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Bad", "time_zone": "Europe/Oslo", "params": {"draws": "sometimes"}}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), ["params.draws"]);

    // PATCH with If-Match; a stale version is 412; new params are stored.
    let path = format!("/api/v1/rating-pools/{id}");
    let r = app
        .req(reqwest::Method::PATCH, &path, Some(&admin))
        .header("if-match", "\"7\"")
        .json(&json!({"params": {"k": 20}}))
        .send()
        .await
        .unwrap();
    problem(r, 412).await;
    let r = app
        .req(reqwest::Method::PATCH, &path, Some(&admin))
        .header("if-match", "\"1\"")
        .json(&json!({"params": {"k": 20, "max_change_per_game": null}, "league": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["version"], 2);
    assert_eq!(p["params"]["k"], 20.0);
    assert_eq!(p["params"]["scale"], 400.0);
    assert_eq!(p["league"], true);
    // Public reads.
    let r = app.get(&path, None).await;
    assert_eq!(r.status(), 200);
    let list: Value = app
        .get("/api/v1/rating-pools", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);
    problem(app.get("/api/v1/rating-pools/424242", None).await, 404).await;

    // A tournament must name an existing pool.
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(&admin),
            json!({"name": "X", "game": "Tantrix", "ruleset": "tantrix", "planned_rounds": 3,
                   "starts_on": "2026-05-01", "time_zone": "Europe/Berlin",
                   "rating_pool_id": 424242}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), ["rating_pool_id"]);
}

#[actix_web::test]
async fn moving_a_tournament_to_another_pool_moves_its_ratings() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let first = pool(
        &app,
        &admin,
        json!({"name": "One", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let second = pool(
        &app,
        &admin,
        json!({"name": "Two", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let a = player(&app, &admin, "A", "PL", "X").await;
    let b = player(&app, &admin, "B", "PL", "X").await;
    let t = tournament(&app, &admin, "ashes_league", first, "2026-03-07").await;
    let mut conn = db(&app);
    let r = completed_round(&mut conn, t, 1, "2026-03-07T10:00:00Z");
    result(&mut conn, r, 1, 1, win(a, b));
    feed(&mut conn, t);
    assert_eq!(log(&mut conn, first).len(), 2);
    let r = app
        .patch(
            &format!("/api/v1/tournaments/{t}"),
            Some(&admin),
            json!({"rating_pool_id": second}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(log(&mut conn, first).len(), 0);
    assert_eq!(log(&mut conn, second).len(), 2);
    let r = app
        .patch(
            &format!("/api/v1/tournaments/{t}"),
            Some(&admin),
            json!({"rating_pool_id": null, "status": "registration_open"}),
        )
        .await;
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["rating_pool_id"], Value::Null);
    assert!(body["announced_at"].is_string());
    assert_eq!(log(&mut conn, second).len(), 0);
}

/// The pool's bonus changes: (tournament, player, delta), in log order.
fn bonuses(conn: &mut PgConnection, pool: i64) -> Vec<(i64, i64, f64)> {
    use tourney::db::schema::rating_changes::dsl as rc;
    rc::rating_changes
        .filter(rc::pool_id.eq(pool))
        .filter(rc::kind.eq("bonus"))
        .order((rc::sequence, rc::player_id))
        .select((rc::tournament_id, rc::player_id, rc::delta))
        .load(conn)
        .expect("bonuses")
}

/// A league tournament of the pool, announced at `announced` (RFC 3339).
async fn league_tournament(
    app: &TestApp,
    token: &str,
    pool: i64,
    starts_on: &str,
    announced: &str,
    national_rank: bool,
) -> i64 {
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(token),
            json!({
                "name": format!("Liga {starts_on}"), "game": "Ashes", "ruleset": "ashes_league",
                "planned_rounds": 3, "starts_on": starts_on, "time_zone": "Europe/Warsaw",
                "rating_pool_id": pool, "national_rank": national_rank
            }),
        )
        .await;
    assert_eq!(r.status(), 201);
    let t = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let mut conn = db(app);
    diesel::sql_query("UPDATE tournaments SET announced_at = $2::timestamptz WHERE id = $1")
        .bind::<Int8, _>(t)
        .bind::<Text, _>(announced)
        .execute(&mut conn)
        .expect("announce");
    t
}

async fn rebuild_over_http(app: &TestApp, token: &str, pool: i64) {
    let r = app
        .req(
            reqwest::Method::POST,
            &format!("/api/v1/rating-pools/{pool}/rebuild"),
            Some(token),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[actix_web::test]
async fn national_rank_bonus_goes_to_the_first_counting_tournament_of_the_season() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({
            "name": "Ashes league 2026", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
            "league": true,
            "seasons": [
                {"name": "Zima", "first_day": "2026-01-01", "last_day": "2026-02-28"},
                {"name": "Wiosna", "first_day": "2026-03-01", "last_day": "2026-04-30"}
            ]
        }),
    )
    .await;
    let mut p = Vec::new();
    for n in ["A", "B", "C", "D", "E"] {
        p.push(player(&app, &admin, n, "PL", "X").await);
    }
    let (a, b, c, d, e) = (p[0], p[1], p[2], p[3], p[4]);
    // One organiser (the admin created them all). T0: national rank, but only 3 players so
    // far, so it does not count. T1: national rank, 4 players: holds Zima's bonus. T2: national
    // rank, counts, but the organiser's bonus of the season is used. T3: announced too late.
    // T4: national rank in Wiosna: a new season, a new bonus.
    let t0 = league_tournament(
        &app,
        &admin,
        pool_id,
        "2026-01-15",
        "2026-01-01T10:00:00Z",
        true,
    )
    .await;
    let t1 = league_tournament(
        &app,
        &admin,
        pool_id,
        "2026-01-20",
        "2026-01-05T10:00:00Z",
        true,
    )
    .await;
    let t2 = league_tournament(
        &app,
        &admin,
        pool_id,
        "2026-02-10",
        "2026-01-20T10:00:00Z",
        true,
    )
    .await;
    let t3 = league_tournament(
        &app,
        &admin,
        pool_id,
        "2026-02-15",
        "2026-02-12T10:00:00Z",
        true,
    )
    .await;
    let t4 = league_tournament(
        &app,
        &admin,
        pool_id,
        "2026-03-10",
        "2026-02-20T10:00:00Z",
        true,
    )
    .await;
    let mut conn = db(&app);
    let r = completed_round(&mut conn, t0, 1, "2026-01-15T12:00:00Z");
    result(&mut conn, r, 1, 1, win(a, b));
    let r = completed_round(&mut conn, t0, 2, "2026-01-15T13:00:00Z");
    result(&mut conn, r, 1, 1, win(e, a));
    feed(&mut conn, t0);
    let t0_round2 = r;
    for (t, day, players) in [
        (t1, "2026-01-20", [a, b, c, d]),
        (t2, "2026-02-10", [a, b, c, d]),
        (t3, "2026-02-15", [a, b, c, d]),
        (t4, "2026-03-10", [b, c, d, e]),
    ] {
        let r = completed_round(&mut conn, t, 1, &format!("{day}T12:00:00Z"));
        result(&mut conn, r, 1, 1, win(players[0], players[1]));
        result(&mut conn, r, 2, 1, win(players[2], players[3]));
        let r = completed_round(&mut conn, t, 2, &format!("{day}T13:00:00Z"));
        result(&mut conn, r, 1, 1, win(players[0], players[2]));
        result(&mut conn, r, 2, 1, draw(players[1], players[3]));
        feed(&mut conn, t);
    }
    let bonus_of = |rows: &[(i64, i64, f64)], t: i64| -> Vec<(i64, f64)> {
        rows.iter()
            .filter(|r| r.0 == t)
            .map(|r| (r.1, r.2))
            .collect()
    };
    let got = bonuses(&mut conn, pool_id);
    let ten = |ps: &[i64]| -> Vec<(i64, f64)> {
        let mut v: Vec<(i64, f64)> = ps.iter().map(|&x| (x, 10.0)).collect();
        v.sort_by_key(|x| x.0);
        v
    };
    assert_eq!(bonus_of(&got, t1), ten(&[a, b, c, d]));
    assert_eq!(bonus_of(&got, t4), ten(&[b, c, d, e]));
    assert_eq!(got.len(), 8, "only T1 and T4 give a bonus: {got:?}");

    // The bonus is a change in the log right after the tournament's last game: A's rating
    // moved by it and the history shows it.
    let h: Value = app
        .get(
            &format!("/api/v1/players/{a}/ratings?pool={pool_id}&limit=200"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let kinds: Vec<&str> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["tournament_id"] == json!(t1))
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["game", "game", "bonus"]);
    let bonus_item = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "bonus")
        .unwrap();
    assert_eq!(bonus_item["delta"], 10.0);
    assert_eq!(
        round1(bonus_item["rating_after"].as_f64().unwrap() - 10.0),
        bonus_item["rating_before"].as_f64().unwrap()
    );

    // The full rebuild agrees with the incremental feed.
    let incremental = log(&mut conn, pool_id);
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(log(&mut conn, pool_id), incremental);

    // A late result brings T0 to 4 players: it now counts and, played first, holds Zima's
    // bonus; T1 loses it. Only T0's feed is called: the change to T1 follows from it.
    let r = completed_round(&mut conn, t0, 3, "2026-01-15T14:00:00Z");
    result(&mut conn, r, 1, 1, win(d, c));
    let _ = t0_round2;
    feed(&mut conn, t0);
    let got = bonuses(&mut conn, pool_id);
    assert_eq!(bonus_of(&got, t0), ten(&[a, b, c, d, e]));
    assert!(bonus_of(&got, t1).is_empty());
    assert_eq!(bonus_of(&got, t4), ten(&[b, c, d, e]));
    let incremental = log(&mut conn, pool_id);
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(log(&mut conn, pool_id), incremental);

    // The organiser withdraws T0's national rank over HTTP: T1 holds the bonus again.
    let v = app
        .get(&format!("/api/v1/tournaments/{t0}"), Some(&admin))
        .await
        .json::<Value>()
        .await
        .unwrap()["version"]
        .as_i64()
        .unwrap();
    let r = app
        .req(
            reqwest::Method::PATCH,
            &format!("/api/v1/tournaments/{t0}"),
            Some(&admin),
        )
        .header("if-match", format!("\"{v}\""))
        .json(&json!({"national_rank": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let got = bonuses(&mut conn, pool_id);
    assert!(bonus_of(&got, t0).is_empty());
    assert_eq!(bonus_of(&got, t1), ten(&[a, b, c, d]));
    let incremental = log(&mut conn, pool_id);
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(log(&mut conn, pool_id), incremental);
    let _ = (t2, t3);

    // A pool that is not a league gives no bonus.
    let plain = pool(
        &app,
        &admin,
        json!({"name": "Ashes friendly", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "seasons": [{"name": "Zima", "first_day": "2026-01-01", "last_day": "2026-02-28"}]}),
    )
    .await;
    let t = league_tournament(
        &app,
        &admin,
        plain,
        "2026-01-20",
        "2026-01-05T10:00:00Z",
        true,
    )
    .await;
    let r = completed_round(&mut conn, t, 1, "2026-01-20T12:00:00Z");
    result(&mut conn, r, 1, 1, win(a, b));
    result(&mut conn, r, 2, 1, win(c, d));
    feed(&mut conn, t);
    assert!(bonuses(&mut conn, plain).is_empty());
}

#[actix_web::test]
async fn league_table_averages_the_2017_season_ratings_of_players_classified_in_all() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    // The Ashes 2017 calendar (domain.md section 9).
    let pool_id = pool(
        &app,
        &admin,
        json!({
            "name": "Ashes 2017", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
            "league": true,
            "seasons": [
                {"name": "Sezon Iluzji", "first_day": "2017-01-12", "last_day": "2017-04-30"},
                {"name": "Sezon Uroku", "first_day": "2017-05-05", "last_day": "2017-08-30"},
                {"name": "Sezon Natury", "first_day": "2017-09-01", "last_day": "2017-12-31"}
            ]
        }),
    )
    .await;
    let mut p = Vec::new();
    for n in ["Ania", "Bartek", "Cecylia", "Darek", "Ewa"] {
        p.push(player(&app, &admin, n, "PL", "X").await);
    }
    let (a, b, c, d, e) = (p[0], p[1], p[2], p[3], p[4]);
    let mut conn = db(&app);
    // A tournament on the 15th of every month, announced on the 1st. A, B and C play every
    // month: classified in all three seasons. D misses October (Ewa plays instead), so D is
    // not classified in Sezon Natury; Ewa plays only October.
    for m in 1..=12 {
        let day = format!("2017-{m:02}-15");
        let fourth = if m == 10 { e } else { d };
        let t = league_tournament(
            &app,
            &admin,
            pool_id,
            &day,
            &format!("2017-{m:02}-01T10:00:00Z"),
            false,
        )
        .await;
        let r = completed_round(&mut conn, t, 1, &format!("{day}T12:00:00Z"));
        result(&mut conn, r, 1, 1, win(a, b));
        result(&mut conn, r, 2, 1, win(c, fourth));
        let r = completed_round(&mut conn, t, 2, &format!("{day}T13:00:00Z"));
        result(&mut conn, r, 1, 1, win(a, c));
        if m % 2 == 0 {
            result(&mut conn, r, 2, 1, win(b, fourth));
        } else {
            result(&mut conn, r, 2, 1, win(fourth, b));
        }
        feed(&mut conn, t);
    }
    let r = app
        .get(&format!("/api/v1/rating-pools/{pool_id}/league"), None)
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("cache-control").is_some());
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let l: Value = r.json().await.unwrap();
    assert_eq!(l["seasons"].as_array().unwrap().len(), 3);
    assert_eq!(l["seasons"][2]["name"], "Sezon Natury");
    // Standings at 22:00 Warsaw on 31 December (CET): 21:00 UTC.
    assert_eq!(l["seasons"][2]["standings_at"], "2017-12-31T21:00:00Z");

    // The average of the season ratings the season tables show, for A, B and C.
    let mut season_rating: HashMap<(usize, i64), f64> = HashMap::new();
    for s in 1..=3 {
        let st: Value = app
            .get(&format!("/api/v1/rating-pools/{pool_id}/seasons/{s}"), None)
            .await
            .json()
            .await
            .unwrap();
        for row in st["rows"].as_array().unwrap() {
            season_rating.insert(
                (s, row["player_id"].as_i64().unwrap()),
                row["rating"].as_f64().unwrap(),
            );
        }
    }
    let rows = l["rows"].as_array().unwrap();
    let ids: Vec<i64> = rows
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    let mut want: Vec<(i64, f64)> = [a, b, c]
        .iter()
        .map(|&x| {
            (
                x,
                (1..=3).map(|s| season_rating[&(s, x)]).sum::<f64>() / 3.0,
            )
        })
        .collect();
    want.sort_by(|x, y| y.1.total_cmp(&x.1));
    assert_eq!(ids, want.iter().map(|w| w.0).collect::<Vec<_>>());
    for (row, (_, avg)) in rows.iter().zip(&want) {
        assert!(
            (row["average"].as_f64().unwrap() - avg).abs() <= 0.1,
            "{row} vs {avg}"
        );
        assert_eq!(row["classified"], json!([true, true, true]));
    }
    assert_eq!(rows[0]["player_id"], json!(a));
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(l["winners"], json!([a]));

    // D and Ewa are listed apart, without rank or average.
    let others = l["others"].as_array().unwrap();
    let other_ids: Vec<i64> = others
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(other_ids, [d, e]);
    assert_eq!(others[0]["classified"], json!([true, true, false]));
    assert_eq!(others[0]["rank"], Value::Null);
    assert_eq!(others[0]["average"], Value::Null);
    assert_eq!(others[1]["season_ratings"][0], Value::Null);
    assert_eq!(others[1]["classified"], json!([false, false, false]));

    // ETag revalidation and CSV.
    let r = app
        .req(
            reqwest::Method::GET,
            &format!("/api/v1/rating-pools/{pool_id}/league"),
            None,
        )
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    let r = app
        .get(
            &format!("/api/v1/rating-pools/{pool_id}/league?format=csv"),
            None,
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let csv = r.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,player_id,name,average,season_1_rating,season_1_classified,\
         season_2_rating,season_2_classified,season_3_rating,season_3_classified"
    );
    assert_eq!(lines.len(), 6);
    assert!(lines[1].starts_with(&format!("1,{a},Ania,")));
    assert!(lines[5].starts_with(&format!(",{e},Ewa,,,false,,false,")));

    problem(
        app.get("/api/v1/rating-pools/999999/league", None).await,
        404,
    )
    .await;
    problem(
        app.get(
            &format!("/api/v1/rating-pools/{pool_id}/league?format=xml"),
            None,
        )
        .await,
        422,
    )
    .await;
}
