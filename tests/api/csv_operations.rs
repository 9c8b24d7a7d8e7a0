//! Issue 30 item 4: the CSV forms of the standings, the leaderboard and the league table are
//! operations of their own (`.../standings.csv`, `.../leaderboard.csv`, `.../league.csv`), each
//! documented with only `text/csv`, while the JSON operations document only JSON, so that
//! generated clients (openapi-typescript) type `data.items` without a `| string`. The old
//! `?format=csv` / `Accept: text/csv` on the JSON paths still answer CSV for curl users.

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round, team_event};
use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{
    completed_round, db, draw, feed, player, pool, result, tournament, win,
};

fn content_type(r: &reqwest::Response) -> String {
    r.headers()["content-type"].to_str().unwrap().to_string()
}

/// (content type, ETag, body) of a 200 answer.
async fn csv_of(app: &TestApp, path: &str, token: Option<&str>) -> (String, String, String) {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    (content_type(&r), etag, r.text().await.unwrap())
}

#[actix_web::test]
async fn the_document_keeps_json_and_csv_apart() {
    let doc = tourney::app::openapi();
    for (json_path, csv_path) in [
        (
            "/api/v1/tournaments/{id}/standings",
            "/api/v1/tournaments/{id}/standings.csv",
        ),
        (
            "/api/v1/rating-pools/{id}/leaderboard",
            "/api/v1/rating-pools/{id}/leaderboard.csv",
        ),
        (
            "/api/v1/rating-pools/{id}/league",
            "/api/v1/rating-pools/{id}/league.csv",
        ),
    ] {
        let ok = |path: &str| -> Vec<String> {
            doc["paths"][path]["get"]["responses"]["200"]["content"]
                .as_object()
                .unwrap_or_else(|| panic!("{path} has a 200 body"))
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(ok(json_path), ["application/json"], "{json_path}");
        assert_eq!(ok(csv_path), ["text/csv"], "{csv_path}");
        // A client cannot ask one operation for two representations: the `.csv` path has no
        // `format`, and on the JSON path it is deprecated (issue 38) and names only `json`.
        let params = |path: &str| doc["paths"][path]["get"]["parameters"].clone();
        let names: Vec<String> = params(csv_path)
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        assert!(
            !names.contains(&"format".to_string()),
            "{csv_path}: {names:?}"
        );
        let format = params(json_path)
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "format")
            .cloned()
            .unwrap();
        assert_eq!(format["deprecated"], true, "{json_path}");
        assert_eq!(format["schema"]["enum"], json!(["json"]), "{json_path}");
    }
}

#[actix_web::test]
async fn standings_csv_has_its_own_operation_with_every_branch() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;

    let csv_path = format!("/api/v1/tournaments/{tid}/standings.csv");
    let (ct, etag, csv) = csv_of(&app, &csv_path, None).await;
    assert!(ct.starts_with("text/csv"), "{ct}");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("place,player_id,player_name,tp,round_1"),
        "{csv}"
    );
    assert_eq!(lines.len(), 1 + ids.len(), "a line per player: {csv}");
    for id in &ids {
        assert!(
            csv.contains(&format!(",{id},")),
            "player {id} listed: {csv}"
        );
    }
    // The same rows as the JSON, in the same order.
    let json: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    for (line, row) in lines[1..].iter().zip(json["rows"].as_array().unwrap()) {
        assert!(
            line.starts_with(&format!("{},{},", row["place"], row["player_id"])),
            "{line} vs {row}"
        );
    }
    // A revalidation is 304, anonymous and signed in; the old spellings answer the same CSV.
    for token in [None, Some(org.as_str())] {
        let r = app
            .req(Method::GET, &csv_path, token)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 304);
    }
    let (_, _, signed_in) = csv_of(&app, &csv_path, Some(&org)).await;
    assert_eq!(signed_in, csv);
    let (ct, _, old) = csv_of(
        &app,
        &format!("/api/v1/tournaments/{tid}/standings?format=csv"),
        None,
    )
    .await;
    assert!(ct.starts_with("text/csv"));
    assert_eq!(old, csv);
    let r = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/standings"),
            None,
        )
        .header("accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert!(content_type(&r).starts_with("text/csv"));
    assert_eq!(r.text().await.unwrap(), csv);
    // Without either, the JSON path answers JSON.
    let r = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await;
    assert!(content_type(&r).starts_with("application/json"));

    // Bad input names the parameter; `format=json` contradicts the path.
    let body = problem(
        app.get(&format!("{csv_path}?after_round=1001"), None).await,
        422,
    )
    .await;
    assert_eq!(fields(&body), ["after_round"]);
    let body = problem(app.get(&format!("{csv_path}?format=json"), None).await, 422).await;
    assert_eq!(fields(&body), ["format"]);
    let body = problem(
        app.get(&format!("{csv_path}?purpose=best"), None).await,
        422,
    )
    .await;
    assert_eq!(fields(&body), ["purpose"]);
    problem(
        app.get("/api/v1/tournaments/999999/standings.csv", None)
            .await,
        404,
    )
    .await;
    problem(app.get(&csv_path, Some("not-a-token")).await, 401).await;
}

#[actix_web::test]
async fn a_team_event_has_no_standings_csv() {
    let app = spawn_app().await;
    let (team, _, _, _) = team_event(&app, 2).await;
    problem(
        app.get(&format!("/api/v1/tournaments/{team}/standings.csv"), None)
            .await,
        409,
    )
    .await;
}

#[actix_web::test]
async fn a_draft_tournaments_csv_is_hidden_from_all_but_its_staff() {
    let app = spawn_app().await;
    let (_, org) = app.user("organiser").await;
    let (_, stranger) = app.user("stranger").await;
    let tid = app.tournament(&org, "agricola_norway").await;
    let path = format!("/api/v1/tournaments/{tid}/standings.csv");
    // Anonymous readers and other accounts cannot tell a draft from a missing tournament.
    problem(app.get(&path, None).await, 404).await;
    problem(app.get(&path, Some(&stranger)).await, 404).await;
    problem(
        app.get(
            &format!("/api/v1/tournaments/{tid}/standings?format=csv"),
            None,
        )
        .await,
        404,
    )
    .await;
    // Its organiser and an admin read it.
    let (ct, _, csv) = csv_of(&app, &path, Some(&org)).await;
    assert!(ct.starts_with("text/csv"));
    assert!(csv.starts_with("place,player_id,player_name"), "{csv}");
    let admin = app.admin_token().await;
    let (_, _, by_admin) = csv_of(&app, &path, Some(&admin)).await;
    assert_eq!(by_admin, csv);
}

/// A pool with four players rated over one tournament; (pool, players).
async fn rated_pool(app: &TestApp) -> (i64, Vec<i64>) {
    let admin = app.admin_token().await;
    let pool_id = pool(
        app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
               "params": {"min_games_listed": 2}}),
    )
    .await;
    let mut p = Vec::new();
    for (name, club) in [
        ("Ania", "Kraków"),
        ("Bartek", "Łódź"),
        ("Cecylia", "Kraków"),
        ("Darek, \"D\"", "Łódź"),
    ] {
        p.push(player(app, &admin, name, "PL", club).await);
    }
    let t = tournament(app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(app);
    for n in 1..=3 {
        let r = completed_round(&mut conn, t, n, &format!("2026-03-07T1{n}:00:00Z"));
        result(&mut conn, r, 1, 1, win(p[0], p[(n as usize) % 3 + 1]));
        result(
            &mut conn,
            r,
            2,
            1,
            draw(p[(n as usize + 1) % 3 + 1], p[(n as usize + 2) % 3 + 1]),
        );
    }
    feed(&mut conn, t);
    (pool_id, p)
}

#[actix_web::test]
async fn leaderboard_and_league_csv_have_their_own_operations() {
    let app = spawn_app().await;
    let (pool_id, p) = rated_pool(&app).await;
    let base = format!("/api/v1/rating-pools/{pool_id}");

    // Every row whatever `limit` says, the first the winner of every game; quoted names.
    let (ct, etag, csv) = csv_of(
        &app,
        &format!("{base}/leaderboard.csv?include_provisional=true&limit=1"),
        None,
    )
    .await;
    assert!(ct.starts_with("text/csv"), "{ct}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,player_id,player_name,club,country,rating,games,provisional,last_played,trend_delta"
    );
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(
        lines[1].starts_with(&format!("1,{},Ania,Kraków,PL,", p[0])),
        "{csv}"
    );
    assert!(csv.contains("\"Darek, \"\"D\"\"\""), "quoted: {csv}");
    // The JSON page holds one row; the CSV and the JSON have different ETags.
    let r = app
        .get(
            &format!("{base}/leaderboard?include_provisional=true&limit=1"),
            None,
        )
        .await;
    assert!(content_type(&r).starts_with("application/json"));
    assert_ne!(r.headers()["etag"].to_str().unwrap(), etag);
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["total"], 4);
    // Filters apply; the old spelling answers the same CSV; revalidation is 304.
    let (_, _, listed) = csv_of(&app, &format!("{base}/leaderboard.csv"), None).await;
    assert!(
        listed.lines().count() < lines.len(),
        "established only: {listed}"
    );
    let (ct, _, old) = csv_of(
        &app,
        &format!("{base}/leaderboard?format=csv&include_provisional=true&limit=1"),
        None,
    )
    .await;
    assert!(ct.starts_with("text/csv"));
    assert_eq!(old, csv);
    let r = app
        .req(
            Method::GET,
            &format!("{base}/leaderboard.csv?include_provisional=true&limit=1"),
            None,
        )
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    let body = problem(
        app.get(&format!("{base}/leaderboard.csv?country=POL"), None)
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&body), ["country"]);
    let body = problem(
        app.get(&format!("{base}/leaderboard.csv?format=json"), None)
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&body), ["format"]);
    problem(
        app.get(&format!("{base}/leaderboard.csv?season=1"), None)
            .await,
        404,
    )
    .await;
    problem(
        app.get("/api/v1/rating-pools/999999/leaderboard.csv", None)
            .await,
        404,
    )
    .await;

    // The league table: a pool without seasons has an empty table, the header still there.
    let (ct, _, league) = csv_of(&app, &format!("{base}/league.csv"), None).await;
    assert!(ct.starts_with("text/csv"), "{ct}");
    assert_eq!(league, "rank,player_id,player_name,average\n");
    let r = app.get(&format!("{base}/league"), None).await;
    assert!(content_type(&r).starts_with("application/json"));
    let (_, _, old) = csv_of(&app, &format!("{base}/league?format=csv"), None).await;
    assert_eq!(old, league);
    let body = problem(
        app.get(&format!("{base}/league.csv?format=json"), None)
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&body), ["format"]);
    problem(
        app.get("/api/v1/rating-pools/999999/league.csv", None)
            .await,
        404,
    )
    .await;
    problem(
        app.get(&format!("{base}/league.csv"), Some("not-a-token"))
            .await,
        401,
    )
    .await;
}
