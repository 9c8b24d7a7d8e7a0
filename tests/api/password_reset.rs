//! Issue 29, item 3: a reset request always answers 202; the code arrives by mail, works once
//! and for an hour; confirming sets the password and ends every session.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_open_app, TestApp, PASSWORD};
use crate::helpers::{sign_up, verified_account};
use crate::signup::sql;

const NEW: &str = "a brand new passphrase";

async fn ask(app: &TestApp, email: &str) -> reqwest::Response {
    app.post("/api/v1/auth/password-reset", None, json!({"email": email}))
        .await
}

async fn confirm(app: &TestApp, code: &str, password: &str) -> reqwest::Response {
    app.post(
        "/api/v1/auth/password-reset/confirm",
        None,
        json!({"token": code, "password": password}),
    )
    .await
}

async fn session(app: &TestApp, password: &str) -> reqwest::Response {
    app.post(
        "/api/v1/auth/token",
        None,
        json!({"username": "kari", "password": password}),
    )
    .await
}

#[actix_web::test]
async fn a_reset_code_sets_the_password_once_and_ends_every_session() {
    let (sink, app) = spawn_open_app().await;
    let access = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let started: Value = session(&app, PASSWORD).await.json().await.unwrap();
    let refresh = started["refresh_token"].as_str().unwrap().to_string();
    // Known and unknown addresses answer alike; only the known one gets mail.
    let known = ask(&app, "Kari@Example.no").await;
    let unknown = ask(&app, "nobody@example.no").await;
    assert_eq!(known.status(), 202);
    assert_eq!(unknown.status(), 202);
    assert_eq!(
        known.json::<Value>().await.unwrap(),
        unknown.json::<Value>().await.unwrap()
    );
    let first = sink.wait_for("kari@example.no", 2, 20).await[1].code("pr_");
    assert_eq!(ask(&app, "kari@example.no").await.status(), 202);
    let second = sink.wait_for("kari@example.no", 3, 20).await[2].code("pr_");
    // A password that is not allowed leaves the code good.
    let r = confirm(&app, &first, "kari").await;
    let mut f = fields(&problem(r, 422).await);
    f.dedup();
    assert_eq!(f, ["password"]);
    assert_eq!(confirm(&app, &first, NEW).await.status(), 204);
    // Every session ended: the refresh token and the access token are refused.
    let r = app
        .post(
            "/api/v1/auth/refresh",
            None,
            json!({"refresh_token": refresh}),
        )
        .await;
    problem(r, 401).await;
    actix_web::rt::time::sleep(std::time::Duration::from_millis(2100)).await;
    problem(app.get("/api/v1/me", Some(&access)).await, 401).await;
    assert_eq!(session(&app, PASSWORD).await.status(), 401);
    assert_eq!(session(&app, NEW).await.status(), 200);
    // The code works once, and the other code of the account is spent with it.
    for code in [&first, &second] {
        let p = problem(confirm(&app, code, "yet another passphrase").await, 422).await;
        assert!(p["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("already used"));
    }
    assert!(sink.to("nobody@example.no").is_empty());
    let r = ask(&app, "not an address").await;
    assert_eq!(fields(&problem(r, 422).await), ["email"]);
}

#[actix_web::test]
async fn a_reset_code_lasts_an_hour_and_unknown_codes_are_refused() {
    let (sink, app) = spawn_open_app().await;
    verified_account(&app, &sink, "kari", "kari@example.no").await;
    assert_eq!(ask(&app, "kari@example.no").await.status(), 202);
    let code = sink.wait_for("kari@example.no", 2, 20).await[1].code("pr_");
    sql(
        &app,
        "UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'reset'",
    );
    let p = problem(confirm(&app, &code, NEW).await, 422).await;
    assert!(p["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("expired"));
    let p = problem(confirm(&app, "pr_nothing", NEW).await, 422).await;
    assert_eq!(fields(&p), ["token"]);
    assert_eq!(session(&app, PASSWORD).await.status(), 200, "unchanged");
    // The code is stored hashed: its text is nowhere in the database.
    let mut conn =
        <diesel::PgConnection as diesel::Connection>::establish(&app.database_url).unwrap();
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let n: N = diesel::RunQueryDsl::get_result(
        diesel::sql_query("SELECT count(*) AS n FROM account_tokens WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'")
            .bind::<diesel::sql_types::Text, _>(&code[3..]),
        &mut conn,
    )
    .unwrap();
    assert_eq!(n.n, 0);
}

#[actix_web::test]
async fn a_reset_proves_the_address_of_an_account_that_was_never_verified() {
    let (sink, app) = spawn_open_app().await;
    let r = sign_up(&app, "kari", "kari@example.no", None).await;
    assert_eq!(r.status(), 202);
    problem(session(&app, PASSWORD).await, 403).await;
    assert_eq!(ask(&app, "kari@example.no").await.status(), 202);
    let code = sink.wait_for("kari@example.no", 2, 20).await[1].code("pr_");
    assert_eq!(confirm(&app, &code, NEW).await.status(), 204);
    assert_eq!(session(&app, NEW).await.status(), 200);
}
