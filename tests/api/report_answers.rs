//! Who answers a reported result, and which report the answer is for: a confirmation names the
//! report it read (a report swapped between the read and the click is not confirmed).

use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{account_player, event, new_round};
use crate::hall_print::codes;
use crate::helpers::{problem, refused, spawn_app, TestApp};
use crate::report_fixtures::{duel, karis_coded_table, next_table, reported, scores, table_code};

async fn newest(app: &TestApp, url: &str, token: &str) -> Value {
    app.get(url, Some(token)).await.json().await.unwrap()
}

/// Item 1: the first report of a table is confirmed as before (no body at all, or `{}`). Once a
/// report replaced (or followed a disputed) one, a confirmation without `report_id` is 428 and
/// one naming an earlier report 409, both naming `report_id`, nothing written; the right id
/// confirms.
#[actix_web::test]
async fn a_confirmation_is_for_the_report_the_confirmer_read() {
    let app = spawn_app().await;
    let (tid, org, _, kari, kari_token, ola, ola_token) = duel(&app).await;
    // Round 1: one report, confirmed with no body at all.
    let report = format!("{}/report", next_table(&app, tid, &org).await);
    reported(&app, &report, &kari_token, scores(kari, ola)).await;
    let r = app
        .req(Method::POST, &format!("{report}/confirm"), Some(&ola_token))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // Round 2: Kari reports, Ola disputes, Kari reports again and replaces that.
    let table = next_table(&app, tid, &org).await;
    let (report, result) = (format!("{table}/report"), format!("{table}/result"));
    let confirm = format!("{report}/confirm");
    let first = reported(&app, &report, &kari_token, scores(ola, kari)).await;
    let r = app
        .post(
            &format!("{report}/dispute"),
            Some(&ola_token),
            json!({"reason": "I lost"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let second = reported(&app, &report, &kari_token, scores(kari, ola)).await;
    // After a disputed report, no id: 428.
    for body in [json!({}), json!({"report_id": null})] {
        let r = app.post(&confirm, Some(&ola_token), body).await;
        assert_eq!(refused(r, 428).await, ["report_id"]);
    }
    let r = app
        .req(Method::POST, &confirm, Some(&ola_token))
        .send()
        .await
        .unwrap();
    assert_eq!(refused(r, 428).await, ["report_id"]);
    // Ola read the second; Kari swaps it for a third before Ola clicks.
    assert_eq!(newest(&app, &report, &ola_token).await["id"], second);
    let bigger =
        json!({"seats": [{"player_id": kari, "score": 31}, {"player_id": ola, "score": 12}]});
    let third = reported(&app, &report, &kari_token, bigger).await;
    for stale in [first, second] {
        let r = app
            .post(&confirm, Some(&ola_token), json!({"report_id": stale}))
            .await;
        assert_eq!(refused(r, 409).await, ["report_id"], "{stale}");
    }
    // The staff too: no id, 428.
    let r = app.post(&confirm, Some(&org), json!({})).await;
    assert_eq!(refused(r, 428).await, ["report_id"]);
    // Nothing was written: no result, the third report waits.
    problem(app.get(&result, None).await, 404).await;
    let waiting = newest(&app, &report, &ola_token).await;
    assert_eq!(
        (waiting["id"].as_i64(), waiting["status"].as_str()),
        (Some(third), Some("pending"))
    );
    // Naming the report read confirms it.
    let r = app
        .post(&confirm, Some(&ola_token), json!({"report_id": third}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let stored: Value = r.json().await.unwrap();
    assert_eq!(stored["current"]["seats"][0]["score"], 31);
    assert_eq!(
        newest(&app, &report, &ola_token).await["status"],
        "confirmed"
    );
}

/// Item 1, the hall: a code report, then a seated player signed in replaces it. The table's
/// page carries the report it shows; its confirmation, or a JSON one naming the replaced
/// report, is 409 naming `report_id`; none named is 428; the waiting report's id confirms.
#[actix_web::test]
async fn a_code_confirmation_is_for_the_report_the_page_showed() {
    let app = spawn_app().await;
    let (tid, kari, kari_token, table, seats, code) = karis_coded_table(&app).await;
    let others: Vec<i64> = seats.iter().copied().filter(|p| *p != kari).collect();
    let result = |first: i64| {
        let mut order = vec![first];
        order.extend(seats.iter().copied().filter(|p| *p != first));
        order
            .iter()
            .enumerate()
            .map(|(k, p)| json!({"player_id": p, "score": 50 - 5 * k as i64}))
            .collect::<Vec<_>>()
    };
    let base = format!("/api/v1/tournaments/{tid}/rounds/1/tables/{table}");
    let r = app
        .post(
            &format!("{base}/code-report"),
            None,
            json!({"code": code, "reporter": others[0], "seats": result(others[0])}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let first = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    // The page shows it, and its confirm form carries its id.
    let page = format!("/hall/tournaments/{tid}/rounds/1/tables/{table}");
    let html = app
        .get(&format!("{page}?code={code}"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(&format!("name=\"report_id\" value=\"{first}\"")),
        "{html}"
    );
    // Kari, seated and signed in, replaces it with her own win.
    let second = reported(
        &app,
        &format!("{base}/report"),
        &kari_token,
        json!({"seats": result(kari)}),
    )
    .await;
    // The page's form, sent as it was shown: refused, readable, nothing written.
    let form = serde_urlencoded::to_string([
        ("code", code.clone()),
        ("action", "confirm".into()),
        ("confirmer", others[1].to_string()),
        ("report_id", first.to_string()),
    ])
    .unwrap();
    let r = app
        .client
        .post(app.url(&page))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    assert!(r.text().await.unwrap().contains("report_id"));
    let confirm = format!("{base}/code-report/confirm");
    let by = |id: Value| json!({"code": code, "confirmer": others[1], "report_id": id});
    assert_eq!(
        refused(app.post(&confirm, None, by(json!(first))).await, 409).await,
        ["report_id"]
    );
    let bare = json!({"code": code, "confirmer": others[1]});
    assert_eq!(
        refused(app.post(&confirm, None, bare).await, 428).await,
        ["report_id"]
    );
    problem(app.get(&format!("{base}/result"), None).await, 404).await;
    // The report waiting, named: confirmed, Kari's win.
    let r = app.post(&confirm, None, by(json!(second))).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let stored: Value = r.json().await.unwrap();
    assert_eq!(stored["current"]["seats"][0]["player_id"], kari);
}

/// Item 2: in a 2v2 team round a player does not answer their partner's report: the partner
/// neither confirms nor disputes it (403), with the code the partner's seat does not confirm it
/// (409 naming `confirmer`); a player of the other team does.
#[actix_web::test]
async fn a_partner_does_not_answer_the_report_of_their_own_team() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "team_duplicate_2v2", 0).await;
    let mut teams: Vec<Vec<(i64, String)>> = Vec::new();
    for t in 0..2 {
        let mut members = Vec::new();
        for i in 0..4 {
            members.push(account_player(&app, &format!("t{t}m{i}")).await);
        }
        let ids: Vec<i64> = members.iter().map(|m| m.0).collect();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/teams"),
                Some(&org),
                json!({"name": format!("Team {t}"), "pair_a": [ids[0], ids[1]],
                       "pair_b": [ids[2], ids[3]]}),
            )
            .await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        teams.push(members);
    }
    let token = |p: i64| {
        teams
            .iter()
            .flatten()
            .find(|m| m.0 == p)
            .map(|m| m.1.clone())
            .unwrap()
    };
    let team_of = |p: i64| teams.iter().position(|t| t.iter().any(|m| m.0 == p));
    let round = new_round(&app, tid, &org, json!({"method": "team_duplicate"})).await;
    let tables = round["draw"]["tables"].as_array().unwrap().clone();
    let seats = |k: usize| -> Vec<i64> {
        tables[k]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect()
    };
    let body = |s: &[i64]| {
        json!({"seats": s.iter().enumerate()
            .map(|(k, p)| json!({"player_id": p, "score": 40 - k as i64})).collect::<Vec<_>>()})
    };
    // Table A, signed in: a player reports, the partner is refused, an opponent confirms.
    let a = seats(0);
    let reporter = a[0];
    let partner = *a
        .iter()
        .find(|p| **p != reporter && team_of(**p) == team_of(reporter))
        .unwrap();
    let rival = *a
        .iter()
        .find(|p| team_of(**p) != team_of(reporter))
        .unwrap();
    let base = format!(
        "/api/v1/tournaments/{tid}/rounds/1/tables/{}",
        tables[0]["number"]
    );
    let id = reported(&app, &format!("{base}/report"), &token(reporter), body(&a)).await;
    let confirm = format!("{base}/report/confirm");
    let r = app
        .post(&confirm, Some(&token(partner)), json!({"report_id": id}))
        .await;
    problem(r, 403).await;
    let r = app
        .post(
            &format!("{base}/report/dispute"),
            Some(&token(partner)),
            json!({"reason": "we won more"}),
        )
        .await;
    problem(r, 403).await;
    let r = app
        .post(&confirm, Some(&token(rival)), json!({"report_id": id}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // Table B, with the code: the reporter's partner's seat is refused, a rival's confirms.
    let b = seats(1);
    let number = tables[1]["number"].as_i64().unwrap();
    let code = table_code(&app, tid, 1, &org, number).await;
    let base = format!("/api/v1/tournaments/{tid}/rounds/1/tables/{number}");
    let r = app
        .post(
            &format!("{base}/code-report"),
            None,
            json!({"code": code, "reporter": b[0], "seats": body(&b)["seats"]}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let partner = *b
        .iter()
        .find(|p| **p != b[0] && team_of(**p) == team_of(b[0]))
        .unwrap();
    let rival = *b.iter().find(|p| team_of(**p) != team_of(b[0])).unwrap();
    let confirm = format!("{base}/code-report/confirm");
    let r = app
        .post(&confirm, None, json!({"code": code, "confirmer": partner}))
        .await;
    assert_eq!(refused(r, 409).await, ["confirmer"]);
    let r = app
        .post(&confirm, None, json!({"code": code, "confirmer": rival}))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

/// Item 3: a seat named by a holder of the table code can dispute the report made in its name;
/// a signed-in reporter still cannot dispute their own report.
#[actix_web::test]
async fn the_seat_a_code_report_names_may_dispute_it() {
    let app = spawn_app().await;
    let (tid, kari, kari_token, number, seats, code) = karis_coded_table(&app).await;
    let result = json!(seats
        .iter()
        .enumerate()
        .map(|(k, p)| json!({"player_id": p, "score": 50 - 5 * k as i64}))
        .collect::<Vec<_>>());
    let base = format!("/api/v1/tournaments/{tid}/rounds/1/tables/{number}");
    // Someone holding the slip reports as Kari.
    let r = app
        .post(
            &format!("{base}/code-report"),
            None,
            json!({"code": code, "reporter": kari, "seats": result}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let dispute = format!("{base}/report/dispute");
    let r = app
        .post(
            &dispute,
            Some(&kari_token),
            json!({"reason": "I did not report this"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let disputed: Value = r.json().await.unwrap();
    assert_eq!(disputed["status"], "disputed");
    assert!(disputed["case_id"].is_i64());
    // Kari's own signed-in report: she does not dispute it.
    reported(
        &app,
        &format!("{base}/report"),
        &kari_token,
        json!({"seats": result}),
    )
    .await;
    let r = app
        .post(
            &dispute,
            Some(&kari_token),
            json!({"reason": "changed my mind"}),
        )
        .await;
    problem(r, 403).await;
}

/// Item 4: the players answer within 48 hours; afterwards their confirmation or dispute (and a
/// code holder's confirmation) is 409 naming `answer_by`, and the referee still decides.
#[actix_web::test]
async fn after_the_answer_deadline_the_referee_decides() {
    let app = spawn_app().await;
    let (tid, org, referee, kari, kari_token, ola, ola_token) = duel(&app).await;
    // Round 1: answered an hour before the deadline, by a dispute and then a confirmation.
    let report = format!("{}/report", next_table(&app, tid, &org).await);
    reported(&app, &report, &kari_token, scores(kari, ola)).await;
    app.clock.advance(Duration::hours(47));
    let r = app
        .post(
            &format!("{report}/dispute"),
            Some(&ola_token),
            json!({"reason": "not so"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let id = reported(&app, &report, &kari_token, scores(kari, ola)).await;
    app.clock.advance(Duration::hours(47));
    let r = app
        .post(
            &format!("{report}/confirm"),
            Some(&ola_token),
            json!({"report_id": id}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // Round 2: an hour after the deadline, the players are refused, nothing written.
    let base = next_table(&app, tid, &org).await;
    let report = format!("{base}/report");
    let id = reported(&app, &report, &kari_token, scores(kari, ola)).await;
    app.clock.advance(Duration::hours(49));
    let r = app
        .post(
            &format!("{report}/confirm"),
            Some(&ola_token),
            json!({"report_id": id}),
        )
        .await;
    assert_eq!(refused(r, 409).await, ["answer_by"]);
    let r = app
        .post(
            &format!("{report}/dispute"),
            Some(&ola_token),
            json!({"reason": "too late"}),
        )
        .await;
    assert_eq!(refused(r, 409).await, ["answer_by"]);
    let code = codes(&app, tid, 2, &org).await[0].1.clone();
    let r = app
        .post(
            &format!("{base}/code-report/confirm"),
            None,
            json!({"code": code, "confirmer": ola}),
        )
        .await;
    assert_eq!(refused(r, 409).await, ["answer_by"]);
    assert_eq!(newest(&app, &report, &ola_token).await["status"], "pending");
    problem(app.get(&format!("{base}/result"), None).await, 404).await;
    // The referee confirms it.
    let r = app
        .post(
            &format!("{report}/confirm"),
            Some(&referee),
            json!({"report_id": id}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}
