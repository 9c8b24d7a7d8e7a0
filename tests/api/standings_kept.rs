//! Issue 16: standings kept per instance while the tournament is unchanged. Every change of an
//! input (a corrected result, a penalty and its annulment, a withdrawal, a renamed player) shows
//! at once on the instance that took the write, and on another one whose kept body is warm as
//! soon as the change's notification arrives; an unchanged read keeps its ETag and a
//! revalidation is 304.

use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{second_instance, TestApp};

/// (ETag, body) of the standings.
async fn read(app: &TestApp, tid: i64) -> (String, Value) {
    let r = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await;
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    (etag, r.json().await.unwrap())
}

/// The standings on `app` once `settled` holds, reading every 10 ms for up to 2 s (another
/// instance learns of a change from its notification); the last read if it never holds.
async fn read_until(
    app: &TestApp,
    tid: i64,
    settled: impl Fn(&str, &Value) -> bool,
) -> (String, Value) {
    let mut last = read(app, tid).await;
    for _ in 0..200 {
        if settled(&last.0, &last.1) {
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
        last = read(app, tid).await;
    }
    last
}

fn row(s: &Value, player: i64) -> &Value {
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == player)
        .expect("a row")
}

#[actix_web::test]
async fn kept_standings_follow_every_change_on_every_instance() {
    let app = crate::helpers::spawn_app().await;
    let other = second_instance(&app).await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;

    // Warm both instances; an unchanged read keeps its ETag, and revalidates with 304.
    let (etag, before) = read(&app, tid).await;
    let (etag_other, _) = read(&other, tid).await;
    assert_eq!(etag, etag_other);
    assert_eq!(read(&app, tid).await.0, etag);
    let r = app
        .req(
            reqwest::Method::GET,
            &format!("/api/v1/tournaments/{tid}/standings"),
            None,
        )
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);

    // A corrected result: the table's last player now wins it.
    let t = &round["draw"]["tables"][0];
    let seats: Vec<i64> = t["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    let loser = *seats.iter().min_by_key(|p| 10 + *p % 9).unwrap();
    let body: Vec<Value> = seats
        .iter()
        .map(|p| json!({"player_id": p, "score": if *p == loser { 99 } else { 10 + p % 9 }}))
        .collect();
    let r = app
        .put_if_match(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
                t["number"]
            ),
            Some(&referee),
            1,
            json!({"seats": body, "reason": "miscounted"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let corrected =
        |e: &str, s: &Value| e != etag && row(s, loser)["tp"] != row(&before, loser)["tp"];
    let (e, s) = read(&app, tid).await;
    assert!(corrected(&e, &s), "the writer's instance at once: {s}");
    let (e, s) = read_until(&other, tid, corrected).await;
    assert!(corrected(&e, &s), "the other instance: {s}");

    // A renamed player.
    let r = app
        .patch(
            &format!("/api/v1/players/{loser}"),
            Some(&org),
            json!({"name": "Renamed Winner"}),
        )
        .await;
    if r.status() == 403 {
        // Organisers may not rename; the admin may.
        let admin = app.admin_token().await;
        let r = app
            .patch(
                &format!("/api/v1/players/{loser}"),
                Some(&admin),
                json!({"name": "Renamed Winner"}),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    let renamed = |_: &str, s: &Value| row(s, loser)["player_name"] == "Renamed Winner";
    let (_, s) = read(&app, tid).await;
    assert!(renamed("", &s), "{s}");
    let (_, s) = read_until(&other, tid, renamed).await;
    assert!(renamed("", &s), "{s}");

    // A point penalty, then its annulment.
    let (_, with_correction) = read(&other, tid).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(&referee),
            json!({"player_id": loser, "kind": "point_penalty", "round": 1,
                   "table": t["number"], "points": 95, "reason": "illegal play"}),
        )
        .await;
    let status = r.status();
    let p: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{p}");
    let penalised = |_: &str, s: &Value| row(s, loser)["tp"] != row(&with_correction, loser)["tp"];
    let (_, s) = read_until(&other, tid, penalised).await;
    assert!(penalised("", &s), "{s}");
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties/{}/annul", p["id"]),
            Some(&referee),
            json!({"reason": "appeal upheld"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let annulled = |_: &str, s: &Value| row(s, loser)["tp"] == row(&with_correction, loser)["tp"];
    let (_, s) = read_until(&other, tid, annulled).await;
    assert!(annulled("", &s), "{s}");
}
