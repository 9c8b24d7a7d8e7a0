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
