//! Self-scheduled play to the letter (issue 27; seed 003 rules 3.3 and 8): a time is missed
//! only once it has come, each player has their own chance of rule 8.4, a game nobody has
//! scheduled is not an automatic forfeit of rule 8.2 (the leader is told when the deadline
//! nears), and a double crash in a self-scheduled round is replayed, not scored 23:23.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Duration as Days, Utc};
use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player, new_round};
use crate::helpers::{fields, problem, spawn_app, TestApp};

fn at(t: DateTime<Utc>) -> Value {
    json!(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// A tournament with one self-scheduled round of one game.
struct Game {
    app: TestApp,
    tid: i64,
    org: String,
    a: i64,
    b: i64,
    tokens: HashMap<i64, String>,
    deadline: DateTime<Utc>,
}

impl Game {
    async fn new(days: i64) -> Self {
        let app = spawn_app().await;
        let (tid, org, _, _) = event(&app, "tantrix", 0).await;
        let mut tokens = HashMap::new();
        for name in ["kari", "ola"] {
            let (pid, token) = linked_player(&app, tid, name).await;
            tokens.insert(pid, token);
        }
        let deadline = Utc::now() + Days::days(days);
        let round = new_round(
            &app,
            tid,
            &org,
            json!({"method": "round_robin", "self_scheduled_until": at(deadline)}),
        )
        .await;
        let seat = |i: usize| round["draw"]["tables"][0]["seats"][i].as_i64().unwrap();
        let (a, b) = (seat(0), seat(1));
        Self {
            app,
            tid,
            org,
            a,
            b,
            tokens,
            deadline,
        }
    }

    fn url(&self, rest: &str) -> String {
        format!("/api/v1/tournaments/{}/rounds/1/tables/1{rest}", self.tid)
    }

    fn tok(&self, p: i64) -> &str {
        &self.tokens[&p]
    }

    /// `a` proposes a time `after` from the instance's now and `b` accepts it.
    async fn agree(&self, after: Days) -> DateTime<Utc> {
        let when = self.app.clock.now() + after;
        let when = DateTime::from_timestamp(when.timestamp(), 0).unwrap();
        let r = self
            .app
            .post(
                &self.url("/schedule/proposals"),
                Some(self.tok(self.a)),
                json!({"times": [at(when)]}),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        let r = self
            .app
            .post(
                &self.url("/schedule/accept"),
                Some(self.tok(self.b)),
                json!({"time": at(when)}),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        when
    }

    async fn missed(&self, p: i64) -> reqwest::Response {
        self.app
            .post(
                &self.url("/schedule/missed"),
                Some(self.tok(p)),
                json!({"note": "my connection dropped"}),
            )
            .await
    }

    async fn schedule(&self) -> Value {
        self.app
            .get(&self.url("/schedule"), Some(&self.org))
            .await
            .json()
            .await
            .unwrap()
    }

    fn events(&self, kind: &str) -> Vec<Value> {
        use diesel::prelude::*;
        let mut conn = crate::rating_fixtures::db(&self.app);
        diesel::dsl::sql::<diesel::sql_types::Jsonb>(&format!(
            "SELECT payload FROM tournament_events WHERE tournament_id = {} AND kind = '{kind}' ORDER BY id",
            self.tid
        ))
        .load::<Value>(&mut conn)
        .unwrap()
    }
}

fn kinds(s: &Value) -> Vec<String> {
    s["thread"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap().to_string())
        .collect()
}

/// Gives the once-a-second job time for a few ticks.
async fn ticks() {
    actix_web::rt::time::sleep(Duration::from_millis(2500)).await;
}

/// Rules 8.3 and 8.4: before the agreed time plus the 15 minutes the opponent waits, the time
/// has not been missed; such a report is refused naming the time and changes nothing.
#[actix_web::test]
async fn a_time_is_missed_only_once_it_has_come() {
    let g = Game::new(20).await;
    let when = g.agree(Days::hours(2)).await;
    let before = g.schedule().await;
    let p = problem(g.missed(g.a).await, 409).await;
    assert_eq!(fields(&p), vec!["agreed_time"], "{p}");
    let from = (when + Days::minutes(15)).to_string();
    assert!(
        p["errors"][0]["message"].as_str().unwrap().contains(&from),
        "{p}"
    );
    // 14 minutes after the time: still waiting for the opponent.
    g.app.clock.advance(Days::hours(2) + Days::minutes(14));
    let p = problem(g.missed(g.a).await, 409).await;
    assert_eq!(fields(&p), vec!["agreed_time"], "{p}");
    let after = g.schedule().await;
    assert_eq!(after["state"], "agreed");
    assert_eq!(after["agreed_time"], before["agreed_time"]);
    assert_eq!(after["rescheduled"], false);
    assert_eq!(kinds(&after), vec!["propose", "accept"]);
    assert_eq!(after["chances_used_by"], json!([]));
    // From 15 minutes after it, it is missed.
    g.app.clock.advance(Days::minutes(1));
    let r = g.missed(g.a).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["state"], "open");
    assert_eq!(s["chances_used_by"], json!([g.a]));
}

/// Rule 8.4: "damit jeder Spieler nur eine Chance pro Match ... erhält": one chance per player
/// and match, so the opponent keeps his after she used hers.
#[actix_web::test]
async fn each_player_has_a_chance_of_their_own_in_a_match() {
    let g = Game::new(20).await;
    g.agree(Days::hours(2)).await;
    g.app.clock.advance(Days::hours(3));
    let r = g.missed(g.a).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    g.agree(Days::hours(2)).await;
    g.app.clock.advance(Days::hours(3));
    let r = g.missed(g.b).await;
    assert_eq!(
        r.status(),
        200,
        "his first chance: {}",
        r.text().await.unwrap()
    );
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["rescheduled"], true);
    assert_eq!(s["chances_used_by"], json!([g.a, g.b]));
    // A third missed time: each has used the chance of this match.
    g.agree(Days::hours(2)).await;
    g.app.clock.advance(Days::hours(3));
    for p in [g.a, g.b] {
        let problem = problem(g.missed(p).await, 409).await;
        assert!(
            problem["detail"].as_str().unwrap().contains("chance"),
            "{problem}"
        );
    }
    assert_eq!(g.schedule().await["state"], "agreed");
}

/// Rule 8.2 is for a proposal left unanswered; a game nobody has proposed anything for waits on
/// nobody and is never forfeited automatically. 48 hours before the round's deadline the
/// leader is told, once per deadline, on the feed and to webhooks (rule 8.5), and decides: a
/// later deadline, or a result with forfeits (both players here).
#[actix_web::test]
async fn an_unscheduled_game_is_the_leaders_to_decide_near_the_deadline() {
    let g = Game::new(10).await;
    let s = g.schedule().await;
    assert_eq!(s["state"], "open");
    assert_eq!(
        (&s["waiting_on"], &s["answer_by"], &s["forfeit_at"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    let r = g
        .app
        .post(
            &format!("/api/v1/tournaments/{}/webhooks", g.tid),
            Some(&g.org),
            json!({"url": "http://127.0.0.1:9/hooks", "kinds": ["unscheduled_games"]}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    // A week and a day on: no automatic forfeit, and the deadline is still 3 days away less an
    // hour, so the leader is not told yet.
    g.app.clock.advance(Days::days(7) + Days::hours(1));
    ticks().await;
    problem(g.app.get(&g.url("/result"), Some(&g.org)).await, 404).await;
    assert!(g.events("unscheduled_games").is_empty());
    assert!(g.events("schedule_overdue").is_empty());
    // 47 hours before the deadline: the leader is told, once.
    g.app.clock.advance(Days::days(1));
    let mut told = Vec::new();
    for _ in 0..60 {
        told = g.events("unscheduled_games");
        if !told.is_empty() {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    ticks().await;
    let told_again = g.events("unscheduled_games");
    assert_eq!(told_again.len(), 1, "{told_again:?}");
    assert_eq!(told[0]["round"], 1);
    assert_eq!(told[0]["tables"][0]["table"], 1);
    assert_eq!(told[0]["tables"][0]["players"], json!([g.a, g.b]));
    assert_eq!(kinds(&g.schedule().await), vec!["unscheduled"]);
    {
        use diesel::prelude::*;
        let mut conn = crate::rating_fixtures::db(&g.app);
        let queued: i64 = diesel::dsl::sql::<diesel::sql_types::BigInt>(
            "SELECT count(*) FROM webhook_deliveries WHERE kind = 'unscheduled_games'",
        )
        .get_result(&mut conn)
        .unwrap();
        assert_eq!(queued, 1, "one delivery to the subscribed webhook");
    }
    // The leader extends the deadline: only later than the current one.
    let round = format!("/api/v1/tournaments/{}/rounds/1", g.tid);
    let p = problem(
        g.app
            .patch(
                &round,
                Some(&g.org),
                json!({"self_scheduled_until": at(g.deadline - Days::days(1))}),
            )
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["self_scheduled_until"]);
    let later = g.deadline + Days::days(5);
    let r = g
        .app
        .patch(
            &round,
            Some(&g.org),
            json!({"self_scheduled_until": at(later)}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["self_scheduled_until"], at(later));
    assert_eq!(g.schedule().await["deadline"], at(later));
    // Still nobody schedules: near the new deadline the leader is told again, and decides that
    // both players forfeit (the Tantrix scoring gives 0-0 TP).
    g.app.clock.advance(Days::days(5));
    for _ in 0..60 {
        if g.events("unscheduled_games").len() == 2 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(g.events("unscheduled_games").len(), 2);
    let r = g
        .app
        .put(
            &g.url("/result"),
            Some(&g.org),
            json!({"seats": [
                {"player_id": g.a, "score": 0, "forfeit": true},
                {"player_id": g.b, "score": 0, "forfeit": true}
            ], "reason": "no effort to schedule the game (rule 8.5)"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["round_status"], "completed");
}

/// The schedule after a replay: open, no agreed time, waiting on nobody, a `replay` message;
/// no result, and the feed told.
async fn reopened(g: &Game, s: &Value) {
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["agreed_time"], Value::Null);
    assert_eq!(s["waiting_on"], Value::Null);
    assert_eq!(kinds(s).last().map(String::as_str), Some("replay"));
    problem(g.app.get(&g.url("/result"), Some(&g.org)).await, 404).await;
    let told = g.events("replay_ordered");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["table"], 1);
    assert!(g.events("result_entered").is_empty());
}

/// Rule 3.3: a double crash is 23:23 only in weekend events, where everyone plays at once;
/// entered in a self-scheduled round it reopens the game for scheduling (202), and they play
/// it again.
#[actix_web::test]
async fn an_entered_double_crash_in_a_self_scheduled_round_is_replayed() {
    let g = Game::new(20).await;
    g.agree(Days::hours(2)).await;
    let crash = json!({"seats": [
        {"player_id": g.a, "score": 23}, {"player_id": g.b, "score": 23}
    ], "double_crash": true});
    let r = g
        .app
        .put(&g.url("/result"), Some(&g.org), crash.clone())
        .await;
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    reopened(&g, &s).await;
    // Scheduled and played again, the replay's result is the table's first result.
    g.agree(Days::hours(2)).await;
    let r = g
        .app
        .put(
            &g.url("/result"),
            Some(&g.org),
            json!({"seats": [{"player_id": g.a, "score": 30}, {"player_id": g.b, "score": 20}]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // Once a result is stored, a double crash cannot reopen it: refused, nothing changes.
    let mut correction = crash.clone();
    correction["reason"] = json!("they say it crashed");
    let r = g
        .app
        .put_if_match(&g.url("/result"), Some(&g.org), 1, correction)
        .await;
    let p = problem(r, 409).await;
    assert_eq!(fields(&p), vec!["double_crash"], "{p}");
    let result: Value = g
        .app
        .get(&g.url("/result"), Some(&g.org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(result["current"]["version"], 1);
}

/// Rule 3.3, reported by a player: when the opponent confirms the double crash the game is
/// reopened (202), no 23:23 result is stored, and the report is confirmed.
#[actix_web::test]
async fn a_reported_double_crash_in_a_self_scheduled_round_is_replayed() {
    let g = Game::new(20).await;
    g.agree(Days::hours(2)).await;
    let r = g
        .app
        .post(
            &g.url("/report"),
            Some(g.tok(g.a)),
            json!({"seats": [
                {"player_id": g.a, "score": 23}, {"player_id": g.b, "score": 23}
            ], "double_crash": true}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let r = g
        .app
        .post(&g.url("/report/confirm"), Some(g.tok(g.b)), json!({}))
        .await;
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    let s: Value = r.json().await.unwrap();
    reopened(&g, &s).await;
    let report: Value = g
        .app
        .get(&g.url("/report"), Some(g.tok(g.a)))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(report["status"], "confirmed");
    // They schedule it again.
    g.agree(Days::hours(3)).await;
    assert_eq!(g.schedule().await["state"], "agreed");
}
