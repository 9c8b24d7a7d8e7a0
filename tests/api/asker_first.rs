//! Issue 37, item 6: rights are checked before the body and the set-up. A stranger or an
//! anonymous caller gets 401/403 from every write operation of a tournament's resources, whatever
//! the body says and whatever this instance cannot do (mail); the operations are read from the
//! OpenAPI document, so a new one is covered the day it is added.

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round};
use crate::helpers::{problem, spawn_app};

/// Bodies nobody should learn anything from: not JSON, not an object, and an object whose
/// every usual field has the wrong type.
const BAD_BODIES: [&str; 3] = [
    "{not json",
    "[]",
    r#"{"reason": 5, "method": 7, "seats": "x", "email": 1, "player_id": "p", "archive": 2,
        "name": [], "status": 9, "times": 1, "time": false, "user_id": "u", "kind": 3}"#,
];

#[actix_web::test]
async fn strangers_and_anonymous_callers_meet_the_door_before_the_body() {
    let app = spawn_app().await;
    let (tid, org, _, ids) = event(&app, "agricola_norway", 4).await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    let (stranger_id, stranger) = app.user("stranger").await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/api/v1/tournaments/{id}") {
            continue;
        }
        for (verb, op) in item.as_object().unwrap() {
            if ["post", "put", "patch", "delete"].contains(&verb.as_str()) {
                ops.push((verb.to_uppercase(), path.clone(), op["operationId"].clone()));
            }
        }
    }
    assert!(ops.len() >= 35, "{} operations: {ops:?}", ops.len());
    let concrete = |p: &str| {
        p.replace("{id}", &tid.to_string())
            .replace("{n}", "1")
            .replace("{t}", "1")
            .replace("{cid}", "1")
            .replace("{pid}", "1")
            .replace("{invitation_id}", "1")
            .replace("{player_id}", &ids[0].to_string())
            .replace("{user_id}", &stranger_id.to_string())
            .replace("{role}", "referee")
    };
    let mut wrong = Vec::new();
    for (verb, path, id) in &ops {
        for body in BAD_BODIES {
            for (who, token, want) in [
                ("anonymous", None, 401),
                ("stranger", Some(stranger.as_str()), 403),
            ] {
                let mut req = app
                    .req(
                        Method::from_bytes(verb.as_bytes()).unwrap(),
                        &concrete(path),
                        token,
                    )
                    .header("content-type", "application/json")
                    .body(body);
                if verb == "PATCH" || verb == "PUT" {
                    req = req.header("if-match", "\"1\"");
                }
                let r = req.send().await.unwrap();
                let status = r.status().as_u16();
                if status != want {
                    let text = r.text().await.unwrap_or_default();
                    wrong.push(format!(
                        "{who} {verb} {path} ({id}) {body:.12}: {status} {text:.160}"
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} answers before asking who:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The two reports of the issue, with well-formed bodies: the mail set-up and the archive's
/// checks are answered to organisers only.
#[actix_web::test]
async fn invitations_and_check_ins_ask_who_first() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let (_, stranger) = app.user("stranger").await;
    let invite = json!({"email": "someone@example.com"});
    let path = format!("/api/v1/tournaments/{tid}/invitations");
    for token in [&stranger, &referee] {
        problem(app.post(&path, Some(token), invite.clone()).await, 403).await;
    }
    problem(app.post(&path, None, invite.clone()).await, 401).await;
    // The organiser is told this instance cannot send mail (no SMTP_URL in the tests).
    problem(app.post(&path, Some(&org), invite).await, 503).await;
    // A bad address is told to the organiser only.
    let p = problem(
        app.post(&path, Some(&stranger), json!({"email": "not an address"}))
            .await,
        403,
    )
    .await;
    assert!(p["errors"].is_null(), "{p}");

    let path = format!("/api/v1/tournaments/{tid}/checkin");
    let r = app
        .post(&path, Some(&stranger), json!({"archive": {"format": "x"}}))
        .await;
    problem(r, 403).await;
    let r = app
        .post(&path, Some(&org), json!({"archive": {"format": "x"}}))
        .await;
    assert!(r.status().as_u16() == 422 || r.status().as_u16() == 409);

    // A round's body is read after the rights: a stranger's bad weight is refused as a stranger.
    let path = format!("/api/v1/tournaments/{tid}/rounds");
    problem(
        app.post(
            &path,
            Some(&stranger),
            json!({"method": "random", "weight": "abc"}),
        )
        .await,
        403,
    )
    .await;
    let p = problem(
        app.post(
            &path,
            Some(&org),
            json!({"method": "random", "weight": "abc"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(p["errors"][0]["field"], "weight");
}
