//! Issue 37, item 1 and the account parts of item 6: a stolen access token does not become the
//! account. The export holds no code, secret, hash or message body (so the attack "token ->
//! reset request -> export -> confirm" fails), a sent message keeps no code, erasing an account
//! takes its password, messages sent after a restore have their own Message-IDs, signing up
//! again decides the password by the code that verifies, and a lost code can be sent again.

use std::collections::BTreeSet;
use std::time::Duration;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use serde_json::{json, Value};
use tourney::domain::accounts::SignupMode;

use crate::helpers::{
    fields, fresh_database, problem, spawn_app, spawn_app_with_signup, spawn_open_app, TestApp,
    PASSWORD,
};
use crate::helpers::{sign_up, verified_account};
use crate::signup::sql;

#[derive(QueryableByName, Debug)]
struct Sent {
    #[diesel(sql_type = Text)]
    to_address: String,
    #[diesel(sql_type = Text)]
    subject: String,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = BigInt)]
    attempts: i64,
    #[diesel(sql_type = Nullable<Text>)]
    sent: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    body: Option<String>,
}

fn outbox(app: &TestApp) -> Vec<Sent> {
    outbox_at(&app.database_url)
}

fn outbox_at(url: &str) -> Vec<Sent> {
    let mut conn = PgConnection::establish(url).expect("connect");
    diesel::sql_query(
        "SELECT to_address, subject, kind, attempts::bigint AS attempts, sent_at::text AS sent,
                body FROM mail_outbox ORDER BY id",
    )
    .load(&mut conn)
    .expect("outbox")
}

/// Waits until every queued message is marked sent (the job records it after the server took
/// it, so the sink may hold a message a moment before its row says so).
async fn all_sent(app: &TestApp) -> Vec<Sent> {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let rows = outbox(app);
        if rows.iter().all(|r| r.sent.is_some()) {
            return rows;
        }
        assert!(std::time::Instant::now() < deadline, "{rows:?}");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn a_stolen_access_token_finds_no_code_in_the_export_and_cannot_take_the_account() {
    let (sink, app) = spawn_open_app().await;
    let email = "kari@example.no";
    let access = verified_account(&app, &sink, "kari", email).await;
    let verification = sink.to(email)[0].code("ev_");
    // Everything secret the account was ever given: a refresh token, an API key (asked for with
    // an idempotency key, so its answer is stored for replay), an invitation.
    let started: Value = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": "kari", "password": PASSWORD}),
        )
        .await
        .json()
        .await
        .unwrap();
    let refresh = started["refresh_token"].as_str().unwrap().to_string();
    let r = app
        .req(reqwest::Method::POST, "/api/v1/me/api-keys", Some(&access))
        .header("idempotency-key", "my-first-key")
        .json(&json!({"name": "reader", "scopes": ["read"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let key = r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/invitations"),
            Some(&admin),
            json!({"email": email}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let invitation = sink.wait_for(email, 2, 20).await[1].code("in_");
    // The attack: with the access token alone, ask for a reset code, then read the export.
    let r = app
        .post("/api/v1/auth/password-reset", None, json!({"email": email}))
        .await;
    assert_eq!(r.status(), 202);
    let reset = sink.wait_for(email, 3, 20).await[2].code("pr_");
    let sent = all_sent(&app).await;
    let r = app.get("/api/v1/me/export", Some(&access)).await;
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    for (what, secret) in [
        ("verification code", &verification),
        ("reset code", &reset),
        ("invitation code", &invitation),
        ("API key", &key),
        ("refresh token", &refresh),
    ] {
        assert!(
            !text.contains(secret.as_str()),
            "the {what} is in the export"
        );
    }
    for prefix in ["ev_", "pr_", "in_", "rt_", "hash", "argon2", "\"body\""] {
        assert!(!text.contains(prefix), "{prefix} in {text}");
    }
    // What the export does say about them: when and what, by section.
    let export: Value = serde_json::from_str(&text).unwrap();
    let kinds: BTreeSet<&str> = export["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["invitation", "reset", "verify"]),
        "{export}"
    );
    let purposes: BTreeSet<&str> = export["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["purpose"].as_str().unwrap())
        .collect();
    assert_eq!(purposes, BTreeSet::from(["reset", "verify"]));
    assert_eq!(export["api_keys"][0]["name"], "reader");
    assert_eq!(export["invitations"][0]["tournament_id"], json!(tid));
    // The sent messages keep recipient, subject, kind and attempts, not their text.
    assert_eq!(sent.len(), 3);
    for m in &sent {
        assert!(m.body.is_none(), "{m:?}");
        assert_eq!(m.to_address, email);
        assert!(!m.subject.is_empty() && m.attempts == 1, "{m:?}");
    }
    let kinds: Vec<&str> = sent.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(kinds, ["verify", "invitation", "reset"]);
    // Without the code the attacker's confirmation fails; the owner's works.
    let r = app
        .post(
            "/api/v1/auth/password-reset/confirm",
            None,
            json!({"token": "pr_guessed", "password": "the attacker's passphrase"}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), ["token"]);
    let r = app
        .post(
            "/api/v1/auth/password-reset/confirm",
            None,
            json!({"token": reset, "password": "the owner's new passphrase"}),
        )
        .await;
    assert_eq!(r.status(), 204);
}

#[actix_web::test]
async fn every_column_that_names_a_person_is_exported_or_left_out_on_purpose() {
    #[derive(QueryableByName)]
    struct Column {
        #[diesel(sql_type = Text)]
        name: String,
    }
    let app = spawn_app().await;
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    let columns: Vec<Column> = diesel::sql_query(
        "SELECT DISTINCT c.conrelid::regclass::text || '.' || a.attname AS name
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
         WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
           AND c.confrelid IN ('users'::regclass, 'players'::regclass)
         UNION
         SELECT c.table_name || '.' || c.column_name FROM information_schema.columns c
         JOIN pg_tables t ON t.schemaname = c.table_schema AND t.tablename = c.table_name
         WHERE c.table_schema = current_schema() AND c.column_name IN ('player_id', 'user_id')
         ORDER BY 1",
    )
    .load(&mut conn)
    .unwrap();
    use tourney::db::personal_data::LEFT_OUT;
    use tourney::services::accounts::export::covered;
    let decided: BTreeSet<String> = covered()
        .into_iter()
        .chain(LEFT_OUT.iter().map(|(c, _)| c.to_string()))
        .collect();
    let undecided: Vec<&str> = columns
        .iter()
        .map(|c| c.name.as_str())
        .filter(|c| !decided.contains(*c))
        .collect();
    assert!(
        undecided.is_empty(),
        "columns that name an account or a player but are neither in the export \
         (services::accounts::export) nor in db::personal_data::LEFT_OUT: {undecided:?}"
    );
}

#[actix_web::test]
async fn the_export_is_typed_section_by_section_in_the_openapi_document() {
    let doc = tourney::app::openapi();
    let schemas = &doc["components"]["schemas"];
    let export = &schemas["Export"]["properties"];
    assert!(export.get("records").is_none());
    for section in [
        "account",
        "player",
        "sessions",
        "api_keys",
        "codes",
        "messages",
        "invitations",
        "results",
        "acts",
    ] {
        assert!(export.get(section).is_some(), "no section {section}");
    }
    // Every field of every section is typed: no free-form object anywhere under Export.
    let mut seen = BTreeSet::new();
    let mut todo = vec!["Export".to_string()];
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = &schemas[&name];
        for (field, property) in schema["properties"].as_object().unwrap() {
            let text = property.to_string();
            assert!(
                property.get("additionalProperties").is_none()
                    && (text.contains("$ref") || !text.contains("\"object\"")),
                "{name}.{field} is not typed: {property}"
            );
            for part in text.split("#/components/schemas/").skip(1) {
                todo.push(part.split('"').next().unwrap().to_string());
            }
        }
    }
    assert!(seen.len() > 10, "{seen:?}");
}

#[actix_web::test]
async fn erasing_my_account_takes_its_password_not_a_token_alone() {
    let app = spawn_app().await;
    let (_, token) = app.user("kari").await;
    // No body, an empty one, a wrong password: 422 naming `password`, nothing erased.
    let r = app.delete_req("/api/v1/me", &token).await;
    assert_eq!(fields(&problem(r, 422).await), ["password"]);
    let r = app.delete_with("/api/v1/me", &token, json!({})).await;
    assert_eq!(fields(&problem(r, 422).await), ["password"]);
    let r = app
        .delete_with(
            "/api/v1/me",
            &token,
            json!({"password": "not the password"}),
        )
        .await;
    let p = problem(r, 422).await;
    assert_eq!(fields(&p), ["password"]);
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("nothing was erased"));
    assert_eq!(app.get("/api/v1/me", Some(&token)).await.status(), 200);
    // Guessing is counted like failed sign-ins: the account from this client is refused soon.
    let mut refused = false;
    for _ in 0..12 {
        let r = app
            .delete_with("/api/v1/me", &token, json!({"password": "guess"}))
            .await;
        if r.status() == 429 {
            refused = true;
            break;
        }
        assert_eq!(r.status(), 422);
    }
    assert!(refused, "wrong passwords are throttled");
    assert_eq!(app.get("/api/v1/me", Some(&token)).await.status(), 200);
}

#[actix_web::test]
async fn erasing_with_the_password_erases() {
    let app = spawn_app().await;
    let (uid, token) = app.user("ola").await;
    let r = app.erase_me(&token).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"user_id": uid, "player": "none"})
    );
}

#[actix_web::test]
async fn messages_sent_after_a_restore_do_not_repeat_a_message_id() {
    let (sink, app) = spawn_open_app().await;
    assert_eq!(
        sign_up(&app, "first", "first@example.no", None)
            .await
            .status(),
        202
    );
    sink.wait_for("first@example.no", 1, 20).await;
    all_sent(&app).await;
    // A restore of a backup taken before that message: its row and its id are back to come.
    sql(&app, "DELETE FROM mail_outbox");
    sql(&app, "SELECT setval('mail_outbox_id_seq', 1, false)");
    assert_eq!(
        sign_up(&app, "second", "second@example.no", None)
            .await
            .status(),
        202
    );
    sink.wait_for("second@example.no", 1, 20).await;
    let ids: Vec<String> = sink
        .messages()
        .iter()
        .map(|m| m.header("message-id").unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1], "two messages, one Message-ID");
}

async fn sign_up_with(app: &TestApp, username: &str, email: &str, password: &str) -> u16 {
    app.post(
        "/api/v1/auth/signup",
        None,
        json!({"username": username, "email": email, "password": password}),
    )
    .await
    .status()
    .as_u16()
}

async fn signs_in(app: &TestApp, username: &str, password: &str) -> u16 {
    app.post(
        "/api/v1/auth/token",
        None,
        json!({"username": username, "password": password}),
    )
    .await
    .status()
    .as_u16()
}

/// A second sign-up with a waiting account's address (perhaps a stranger's) sends a new code
/// that keeps the account's password: whichever code the owner clicks, the stranger's password
/// never signs in.
#[actix_web::test]
async fn signing_up_again_sends_a_code_that_keeps_the_accounts_password() {
    let (sink, app) = spawn_open_app().await;
    let email = "ola@example.no";
    let second = "a second long passphrase";
    assert_eq!(sign_up_with(&app, "ola", email, PASSWORD).await, 202);
    let first_code = sink.wait_for(email, 1, 20).await[0].code("ev_");
    assert_eq!(sign_up_with(&app, "ola-again", email, second).await, 202);
    let second_code = sink.wait_for(email, 2, 20).await[1].code("ev_");
    // The newest code verifies the address with the first sign-up's password.
    assert_eq!(app.verify_email(&second_code).await.status(), 204);
    assert_eq!(signs_in(&app, "ola", PASSWORD).await, 200);
    assert_eq!(signs_in(&app, "ola", second).await, 401);
    assert_eq!(
        signs_in(&app, "ola-again", second).await,
        401,
        "one account"
    );
    // The first code is spent with it.
    let p = problem(app.verify_email(&first_code).await, 422).await;
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("already used"));
    assert_eq!(signs_in(&app, "ola", PASSWORD).await, 200);

    // The other way round: the first code verifies with the first password, and the second
    // sign-up's code is spent.
    let email = "per@example.no";
    assert_eq!(sign_up_with(&app, "per", email, PASSWORD).await, 202);
    let first_code = sink.wait_for(email, 1, 20).await[0].code("ev_");
    assert_eq!(sign_up_with(&app, "per-again", email, second).await, 202);
    let second_code = sink.wait_for(email, 2, 20).await[1].code("ev_");
    assert_eq!(app.verify_email(&first_code).await.status(), 204);
    assert_eq!(signs_in(&app, "per", PASSWORD).await, 200);
    assert_eq!(signs_in(&app, "per", second).await, 401);
    let p = problem(app.verify_email(&second_code).await, 422).await;
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("already used"));
    assert_eq!(signs_in(&app, "per", second).await, 401);
}

fn queued_for(app: &TestApp, email: &str) -> usize {
    outbox(app).iter().filter(|m| m.to_address == email).count()
}

#[actix_web::test]
async fn a_new_verification_code_is_sent_on_request_without_telling_who_is_known() {
    let (sink, app) = spawn_open_app().await;
    let resend = |email: &'static str| {
        let app = &app;
        async move {
            app.post(
                "/api/v1/auth/verify-email/resend",
                None,
                json!({"email": email}),
            )
            .await
        }
    };
    assert_eq!(
        sign_up(&app, "ola", "ola@example.no", None).await.status(),
        202
    );
    let first = sink.wait_for("ola@example.no", 1, 20).await[0].code("ev_");
    let _ = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let kari_before = queued_for(&app, "kari@example.no");
    // Waiting, verified and unknown addresses answer alike.
    let waiting = resend("OLA@example.no").await;
    let verified = resend("kari@example.no").await;
    let unknown = resend("nobody@example.no").await;
    assert_eq!(waiting.status(), 202);
    assert_eq!(verified.status(), 202);
    assert_eq!(unknown.status(), 202);
    let body: Value = waiting.json().await.unwrap();
    assert_eq!(verified.json::<Value>().await.unwrap(), body);
    assert_eq!(unknown.json::<Value>().await.unwrap(), body);
    // Only the waiting account gets a code (the outbox is written with the answer).
    assert_eq!(queued_for(&app, "kari@example.no"), kari_before);
    assert_eq!(queued_for(&app, "nobody@example.no"), 0);
    let fresh = sink.wait_for("ola@example.no", 2, 20).await[1].code("ev_");
    assert_ne!(fresh, first);
    assert_eq!(app.verify_email(&fresh).await.status(), 204);
    assert_eq!(signs_in(&app, "ola", PASSWORD).await, 200);
    // Not an address: 422 naming `email`; and counted like sign-ups (10 per address).
    let r = resend("not-an-address").await;
    assert_eq!(fields(&problem(r, 422).await), ["email"]);
    let mut limited = false;
    for _ in 0..11 {
        let r = resend("someone@example.no").await;
        if r.status() == 429 {
            assert!(r.headers().get("retry-after").is_some());
            limited = true;
            break;
        }
        assert_eq!(r.status(), 202);
    }
    assert!(limited, "resends are throttled per address");
}

#[actix_web::test]
async fn without_smtp_a_resend_answers_503() {
    let app = spawn_app_with_signup(SignupMode::Open, None).await;
    let r = app
        .post(
            "/api/v1/auth/verify-email/resend",
            None,
            json!({"email": "ola@example.no"}),
        )
        .await;
    problem(r, 503).await;
}

#[actix_web::test]
async fn the_upgrade_empties_the_bodies_of_messages_already_sent() {
    use diesel_migrations::MigrationHarness;
    // A database no service keeps: a running instance's search index reads the tables the
    // down migrations alter, and its rebuilds could deadlock with them.
    let url = fresh_database();
    let mut conn = PgConnection::establish(&url).expect("connect");
    // Back to the schema before the scrub (later migrations first).
    loop {
        let reverted = conn
            .revert_last_migration(tourney::db::MIGRATIONS)
            .expect("the down migration runs");
        if reverted.to_string().ends_with("000101") {
            break;
        }
    }
    for statement in [
        "INSERT INTO mail_outbox (to_address, subject, body, sent_at) VALUES
             ('a@example.no', 'Reset', 'your code: pr_sentcode1', now()),
             ('b@example.no', 'Confirm', 'your code: ev_waitingcode', NULL),
             ('c@example.no', 'Invitation', 'your code: in_givenup', NULL)",
        "UPDATE mail_outbox SET failed_at = now() WHERE to_address = 'c@example.no'",
    ] {
        diesel::sql_query(statement)
            .execute(&mut conn)
            .expect(statement);
    }
    conn.run_pending_migrations(tourney::db::MIGRATIONS)
        .expect("the upgrade runs");
    let rows = outbox_at(&url);
    let by = |to: &str| rows.iter().find(|r| r.to_address == to).unwrap();
    assert_eq!(by("a@example.no").body, None);
    assert_eq!(by("a@example.no").kind, "reset");
    assert_eq!(by("c@example.no").body, None, "given up: its code goes too");
    assert_eq!(by("c@example.no").kind, "invitation");
    let waiting = by("b@example.no");
    assert_eq!(waiting.kind, "verify");
    assert!(waiting.body.as_deref().unwrap().contains("ev_waitingcode"));
    // A message that is done can no longer hold a body, nor a waiting one lack it.
    for values in ["'pr_x', now()", "NULL, NULL"] {
        let refused = diesel::sql_query(format!(
            "INSERT INTO mail_outbox (to_address, subject, body, sent_at)
             VALUES ('d@example.no', 'x', {values})"
        ))
        .execute(&mut conn);
        assert!(refused.is_err(), "{values}");
    }
}
