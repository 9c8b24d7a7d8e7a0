//! Shared steps of the tests of results reported by the players (reports, report_answers): two
//! players with accounts in a Tantrix event, a round drawn for them, a report sent; a player's
//! table in an Agricola event with its code.

#![allow(dead_code)]

use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player, new_round};
use crate::hall_print::codes;
use crate::helpers::TestApp;

/// A two-seat result: the winner scored 30, the loser 12.
pub(crate) fn scores(winner: i64, loser: i64) -> Value {
    json!({"seats": [{"player_id": winner, "score": 30}, {"player_id": loser, "score": 12}]})
}

/// A Tantrix event with two players, Kari and Ola, each registered by their own account:
/// (tournament id, organiser token, referee token, Kari's player id and token, Ola's).
pub(crate) async fn duel(app: &TestApp) -> (i64, String, String, i64, String, i64, String) {
    let (tid, org, referee, _) = event(app, "tantrix", 0).await;
    let (kari, kari_token) = linked_player(app, tid, "kari").await;
    let (ola, ola_token) = linked_player(app, tid, "ola").await;
    (tid, org, referee, kari, kari_token, ola, ola_token)
}

/// Draws and publishes the next round of a [`duel`] (round robin): the path of Kari and
/// Ola's table, `/api/v1/tournaments/{tid}/rounds/{n}/tables/{t}`.
pub(crate) async fn next_table(app: &TestApp, tid: i64, org: &str) -> String {
    let round = new_round(app, tid, org, json!({"method": "round_robin"})).await;
    format!(
        "/api/v1/tournaments/{tid}/rounds/{}/tables/{}",
        round["number"], round["draw"]["tables"][0]["number"]
    )
}

/// Sends a report to `url` (201): its id.
pub(crate) async fn reported(app: &TestApp, url: &str, token: &str, body: Value) -> i64 {
    let r = app.post(url, Some(token), body).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

/// The code of table `number` of round `n`, as the organiser prints it.
pub(crate) async fn table_code(app: &TestApp, tid: i64, n: i64, org: &str, number: i64) -> String {
    codes(app, tid, n, org)
        .await
        .into_iter()
        .find(|c| c.0 == number)
        .unwrap()
        .1
}

/// Kari's table in round 1 (drawn at random) of an Agricola event of seven players and Kari,
/// who registered with her own account: (tournament id, Kari's player id and token, the
/// table's number, its players in seat order, its code).
pub(crate) async fn karis_coded_table(app: &TestApp) -> (i64, i64, String, i64, Vec<i64>, String) {
    let (tid, org, _, _) = event(app, "agricola_norway", 7).await;
    let (kari, kari_token) = linked_player(app, tid, "kari").await;
    let round = new_round(app, tid, &org, json!({"method": "random"})).await;
    let table = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seats"].as_array().unwrap().contains(&json!(kari)))
        .unwrap()
        .clone();
    let number = table["number"].as_i64().unwrap();
    let seats: Vec<i64> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    let code = table_code(app, tid, 1, &org, number).await;
    (tid, kari, kari_token, number, seats, code)
}
