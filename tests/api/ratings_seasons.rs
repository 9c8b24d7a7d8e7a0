//! Seasons, pool administration, moving tournaments between pools, the national-rank bonus and the league table.

use diesel::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;

use crate::helpers::{fields, problem, spawn_app};

#[allow(unused_imports)]
use crate::rating_fixtures::*;

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
    let seasons = seasons["items"].clone();
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
        app.patch_any(
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
        .patch_if_match(&path, Some(&admin), 7, json!({"params": {"k": 20}}))
        .await;
    problem(r, 412).await;
    let r = app
        .patch_if_match(
            &path,
            Some(&admin),
            1,
            json!({"params": {"k": 20, "max_change_per_game": null}, "league": true}),
        )
        .await;
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
        .patch_any(
            &format!("/api/v1/tournaments/{t}"),
            Some(&admin),
            json!({"rating_pool_id": second}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(log(&mut conn, first).len(), 0);
    assert_eq!(log(&mut conn, second).len(), 2);
    let r = app
        .patch_any(
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
        .patch_if_match(
            &format!("/api/v1/tournaments/{t0}"),
            Some(&admin),
            v,
            json!({"national_rank": false}),
        )
        .await;
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
        "rank,player_id,player_name,average,season_1_rating,season_1_classified,\
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
