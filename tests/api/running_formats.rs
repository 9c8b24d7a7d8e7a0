//! Whole events of each format over HTTP: Ashes, Tantrix, Bridge-Agricola, results feeding a pool.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app, TestApp};

#[allow(unused_imports)]
use crate::event_fixtures::*;

#[actix_web::test]
async fn ashes_nine_players_four_swiss_rounds_with_byes_a_draw_and_a_removal() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "ashes_league", 9).await;
    // Two-player formats confirm everyone: the odd player out gets a bye.
    let regs: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/registrations"), None)
        .await
        .json()
        .await
        .unwrap();
    let regs = regs["items"].clone();
    assert!(regs
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "confirmed"));
    // Follow the live feed from the start.
    let mut feed = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events?after=0"),
            None,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(feed.status(), 200);
    assert!(feed.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));

    let r1 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    assert_eq!(r1["draw"]["tables"].as_array().unwrap().len(), 4);
    let bye1 = r1["draw"]["byes"][0]
        .as_i64()
        .expect("one bye for nine players");
    let drawn_table = r1["draw"]["tables"][0]["number"].as_i64().unwrap();
    let drawn_pair: Vec<i64> = r1["draw"]["tables"][0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    play_duels(&app, tid, &referee, &r1, &[drawn_table]).await;
    let mut seen = String::new();
    while !seen.contains("event: round_completed") {
        let chunk = feed.chunk().await.unwrap().expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: round_published"));
    assert!(seen.contains("event: result_entered"));

    // Win 3, bye 3, draw 1, loss 0.
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let tp = |s: &Value, p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .unwrap()["tp"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(tp(&s, bye1), 3.0);
    assert_eq!((tp(&s, drawn_pair[0]), tp(&s, drawn_pair[1])), (1.0, 1.0));

    // Three sanctions against one player: warning, game loss (their round-2 game), removal.
    let r2 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let bye2 = r2["draw"]["byes"][0].as_i64().unwrap();
    assert_ne!(bye2, bye1, "the bye goes to someone who has not had one");
    let culprit_table = &r2["draw"]["tables"][1];
    let culprit = culprit_table["seats"][0].as_i64().unwrap();
    play_duels(&app, tid, &referee, &r2, &[]).await;
    let mut kinds = Vec::new();
    for _ in 0..3 {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/penalties"),
                Some(&referee),
                json!({"player_id": culprit, "kind": "sanction", "round": 2,
                       "table": culprit_table["number"], "reason": "slow play"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        kinds.push(
            r.json::<Value>().await.unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(kinds, vec!["warning", "game_loss", "removal"]);
    let s2: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?after_round=2"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let row = s2["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == culprit)
        .unwrap()
        .clone();
    assert_eq!(
        row["tp_by_round"][1], 0.0,
        "the game loss took the round-2 win: {row}"
    );

    // Rounds 3 and 4 go on without the removed player: eight players, no bye.
    for n in 3..=4 {
        let r = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
        let seated: Vec<i64> = r["draw"]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| {
                t["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_i64().unwrap())
            })
            .collect();
        assert!(!seated.contains(&culprit), "round {n}");
        assert_eq!(seated.len(), 8);
        assert!(r["draw"]["byes"].as_array().unwrap().is_empty());
        play_duels(&app, tid, &referee, &r, &[]).await;
    }
    let fin: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let rows = fin["rows"].as_array().unwrap();
    assert_eq!(rows.len(), ids.len());
    assert_eq!(
        rows.last().unwrap()["player_id"],
        culprit,
        "removed: placed last"
    );
    assert_eq!(rows.last().unwrap()["withdrawn"], true);
    // All four planned rounds are counted; a fifth is allowed (planned 5), a sixth is not.
    assert_eq!(fin["rounds"], json!([1, 2, 3, 4]));
}

#[actix_web::test]
async fn results_entered_over_http_feed_the_pool_and_a_correction_moves_the_leaderboard() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let (tid, org, referee, _) = event(&app, "ashes_league", 4).await;
    let t: Value = app
        .get(&format!("/api/v1/tournaments/{tid}"), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    // Four Ashes players play exactly 3 rounds (seed 004).
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
            &t["version"],
            json!({"rating_pool_id": pool, "planned_rounds": 3}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    app.accept_rating(pool, tid).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "swiss_2p"})).await;
    let tables = r1["draw"]["tables"].as_array().unwrap();
    for t in tables {
        let s = t["seats"].as_array().unwrap();
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                    t["number"]
                ),
                Some(&referee),
            )
            .json(&json!({"seats": [
                {"player_id": s[0], "score": 10, "outcome": "win"},
                {"player_id": s[1], "score": 4, "outcome": "loss"}]}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let winner = tables[0]["seats"][0].as_i64().unwrap();
    let loser = tables[0]["seats"][1].as_i64().unwrap();
    let board = |app: &TestApp| {
        let url = format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true");
        let req = app.req(Method::GET, &url, None);
        async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let rating_of = |b: &Value, p: i64| {
        b["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .map(|r| r["rating"].as_f64().unwrap())
    };
    let b = board(&app).await;
    assert_eq!(rating_of(&b, winner), Some(1012.5), "{b}");
    assert_eq!(rating_of(&b, loser), Some(987.5));
    // The referee corrects the first table: the other player won. The ratings follow.
    let r = app
        .put_if_match(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                tables[0]["number"]
            ),
            Some(&referee),
            1,
            json!({"reason": "winner misread", "seats": [
            {"player_id": winner, "score": 4, "outcome": "loss"},
            {"player_id": loser, "score": 10, "outcome": "win"}]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let b = board(&app).await;
    assert_eq!(rating_of(&b, winner), Some(987.5), "{b}");
    assert_eq!(rating_of(&b, loser), Some(1012.5));
}

#[actix_web::test]
async fn tantrix_round_robin_of_six_with_a_forfeit_and_a_time_penalty() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 6).await;
    let mut pairs = std::collections::HashSet::new();
    let mut forfeit_game = None;
    let mut slow_game = None;
    for n in 1..=5 {
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        let tables = round["draw"]["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 3);
        for (i, t) in tables.iter().enumerate() {
            let s: Vec<i64> = t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .collect();
            assert!(
                pairs.insert((s[0].min(s[1]), s[0].max(s[1]))),
                "pair met twice"
            );
            // Seat 1 wins 45-40 (15.0 : 5.0); round 1 has a no-show and a slow winner.
            let mut seats = vec![
                json!({"player_id": s[0], "score": 45}),
                json!({"player_id": s[1], "score": 40}),
            ];
            if n == 1 && i == 0 {
                seats[1] = json!({"player_id": s[1], "score": 0, "forfeit": true});
                seats[0] = json!({"player_id": s[0], "score": 0});
                forfeit_game = Some((s[0], s[1]));
            }
            if n == 1 && i == 1 {
                // 16:59 used: two full minutes over 14 move 2 TP to the opponent.
                seats[0] = json!({"player_id": s[0], "score": 45, "time_used_secs": 16 * 60 + 59});
                slow_game = Some((s[0], s[1]));
            }
            let r = app
                .req(
                    Method::PUT,
                    &format!(
                        "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                        t["number"]
                    ),
                    Some(&referee),
                )
                .json(&json!({"seats": seats}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        }
    }
    assert_eq!(pairs.len(), 15, "every pair of six met exactly once");
    let s: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?after_round=1"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let tp1 = |p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .unwrap()["tp"]
            .as_f64()
            .unwrap()
    };
    let (present, absent) = forfeit_game.unwrap();
    assert_eq!((tp1(present), tp1(absent)), (18.0, 2.0));
    let (slow, other) = slow_game.unwrap();
    assert_eq!((tp1(slow), tp1(other)), (13.0, 7.0));
    let full: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(full["rows"].as_array().unwrap().len(), ids.len());
    assert_eq!(full["rounds"], json!([1, 2, 3, 4, 5]));
    let total: f64 = full["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tp"].as_f64().unwrap())
        .sum();
    assert!(
        (total - 15.0 * 20.0).abs() < 1e-9,
        "every game hands out 20 TP: {total}"
    );
}

#[actix_web::test]
async fn bridge_agricola_sixteen_players_five_rounds_and_the_final() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "bridge_agricola", 16).await;
    let mut table_pairs = std::collections::HashMap::new();
    let mut group_pairs = std::collections::HashMap::new();
    let pairs_of = |members: Vec<i64>, into: &mut std::collections::HashMap<(i64, i64), u32>| {
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                *into.entry((*a.min(b), *a.max(b))).or_default() += 1;
            }
        }
    };
    let ids = |v: &Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect()
    };
    for n in 1..=5 {
        let body = if n == 1 {
            json!({"method": "bridge", "options": {"rounds_remaining": 5}})
        } else {
            json!({"method": "bridge"})
        };
        let round = new_round(&app, tid, &org, body).await;
        let draw = &round["draw"];
        assert_eq!(draw["bridge_groups"].as_array().unwrap().len(), 4);
        for t in draw["tables"].as_array().unwrap() {
            pairs_of(ids(&t["seats"]), &mut table_pairs);
        }
        for g in draw["bridge_groups"].as_array().unwrap() {
            pairs_of(ids(&g["players"]), &mut group_pairs);
        }
        // Scores differ by player so places and relative scores are not all shared.
        play_round(&app, tid, &referee, &round, |p| 30 + (p * 7) % 13).await;
        let s: Value = app
            .get(
                &format!("/api/v1/tournaments/{tid}/standings?after_round={n}"),
                None,
            )
            .await
            .json()
            .await
            .unwrap();
        let round_total: f64 = s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tp_by_round"][n as usize - 1].as_f64().unwrap())
            .sum();
        // 4 tables x 20 TP + 4 bridge groups x 20 TP.
        assert!(
            (round_total - 160.0).abs() < 0.05,
            "round {n}: {round_total}"
        );
    }
    assert_eq!(table_pairs.len(), 120, "every pair met at a table");
    assert!(table_pairs.values().all(|c| *c == 1), "and only once");
    assert_eq!(group_pairs.len(), 120, "every pair met in a bridge group");
    assert!(group_pairs.values().all(|c| *c == 1), "and only once");

    // The final: bridge groups spread the placement groups; results stay with the staff until
    // the round is completed (players at other tables hold the same cards).
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "bridge", "kind": "final", "options": {"final": true}}),
    )
    .await;
    let t1 = &fin["draw"]["tables"][0];
    let seats: Vec<Value> = t1["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"player_id": p, "score": 40}))
        .collect();
    let path = format!(
        "/api/v1/tournaments/{tid}/rounds/6/tables/{}/result",
        t1["number"]
    );
    let r = app
        .req(Method::PUT, &path, Some(&referee))
        .json(&json!({ "seats": seats }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    problem(app.get(&path, None).await, 404).await;
    assert_eq!(app.get(&path, Some(&referee)).await.status(), 200);
    for g in fin["draw"]["bridge_groups"].as_array().unwrap() {
        assert_eq!(g["players"].as_array().unwrap().len(), 4);
    }
}
