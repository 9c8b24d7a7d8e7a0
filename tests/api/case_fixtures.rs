//! Shared builders for the case tests: an event with staff and a committee, opening cases and voting.

#![allow(dead_code)]

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// An Ashes event of four players (each with an account) and one played round, a referee and
/// an appeals committee of three.
pub(crate) struct Event {
    pub(crate) tid: i64,
    pub(crate) org: String,
    pub(crate) referee_id: i64,
    pub(crate) referee: String,
    /// (user id, token) of the three committee members.
    pub(crate) committee: Vec<(i64, String)>,
    /// (player id, user id, token) of the players.
    pub(crate) players: Vec<(i64, i64, String)>,
    /// Round 1's tables: (table number, winner player id, loser player id).
    pub(crate) tables: Vec<(i64, i64, i64)>,
    pub(crate) pool: Option<i64>,
}

impl Event {
    pub(crate) fn token_of_player(&self, player: i64) -> &str {
        &self.players.iter().find(|p| p.0 == player).unwrap().2
    }
}

pub(crate) async fn patch_tournament(app: &TestApp, tid: i64, org: &str, body: Value) {
    let t: Value = app
        .get(&format!("/api/v1/tournaments/{tid}"), Some(org))
        .await
        .json()
        .await
        .unwrap();
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(org),
            &t["version"],
            body,
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

pub(crate) async fn setup(app: &TestApp, with_pool: bool) -> Event {
    let admin = app.admin_token().await;
    let (_, org) = app.user("organiser").await;
    let (referee_id, referee) = app.user("referee").await;
    let tid = app.tournament(&org, "ashes_league").await;
    let appoint = |user: i64, role: &'static str| {
        let req = app
            .req(
                Method::POST,
                &format!("/api/v1/tournaments/{tid}/staff"),
                Some(&org),
            )
            .json(&json!({"user_id": user, "role": role}));
        async move {
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 201);
        }
    };
    appoint(referee_id, "referee").await;
    let mut committee = Vec::new();
    for name in ["member1", "member2", "member3"] {
        let (id, token) = app.user(name).await;
        appoint(id, "appeals_committee").await;
        committee.push((id, token));
    }
    let mut pool = None;
    if with_pool {
        let r = app
            .post(
                "/api/v1/rating-pools",
                Some(&admin),
                json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        patch_tournament(app, tid, &org, json!({"rating_pool_id": id})).await;
        app.accept_rating(id, tid).await;
        pool = Some(id);
    }
    patch_tournament(
        app,
        tid,
        &org,
        json!({"status": "registration_open", "planned_rounds": 3}),
    )
    .await;
    let mut players = Vec::new();
    for i in 1..=4 {
        let (uid, token) = app.user(&format!("player{i}")).await;
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                json!({"name": format!("Player {i}"), "user_id": uid}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&org),
                json!({"player_id": pid}),
            )
            .await;
        assert_eq!(r.status(), 201);
        players.push((pid, uid, token));
    }
    let round =
        crate::event_fixtures::new_round(app, tid, &org, json!({"method": "swiss_2p"})).await;
    let mut tables = Vec::new();
    for t in round["draw"]["tables"].as_array().unwrap() {
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
        tables.push((
            t["number"].as_i64().unwrap(),
            s[0].as_i64().unwrap(),
            s[1].as_i64().unwrap(),
        ));
    }
    Event {
        tid,
        org,
        referee_id,
        referee,
        committee,
        players,
        tables,
        pool,
    }
}

pub(crate) async fn ok(r: reqwest::Response, status: u16) -> Value {
    let got = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(got, status, "{body}");
    body
}

/// The event's referee decides case `cid` with `body` (200): the decision.
pub(crate) async fn referee_decides(app: &TestApp, e: &Event, cid: i64, body: Value) -> Value {
    let path = format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid);
    ok(app.post(&path, Some(&e.referee), body).await, 200).await
}

pub(crate) async fn open_case(app: &TestApp, e: &Event, token: &str, body: Value) -> Value {
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases", e.tid),
            Some(token),
            body,
        )
        .await,
        201,
    )
    .await
}

pub(crate) fn panel(case: &Value) -> Vec<(i64, String)> {
    case["panel"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["user_id"].as_i64().unwrap(),
                m["seat"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub(crate) async fn vote(
    app: &TestApp,
    e: &Event,
    cid: i64,
    token: &str,
    body: Value,
) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{}/cases/{cid}/votes", e.tid),
        Some(token),
        body,
    )
    .await
}
