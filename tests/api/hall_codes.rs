//! Results from the hall's tables with the slips' codes (issue 41, item 2): a holder of a table's
//! code reports, the organiser or a second holder confirms; a guessed code, another table's or
//! round's code, a rival's second report, a report after the round closed: refused, nothing
//! written; wrong codes are throttled. The organiser's queue shows what is waiting and missing.

use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player, new_round, play_round};
use crate::hall_print::codes;
use crate::helpers::{fields, problem, refused, spawn_app, TestApp};

fn seats_of(round: &Value, table: usize) -> Vec<i64> {
    round["draw"]["tables"][table]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect()
}

fn result(seats: &[i64]) -> Vec<Value> {
    seats
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"player_id": p, "score": 50 - 5 * i as i64, "bonus": 2}))
        .collect()
}

/// An event of eight players (its organiser) with its first round drawn at random and published.
async fn drawn(app: &TestApp) -> (i64, String, Value) {
    let (tid, org, _, _) = event(app, "agricola_norway", 8).await;
    let round = new_round(app, tid, &org, json!({"method": "random"})).await;
    (tid, org, round)
}

#[actix_web::test]
async fn a_holder_reports_a_second_holder_confirms_and_nothing_else_gets_in() {
    let app = spawn_app().await;
    let (tid, org, round) = drawn(&app).await;
    let (t1, t2) = (seats_of(&round, 0), seats_of(&round, 1));
    let code = codes(&app, tid, 1, &org).await;
    let (code1, code2) = (code[0].1.clone(), code[1].1.clone());
    let url = |t: i64| format!("/api/v1/tournaments/{tid}/rounds/1/tables/{t}/code-report");
    let queue = format!("/api/v1/tournaments/{tid}/rounds/1/report-queue");
    let body = |code: &str, reporter: i64| json!({"code": code, "reporter": reporter, "seats": result(&t1)});
    // A stranger's guess, the code of table 2, a code mangled: 422 naming the code.
    for wrong in ["ABCDE-FGHJK", code2.as_str(), &code1[..9]] {
        let p = problem(app.post(&url(1), None, body(wrong, t1[0])).await, 422).await;
        assert_eq!(fields(&p), ["code"], "{wrong}");
    }
    // A reporter not seated at the table; a result without every player.
    assert_eq!(
        refused(app.post(&url(1), None, body(&code1, t2[0])).await, 422).await,
        ["reporter"]
    );
    let short = json!({"code": code1, "reporter": t1[0], "seats": result(&t1[..3])});
    assert_eq!(
        refused(app.post(&url(1), None, short).await, 422).await,
        ["seats"]
    );
    // Nothing was written: the queue has both tables missing.
    let q: Value = app.get(&queue, Some(&org)).await.json().await.unwrap();
    assert_eq!(q["missing"], json!([1, 2]));
    assert_eq!(q["pending"], json!([]));
    // The holder of table 1's code reports (in any case, with spaces for the hyphen).
    let typed = code1.to_lowercase().replace('-', " ");
    let r = app.post(&url(1), None, body(&typed, t1[0])).await;
    assert_eq!(r.status(), 201);
    let report: Value = r.json().await.unwrap();
    assert_eq!(report["status"], "pending");
    assert_eq!(report["with_code"], true);
    assert_eq!(report["reported_by_player"], t1[0]);
    // A rival's second report is refused; the first stands.
    let mut rival = body(&code1, t1[1]);
    rival["seats"][0]["score"] = json!(1);
    assert_eq!(
        refused(app.post(&url(1), None, rival).await, 409).await,
        ["code"]
    );
    let q: Value = app.get(&queue, Some(&org)).await.json().await.unwrap();
    assert_eq!(q["pending"][0]["id"], report["id"]);
    assert_eq!(q["pending"][0]["seats"][0]["score"], 50);
    assert_eq!(q["missing"], json!([2]));
    // Confirming: not from the reporter's seat, not from another table's seat or code.
    let confirm = format!("{}/confirm", url(1));
    let confirm_by = |code: &str, confirmer: i64| {
        app.post(
            &confirm,
            None,
            json!({"code": code, "confirmer": confirmer}),
        )
    };
    for (code, confirmer, status, field) in [
        (&code1, t1[0], 409, "confirmer"),
        (&code1, t2[0], 422, "confirmer"),
        (&code2, t1[1], 422, "code"),
    ] {
        let r = confirm_by(code, confirmer).await;
        assert_eq!(refused(r, status).await, [field], "{confirmer}");
    }
    problem(
        app.get(
            &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            None,
        )
        .await,
        404,
    )
    .await;
    // A second holder confirms from another seat: the table's result, in the organiser's name.
    let r = confirm_by(&code1, t1[1]).await;
    assert_eq!(r.status(), 200);
    let stored: Value = r.json().await.unwrap();
    assert_eq!(stored["current"]["entered_by"], app.me(&org).await["id"]);
    assert_eq!(stored["current"]["seats"][0]["score"], 50);
    let reason = stored["current"]["reason"].as_str().unwrap();
    assert!(reason.contains(&t1[0].to_string()) && reason.contains(&t1[1].to_string()));
    // With a result in force: no report, no confirmation.
    assert_eq!(
        refused(app.post(&url(1), None, body(&code1, t1[2])).await, 409).await,
        ["table"]
    );
    let q: Value = app.get(&queue, Some(&org)).await.json().await.unwrap();
    assert_eq!(q["done"], json!([1]));
    assert_eq!(q["missing"], json!([2]));
}

#[actix_web::test]
async fn the_organiser_confirms_and_codes_die_with_their_round() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let (_, player) = linked_player(&app, tid, "kari").await;
    let (_, stranger) = app.user("stranger").await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let t2 = seats_of(&round, 1);
    let old = codes(&app, tid, 1, &org).await;
    let queue = format!("/api/v1/tournaments/{tid}/rounds/1/report-queue");
    // The queue is the staff's: 401 nobody, 403 a player or a stranger.
    problem(app.get(&queue, None).await, 401).await;
    problem(app.get(&queue, Some(&player)).await, 403).await;
    problem(app.get(&queue, Some(&stranger)).await, 403).await;
    let base = format!("/api/v1/tournaments/{tid}/rounds/1/tables/2");
    let r = app
        .post(
            &format!("{base}/code-report"),
            None,
            json!({"code": old[1].1, "reporter": t2[3], "seats": result(&t2)}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let q: Value = app.get(&queue, Some(&referee)).await.json().await.unwrap();
    assert_eq!(q["pending"][0]["table"], 2);
    assert_eq!(q["missing"], json!([1]));
    // The organiser confirms it with the reports' own operation: entered in their name.
    let r = app
        .post(&format!("{base}/report/confirm"), Some(&org), json!({}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let stored: Value = r.json().await.unwrap();
    assert_eq!(stored["current"]["entered_by"], app.me(&org).await["id"]);
    // The round completes; its codes take no report, and are no codes of the next round.
    play_round(
        &app,
        tid,
        &referee,
        &json!({"number": 1, "draw": {"tables": [round["draw"]["tables"][0]]}}),
        |p| p,
    )
    .await;
    let t1 = seats_of(&round, 0);
    assert_eq!(
        refused(
            app.post(
                &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/code-report"),
                None,
                json!({"code": old[0].1, "reporter": t1[0], "seats": result(&t1)}),
            )
            .await,
            409
        )
        .await,
        ["round"]
    );
    let next = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let n1 = seats_of(&next, 0);
    assert_eq!(
        refused(
            app.post(
                &format!("/api/v1/tournaments/{tid}/rounds/2/tables/1/code-report"),
                None,
                json!({"code": old[0].1, "reporter": n1[0], "seats": result(&n1)}),
            )
            .await,
            422
        )
        .await,
        ["code"]
    );
    let new = codes(&app, tid, 2, &org).await;
    assert_ne!(new[0].1, old[0].1);
}

#[actix_web::test]
async fn guessing_codes_is_throttled() {
    let app = spawn_app().await;
    let (tid, org, round) = drawn(&app).await;
    let t1 = seats_of(&round, 0);
    let right = codes(&app, tid, 1, &org).await[0].1.clone();
    let url = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/code-report");
    for i in 0..10 {
        let guess = format!("{:05}-00000", i);
        let body = json!({"code": guess, "reporter": t1[0], "seats": result(&t1)});
        problem(app.post(&url, None, body).await, 422).await;
    }
    // Past ten wrong codes in the window, even the right code waits.
    let r = app
        .post(
            &url,
            None,
            json!({"code": right, "reporter": t1[0], "seats": result(&t1)}),
        )
        .await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    let q: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/rounds/1/report-queue"),
            Some(&org),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(q["pending"], json!([]));
}

#[actix_web::test]
async fn the_table_page_takes_a_report_and_a_confirmation_without_script() {
    let app = spawn_app().await;
    let (tid, org, round) = drawn(&app).await;
    let t1 = seats_of(&round, 0);
    let code = codes(&app, tid, 1, &org).await[0].1.clone();
    let page = format!("/hall/tournaments/{tid}/rounds/1/tables/1");
    // Without a code: a form asking for it.
    let r = app.get(&page, None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["referrer-policy"], "no-referrer");
    let html = r.text().await.unwrap();
    assert!(html.contains("name=\"code\"") && !html.contains("<script"));
    // A wrong code: a readable page, 422.
    let r = app
        .get(&format!("{page}?code=AAAAA-AAAAA&lang=nb"), None)
        .await;
    assert_eq!(r.status(), 422);
    assert!(r.text().await.unwrap().contains("not the code of table 1"));
    // The QR code's address: the players and the report form.
    let r = app.get(&format!("{page}?code={code}"), None).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    for p in &t1 {
        assert!(html.contains(&format!("name=\"score.{p}\"")));
    }
    let form = |fields: Vec<(String, String)>| {
        app.client
            .post(app.url(&page))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(serde_urlencoded::to_string(fields).unwrap())
    };
    let mut fields: Vec<(String, String)> = vec![
        ("code".into(), code.clone()),
        ("action".into(), "report".into()),
        ("reporter".into(), t1[0].to_string()),
    ];
    for (i, p) in t1.iter().enumerate() {
        fields.push((format!("score.{p}"), (40 - i).to_string()));
        fields.push((format!("bonus.{p}"), String::new()));
    }
    // A score that is not a number: named on the page, nothing written.
    let mut bad = fields.clone();
    bad[3].1 = "forty".into();
    let r = form(bad).send().await.unwrap();
    assert_eq!(r.status(), 422);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains(&format!("score.{}", t1[0])));
    let r = form(fields.clone()).send().await.unwrap();
    assert_eq!(r.status(), 201);
    assert!(r.text().await.unwrap().contains("Reported"));
    // A second report from the page: refused, readable.
    let r = form(fields).send().await.unwrap();
    assert_eq!(r.status(), 409);
    assert!(r.text().await.unwrap().contains("waits for confirmation"));
    // The page now shows the report with a confirm form without the reporter's seat.
    let html = app
        .get(&format!("{page}?code={code}"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("name=\"confirmer\""));
    assert!(!html.contains(&format!("<option value=\"{}\"", t1[0])));
    let confirm = vec![
        ("code".to_string(), code.clone()),
        ("action".to_string(), "confirm".to_string()),
        ("confirmer".to_string(), t1[2].to_string()),
    ];
    let r = form(confirm).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("Confirmed"));
    let result: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(result["current"]["seats"][0]["score"], 40);
}
