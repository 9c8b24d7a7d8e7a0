//! Team matches, tie-breaks and penalties over HTTP.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{problem, spawn_app};

#[allow(unused_imports)]
use crate::event_fixtures::*;

#[actix_web::test]
async fn team_duplicate_best_of_three_swaps_pairs_in_game_two() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 2).await;
    let strong: Vec<i64> = teams[0].to_vec();
    // Team 1 wins games 1 and 3 (its members score 50, the others 40); team 2 wins game 2, so
    // the series goes to a game 3 (played only at 1-1).
    let score_in = |n: i64| {
        let strong = strong.clone();
        move |p: i64| {
            if strong.contains(&p) == (n != 2) {
                50
            } else {
                40
            }
        }
    };
    for n in 1..=3 {
        let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
        let tables = round["draw"]["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 2);
        let table_a: Vec<i64> = tables[0]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect();
        // Teammates sit opposite (seats 1 and 3, 2 and 4).
        let same_team = |a: i64, b: i64| teams.iter().any(|t| t.contains(&a) && t.contains(&b));
        assert!(same_team(table_a[0], table_a[2]) && same_team(table_a[1], table_a[3]));
        // Game 2: the second team plays with its pairs swapped (its B pair at table A).
        let second_on_a: Vec<i64> = table_a
            .iter()
            .copied()
            .filter(|p| teams[1].contains(p))
            .collect();
        let expected = if n == 2 {
            [teams[1][2], teams[1][3]]
        } else {
            [teams[1][0], teams[1][1]]
        };
        let mut got = second_on_a.clone();
        got.sort();
        let mut want = expected.to_vec();
        want.sort();
        assert_eq!(got, want, "game {n}");
        play_round(&app, tid, &referee, &round, score_in(n)).await;
        let m = matches(&app, tid, n).await;
        assert_eq!(m[0]["complete"], true);
        assert_eq!(m[0]["winner_team"], if n == 2 { 2 } else { 1 }, "{m}");
        assert_eq!(m[0]["decided_at_step"], 1);
    }
}

#[actix_web::test]
async fn team_duplicate_knockout_of_four_teams() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 4).await;
    // Lower team numbers are stronger.
    let strength = |p: i64| {
        let t = teams.iter().position(|t| t.contains(&p)).unwrap() as i64;
        60 - 5 * t
    };
    let semi = new_round(
        &app,
        tid,
        &org,
        json!({"method": "team_duplicate", "options": {"format": "knockout"}}),
    )
    .await;
    assert_eq!(semi["draw"]["team_matches"].as_array().unwrap().len(), 2);
    play_round(&app, tid, &referee, &semi, strength).await;
    let m = matches(&app, tid, 1).await;
    let mut winners: Vec<u64> = m
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["winner_team"].as_u64().unwrap())
        .collect();
    winners.sort();
    // Seeded 1 v 4 and 2 v 3: the top two seeds go through.
    assert_eq!(winners, vec![1, 2]);
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "team_duplicate", "options": {"format": "knockout"}}),
    )
    .await;
    let fm = fin["draw"]["team_matches"].as_array().unwrap();
    assert_eq!(fm.len(), 1);
    let mut finalists = vec![
        fm[0]["home_team"].as_u64().unwrap(),
        fm[0]["away_team"].as_u64().unwrap(),
    ];
    finalists.sort();
    assert_eq!(finalists, vec![1, 2]);
    assert_eq!(fin["draw"]["tables"].as_array().unwrap().len(), 2);
    play_round(&app, tid, &referee, &fin, strength).await;
    assert_eq!(matches(&app, tid, 2).await[0]["winner_team"], 1);
}

#[actix_web::test]
async fn relative_score_breaks_ties_and_a_voluntary_round_keeps_the_best_multiple_of_four() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 11).await;
    // A twelfth player whose account is linked: they opt out of the voluntary round themselves.
    let (kari_user, kari) = app.user("kari").await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Kari", "user_id": kari_user}),
        )
        .await;
    let kari_player = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&kari),
            json!({ "player_id": kari_player }),
        )
        .await;
    assert_eq!(r.status(), 201);

    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    // Every table's seat 1 wins (10 TP each) with different margins over the table average:
    // relative scores 22.5, 4.5 and 11.25.
    let table_scores = [[60, 40, 30, 20], [50, 45, 44, 43], [55, 40, 40, 40]];
    let mut winners = Vec::new();
    for (i, t) in r1["draw"]["tables"].as_array().unwrap().iter().enumerate() {
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .zip(table_scores[i])
            .map(|(p, s)| json!({"player_id": p, "score": s}))
            .collect();
        winners.push(t["seats"][0].as_i64().unwrap());
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                    t["number"]
                ),
                Some(&referee),
            )
            .json(&json!({ "seats": seats }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let s: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?purpose=qualification"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let top: Vec<i64> = s["rows"].as_array().unwrap()[..3]
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(top, vec![winners[0], winners[2], winners[1]], "{s}");
    assert_eq!(s["rows"][0]["tp"], 10.0);
    assert_eq!(s["rows"][1]["tp"], 10.0);
    assert_eq!(s["rows"][0]["tie_breaks"]["relative_score"], 22.5);
    assert_eq!(s["rows"][1]["tie_breaks"]["relative_score"], 11.25);

    // Kari opts out herself; she may not withdraw someone else.
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&kari),
            json!({"player_id": kari_player, "from_round": 2, "kind": "opt_out"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&kari),
            // Someone else: the draw may have made Kari a winner herself.
            json!({"player_id": winners.iter().find(|p| **p != kari_player).unwrap(),
                   "from_round": 2, "kind": "opt_out"}),
        )
        .await,
        403,
    )
    .await;
    // Eleven want to go on: the best eight continue.
    let r2 = new_round(
        &app,
        tid,
        &org,
        json!({"method": "danish", "kind": "voluntary"}),
    )
    .await;
    assert_eq!(table_sizes(&r2), vec![4, 4]);
    play_round(&app, tid, &referee, &r2, |p| 40 + p).await;
    let fin: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let rows = fin["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    // The four who stopped come after all eight who continued.
    assert!(
        rows[..8]
            .iter()
            .all(|r| r["stopped_before_round"].is_null()),
        "{fin}"
    );
    assert!(
        rows[8..].iter().all(|r| r["stopped_before_round"] == 2),
        "{fin}"
    );
    let w: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/withdrawals"), None)
        .await
        .json()
        .await
        .unwrap();
    let w = w["items"].clone();
    assert_eq!(w.as_array().unwrap().len(), 4);
}

#[actix_web::test]
async fn tantrix_head_to_head_breaks_a_two_way_tie_before_wins_and_points() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 4).await;
    let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
    // A beats B 41-40 (13.3 : 6.7) and draws C and D; B beats C and D 41-40; C beats D 44-40
    // (14.7 : 5.3). A and B both end on 33.3 TP with equal wins and margins, B has more tile
    // points, but A won their game: A is above B.
    let game = |x: i64, y: i64| -> (i64, i64) {
        let table = [
            (a, b, 41, 40),
            (a, c, 40, 40),
            (a, d, 40, 40),
            (b, c, 41, 40),
            (b, d, 41, 40),
            (c, d, 44, 40),
        ];
        for (p, q, sp, sq) in table {
            if (p, q) == (x, y) {
                return (sp, sq);
            }
            if (p, q) == (y, x) {
                return (sq, sp);
            }
        }
        unreachable!()
    };
    for n in 1..=3 {
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        for t in round["draw"]["tables"].as_array().unwrap() {
            let (x, y) = (
                t["seats"][0].as_i64().unwrap(),
                t["seats"][1].as_i64().unwrap(),
            );
            let (sx, sy) = game(x, y);
            let r = app
                .req(
                    Method::PUT,
                    &format!("/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result", t["number"]),
                    Some(&referee),
                )
                .json(&json!({"seats": [{"player_id": x, "score": sx}, {"player_id": y, "score": sy}]}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
        }
    }
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let order: Vec<i64> = s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(order, vec![a, b, c, d], "{s}");
    assert_eq!(s["rows"][0]["tp"], s["rows"][1]["tp"]);
    assert_eq!(s["rows"][0]["tp_exact"], "333/10");
    assert!(
        s["rows"][1]["tie_breaks"]["game_points"].as_f64()
            > s["rows"][0]["tie_breaks"]["game_points"].as_f64()
    );
    assert_eq!(s["rows"][0]["place"], 1);
    assert_eq!(s["rows"][1]["place"], 2);
}

#[actix_web::test]
async fn a_five_point_team_penalty_is_taken_before_the_products() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 2).await;
    let first: Vec<i64> = teams[0].to_vec();
    let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    play_round(&app, tid, &referee, &round, |p| {
        if first.contains(&p) {
            42
        } else {
            40
        }
    })
    .await;
    assert_eq!(matches(&app, tid, 1).await[0]["winner_team"], 1);
    // One violation by a team-1 player: 42 - 5 = 37, and 37 x 42 < 40 x 40.
    let offender = teams[0][0];
    let table = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seats"].as_array().unwrap().contains(&json!(offender)))
        .unwrap()["number"]
        .clone();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(&referee),
            json!({"player_id": offender, "kind": "point_penalty", "round": 1, "table": table,
                   "reason": "rule violation"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert_eq!(r.json::<Value>().await.unwrap()["points"], 5);
    let m = matches(&app, tid, 1).await;
    assert_eq!(m[0]["winner_team"], 2, "{m}");
    assert_eq!(m[0]["decided_at_step"], 1);
}
