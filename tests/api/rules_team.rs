//! Issue 14, 2v2 team duplicate (seed 002), played over HTTP.

use serde_json::{json, Value};

use crate::event_fixtures::{matches, new_round, play_round, team_event};

fn seats(t: &Value) -> Vec<i64> {
    let mut s: Vec<i64> = t["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    s.sort();
    s
}

/// Seed 002 (六.1): pairs swap tables only in game 2 of a best of 3. A knockout of four teams
/// drawn with default options keeps the A pairs at table A in the final too (it used to seat the
/// final as game 2 of a best of 3, one team's B pair at table A).
#[actix_web::test]
async fn a_knockout_final_with_default_options_seats_the_a_pairs_at_table_a() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 4).await;
    let strength = |p: i64| {
        let t = teams.iter().position(|t| t.contains(&p)).unwrap() as i64;
        60 - 5 * t
    };
    let semi = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    assert_eq!(semi["options"]["format"], "knockout");
    assert_eq!(semi["draw"]["team_matches"].as_array().unwrap().len(), 2);
    play_round(&app, tid, &referee, &semi, strength).await;
    let fin = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    assert_eq!(fin["options"]["format"], "knockout", "{}", fin["options"]);
    let m = &fin["draw"]["team_matches"][0];
    let (home, away) = (
        teams[m["home_team"].as_u64().unwrap() as usize - 1],
        teams[m["away_team"].as_u64().unwrap() as usize - 1],
    );
    let tables = fin["draw"]["tables"].as_array().unwrap();
    let table = |n: &Value| tables.iter().find(|t| &t["number"] == n).unwrap();
    let mut a_pairs = vec![home[0], home[1], away[0], away[1]];
    a_pairs.sort();
    let mut b_pairs = vec![home[2], home[3], away[2], away[3]];
    b_pairs.sort();
    assert_eq!(seats(table(&m["table_a"])), a_pairs, "{}", fin["draw"]);
    assert_eq!(seats(table(&m["table_b"])), b_pairs);
    play_round(&app, tid, &referee, &fin, strength).await;
    assert_eq!(matches(&app, tid, 2).await[0]["winner_team"], 1);
}

/// Seed 002: two teams play the best of three games: two wins take it, and a game 3 is played
/// only at 1-1. The team standings say who leads and when it is decided.
#[actix_web::test]
async fn a_best_of_three_ends_at_two_wins_and_its_standings_say_so() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 2).await;
    let strength = |p: i64| if teams[0].contains(&p) { 60 } else { 40 };
    let url = format!("/api/v1/tournaments/{tid}/team-standings");
    for game in 1..=2 {
        let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
        assert_eq!(
            round["options"]["format"], "best_of_3",
            "{}",
            round["options"]
        );
        play_round(&app, tid, &referee, &round, strength).await;
        let s: Value = app.get(&url, None).await.json().await.unwrap();
        assert_eq!(s["format"], "best_of_3", "{s}");
        assert_eq!(s["rows"][0]["team_number"], 1);
        assert_eq!(s["rows"][0]["won"], game);
        assert_eq!(s["decided"], game == 2, "{s}");
    }
    let p = crate::helpers::problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "team_duplicate"}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("decided"), "{p}");
    // The player standings point to the team standings, in plain words.
    let p = crate::helpers::problem(
        app.get(&format!("/api/v1/tournaments/{tid}/standings"), None)
            .await,
        409,
    )
    .await;
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("team-standings") && !detail.contains("UnsupportedFormat"),
        "{p}"
    );
}

/// Seed 002: four teams play single elimination; the champion first, the finalist second, the
/// semi-final losers share third.
#[actix_web::test]
async fn a_knockout_of_four_teams_ranks_by_the_round_each_went_out_in() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 4).await;
    let strength = |p: i64| {
        let t = teams.iter().position(|t| t.contains(&p)).unwrap() as i64;
        60 - 5 * t
    };
    for _ in 0..2 {
        let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
        play_round(&app, tid, &referee, &round, strength).await;
    }
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/team-standings"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s["format"], "knockout");
    assert_eq!(s["decided"], true);
    let places: Vec<(u64, u64)> = s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["team_number"].as_u64().unwrap(),
                r["place"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(places, vec![(1, 1), (2, 2), (3, 3), (4, 3)], "{s}");
    assert_eq!(s["rows"][1]["out_in_round"], 2);
}
