//! Issue 14, Tantrix (seed 003): the branches of the rules that whole events found wrong,
//! each played over HTTP.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round};
use crate::helpers::TestApp;

fn seats(table: &Value) -> Vec<i64> {
    table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect()
}

/// Enters every table of a 2-player round: `winner(a, b)` wins 30-12.
async fn play(
    app: &TestApp,
    tid: i64,
    referee: &str,
    round: &Value,
    winner: impl Fn(i64, i64) -> i64,
) {
    let n = round["number"].as_i64().unwrap();
    for t in round["draw"]["tables"].as_array().unwrap() {
        let s = seats(t);
        let w = winner(s[0], s[1]);
        let body = json!({"seats": s.iter().map(|p| json!({
            "player_id": p, "score": if *p == w { 30 } else { 12 }
        })).collect::<Vec<_>>()});
        let r = app
            .put(
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                    t["number"]
                ),
                Some(referee),
                body,
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
}

/// Seed 003 (cup, 10.1): in a knockout only the winners go on. Round 2 of an 8-player cup pairs
/// the four winners of round 1, whoever they are (here the lower seed wins every match), and
/// round 3 the two winners of round 2.
#[actix_web::test]
async fn a_knockout_sends_only_the_winners_to_the_next_round() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, _) = event(&app, "tantrix", 8).await;
    let mut still_in: HashSet<i64> = HashSet::new();
    for (n, matches) in [(1, 4), (2, 2), (3, 1)] {
        let round = new_round(&app, tid, &org, json!({"method": "knockout"})).await;
        let tables = round["draw"]["tables"].as_array().unwrap();
        assert_eq!(tables.len(), matches, "round {n}: {}", round["draw"]);
        assert!(
            round["draw"]["byes"].as_array().unwrap().is_empty(),
            "round {n}"
        );
        let players: HashSet<i64> = tables.iter().flat_map(seats).collect();
        if n > 1 {
            assert_eq!(players, still_in, "round {n} seats exactly the winners");
        }
        // The higher player id (the lower seed: ratings rise with the id) wins.
        play(&app, tid, &referee, &round, |a, b| a.max(b)).await;
        still_in = tables
            .iter()
            .map(|t| seats(t).into_iter().max().unwrap())
            .collect();
    }
    assert_eq!(still_in.len(), 1);
}

/// Seed 003, 10.2: a round robin is "jeder gegen jeden", each pair once. Ratings that change
/// between rounds (as a rating pool's do after every rated round, or an organiser's seeding
/// change) must not reorder the circle fixed at the first round.
#[actix_web::test]
async fn a_round_robin_meets_every_pair_once_while_ratings_change() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 6).await;
    let mut met = std::collections::HashMap::new();
    for n in 1..=5 {
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        for t in round["draw"]["tables"].as_array().unwrap() {
            let s = seats(t);
            *met.entry((s[0].min(s[1]), s[0].max(s[1]))).or_insert(0) += 1;
        }
        play(&app, tid, &referee, &round, |a, b| a.max(b)).await;
        // New ratings for everyone before the next round, in a new order each time.
        for (i, p) in ids.iter().enumerate() {
            let rating = 1500.0 + ((i as i64 * 37 + n * 53) % 97) as f64;
            let r = app
                .patch(
                    &format!("/api/v1/tournaments/{tid}/registrations/{p}"),
                    Some(&org),
                    json!({"seeding_rating": rating}),
                )
                .await;
            assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        }
    }
    assert_eq!(met.len(), 15, "{met:?}");
    assert!(met.values().all(|c| *c == 1), "{met:?}");
}

/// Seed 003 rule 15: "Die Entscheidung des Turnierleiters ist in allen Angelegenheiten
/// maßgebend". A Tantrix ruling cannot be appealed (no appeal window is shown, an appeal is
/// refused), and a complaint involving the leader goes to another referee, a deputy: without
/// one the organiser is told to appoint one (it used to ask for an appeals committee).
#[actix_web::test]
async fn the_leaders_decision_is_final_and_a_deputy_hears_complaints_about_the_leader() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "tantrix", 4).await;
    let me: Value = app.me(&referee).await;
    let leader_id = me["id"].as_i64().unwrap();
    let complaint = json!({
        "subject": "conduct",
        "statement": "The leader, playing at the next table, commented on our game.",
        "respondents": [{"user_id": leader_id}],
        "complainant_player_id": ids[0],
    });
    let cases = format!("/api/v1/tournaments/{tid}/cases");
    let p =
        crate::helpers::problem(app.post(&cases, Some(&org), complaint.clone()).await, 409).await;
    assert!(p["detail"].as_str().unwrap().contains("deputy"), "{p}");

    let (deputy_id, deputy) = app.user("deputy").await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/staff"),
            Some(&org),
            json!({"user_id": deputy_id, "role": "referee"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app.post(&cases, Some(&org), complaint).await;
    let case: Value = r.json().await.unwrap();
    let cid = case["id"].as_i64().unwrap();
    assert_eq!(case["panel"]["members"][0]["user_id"], deputy_id, "{case}");
    assert_eq!(case["panel"]["members"].as_array().unwrap().len(), 1);
    let r = app
        .post(
            &format!("{cases}/{cid}/decision"),
            Some(&deputy),
            json!({"verdict": "dismiss", "reason": "Nothing was said about the game."}),
        )
        .await;
    let decided: Value = r.json().await.unwrap();
    assert_eq!(decided["status"], "decided", "{decided}");
    assert_eq!(decided["appeal_until"], Value::Null);
    assert_eq!(decided["is_final"], true);
    let p = crate::helpers::problem(
        app.post(
            &format!("{cases}/{cid}/appeal"),
            Some(&referee),
            json!({"statement": "I want the committee to hear it."}),
        )
        .await,
        409,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("final"), "{p}");
}

/// Seed 003, 7.2: in the cup system a forfeit is a 50-14 tile win, 20-0 TP; in other events
/// 35-15, 18-2. The cup is a tournament setting (Tantrix only).
#[actix_web::test]
async fn a_forfeit_in_a_cup_scores_twenty_nil() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.admin_token().await;
    let (_, org) = app.user("leader").await;
    let body = |cup: bool, ruleset: &str| {
        json!({"name": "Cup", "game": "Tantrix", "ruleset": ruleset, "planned_rounds": 1,
               "starts_on": "2026-04-03", "time_zone": "Europe/Berlin", "cup": cup})
    };
    // Not for other rulesets.
    let p = crate::helpers::problem(
        app.post(
            "/api/v1/tournaments",
            Some(&org),
            body(true, "agricola_norway"),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(p["errors"][0]["field"], "cup", "{p}");
    for (cup, winner_tp) in [(true, 20.0), (false, 18.0)] {
        let r = app
            .post("/api/v1/tournaments", Some(&org), body(cup, "tantrix"))
            .await;
        let t: Value = r.json().await.unwrap();
        assert_eq!(t["cup"], cup, "{t}");
        let tid = t["id"].as_i64().unwrap();
        let r = app
            .patch_if_match(
                &format!("/api/v1/tournaments/{tid}"),
                Some(&org),
                1,
                json!({"status": "registration_open"}),
            )
            .await;
        assert_eq!(r.status(), 200);
        for name in ["Ada", "Bo"] {
            let r = app
                .post("/api/v1/players", Some(&admin), json!({"name": name}))
                .await;
            let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
            let r = app
                .post(
                    &format!("/api/v1/tournaments/{tid}/registrations"),
                    Some(&org),
                    json!({"player_id": pid}),
                )
                .await;
            assert_eq!(r.status(), 201);
        }
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        let s = seats(&round["draw"]["tables"][0]);
        let r = app
            .put(
                &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
                Some(&org),
                json!({"seats": [{"player_id": s[0], "score": 0},
                                 {"player_id": s[1], "score": 0, "forfeit": true}]}),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        let st: Value = app
            .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(st["rows"][0]["player_id"], s[0]);
        assert_eq!(st["rows"][0]["tp"], winner_tp, "cup {cup}: {st}");
        assert_eq!(st["rows"][1]["tp"], 20.0 - winner_tp);
    }
}

/// Seed 003, 10.3: the organiser declares which places carry a prize or qualify; ties there are
/// flagged for a play-off (first place always), lesser ties go on to wins, margins and points.
#[actix_web::test]
async fn prize_and_qualification_places_are_tournament_settings() {
    let app = crate::helpers::spawn_app().await;
    let (_, org) = app.user("leader").await;
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(&org),
            json!({"name": "Open", "game": "Tantrix", "ruleset": "tantrix", "planned_rounds": 5,
                   "starts_on": "2026-04-03", "time_zone": "Europe/Berlin",
                   "prize_places": 3, "qualification_places": 4}),
        )
        .await;
    let t: Value = r.json().await.unwrap();
    assert_eq!(
        (t["prize_places"].clone(), t["qualification_places"].clone()),
        (json!(3), json!(4)),
        "{t}"
    );
    let defaults = app.tournament(&org, "tantrix").await;
    let d: Value = app
        .get(&format!("/api/v1/tournaments/{defaults}"), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (d["prize_places"].clone(), d["qualification_places"].clone()),
        (json!(1), json!(0))
    );
    let p = crate::helpers::problem(
        app.patch_any(
            &format!("/api/v1/tournaments/{}", t["id"]),
            Some(&org),
            json!({"prize_places": 0}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(p["errors"][0]["field"], "prize_places", "{p}");
}
