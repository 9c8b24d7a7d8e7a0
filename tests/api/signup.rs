//! Issue 29, items 1 and 2: sign-up modes, address verification before the account can sign
//! in, usernames and addresses unique without regard to case, answers that do not tell whether
//! an address is known, the sign-up throttle, and messages in the sign-up's language, all sent
//! through a real SMTP server (`smtp_sink`).

use diesel::prelude::*;
use serde_json::{json, Value};
use tourney::domain::accounts::SignupMode;

use crate::helpers::{
    fields, problem, says, sign_up, signed_up, spawn_app, spawn_app_with_signup, spawn_open_app,
    verified_account, TestApp, PASSWORD,
};
use crate::smtp_sink::SmtpSink;

pub fn sql(app: &TestApp, statement: &str) -> usize {
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query(statement)
        .execute(&mut conn)
        .expect(statement)
}

#[actix_web::test]
async fn closed_is_the_default_and_invite_mode_signs_up_only_through_invitations() {
    let app = spawn_app().await;
    let p = problem(sign_up(&app, "kari", "kari@example.no", None).await, 403).await;
    assert!(p["detail"].as_str().unwrap().contains("closed"));
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Invite, Some(&sink.url())).await;
    let p = problem(sign_up(&app, "kari", "kari@example.no", None).await, 403).await;
    assert!(p["detail"].as_str().unwrap().contains("invitation"));
    // Nothing was made: the name is still free for an admin.
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin),
            json!({"username": "kari", "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert!(sink.messages().is_empty());
}

#[actix_web::test]
async fn without_smtp_the_operations_that_need_mail_answer_503() {
    let app = spawn_app_with_signup(SignupMode::Open, None).await;
    let p = problem(sign_up(&app, "kari", "kari@example.no", None).await, 503).await;
    assert!(p["detail"].as_str().unwrap().contains("SMTP_URL"));
    let r = app
        .post(
            "/api/v1/auth/password-reset",
            None,
            json!({"email": "kari@example.no"}),
        )
        .await;
    problem(r, 503).await;
    // The 503 is about mail, not the database: the service goes on answering.
    let r = app.get("/readyz", None).await;
    assert_eq!(r.status(), 200);
    let _ = app.admin_token().await;
}

#[actix_web::test]
async fn an_account_signs_in_only_after_its_address_is_verified_and_a_code_works_once() {
    let (sink, app) = spawn_open_app().await;
    let r = sign_up(
        &app,
        "kari",
        "kari@example.no",
        Some("nb-NO,nb;q=0.9,en;q=0.5"),
    )
    .await;
    assert_eq!(r.status(), 202);
    let body: Value = r.json().await.unwrap();
    assert!(body["detail"].as_str().unwrap().contains("on its way"));
    let p = problem(app.sign_in("kari", PASSWORD).await, 403).await;
    assert!(p["detail"].as_str().unwrap().contains("verify"));
    let mail = sink.wait_for("kari@example.no", 1, 20).await;
    assert_eq!(mail[0].from, "noreply@tourney.test");
    assert!(
        mail[0].body().contains("bekrefte denne adressen"),
        "{}",
        mail[0].body()
    );
    let code = mail[0].code("ev_");
    for bad in ["ev_0000", ""] {
        let r = app.verify_email(bad).await;
        assert_eq!(fields(&problem(r, 422).await), ["token"]);
    }
    let r = app.verify_email(&code).await;
    assert_eq!(r.status(), 204);
    // Signs in, by its name in any case.
    assert_eq!(app.sign_in("KARI", PASSWORD).await.status(), 200);
    let r = app.verify_email(&code).await;
    assert!(says(&problem(r, 422).await, "already used"));
    // A reset code is not a verification code.
    let r = app
        .post(
            "/api/v1/auth/password-reset",
            None,
            json!({"email": "kari@example.no"}),
        )
        .await;
    assert_eq!(r.status(), 202);
    let reset = sink.wait_for("kari@example.no", 2, 20).await[1].code("pr_");
    let r = app.verify_email(&reset).await;
    assert!(says(&problem(r, 422).await, "unknown"));
}

#[actix_web::test]
async fn an_expired_verification_code_is_refused_and_signing_up_again_sends_a_new_one() {
    let (sink, app) = spawn_open_app().await;
    let old = signed_up(&app, &sink, "ola", "ola@example.no", None).await;
    sql(
        &app,
        "UPDATE account_tokens SET expires_at = now() - interval '1 second'",
    );
    let r = app.verify_email(&old).await;
    assert!(says(&problem(r, 422).await, "expired"));
    // The same address again (another name, another case): the waiting account gets a new code.
    let fresh = signed_up(&app, &sink, "ola2", "OLA@example.no", None).await;
    assert_ne!(fresh, old);
    let r = app.verify_email(&fresh).await;
    assert_eq!(r.status(), 204);
    assert_eq!(app.sign_in("ola", PASSWORD).await.status(), 200);
    assert_eq!(
        app.sign_in("ola2", PASSWORD).await.status(),
        401,
        "no second account"
    );
}

#[actix_web::test]
async fn names_and_addresses_are_unique_in_any_case_and_known_addresses_are_not_revealed() {
    let (sink, app) = spawn_open_app().await;
    let _ = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let new = sign_up(&app, "bjorn", "bjorn@example.no", None).await;
    let new_status = new.status();
    let new_body: Value = new.json().await.unwrap();
    let known = sign_up(&app, "someone", "KARI@Example.NO", Some("de")).await;
    assert_eq!(known.status(), new_status);
    assert_eq!(
        known.json::<Value>().await.unwrap(),
        new_body,
        "the same answer"
    );
    // The known address hears that someone tried, in its own language (Norwegian was not asked
    // for: the account's language stays English).
    let mail = sink.wait_for("kari@example.no", 2, 20).await;
    assert!(
        mail[1].body().contains("already belongs to your account"),
        "{}",
        mail[1].body()
    );
    assert_eq!(app.sign_in("someone", PASSWORD).await.status(), 401);
    // A taken name in another case is a conflict on the username.
    let r = sign_up(&app, "KARI", "other@example.no", None).await;
    assert_eq!(fields(&problem(r, 409).await), ["username"]);
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin),
            json!({"username": "Kari", "password": PASSWORD}),
        )
        .await;
    assert_eq!(fields(&problem(r, 409).await), ["username"]);
    // Bad input names every field.
    let r = app
        .post(
            "/api/v1/auth/signup",
            None,
            json!({"username": "x", "email": "no-at", "password": "short"}),
        )
        .await;
    let mut f = fields(&problem(r, 422).await);
    f.dedup();
    assert_eq!(f, ["username", "password", "email"]);
}

#[actix_web::test]
async fn messages_follow_the_sign_ups_accept_language() {
    let (sink, app) = spawn_open_app().await;
    let cases = [
        (
            "de-DE,de;q=0.9",
            "Adresse für dein tourney-Konto zu bestätigen",
        ),
        ("pl", "aby potwierdzić ten adres"),
        ("zh-TW,zh;q=0.9", "確認此地址"),
        ("fr-FR", "to confirm this address"),
        ("nn", "bekrefte denne adressen"),
    ];
    for (i, (lang, _)) in cases.iter().enumerate() {
        let r = sign_up(
            &app,
            &format!("user{i}"),
            &format!("u{i}@example.org"),
            Some(lang),
        )
        .await;
        assert_eq!(r.status(), 202);
    }
    for (i, (lang, word)) in cases.iter().enumerate() {
        let m = &sink.wait_for(&format!("u{i}@example.org"), 1, 20).await[0];
        assert!(m.body().contains(word), "{lang}: {}", m.body());
        assert!(m.header("message-id").unwrap().contains("@tourney.test"));
    }
}

#[actix_web::test]
async fn sign_ups_are_throttled_per_address_like_sign_ins() {
    let (_sink, app) = spawn_open_app().await;
    for i in 0..10 {
        let r = sign_up(&app, &format!("name{i}"), "same@example.org", None).await;
        assert_eq!(r.status(), 202, "attempt {i}");
    }
    let r = sign_up(&app, "name10", "Same@Example.org", None).await;
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    // Over the sliding five minutes: until one of the ten weighs no more (330 s at once).
    assert!((300..=330).contains(&retry), "{retry}");
    problem(r, 429).await;
    // Another address is still taken, and password-reset requests count the same way.
    assert_eq!(
        sign_up(&app, "fresh", "fresh@example.org", None)
            .await
            .status(),
        202
    );
    let r = app
        .post(
            "/api/v1/auth/password-reset",
            None,
            json!({"email": "same@example.org"}),
        )
        .await;
    problem(r, 429).await;
}

/// Messages queued for `email` (any case).
fn queued(app: &TestApp, email: &str) -> usize {
    sql(
        app,
        &format!("SELECT 1 FROM mail_outbox WHERE lower(to_address) = lower('{email}')"),
    )
}

/// A taken username is the same 409 naming `username` with a verified, a waiting or an unknown
/// address: a sign-up never tells which addresses have accounts. Nothing is sent.
#[actix_web::test]
async fn a_taken_username_is_409_whatever_the_address() {
    let (sink, app) = spawn_open_app().await;
    let _ = verified_account(&app, &sink, "kari", "kari@example.no").await;
    assert_eq!(
        sign_up(&app, "ola", "ola@example.no", None).await.status(),
        202
    );
    sink.wait_for("ola@example.no", 1, 20).await;
    let (kari_before, ola_before) = (
        queued(&app, "kari@example.no"),
        queued(&app, "ola@example.no"),
    );
    let unknown = problem(sign_up(&app, "kari", "nobody@example.no", None).await, 409).await;
    assert_eq!(fields(&unknown), ["username"]);
    for (name, email) in [
        ("kari", "kari@example.no"),
        ("Kari", "OLA@example.no"),
        ("ola", "KARI@example.no"),
        ("OLA", "ola@example.no"),
    ] {
        let p = problem(sign_up(&app, name, email, None).await, 409).await;
        assert_eq!(fields(&p), ["username"], "{name} {email}");
        assert_eq!(p["detail"], unknown["detail"], "{name} {email}");
        assert_eq!(p["errors"], unknown["errors"], "{name} {email}");
    }
    assert_eq!(queued(&app, "kari@example.no"), kari_before);
    assert_eq!(queued(&app, "ola@example.no"), ola_before);
    assert_eq!(queued(&app, "nobody@example.no"), 0);
    assert_eq!(app.sign_in("kari", PASSWORD).await.status(), 200);
}

/// The account an admin finds by `name` (`GET /users?q=`): its id.
async fn account_id(app: &TestApp, admin: &str, name: &str) -> i64 {
    let r = app
        .get(&format!("/api/v1/users?q={name}"), Some(admin))
        .await;
    assert_eq!(r.status(), 200);
    let page: Value = r.json().await.unwrap();
    let found = page["items"].as_array().unwrap();
    let item = found.iter().find(|u| u["username"] == name).expect(name);
    item["id"].as_i64().unwrap()
}

/// A verification code does not verify the address of an account an admin has disabled: 422
/// naming `token` (the account is closed, as for reset and address-change codes), the address
/// stays unverified and the code unspent, so it verifies once the account is enabled again. An
/// erased account's code is gone with it (unknown).
#[actix_web::test]
async fn a_disabled_accounts_code_verifies_only_once_it_is_enabled_again() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let code = signed_up(&app, &sink, "kari", "kari@example.no", None).await;
    let kari = account_id(&app, &admin, "kari").await;
    let set_disabled = |disabled: bool| {
        let (app, admin) = (&app, &admin);
        async move {
            let r = app
                .patch(
                    &format!("/api/v1/users/{kari}"),
                    Some(admin),
                    json!({ "disabled": disabled }),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    };
    set_disabled(true).await;
    for _ in 0..2 {
        let p = problem(app.verify_email(&code).await, 422).await;
        assert_eq!(fields(&p), ["token"]);
        assert!(says(&p, "closed"), "{p}");
    }
    let unverified = "SELECT 1 FROM users WHERE username = 'kari' AND email_verified_at IS NULL";
    assert_eq!(sql(&app, unverified), 1, "nothing written");
    assert_eq!(
        sql(&app, "SELECT 1 FROM account_tokens WHERE used_at IS NULL"),
        1,
        "the code is not spent"
    );
    // Enabled again: the same code verifies, and the sign-up's password signs in.
    set_disabled(false).await;
    assert_eq!(app.verify_email(&code).await.status(), 204);
    assert_eq!(sql(&app, unverified), 0);
    assert_eq!(app.sign_in("kari", PASSWORD).await.status(), 200);
    // Erased before verifying: its code went with it.
    let code = signed_up(&app, &sink, "ola", "ola@example.no", None).await;
    let ola = account_id(&app, &admin, "ola").await;
    let r = app
        .post(
            &format!("/api/v1/users/{ola}/erasure"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(says(
        &problem(app.verify_email(&code).await, 422).await,
        "unknown"
    ));
}
