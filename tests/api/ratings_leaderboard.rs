//! The leaderboard over HTTP: summaries, filters, pages, CSV, ETags and the cache.

use serde_json::{json, Value};
use std::collections::HashMap;

use crate::helpers::{fields, problem, spawn_app};

#[allow(unused_imports)]
use crate::rating_fixtures::*;

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
        .any(|r| r["player_name"] == "Anna"));

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
        "rank,player_id,player_name,club,country,rating,games,provisional,last_played,trend_delta"
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
    assert!(items.iter().any(|r| r["player_name"] == "Bartosz"));
    assert!(!items.iter().any(|r| r["player_name"] == "Bartek"));
    let csv = app
        .get(&format!("{path}?format=csv"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(csv.contains(&format!("{b},Bartosz,Warszawa,PL,")), "{csv}");

    // The pool's threshold: A has 2 games, B and D 1, C 2.
    let r = app
        .patch_any(
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
    crowd(&mut conn, pool_id);

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
                                "name": r["player_name"], "club": r["club"], "country": r["country"],
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
