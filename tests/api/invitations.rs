//! Issue 29, item 4: an organiser invites an address to a tournament (optionally as a player);
//! the code signs the person up or in, links the player only with consent, registers them,
//! works once, expires and can be revoked.

use serde_json::{json, Value};
use tourney::domain::accounts::SignupMode;

use crate::helpers::{fields, problem, spawn_app_with_signup, spawn_open_app, TestApp, PASSWORD};
use crate::signup::sql;
use crate::smtp_sink::SmtpSink;

async fn player(app: &TestApp, admin: &str, name: &str) -> i64 {
    let r = app
        .post("/api/v1/players", Some(admin), json!({"name": name}))
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn invite(app: &TestApp, token: &str, tid: i64, body: Value) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/v1/tournaments/{tid}/invitations")))
        .bearer_auth(token)
        .header("accept-language", "nb-NO,nb;q=0.9")
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// Invites `email` (as `player`) and returns the code from the message.
async fn code_for(
    app: &TestApp,
    sink: &SmtpSink,
    admin: &str,
    tid: i64,
    email: &str,
    player: Option<i64>,
) -> String {
    let before = sink.to(email).len();
    let r = invite(
        app,
        admin,
        tid,
        json!({"email": email, "player_id": player}),
    )
    .await;
    assert_eq!(r.status(), 201);
    sink.wait_for(email, before + 1, 20).await[before].code("in_")
}

async fn accept(app: &TestApp, token: Option<&str>, body: Value) -> reqwest::Response {
    app.post("/api/v1/auth/invitations/accept", token, body)
        .await
}

fn new_account(code: &str, username: &str, consent: bool) -> Value {
    json!({"token": code, "consent_link_player": consent, "username": username, "password": PASSWORD})
}

fn linked_to(app: &TestApp, player: i64, user: Option<i64>) -> bool {
    let cond = match user {
        Some(u) => format!("user_id = {u}"),
        None => "user_id IS NULL".into(),
    };
    sql(
        app,
        &format!("SELECT 1 FROM players WHERE id = {player} AND {cond}"),
    ) == 1
}

#[actix_web::test]
async fn an_invitation_signs_up_links_with_consent_registers_and_works_once() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Invite, Some(&sink.url())).await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    let kari = player(&app, &admin, "Kari Nordmann").await;
    // Only organisers (and admins) invite, list and revoke.
    let (_, plain) = app.user("ola").await;
    let body = json!({"email": "kari@example.no", "player_id": kari});
    problem(invite(&app, &plain, tid, body.clone()).await, 403).await;
    problem(
        app.get(
            &format!("/api/v1/tournaments/{tid}/invitations"),
            Some(&plain),
        )
        .await,
        403,
    )
    .await;
    let r = invite(&app, &admin, tid, json!({"email": "not an address"})).await;
    assert_eq!(fields(&problem(r, 422).await), ["email"]);
    let r = invite(
        &app,
        &admin,
        tid,
        json!({"email": "kari@example.no", "player_id": 999999}),
    )
    .await;
    assert_eq!(fields(&problem(r, 422).await), ["player_id"]);
    assert!(
        sink.to("kari@example.no").is_empty(),
        "nothing sent for a refused invitation"
    );
    let r = invite(
        &app,
        &admin,
        tid,
        json!({"email": "kari@example.no", "player_id": kari, "message": "Velkommen til Oslo!"}),
    )
    .await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let made: Value = r.json().await.unwrap();
    assert_eq!(
        location,
        format!("/api/v1/tournaments/{tid}/invitations/{}", made["id"])
    );
    assert!(made.get("token").is_none() && made.get("token_hash").is_none());
    // The message is in the inviter's language, with the inviter's words and the code.
    let mail = sink.wait_for("kari@example.no", 1, 20).await;
    assert!(
        mail[0].header("subject").unwrap().contains("Invitasjon"),
        "{:?}",
        mail[0].header("subject")
    );
    assert!(mail[0].body().contains("Velkommen til Oslo!"));
    let code = mail[0].code("in_");
    // Stored hashed: the code's text is nowhere in the table.
    assert_eq!(
        sql(
            &app,
            &format!(
                "SELECT 1 FROM invitations WHERE encode(token_hash, 'hex') LIKE '%{}%'",
                &code[3..]
            )
        ),
        0
    );
    // A new account (invite mode allows it through an invitation), linked with consent.
    let r = accept(&app, None, new_account(&code, "kari", true)).await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["new_account"], true);
    assert_eq!(out["linked"], true);
    assert_eq!(out["player_id"], kari);
    assert_eq!(out["registration"]["status"], "confirmed");
    let user_id = out["user_id"].as_i64().unwrap();
    assert!(linked_to(&app, kari, Some(user_id)));
    // The address counts as verified: the new account signs in at once.
    let kari_token = app.token("kari", PASSWORD).await;
    let regs: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&admin),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(regs["items"].as_array().unwrap().len(), 1);
    // The code works once, whoever sends it.
    for (token, body) in [
        (None, new_account(&code, "kari2", true)),
        (
            Some(kari_token.as_str()),
            json!({"token": code, "consent_link_player": true}),
        ),
    ] {
        let p = problem(accept(&app, token, body).await, 422).await;
        assert_eq!(fields(&p), ["token"]);
        assert!(p["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("already used"));
    }
    // Listed with its state; an accepted invitation cannot be revoked.
    let list: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/invitations"),
            Some(&admin),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);
    assert_eq!(list["items"][0]["accepted_by"], user_id);
    assert_eq!(list["items"][0]["email"], "kari@example.no");
    let r = app.delete_req(&location, &admin).await;
    assert_eq!(fields(&problem(r, 409).await), ["id"]);
}

#[actix_web::test]
async fn expired_revoked_and_unknown_codes_are_refused_and_make_nothing() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Invite, Some(&sink.url())).await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    let late = code_for(&app, &sink, &admin, tid, "late@example.no", None).await;
    let gone = code_for(&app, &sink, &admin, tid, "gone@example.no", None).await;
    // The test clock: the invitation's expiry moved into the past.
    sql(&app, "UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = 'late@example.no'");
    let p = problem(
        accept(&app, None, new_account(&late, "late", true)).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["token"]);
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("expired"));
    let list: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/invitations"),
            Some(&admin),
        )
        .await
        .json()
        .await
        .unwrap();
    let gone_id = list["items"][1]["id"].as_i64().unwrap();
    let path = format!("/api/v1/tournaments/{tid}/invitations/{gone_id}");
    assert_eq!(app.delete_req(&path, &admin).await.status(), 204);
    assert_eq!(
        app.delete_req(&path, &admin).await.status(),
        204,
        "revoking twice"
    );
    let p = problem(
        accept(&app, None, new_account(&gone, "gone", true)).await,
        422,
    )
    .await;
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("revoked"));
    let p = problem(
        accept(&app, None, new_account("in_nothing", "nobody", true)).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["token"]);
    // Without a bearer token, a new account needs both its name and password.
    let p = problem(
        accept(
            &app,
            None,
            json!({"token": late, "consent_link_player": true}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["username", "password"]);
    // Nothing was made.
    assert_eq!(
        sql(
            &app,
            "SELECT 1 FROM users WHERE username IN ('late', 'gone', 'nobody')"
        ),
        0
    );
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM registrations WHERE tournament_id = {tid}")
        ),
        0
    );
    let r = app
        .get(
            &format!("/api/v1/tournaments/{tid}/invitations?limit=1&offset=1"),
            Some(&admin),
        )
        .await;
    let page: Value = r.json().await.unwrap();
    assert_eq!(
        (
            page["total"].as_i64(),
            page["items"].as_array().unwrap().len()
        ),
        (Some(2), 1)
    );
    assert!(page["items"][0]["revoked_at"].is_string());
}

#[actix_web::test]
async fn closed_mode_accepts_only_existing_accounts() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Closed, Some(&sink.url())).await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    let code = code_for(&app, &sink, &admin, tid, "ola@example.no", None).await;
    let p = problem(
        accept(&app, None, new_account(&code, "ola2", true)).await,
        403,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("closed"));
    // The code is not spent by the refusal: an existing account accepts it.
    let (ola_id, ola) = app.user("ola").await;
    let p = problem(
        accept(&app, Some(&ola), new_account(&code, "ola3", true)).await,
        422,
    )
    .await;
    assert_eq!(
        fields(&p),
        ["username"],
        "a bearer token and a new account at once"
    );
    let r = accept(
        &app,
        Some(&ola),
        json!({"token": code, "consent_link_player": false}),
    )
    .await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(
        (out["user_id"].as_i64(), out["new_account"].as_bool()),
        (Some(ola_id), Some(false))
    );
    // No player named: ola's own new player, registered.
    assert_eq!(out["linked"], true);
    assert!(linked_to(
        &app,
        out["player_id"].as_i64().unwrap(),
        Some(ola_id)
    ));
    assert_eq!(out["registration"]["player_name"], "ola");
}

#[actix_web::test]
async fn consent_decides_the_link_and_a_linked_player_is_not_taken() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    let anna = player(&app, &admin, "Anna").await;
    let taken = player(&app, &admin, "Per").await;
    let (per_id, _) = app.user("per").await;
    sql(
        &app,
        &format!("UPDATE players SET user_id = {per_id} WHERE id = {taken}"),
    );
    let (ola_id, ola) = app.user("ola").await;
    // Without consent: registered, not linked.
    let code = code_for(&app, &sink, &admin, tid, "ola@example.no", Some(anna)).await;
    let r = accept(
        &app,
        Some(&ola),
        json!({"token": code, "consent_link_player": false}),
    )
    .await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(
        (out["player_id"].as_i64(), out["linked"].as_bool()),
        (Some(anna), Some(false))
    );
    assert!(linked_to(&app, anna, None));
    assert_eq!(
        sql(
            &app,
            &format!(
                "SELECT 1 FROM registrations WHERE tournament_id = {tid} AND player_id = {anna}"
            )
        ),
        1
    );
    // A player with an account already: 409 naming player_id, the code still good.
    let other = app.tournament(&admin, "tantrix").await;
    let code = code_for(&app, &sink, &admin, other, "ola@example.no", Some(taken)).await;
    let r = accept(
        &app,
        Some(&ola),
        json!({"token": code, "consent_link_player": true}),
    )
    .await;
    assert_eq!(fields(&problem(r, 409).await), ["player_id"]);
    assert!(linked_to(&app, taken, Some(per_id)));
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM registrations WHERE tournament_id = {other}")
        ),
        0
    );
    let r = accept(
        &app,
        Some(&ola),
        json!({"token": code, "consent_link_player": false}),
    )
    .await;
    assert_eq!(r.status(), 200);
    // With consent, an unlinked player becomes the account's; a second player is refused.
    let third = app.tournament(&admin, "tantrix").await;
    let code = code_for(&app, &sink, &admin, third, "ola@example.no", Some(anna)).await;
    let r = accept(
        &app,
        Some(&ola),
        json!({"token": code, "consent_link_player": true}),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(linked_to(&app, anna, Some(ola_id)));
    let bob = player(&app, &admin, "Bob").await;
    let code = code_for(&app, &sink, &admin, third, "ola@example.no", Some(bob)).await;
    let r = accept(
        &app,
        Some(&ola),
        json!({"token": code, "consent_link_player": true}),
    )
    .await;
    let p = problem(r, 409).await;
    assert_eq!(fields(&p), ["player_id"]);
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("player {anna}")));
    // A new account for an address that already has one: sign in instead (409 naming username).
    let code = code_for(&app, &sink, &admin, third, "OLA@example.no", None).await;
    sql(
        &app,
        &format!("UPDATE users SET email = 'ola@example.no' WHERE id = {ola_id}"),
    );
    let r = accept(&app, None, new_account(&code, "ola_again", true)).await;
    assert_eq!(fields(&problem(r, 409).await), ["username"]);
}

/// An invitation carries its inviter's authority: once the inviter's account is disabled or
/// erased, accepting it is 409 naming `token`, nothing is made and the code stays unspent (it
/// works again when the inviter is enabled again).
#[actix_web::test]
async fn a_disabled_or_erased_inviters_invitation_cannot_be_accepted() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Invite, Some(&sink.url())).await;
    let admin = app.admin_token().await;
    let (org_id, org) = app.user("organiser").await;
    let tid = app.tournament(&org, "tantrix").await;
    let (gone_id, gone) = app.user("gone.organiser").await;
    let other = app.tournament(&gone, "tantrix").await;
    let code = code_for(&app, &sink, &org, tid, "ola@example.no", None).await;
    let orphan = code_for(&app, &sink, &gone, other, "kari@example.no", None).await;
    let set_disabled = |disabled: bool| {
        let (app, admin) = (&app, &admin);
        async move {
            let r = app
                .patch(
                    &format!("/api/v1/users/{org_id}"),
                    Some(admin),
                    json!({ "disabled": disabled }),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    };
    set_disabled(true).await;
    let (ola_id, ola) = app.user("ola").await;
    let refused = |p: &Value| {
        assert_eq!(fields(p), ["token"], "{p}");
        assert!(p["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("disabled or deleted"));
    };
    // A new account and an existing one alike; nothing is made.
    refused(
        &problem(
            accept(&app, None, new_account(&code, "ola2", true)).await,
            409,
        )
        .await,
    );
    let existing = json!({"token": code, "consent_link_player": true});
    refused(&problem(accept(&app, Some(&ola), existing.clone()).await, 409).await);
    let r = app
        .post(
            &format!("/api/v1/users/{gone_id}/erasure"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    refused(
        &problem(
            accept(&app, None, new_account(&orphan, "kari", true)).await,
            409,
        )
        .await,
    );
    assert_eq!(
        sql(
            &app,
            "SELECT 1 FROM users WHERE username IN ('ola2', 'kari')"
        ),
        0
    );
    assert_eq!(sql(&app, "SELECT 1 FROM registrations"), 0);
    assert_eq!(
        sql(
            &app,
            "SELECT 1 FROM invitations WHERE accepted_at IS NOT NULL"
        ),
        0
    );
    // The code was not spent: with the inviter enabled again it works.
    set_disabled(false).await;
    let r = accept(&app, Some(&ola), existing).await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["user_id"].as_i64(), Some(ola_id));
}
