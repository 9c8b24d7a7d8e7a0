//! Issue 14, item 20: ratings follow when a game was played, not when its result was entered
//! (domain.md section 10: "Ratings follow the results in time order"; seed 004 section 3: a
//! season counts "wszystkie turnieje rozegrane w czasie jego trwania"), and no result is taken
//! for a tournament that has not started.

use serde_json::{json, Value};

use crate::event_fixtures::new_round;
use crate::helpers::{fields, problem, spawn_app, TestApp};
use crate::rating_fixtures::{pool, ratings, rebuild_over_http};

/// A one-day Tantrix tournament of two registered players, open for registration.
async fn tantrix_event(app: &TestApp, admin: &str, pool: i64, day: &str, players: [i64; 2]) -> i64 {
    tantrix_event_with(app, admin, pool, day, players, json!({})).await
}

/// [`tantrix_event`] with more fields of the tournament (a registration deadline).
async fn tantrix_event_with(
    app: &TestApp,
    admin: &str,
    pool: i64,
    day: &str,
    players: [i64; 2],
    more: Value,
) -> i64 {
    let mut body = json!({"name": format!("Tantrix {day}"), "game": "Tantrix", "ruleset": "tantrix",
                          "planned_rounds": 1, "starts_on": day, "time_zone": "Europe/Berlin",
                          "rating_pool_id": pool});
    body.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    let r = app.post("/api/v1/tournaments", Some(admin), body).await;
    let status = r.status();
    let t: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{t}");
    let tid = t["id"].as_i64().unwrap();
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    for p in players {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(admin),
                json!({"player_id": p}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    tid
}

async fn person(app: &TestApp, admin: &str, name: &str) -> i64 {
    let r = app
        .post(
            "/api/v1/players",
            Some(admin),
            json!({"name": name, "country": "DE"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

/// Draws round 1 (one table) and enters `winner` beating the other player 30-12.
async fn play(app: &TestApp, admin: &str, tid: i64, winner: i64, round: Value) -> Value {
    let round = new_round(app, tid, admin, round).await;
    let seats = &round["draw"]["tables"][0]["seats"];
    let loser = if seats[0].as_i64() == Some(winner) {
        seats[1].clone()
    } else {
        seats[0].clone()
    };
    let r = app
        .put(
            &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            Some(admin),
            json!({"seats": [{"player_id": winner, "score": 30}, {"player_id": loser, "score": 12}]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    app.get(&format!("/api/v1/tournaments/{tid}/rounds/1"), None)
        .await
        .json()
        .await
        .unwrap()
}

/// Two tournaments of the same two players: X wins the March one, Y the February one, and the
/// March one is entered first. In the order played, Y's February win comes first, so X's March
/// win is against a higher-rated Y and is worth more: X ends above Y. In the order entered, Y
/// would end above X. Moving the March event to January (its dates) puts it first and turns
/// the order round; a rebuild agrees with the incremental feed every time.
#[actix_web::test]
async fn ratings_follow_the_order_games_were_played_not_entered() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix time", "preset": "tantrix", "time_zone": "Europe/Berlin"}),
    )
    .await;
    let x = person(&app, &admin, "Xaver").await;
    let y = person(&app, &admin, "Yvonne").await;
    let march = tantrix_event(&app, &admin, pool_id, "2026-03-07", [x, y]).await;
    let february = tantrix_event(&app, &admin, pool_id, "2026-02-14", [x, y]).await;

    let round = play(&app, &admin, march, x, json!({"method": "round_robin"})).await;
    // Entered long after the event: played on its last evening, 22:00 in Berlin (CET).
    assert_eq!(round["played_at"], "2026-03-07T21:00:00Z");
    assert_eq!(round["played_at_stated"], false);
    play(&app, &admin, february, y, json!({"method": "round_robin"})).await;

    let now = ratings(&app, pool_id).await;
    assert!(
        now[&x] > now[&y],
        "played order: X's win came second {now:?}"
    );
    let history: Value = app
        .get(&format!("/api/v1/players/{x}/ratings?pool={pool_id}"), None)
        .await
        .json()
        .await
        .unwrap();
    let tournaments: Vec<i64> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["tournament_id"].as_i64().unwrap())
        .collect();
    // Oldest first: February, although entered second.
    assert_eq!(tournaments, vec![february, march], "{history}");
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(ratings(&app, pool_id).await, now);

    // The March event was in fact played in January: its round follows its dates.
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{march}"),
            Some(&admin),
            3,
            json!({"starts_on": "2026-01-10"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let moved = ratings(&app, pool_id).await;
    assert!(moved[&y] > moved[&x], "January first: {moved:?}");
    rebuild_over_http(&app, &admin, pool_id).await;
    assert_eq!(ratings(&app, pool_id).await, moved);

    // A stated time outside the playing days is refused; inside, it orders the round.
    let r = app
        .patch(
            &format!("/api/v1/tournaments/{february}/rounds/1"),
            Some(&admin),
            json!({"played_at": "2026-02-15T10:00:00Z"}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), vec!["played_at"]);
    let r = app
        .patch(
            &format!("/api/v1/tournaments/{february}/rounds/1"),
            Some(&admin),
            json!({"played_at": "2026-02-14T09:00:00Z"}),
        )
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["played_at"], "2026-02-14T09:00:00Z");
    assert_eq!(body["played_at_stated"], true);
    assert_eq!(ratings(&app, pool_id).await, moved);
    // Back to the derived time.
    let r = app
        .patch(
            &format!("/api/v1/tournaments/{february}/rounds/1"),
            Some(&admin),
            json!({"played_at": null}),
        )
        .await;
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["played_at"], "2026-02-14T21:00:00Z");
    assert_eq!(body["played_at_stated"], false);
}

/// Seed 004 section 3: a season counts every tournament played while it lasts, and its
/// ratings are taken at 22:00 on its last day (section 7). A tournament held on that day and
/// entered a week later is in the season's ratings, as it is in its classification.
#[actix_web::test]
async fn a_tournament_entered_after_the_season_ended_counts_in_its_ratings() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix seasons", "preset": "tantrix", "time_zone": "Europe/Berlin",
               "seasons": [{"name": "Winter", "first_day": "2026-01-01", "last_day": "2026-02-28"}]}),
    )
    .await;
    let x = person(&app, &admin, "Xaver").await;
    let y = person(&app, &admin, "Yvonne").await;
    let last_day = tantrix_event(&app, &admin, pool_id, "2026-02-28", [x, y]).await;
    play(&app, &admin, last_day, x, json!({"method": "round_robin"})).await;

    let s: Value = app
        .get(&format!("/api/v1/rating-pools/{pool_id}/seasons/1"), None)
        .await
        .json()
        .await
        .unwrap();
    let rating = |p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == json!(p))
            .map(|r| r["rating"].as_f64().unwrap())
    };
    let (rx, ry) = (rating(x), rating(y));
    assert!(rx.is_some() && ry.is_some(), "{s}");
    assert!(rx > ry, "the game counts in the season: {s}");
}

/// A stated time of play at creation orders the round; outside the playing days it is refused.
#[actix_web::test]
async fn a_round_can_state_when_it_is_played() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix stated", "preset": "tantrix", "time_zone": "Europe/Berlin"}),
    )
    .await;
    let x = person(&app, &admin, "Xaver").await;
    let y = person(&app, &admin, "Yvonne").await;
    let tid = tantrix_event(&app, &admin, pool_id, "2026-02-14", [x, y]).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&admin),
            json!({"method": "round_robin", "played_at": "2026-02-13T10:00:00Z"}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), vec!["played_at"]);
    let round = play(
        &app,
        &admin,
        tid,
        x,
        json!({"method": "round_robin", "played_at": "2026-02-14T10:30:00Z"}),
    )
    .await;
    assert_eq!(round["played_at"], "2026-02-14T10:30:00Z");
    assert_eq!(round["played_at_stated"], true);
    let history: Value = app
        .get(&format!("/api/v1/players/{x}/ratings?pool={pool_id}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(history["items"][0]["rated_at"], "2026-02-14T10:30:00Z");
}

/// No game of a tournament can have been played before its first day: results are refused
/// (409) until then, and taken once the tournament has started.
#[actix_web::test]
async fn results_are_refused_before_the_tournament_starts() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix future", "preset": "tantrix", "time_zone": "Europe/Berlin"}),
    )
    .await;
    let x = person(&app, &admin, "Xaver").await;
    let y = person(&app, &admin, "Yvonne").await;
    let later = (chrono::Utc::now() + chrono::Duration::days(3)).date_naive();
    let tid = tantrix_event(&app, &admin, pool_id, &later.to_string(), [x, y]).await;
    // Drawing ahead is fine.
    let round = new_round(&app, tid, &admin, json!({"method": "round_robin"})).await;
    let seats = round["draw"]["tables"][0]["seats"].clone();
    let body = json!({"seats": [{"player_id": seats[0], "score": 30}, {"player_id": seats[1], "score": 12}]});
    let url = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result");
    let p = problem(app.put(&url, Some(&admin), body.clone()).await, 409).await;
    assert!(p["detail"].as_str().unwrap().contains("starts on"), "{p}");
    let earlier = (chrono::Utc::now() - chrono::Duration::days(1)).date_naive();
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&admin),
            3,
            json!({"starts_on": earlier.to_string()}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = app.put(&url, Some(&admin), body).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

/// The rating a draw seeds by (seed 003 rule 13: the rating at the registration deadline, or now
/// without one), read from the revealed draw input: every branch of where it comes from. A time
/// after the pool's latest game is answered from the pool's standings; an earlier one replays the
/// log up to it; before any game a player has no rating.
#[actix_web::test]
async fn a_draw_seeds_by_the_rating_at_the_deadline_or_now() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Tantrix seeding", "preset": "tantrix", "time_zone": "Europe/Berlin"}),
    )
    .await;
    let x = person(&app, &admin, "Xaver").await;
    let y = person(&app, &admin, "Yvonne").await;
    let feb = tantrix_event(&app, &admin, pool_id, "2026-02-14", [x, y]).await;
    play(&app, &admin, feb, x, json!({"method": "round_robin"})).await;
    let after_feb = ratings(&app, pool_id).await;
    assert!(after_feb[&x] > after_feb[&y]);

    // No deadline: the rating now, after the February game.
    let mar = tantrix_event(&app, &admin, pool_id, "2026-03-14", [x, y]).await;
    new_round(&app, mar, &admin, json!({"method": "round_robin"})).await;
    assert_eq!(
        seeded_by(&app, mar).await[&x],
        (Some(after_feb[&x]), Some(1))
    );
    let r = app
        .put(
            &format!("/api/v1/tournaments/{mar}/rounds/1/tables/1/result"),
            Some(&admin),
            json!({"seats": [{"player_id": y, "score": 30}, {"player_id": x, "score": 12}]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let after_mar = ratings(&app, pool_id).await;
    assert_ne!(after_mar[&x], after_feb[&x]);

    for (deadline, day, expected_x, expected_y) in [
        // Between the two games: the log replayed up to it, the March game left out.
        (
            "2026-03-01T00:00:00Z",
            "2026-04-11",
            (Some(after_feb[&x]), Some(1)),
            (Some(after_feb[&y]), Some(1)),
        ),
        // After both: the pool's standings.
        (
            "2026-03-20T00:00:00Z",
            "2026-04-18",
            (Some(after_mar[&x]), Some(2)),
            (Some(after_mar[&y]), Some(2)),
        ),
        // Before any game: no rating.
        (
            "2026-02-01T00:00:00Z",
            "2026-04-25",
            (None, Some(0)),
            (None, Some(0)),
        ),
    ] {
        let tid = tantrix_event_with(
            &app,
            &admin,
            pool_id,
            day,
            [x, y],
            json!({"registration_deadline": deadline}),
        )
        .await;
        new_round(&app, tid, &admin, json!({"method": "round_robin"})).await;
        let seeded = seeded_by(&app, tid).await;
        assert_eq!(seeded[&x], expected_x, "deadline {deadline}");
        assert_eq!(seeded[&y], expected_y, "deadline {deadline}");
    }
}

/// Each player's rating and rated games in the revealed input of the draw of `tid`'s round 1
/// (published).
async fn seeded_by(
    app: &TestApp,
    tid: i64,
) -> std::collections::HashMap<i64, (Option<f64>, Option<u64>)> {
    let draws: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/rounds/1/draws"), None)
        .await
        .json()
        .await
        .unwrap();
    draws["items"][0]["input"]["players"]
        .as_array()
        .unwrap_or_else(|| panic!("{draws}"))
        .iter()
        .map(|e| {
            (
                e["id"].as_i64().unwrap(),
                // To the leaderboard's one decimal.
                (
                    e["rating"].as_f64().map(|r| (r * 10.0).round() / 10.0),
                    e["rated_games"].as_u64(),
                ),
            )
        })
        .collect()
}
