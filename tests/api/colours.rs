//! Tantrix colours (issue 18, item 1; seed 003, 5. Farben): first choices if they differ, else
//! second choices, else the other two colours by the leader's lot, drawn from the round's seed;
//! decided when the round is drawn and kept with it.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::event_fixtures::{account_player, event, linked_player_with, new_round};
use crate::helpers::{fields, problem, spawn_app};

/// The colours the rule gives two players' choices, when no lot is needed.
fn expected(a: (&str, &str), b: (&str, &str)) -> Option<([&'static str; 2], &'static str)> {
    let name = |c: &str| -> &'static str {
        ["red", "yellow", "blue", "green"]
            .into_iter()
            .find(|x| *x == c)
            .unwrap()
    };
    if a.0 != b.0 {
        Some(([name(a.0), name(b.0)], "first_choices"))
    } else if a.1 != b.1 {
        Some(([name(a.1), name(b.1)], "second_choices"))
    } else {
        None
    }
}

#[actix_web::test]
async fn every_branch_of_the_colour_rule_over_a_round_robin() {
    let app = spawn_app().await;
    let (tid, org, referee, mut ids) = event(&app, "tantrix", 3).await;
    // The fourth player registers herself with her choices.
    let (kari_player, kari) = account_player(&app, "Kari").await;
    let url = format!("/api/v1/tournaments/{tid}/registrations");
    let p = problem(
        app.post(
            &url,
            Some(&kari),
            json!({"player_id": kari_player, "colours": {"first": "blue", "second": "blue"}}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["colours.second"]);
    let r = app
        .post(
            &url,
            Some(&kari),
            json!({"player_id": kari_player, "colours": {"first": "green", "second": "red"}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    // She changes her own choices; she may not change another player's.
    let r = app
        .patch(
            &format!("{url}/{kari_player}"),
            Some(&kari),
            json!({"colours": {"first": "yellow", "second": "blue"}}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    problem(
        app.patch(
            &format!("{url}/{}", ids[0]),
            Some(&kari),
            json!({"colours": {"first": "yellow", "second": "blue"}}),
        )
        .await,
        403,
    )
    .await;
    ids.push(kari_player);
    // The organiser sets the others': every pair of the four meets one branch.
    let choices: HashMap<i64, (&str, &str)> = [
        (ids[0], ("red", "blue")),
        (ids[1], ("red", "green")),
        (ids[2], ("red", "blue")),
        (ids[3], ("yellow", "blue")),
    ]
    .into_iter()
    .collect();
    for p in &ids[..3] {
        let (first, second) = choices[p];
        let r = app
            .patch(
                &format!("{url}/{p}"),
                Some(&org),
                json!({"colours": {"first": first, "second": second}}),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    let listed: Value = app.get(&url, None).await.json().await.unwrap();
    let kari_row = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == kari_player)
        .unwrap();
    assert_eq!(
        kari_row["colours"],
        json!({"first": "yellow", "second": "blue"})
    );

    let mut rules_seen = HashMap::new();
    for n in 1..=3 {
        let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
        let colours = round["colours"].as_array().unwrap();
        assert_eq!(colours.len(), 2, "{round}");
        for game in colours {
            let players: Vec<i64> = game["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .collect();
            let table = round["draw"]["tables"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["number"] == game["table"])
                .unwrap();
            assert_eq!(table["seats"], json!(players), "seat order");
            let got = [
                game["colours"][0].as_str().unwrap(),
                game["colours"][1].as_str().unwrap(),
            ];
            match expected(choices[&players[0]], choices[&players[1]]) {
                Some((colours, rule)) => {
                    assert_eq!(got, colours, "round {n}: {game}");
                    assert_eq!(game["rule"], rule);
                }
                None => {
                    // Both chose red, then blue: yellow and green by lot.
                    assert_eq!(game["rule"], "by_lot");
                    let mut sorted = got.to_vec();
                    sorted.sort();
                    assert_eq!(sorted, vec!["green", "yellow"], "{game}");
                }
            }
            *rules_seen
                .entry(game["rule"].as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
        // A later change of choice does not move a drawn game's colours.
        let r = app
            .patch(
                &format!("{url}/{}", ids[0]),
                Some(&org),
                json!({"colours": {"first": "green", "second": "yellow"}}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let again: Value = app
            .get(&format!("/api/v1/tournaments/{tid}/rounds/{n}"), None)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(again["colours"], round["colours"]);
        let (first, second) = choices[&ids[0]];
        app.patch(
            &format!("{url}/{}", ids[0]),
            Some(&org),
            json!({"colours": {"first": first, "second": second}}),
        )
        .await;
        for t in round["draw"]["tables"].as_array().unwrap() {
            let s = t["seats"].as_array().unwrap();
            let r = app
                .put(
                    &format!(
                        "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                        t["number"]
                    ),
                    Some(&referee),
                    json!({"seats": [{"player_id": s[0], "score": 30}, {"player_id": s[1], "score": 12}]}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    }
    assert_eq!(rules_seen.len(), 3, "{rules_seen:?}");
    // The seating page shows them too.
    let page = app
        .get(&format!("/embed/tournaments/{tid}/rounds/3"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("<th scope=\"col\">Colour</th>"));
    assert!(["red", "yellow", "blue", "green"]
        .iter()
        .any(|c| page.contains(&format!("<td>{c}</td>"))));
}

/// Issue 18, item 4: a player's own games (upcoming with opponents and colours, past with the
/// scores) and tournaments (registration and staff roles).
#[actix_web::test]
async fn a_player_sees_their_own_games_and_tournaments() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "tantrix", 3).await;
    let (kari_player, kari) = linked_player_with(
        &app,
        tid,
        "Kari",
        json!({"colours": {"first": "green", "second": "red"}}),
    )
    .await;
    let empty: Value = app
        .get("/api/v1/me/games", Some(&kari))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(empty["upcoming"], json!([]));
    let round = new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
    let mine = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seats"].as_array().unwrap().contains(&json!(kari_player)))
        .unwrap()
        .clone();
    let seats: Vec<i64> = mine["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    let opponent = *seats.iter().find(|p| **p != kari_player).unwrap();
    let games: Value = app
        .get("/api/v1/me/games", Some(&kari))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(games["player_id"], kari_player);
    assert_eq!(games["past"], json!([]));
    let game = &games["upcoming"][0];
    assert_eq!(game["tournament_id"], tid);
    assert_eq!(game["round"], 1);
    assert_eq!(game["table"], mine["number"]);
    assert_eq!(game["opponents"][0]["player_id"], opponent);
    assert!(!game["opponents"][0]["name"].as_str().unwrap().is_empty());
    // Her first choice differs from the others' (they stated none: the lot keeps hers).
    assert_eq!(game["colour"], "green");
    assert_ne!(game["opponents"][0]["colour"], "green");
    // Once the result is in, the game is past, with the scores.
    let score = |p: i64| if p == kari_player { 30 } else { 12 };
    let r = app
        .put(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                mine["number"]
            ),
            Some(&referee),
            json!({"seats": seats.iter().map(|p| json!({"player_id": p, "score": score(*p)})).collect::<Vec<_>>()}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let games: Value = app
        .get("/api/v1/me/games", Some(&kari))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(games["upcoming"], json!([]));
    assert_eq!(games["past"][0]["score"], 30);
    assert_eq!(
        games["past"][0]["scores"],
        json!(seats.iter().map(|p| score(*p)).collect::<Vec<_>>())
    );
    // Tournaments: hers as a player, the organiser's as staff.
    let hers: Value = app
        .get("/api/v1/me/tournaments", Some(&kari))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(hers["total"], 1);
    let hers = &hers["items"];
    assert_eq!(hers[0]["tournament_id"], tid);
    assert_eq!(hers[0]["registration"], "confirmed");
    assert_eq!(hers[0]["roles"], json!([]));
    let staff: Value = app
        .get("/api/v1/me/tournaments", Some(&org))
        .await
        .json()
        .await
        .unwrap();
    let staff = &staff["items"];
    assert_eq!(staff[0]["registration"], Value::Null);
    assert_eq!(staff[0]["roles"], json!(["organiser"]));
    // No linked player: no games.
    let none: Value = app
        .get("/api/v1/me/games", Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(none["player_id"], Value::Null);
    problem(app.get("/api/v1/me/games", None).await, 401).await;
}
