//! Opting out of a round: a voluntary round's opt-out stays one; an opt-out of a round that is
//! drawn mandatory is a withdrawal (seed 000: mandatory games are played by everyone, and a
//! player who does not play one has withdrawn and is placed last).

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player, new_round, play_round};
use crate::helpers::{spawn_app, TestApp};

async fn opt_out(app: &TestApp, tid: i64, token: &str, player: i64, round: i64) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(token),
            json!({"player_id": player, "from_round": round, "kind": "opt_out"}),
        )
        .await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["kind"], "opt_out");
}

/// player -> (kind, from_round) of the tournament's withdrawals and opt-outs.
async fn records(app: &TestApp, tid: i64) -> Vec<(i64, String, i64)> {
    let w: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/withdrawals"), None)
        .await
        .json()
        .await
        .unwrap();
    w["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["player_id"].as_i64().unwrap(),
                w["kind"].as_str().unwrap().to_string(),
                w["from_round"].as_i64().unwrap(),
            )
        })
        .collect()
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

async fn standings(app: &TestApp, tid: i64) -> Vec<Value> {
    let s: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    s["rows"].as_array().unwrap().clone()
}

fn row(rows: &[Value], player: i64) -> &Value {
    rows.iter()
        .find(|r| r["player_id"] == player)
        .expect("a standings row")
}

/// The `withdrawal` events of the tournament's feed, as (player, kind, from_round), once `want`
/// of them have arrived.
async fn withdrawal_events(app: &TestApp, tid: i64, want: usize) -> Vec<(i64, String, i64)> {
    let mut feed = app
        .req(
            Method::GET,
            &format!("/api/v1/tournaments/{tid}/events?after=0"),
            None,
        )
        .send()
        .await
        .unwrap();
    let mut seen = String::new();
    loop {
        let events: Vec<(i64, String, i64)> = seen
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .filter(|e| e["kind"] == "withdrawal")
            .map(|e| {
                (
                    e["payload"]["player_id"].as_i64().unwrap(),
                    e["payload"]["kind"].as_str().unwrap().to_string(),
                    e["payload"]["from_round"].as_i64().unwrap(),
                )
            })
            .collect();
        if events.len() >= want {
            return events;
        }
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), feed.chunk())
            .await
            .expect("the feed answers")
            .unwrap()
            .expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// Kari says before round 2 is drawn that she will not play it, Ola the same of round 3. Round
/// 2 is drawn mandatory: Kari has withdrawn from it (placed last, below everyone who plays on,
/// with the event an organiser's withdrawal sends); Ola's opt-out of round 3 and everyone
/// without a record are untouched. Round 3 is drawn voluntary: Ola's opt-out stays an opt-out
/// and she ranks as stopped, not withdrawn.
#[actix_web::test]
async fn an_opt_out_of_a_round_drawn_mandatory_is_a_withdrawal_and_of_a_voluntary_one_stays() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 10).await;
    let (kari, kari_token) = linked_player(&app, tid, "kari").await;
    let (ola, ola_token) = linked_player(&app, tid, "ola").await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    assert_eq!(seated(&r1).len(), 12);
    // Kari and Ola (the highest ids) score best: each is first or second at her table, in the
    // top half after round 1.
    play_round(&app, tid, &referee, &r1, |p| 40 + p).await;
    let rows = standings(&app, tid).await;
    assert!(row(&rows, kari)["place"].as_i64().unwrap() <= 6, "{rows:?}");

    // Announced before the rounds are drawn (their kinds are not known yet).
    opt_out(&app, tid, &kari_token, kari, 2).await;
    opt_out(&app, tid, &ola_token, ola, 3).await;
    assert_eq!(
        records(&app, tid).await,
        vec![
            (kari, "opt_out".to_string(), 2),
            (ola, "opt_out".to_string(), 3)
        ]
    );

    let r2 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let in_r2 = seated(&r2);
    assert!(!in_r2.contains(&kari), "{r2}");
    assert!(in_r2.contains(&ola));
    assert!(ids.iter().all(|p| in_r2.contains(p)), "{r2}");
    assert_eq!(
        records(&app, tid).await,
        vec![
            (kari, "withdrawal".to_string(), 2),
            (ola, "opt_out".to_string(), 3)
        ]
    );
    let events = withdrawal_events(&app, tid, 3).await;
    assert_eq!(
        events,
        vec![
            (kari, "opt_out".to_string(), 2),
            (ola, "opt_out".to_string(), 3),
            (kari, "withdrawal".to_string(), 2)
        ]
    );
    // Kari ranks as withdrawn: last, below everyone who plays round 2.
    let rows = standings(&app, tid).await;
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[11]["player_id"], kari, "{rows:?}");
    assert_eq!(rows[11]["withdrawn"], true);
    assert!(rows[11]["stopped_before_round"].is_null());
    assert!(
        rows[..11].iter().all(|r| r["withdrawn"] == false),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| r["stopped_before_round"].is_null()));

    play_round(&app, tid, &referee, &r2, |p| 40 + p).await;
    let r3 = new_round(
        &app,
        tid,
        &org,
        json!({"method": "danish", "kind": "voluntary"}),
    )
    .await;
    let in_r3 = seated(&r3);
    assert!(!in_r3.contains(&ola) && !in_r3.contains(&kari), "{r3}");
    let after = records(&app, tid).await;
    assert!(
        after.contains(&(ola, "opt_out".to_string(), 3)),
        "{after:?}"
    );
    assert!(after.contains(&(kari, "withdrawal".to_string(), 2)));
    // Nobody was withdrawn by the voluntary round's draw.
    assert_eq!(
        after.iter().filter(|w| w.1 == "withdrawal").count(),
        1,
        "{after:?}"
    );
    play_round(&app, tid, &referee, &r3, |p| 40 + p).await;
    let rows = standings(&app, tid).await;
    assert_eq!(row(&rows, ola)["stopped_before_round"], 3, "{rows:?}");
    assert_eq!(row(&rows, ola)["withdrawn"], false);
    assert_eq!(rows[11]["player_id"], kari);
    assert_eq!(rows[11]["withdrawn"], true);
}

/// An opt-out recorded in advance waits for its round: drawing an earlier mandatory round does
/// not touch it, and it becomes a withdrawal when its own round is drawn mandatory, whatever
/// the mandatory kind (here the final).
#[actix_web::test]
async fn an_opt_out_announced_in_advance_becomes_a_withdrawal_at_its_own_rounds_draw() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 7).await;
    let (kari, kari_token) = linked_player(&app, tid, "kari").await;
    opt_out(&app, tid, &kari_token, kari, 3).await;
    for n in 1..=2 {
        let r = new_round(&app, tid, &org, json!({"method": "random"})).await;
        assert!(seated(&r).contains(&kari), "round {n}: {r}");
        assert_eq!(
            records(&app, tid).await,
            vec![(kari, "opt_out".to_string(), 3)]
        );
        play_round(&app, tid, &referee, &r, |p| 40 + p).await;
    }
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "random", "kind": "final"}),
    )
    .await;
    assert!(!seated(&fin).contains(&kari), "{fin}");
    assert_eq!(
        records(&app, tid).await,
        vec![(kari, "withdrawal".to_string(), 3)]
    );
    let rows = standings(&app, tid).await;
    assert_eq!(rows.last().unwrap()["player_id"], kari, "{rows:?}");
    assert_eq!(rows.last().unwrap()["withdrawn"], true);
}

/// Draws round `number` as a draw does, from a connection of its own: takes the tournament's
/// row lock, adds the round (a copy of round 1) and commits only when the returned sender is
/// used (or dropped), so until then the round is a draw in flight.
fn draw_in_flight(app: &TestApp, tid: i64, number: i64) -> std::sync::mpsc::Sender<()> {
    crate::event_fixtures::held_open(
        app,
        vec![
            format!("SELECT id FROM tournaments WHERE id = {tid} FOR UPDATE"),
            format!(
                "CREATE TEMP TABLE drawn ON COMMIT DROP AS SELECT * FROM rounds \
                 WHERE tournament_id = {tid} AND number = 1"
            ),
            format!(
                "UPDATE drawn SET id = nextval(pg_get_serial_sequence('rounds', 'id')), \
                 number = {number}"
            ),
            "INSERT INTO rounds SELECT * FROM drawn".to_string(),
        ],
    )
}

/// A withdrawal or an opt-out names a round not yet drawn; a draw holds the tournament's row
/// lock while it seats the field and turns its round's opt-outs into withdrawals. Recorded
/// without that lock, an opt-out of round 2 sent while round 2 was being drawn was checked
/// against round 1 (the last committed), waited for the draw only at its insert, and stayed an
/// opt-out of a round drawn mandatory with its player seated in it (an organiser's withdrawal
/// the same). Both now wait for the tournament's lock before the check, and are refused
/// (422 on `from_round`) once the draw commits.
#[actix_web::test]
async fn a_withdrawal_or_opt_out_sent_during_a_draw_is_checked_against_it() {
    let app = spawn_app().await;
    let (tid, org, _referee, ids) = event(&app, "agricola_norway", 7).await;
    let (kari, kari_token) = linked_player(&app, tid, "kari").await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    let path = format!("/api/v1/tournaments/{tid}/withdrawals");
    let bodies = [
        (
            2,
            kari_token.clone(),
            json!({"player_id": kari, "from_round": 2, "kind": "opt_out"}),
        ),
        (
            3,
            org.clone(),
            json!({"player_id": ids[0], "from_round": 3, "kind": "withdrawal"}),
        ),
    ];
    for (number, token, body) in bodies {
        let release = draw_in_flight(&app, tid, number);
        let mut pending = Box::pin(app.post(&path, Some(token.as_str()), body.clone()));
        let early = tokio::time::timeout(std::time::Duration::from_millis(1500), &mut pending);
        if let Ok(r) = early.await {
            panic!("answered during the draw: {} {body}", r.status());
        }
        release.send(()).unwrap();
        let r = pending.await;
        assert_eq!(
            crate::helpers::refused(r, 422).await,
            vec!["from_round"],
            "{body}"
        );
    }
    let kept: Value = app.get(&path, None).await.json().await.unwrap();
    assert_eq!(kept["total"], 0, "{kept}");
}
