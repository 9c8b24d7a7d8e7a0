//! Who enters a 2v2 team event (seed 002): teams of four, registered by the organiser. A player
//! alone can neither enter outside a team nor leave or stop without it, and the draw of a team
//! round either leaves out a team that cannot field its four players or says what the organiser
//! must fix (409), never failing in the seating engine.

use serde_json::{json, Value};

use crate::event_fixtures::{account_player, event, matches, new_round, play_round, team_event};
use crate::helpers::{fields, problem, spawn_app, TestApp};

async fn new_players(app: &TestApp, prefix: &str, n: usize) -> Vec<i64> {
    let admin = app.admin_token().await;
    let mut out = Vec::new();
    for i in 0..n {
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                json!({"name": format!("{prefix} {i}")}),
            )
            .await;
        assert_eq!(r.status(), 201);
        out.push(r.json::<Value>().await.unwrap()["id"].as_i64().unwrap());
    }
    out
}

async fn add_team(app: &TestApp, tid: i64, org: &str, name: &str, m: [i64; 4]) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/teams"),
            Some(org),
            json!({"name": name, "pair_a": [m[0], m[1]], "pair_b": [m[2], m[3]]}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

async fn register(app: &TestApp, tid: i64, token: &str, player: i64) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{tid}/registrations"),
        Some(token),
        json!({"player_id": player}),
    )
    .await
}

async fn draw(app: &TestApp, tid: i64, org: &str) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{tid}/rounds"),
        Some(org),
        json!({"method": "team_duplicate"}),
    )
    .await
}

async fn withdraw(app: &TestApp, tid: i64, org: &str, player: i64) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(org),
            json!({"player_id": player, "from_round": 1, "reason": "Ill."}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

async fn items(app: &TestApp, path: &str, token: &str) -> Vec<Value> {
    let v: Value = app.get(path, Some(token)).await.json().await.unwrap();
    v["items"].as_array().unwrap().clone()
}

fn seated(round: &Value) -> Vec<i64> {
    round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["seats"].as_array().unwrap().clone())
        .map(|p| p.as_i64().unwrap())
        .collect()
}

/// A player registering themselves into a team event is refused (nothing written), and the
/// teams the organiser registers after it are drawn.
#[actix_web::test]
async fn a_player_alone_cannot_enter_a_team_event_and_the_teams_are_drawn() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "team_duplicate_2v2", 0).await;
    let (kari, kari_token) = account_player(&app, "kari").await;
    let p = problem(register(&app, tid, &kari_token, kari).await, 409).await;
    assert_eq!(fields(&p), ["player_id"], "{p}");
    let regs = format!("/api/v1/tournaments/{tid}/registrations");
    assert!(items(&app, &regs, &org).await.is_empty());
    let m = new_players(&app, "Member", 8).await;
    add_team(&app, tid, &org, "North", [m[0], m[1], m[2], m[3]]).await;
    add_team(&app, tid, &org, "South", [m[4], m[5], m[6], m[7]]).await;
    let r = draw(&app, tid, &org).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

/// A team member may neither cancel their own registration nor opt out of a round alone: the
/// team would be drawn a player short. Nothing is written, and the teams are drawn whole.
#[actix_web::test]
async fn a_team_member_does_not_leave_or_stop_alone() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "team_duplicate_2v2", 0).await;
    let (kari, kari_token) = account_player(&app, "kari").await;
    let m = new_players(&app, "Member", 7).await;
    add_team(&app, tid, &org, "North", [kari, m[0], m[1], m[2]]).await;
    add_team(&app, tid, &org, "South", [m[3], m[4], m[5], m[6]]).await;

    let own = format!("/api/v1/tournaments/{tid}/registrations/{kari}");
    let p = problem(app.delete_req(&own, &kari_token).await, 409).await;
    assert_eq!(fields(&p), ["player_id"], "{p}");
    assert!(p["detail"].as_str().unwrap().contains("team 1"), "{p}");
    let r: Value = app.get(&own, Some(&org)).await.json().await.unwrap();
    assert_eq!(r["status"], "confirmed", "{r}");

    let p = problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&kari_token),
            json!({"player_id": kari, "from_round": 1, "kind": "opt_out"}),
        )
        .await,
        409,
    )
    .await;
    assert_eq!(fields(&p), ["kind"], "{p}");
    let w = format!("/api/v1/tournaments/{tid}/withdrawals");
    assert!(items(&app, &w, &org).await.is_empty());

    let r = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    assert!(seated(&r).contains(&kari), "{r}");
    assert_eq!(seated(&r).len(), 8);
}

/// What only the organiser can fix is refused with 409 naming it, before anything is drawn: a
/// confirmed player outside the teams (`registrations`), a team member on the waitlist or no
/// longer registered (`teams`). Once fixed, the round is drawn (as round 1: nothing was drawn
/// before).
#[actix_web::test]
async fn the_draw_of_a_team_event_names_what_the_organiser_must_fix() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "team_duplicate_2v2", 0).await;
    // The organiser registers a player alone first; the teams come after, so the second
    // team's last member waits behind him.
    let lone = new_players(&app, "Lone", 1).await[0];
    assert_eq!(register(&app, tid, &org, lone).await.status(), 201);
    let m = new_players(&app, "Member", 8).await;
    add_team(&app, tid, &org, "North", [m[0], m[1], m[2], m[3]]).await;
    add_team(&app, tid, &org, "South", [m[4], m[5], m[6], m[7]]).await;

    let p = problem(draw(&app, tid, &org).await, 409).await;
    assert_eq!(fields(&p), ["registrations"], "{p}");
    assert!(
        p["detail"].as_str().unwrap().contains(&lone.to_string()),
        "{p}"
    );
    // Withdrawn, he is out of play; the team member waiting behind him is named next.
    withdraw(&app, tid, &org, lone).await;
    let p = problem(draw(&app, tid, &org).await, 409).await;
    assert_eq!(fields(&p), ["teams"], "{p}");
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("team 2") && detail.contains(&m[7].to_string()),
        "{p}"
    );
    assert!(detail.contains("waitlist"), "{p}");
    // His registration cancelled, the team member moves up.
    let his = format!("/api/v1/tournaments/{tid}/registrations/{lone}");
    assert_eq!(app.delete_req(&his, &org).await.status(), 200);

    // The organiser cancels a team member's registration: named until registered again.
    let member = format!("/api/v1/tournaments/{tid}/registrations/{}", m[1]);
    assert_eq!(app.delete_req(&member, &org).await.status(), 200);
    let p = problem(draw(&app, tid, &org).await, 409).await;
    assert_eq!(fields(&p), ["teams"], "{p}");
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("team 1") && detail.contains("not registered"),
        "{p}"
    );
    assert_eq!(register(&app, tid, &org, m[1]).await.status(), 201);

    let r = draw(&app, tid, &org).await;
    let status = r.status();
    let round: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{round}");
    assert_eq!(round["number"], 1);
    assert!(!seated(&round).contains(&lone));
}

/// A team one of whose players has withdrawn sits out with its players: four teams, the fourth
/// a player short, play a knockout of three (a bye for the first) and then its final. When
/// fewer than two teams can play, the draw says so (409 on `teams`).
#[actix_web::test]
async fn a_team_that_cannot_field_four_players_sits_out() {
    let app = spawn_app().await;
    let (tid, org, referee, teams) = team_event(&app, 4).await;
    withdraw(&app, tid, &org, teams[3][2]).await;
    let strength = |p: i64| {
        let t = teams.iter().position(|t| t.contains(&p)).unwrap() as i64;
        60 - 5 * t
    };
    let semi = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    let sat = seated(&semi);
    assert_eq!(sat.len(), 8, "{semi}");
    assert!(teams[3].iter().all(|p| !sat.contains(p)), "{semi}");
    let m = matches(&app, tid, 1).await;
    assert_eq!(m.as_array().unwrap().len(), 1, "{m}");
    assert_ne!(m[0]["home_team"], 4);
    assert_ne!(m[0]["away_team"], 4);
    play_round(&app, tid, &referee, &semi, strength).await;
    let fin = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    let m = matches(&app, tid, 2).await;
    assert_eq!(m.as_array().unwrap().len(), 1, "{m}");
    assert!(seated(&fin).iter().all(|p| !teams[3].contains(p)));
    play_round(&app, tid, &referee, &fin, strength).await;
    // The champion and the team a player short are all that is left.
    let p = problem(draw(&app, tid, &org).await, 409).await;
    assert!(
        fields(&p) == ["teams"] || p["detail"].as_str().unwrap().contains("decided"),
        "{p}"
    );

    // Two teams, one a player short: no match can be drawn, and the draw says which team.
    let app = spawn_app().await;
    let (tid, org, _, teams) = team_event(&app, 2).await;
    withdraw(&app, tid, &org, teams[1][0]).await;
    let p = problem(draw(&app, tid, &org).await, 409).await;
    assert_eq!(fields(&p), ["teams"], "{p}");
    assert!(p["detail"].as_str().unwrap().contains("team 2"), "{p}");
    let rounds = format!("/api/v1/tournaments/{tid}/rounds");
    assert!(items(&app, &rounds, &org).await.is_empty());
}
