//! Shared steps of the self-scheduling tests (self_scheduling, scheduling_steps): players who
//! registered with their own accounts, a self-scheduled round drawn for them, a time agreed.

#![allow(dead_code)]

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player, new_round};
use crate::helpers::TestApp;

/// A time as the scheduling steps take it: RFC 3339 in UTC, whole seconds.
pub(crate) fn at(t: DateTime<Utc>) -> Value {
    json!(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// A Tantrix event whose players are `names`, each registered by their own account:
/// (tournament id, organiser token, referee token, each player's token by player id).
pub(crate) async fn players(
    app: &TestApp,
    names: &[&str],
) -> (i64, String, String, HashMap<i64, String>) {
    let (tid, org, referee, _) = event(app, "tantrix", 0).await;
    let mut tokens = HashMap::new();
    for name in names {
        let (pid, token) = linked_player(app, tid, name).await;
        tokens.insert(pid, token);
    }
    (tid, org, referee, tokens)
}

/// Draws and publishes the next round (round robin), its games scheduled by the players
/// until `until`: the round as published.
pub(crate) async fn self_scheduled_round(
    app: &TestApp,
    tid: i64,
    org: &str,
    until: DateTime<Utc>,
) -> Value {
    let body = json!({"method": "round_robin", "self_scheduled_until": at(until)});
    new_round(app, tid, org, body).await
}

/// Table `i` of a round of two-player games: (its number, the first seat's player, the
/// second's).
pub(crate) fn two_seats(round: &Value, i: usize) -> (i64, i64, i64) {
    let t = &round["draw"]["tables"][i];
    let s: Vec<i64> = t["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    (t["number"].as_i64().unwrap(), s[0], s[1])
}

/// The game's `schedule` (its URL) gets a time: `proposer` proposes `when` alone, `accepter`
/// accepts it. The acceptance's answer.
pub(crate) async fn agreed(
    app: &TestApp,
    schedule: &str,
    proposer: &str,
    accepter: &str,
    when: DateTime<Utc>,
) -> reqwest::Response {
    app.post(
        &format!("{schedule}/proposals"),
        Some(proposer),
        json!({"times": [at(when)]}),
    )
    .await;
    app.post(
        &format!("{schedule}/accept"),
        Some(accepter),
        json!({"time": at(when)}),
    )
    .await
}
