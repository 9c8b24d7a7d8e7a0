//! Rating pools, the feed from results, leaderboards, seasons and rating history.
//!
//! Rounds and results are written straight into the database (as the results code stores
//! them) and the feed is called as the results code calls it, inside a transaction.

use diesel::prelude::*;
use serde_json::{json, Value};
use tourney::domain::{RoundId, TournamentId};

use crate::helpers::{problem, spawn_app};

#[allow(unused_imports)]
use crate::rating_fixtures::*;

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
    conn.transaction(|c| {
        tourney::services::ratings::round_results_changed(c, TournamentId(t2), RoundId(t2_round2))
    })
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
