//! Shared builders for the HTTP tests of running events: an organiser's tournament with registered players, rounds drawn and published, results entered.

#![allow(dead_code)]

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// An organiser's tournament of `ruleset` with `n` registered players, open for registration;
/// returns (tournament id, organiser token, referee token, player ids).
pub(crate) async fn event(
    app: &TestApp,
    ruleset: &str,
    n: usize,
) -> (i64, String, String, Vec<i64>) {
    let admin = app.admin_token().await;
    let (_, org) = app.user("organiser").await;
    let (referee_id, referee) = app.user("referee").await;
    let tid = app.tournament(&org, ruleset).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/staff"),
            Some(&org),
            json!({"user_id": referee_id, "role": "referee"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let mut ids = Vec::new();
    for i in 0..n {
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                json!({"name": format!("Player {:02}", i + 1), "country": "NO"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let pid = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&org),
                json!({"player_id": pid, "seeding_rating": 1500.0 + 10.0 * i as f64, "seeding_rated_games": 10}),
            )
            .await;
        assert_eq!(r.status(), 201);
        ids.push(pid);
    }
    (tid, org, referee, ids)
}

pub(crate) async fn new_round(app: &TestApp, tid: i64, org: &str, body: Value) -> Value {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(org),
            body,
        )
        .await;
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    let n = v["number"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds/{n}/publish"),
            Some(org),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// Enters a result for every table: the score of a player is `score(player)`.
pub(crate) async fn play_round(
    app: &TestApp,
    tid: i64,
    referee: &str,
    round: &Value,
    score: impl Fn(i64) -> i64,
) {
    let n = round["number"].as_i64().unwrap();
    for t in round["draw"]["tables"].as_array().unwrap() {
        let seats: Vec<Value> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({"player_id": p, "score": score(p.as_i64().unwrap())}))
            .collect();
        let path = format!(
            "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
            t["number"]
        );
        let r = app.put(&path, Some(referee), json!({"seats": seats})).await;
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
}

pub(crate) fn table_sizes(round: &Value) -> Vec<usize> {
    let mut s: Vec<usize> = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["seats"].as_array().unwrap().len())
        .collect();
    s.sort();
    s
}

/// Enters a 2-player round: the first seat wins 10-4, except the tables in `draws` (1:1).
pub(crate) async fn play_duels(
    app: &TestApp,
    tid: i64,
    referee: &str,
    round: &Value,
    draws: &[i64],
) {
    let n = round["number"].as_i64().unwrap();
    for t in round["draw"]["tables"].as_array().unwrap() {
        let s = t["seats"].as_array().unwrap();
        let seats = if draws.contains(&t["number"].as_i64().unwrap()) {
            json!([{"player_id": s[0], "score": 6, "outcome": "draw"},
                   {"player_id": s[1], "score": 6, "outcome": "draw"}])
        } else {
            json!([{"player_id": s[0], "score": 10, "outcome": "win"},
                   {"player_id": s[1], "score": 4, "outcome": "loss"}])
        };
        let r = app
            .req(
                Method::PUT,
                &format!(
                    "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                    t["number"]
                ),
                Some(referee),
            )
            .json(&json!({ "seats": seats }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
}

/// A team tournament with `teams` teams of four; returns (tid, org, referee, team members).
pub(crate) async fn team_event(
    app: &TestApp,
    teams: usize,
) -> (i64, String, String, Vec<[i64; 4]>) {
    let (tid, org, referee, _) = event(app, "team_duplicate_2v2", 0).await;
    let admin = app.admin_token().await;
    let mut out = Vec::new();
    for t in 0..teams {
        let mut members = [0i64; 4];
        for (i, m) in members.iter_mut().enumerate() {
            let r = app
                .post(
                    "/api/v1/players",
                    Some(&admin),
                    json!({"name": format!("Team {t} member {i}")}),
                )
                .await;
            *m = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        }
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/teams"),
                Some(&org),
                json!({"name": format!("Team {t}"), "pair_a": [members[0], members[1]],
                       "pair_b": [members[2], members[3]]}),
            )
            .await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        out.push(members);
    }
    (tid, org, referee, out)
}

pub(crate) async fn matches(app: &TestApp, tid: i64, n: i64) -> Value {
    app.get(
        &format!("/api/v1/tournaments/{tid}/rounds/{n}/matches"),
        None,
    )
    .await
    .json::<Value>()
    .await
    .unwrap()["items"]
        .clone()
}

/// A player with an account of their own (created by the admin, not registered anywhere);
/// (player id, the account's token).
pub(crate) async fn account_player(app: &TestApp, name: &str) -> (i64, String) {
    let admin = app.admin_token().await;
    let (uid, token) = app.user(name).await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": name, "user_id": uid}),
        )
        .await;
    assert_eq!(r.status(), 201);
    (
        r.json::<Value>().await.unwrap()["id"].as_i64().unwrap(),
        token,
    )
}

/// An [`account_player`] who registers herself in `tid`; (player id, token).
pub(crate) async fn linked_player(app: &TestApp, tid: i64, name: &str) -> (i64, String) {
    linked_player_with(app, tid, name, json!({})).await
}

/// [`linked_player`] with more fields of the registration (colour choices).
pub(crate) async fn linked_player_with(
    app: &TestApp,
    tid: i64,
    name: &str,
    more: Value,
) -> (i64, String) {
    let (pid, token) = account_player(app, name).await;
    let mut body = json!({"player_id": pid});
    body.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&token),
            body,
        )
        .await;
    assert_eq!(r.status(), 201);
    (pid, token)
}

/// `statements` run in a transaction of their own connection, held open (its locks with it)
/// until the returned sender is sent to or dropped: a write in flight for a race to meet.
pub(crate) fn held_open(app: &TestApp, statements: Vec<String>) -> std::sync::mpsc::Sender<()> {
    use diesel::{Connection, RunQueryDsl};
    let url = app.database_url.clone();
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut conn = diesel::PgConnection::establish(&url).expect("connect");
        conn.transaction::<_, diesel::result::Error, _>(|conn| {
            for sql in statements {
                diesel::sql_query(sql).execute(conn)?;
            }
            locked_tx.send(()).unwrap();
            let _ = release_rx.recv();
            Ok(())
        })
        .expect("the write in flight");
    });
    locked_rx.recv().expect("the write under way");
    release_tx
}
