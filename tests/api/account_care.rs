//! Issue 40, item 4: accounts people look after. `GET /me` shows the address, whether it is
//! verified and the language; `PATCH /me` changes the language, and the address in two steps
//! (the password, a code to the new address, a notice to the old one that undoes it); a new
//! verification code spends the ones before; `GET /users?q=` finds accounts for admins and for
//! keepers choosing a keeper (`GET /rating-pools/{id}/keeper-candidates`). What a stranger, a rival and a stolen token can do with each.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use serde_json::{json, Value};

use crate::helpers::{
    fields, next_mail, problem, resend_verification, says, signed_up, spawn_app_with_limits,
    spawn_open_app, verified_account, TestApp, PASSWORD, TEST_LIMITS,
};
use crate::smtp_sink::SmtpSink;

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// How many messages were queued for `email` (the outbox is written with the answer).
fn queued_for(app: &TestApp, email: &str) -> i64 {
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query("SELECT count(*) AS n FROM mail_outbox WHERE lower(to_address) = lower($1)")
        .bind::<diesel::sql_types::Text, _>(email)
        .get_result::<Count>(&mut conn)
        .expect("count")
        .n
}

async fn patch_me(app: &TestApp, token: &str, body: Value) -> reqwest::Response {
    app.patch("/api/v1/me", Some(token), body).await
}

/// `PATCH /me` refused with `status`: the fields its problem names.
async fn me_refused(app: &TestApp, token: &str, body: Value, status: u16) -> Vec<String> {
    fields(&problem(patch_me(app, token, body).await, status).await)
}

/// Asks for an address change with the test password.
async fn change_address(app: &TestApp, token: &str, email: &str) -> reqwest::Response {
    patch_me(
        app,
        token,
        json!({"email": email, "current_password": PASSWORD}),
    )
    .await
}

#[actix_web::test]
async fn me_shows_the_address_whether_it_is_verified_and_the_language() {
    let (sink, app) = spawn_open_app().await;
    let code = signed_up(&app, &sink, "kari", "Kari@example.no", Some("nb-NO")).await;
    assert_eq!(app.verify_email(&code).await.status(), 204);
    let token = app.token("kari", PASSWORD).await;
    let me_now = app.me(&token).await;
    assert_eq!(me_now["email"], "Kari@example.no");
    assert_eq!(me_now["email_verified"], true);
    assert_eq!(me_now["language"], "nb");
    assert_eq!(me_now["pending_email"], Value::Null);
    // An account an admin made has no address.
    let (_, ola) = app.user("ola").await;
    let ola_me = app.me(&ola).await;
    assert_eq!(ola_me["email"], Value::Null);
    assert_eq!(ola_me["email_verified"], false);
    assert_eq!(ola_me["language"], "en");
    // Without a token: 401.
    problem(
        app.patch("/api/v1/me", None, json!({"language": "de"}))
            .await,
        401,
    )
    .await;
}

#[actix_web::test]
async fn the_language_changes_and_bad_input_writes_nothing() {
    let (sink, app) = spawn_open_app().await;
    let token = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let r = patch_me(&app, &token, json!({"language": "de"})).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["language"], "de");
    assert_eq!(
        me_refused(&app, &token, json!({"language": "fr"}), 422).await,
        ["language"]
    );
    // A good language beside a bad address: nothing is written, every field named.
    assert_eq!(
        me_refused(
            &app,
            &token,
            json!({"language": "pl", "email": "not-an-address"}),
            422
        )
        .await,
        ["email", "current_password"]
    );
    assert_eq!(app.me(&token).await["language"], "de");
    // A password longer than the document allows is refused even without an address.
    assert_eq!(
        me_refused(
            &app,
            &token,
            json!({"current_password": "x".repeat(257)}),
            422
        )
        .await,
        ["current_password"]
    );
    // Unknown fields are refused too.
    problem(patch_me(&app, &token, json!({"is_admin": true})).await, 422).await;
    assert_eq!(app.me(&token).await["is_admin"], false);
    // Messages now come in German.
    let before = sink.to("kari@example.no").len();
    let r = app
        .post(
            "/api/v1/auth/password-reset",
            None,
            json!({"email": "kari@example.no"}),
        )
        .await;
    assert_eq!(r.status(), 202);
    let mail = next_mail(&sink, "kari@example.no", before).await;
    assert_eq!(
        mail.header("subject").as_deref(),
        Some("Neues Passwort festlegen")
    );
}

#[actix_web::test]
async fn an_address_changes_only_with_the_password_and_the_code_from_the_new_address() {
    let (sink, app) = spawn_open_app().await;
    let token = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let old_before = sink.to("kari@example.no").len();
    // No password, a wrong one: 422 naming it, nothing sent or pending.
    assert_eq!(
        me_refused(&app, &token, json!({"email": "kari@club.example"}), 422).await,
        ["current_password"]
    );
    assert_eq!(
        me_refused(
            &app,
            &token,
            json!({"email": "kari@club.example", "current_password": "not the password"}),
            422
        )
        .await,
        ["current_password"]
    );
    assert_eq!(queued_for(&app, "kari@club.example"), 0);
    assert_eq!(app.me(&token).await["pending_email"], Value::Null);

    // With the password: pending until confirmed; a code to the new address, a notice to the old.
    let r = change_address(&app, &token, "kari@club.example").await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["email"], "kari@example.no");
    assert_eq!(body["pending_email"], "kari@club.example");
    let code = next_mail(&sink, "kari@club.example", 0).await.code("ec_");
    let notice = next_mail(&sink, "kari@example.no", old_before).await;
    assert!(
        notice.body().contains("kari@club.example"),
        "{}",
        notice.body()
    );
    assert!(notice.body().contains("pr_"), "a reset code to undo it");
    assert_eq!(app.me(&token).await["email"], "kari@example.no");

    // A second request replaces the first: its code no longer works.
    assert_eq!(
        change_address(&app, &token, "kari@other.example")
            .await
            .status(),
        200
    );
    let second = next_mail(&sink, "kari@other.example", 0).await.code("ec_");
    let p = problem(app.verify_email(&code).await, 422).await;
    assert_eq!(fields(&p), ["token"]);
    assert_eq!(app.me(&token).await["pending_email"], "kari@other.example");

    // The code confirms: the address changes, proved, and works for resets.
    assert_eq!(app.verify_email(&second).await.status(), 204);
    let now = app.me(&token).await;
    assert_eq!(now["email"], "kari@other.example");
    assert_eq!(now["email_verified"], true);
    assert_eq!(now["pending_email"], Value::Null);
    problem(app.verify_email(&second).await, 422).await;
    let before = queued_for(&app, "kari@example.no");
    for to in ["kari@example.no", "kari@other.example"] {
        let r = app
            .post("/api/v1/auth/password-reset", None, json!({"email": to}))
            .await;
        assert_eq!(r.status(), 202);
    }
    assert_eq!(
        queued_for(&app, "kari@example.no"),
        before,
        "the old one is gone"
    );
    assert_eq!(queued_for(&app, "kari@other.example"), 2);
    // The account's own address cancels a change that waits.
    assert_eq!(
        change_address(&app, &token, "kari@third.example")
            .await
            .status(),
        200
    );
    let third = next_mail(&sink, "kari@third.example", 0).await.code("ec_");
    let r = change_address(&app, &token, "KARI@other.example").await;
    assert_eq!(
        r.json::<Value>().await.unwrap()["pending_email"],
        Value::Null
    );
    problem(app.verify_email(&third).await, 422).await;
    assert_eq!(app.me(&token).await["email"], "kari@other.example");
}

#[actix_web::test]
async fn an_address_another_account_uses_is_refused_and_nothing_is_written() {
    let (sink, app) = spawn_open_app().await;
    let kari = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let ola = verified_account(&app, &sink, "ola", "ola@example.no").await;
    let ola_mail = queued_for(&app, "ola@example.no");
    let kari_mail = queued_for(&app, "kari@example.no");
    let p = problem(change_address(&app, &kari, "OLA@example.no").await, 409).await;
    assert_eq!(fields(&p), ["email"]);
    assert_eq!(queued_for(&app, "ola@example.no"), ola_mail);
    assert_eq!(queued_for(&app, "kari@example.no"), kari_mail, "no notice");
    assert_eq!(app.me(&kari).await["pending_email"], Value::Null);

    // Two accounts wait for the same new address: the first to confirm has it; the other's
    // code answers 409 naming `email` and stays unused (nothing written).
    assert_eq!(
        change_address(&app, &kari, "shared@example.no")
            .await
            .status(),
        200
    );
    let first = next_mail(&sink, "shared@example.no", 0).await.code("ec_");
    assert_eq!(
        change_address(&app, &ola, "shared@example.no")
            .await
            .status(),
        200
    );
    let second = next_mail(&sink, "shared@example.no", 1).await.code("ec_");
    assert_eq!(app.verify_email(&first).await.status(), 204);
    let p = problem(app.verify_email(&second).await, 409).await;
    assert_eq!(fields(&p), ["email"]);
    assert_eq!(app.me(&ola).await["email"], "ola@example.no");
    assert_eq!(app.me(&ola).await["pending_email"], "shared@example.no");
    assert_eq!(app.me(&kari).await["email"], "shared@example.no");
}

#[actix_web::test]
async fn a_stolen_token_cannot_move_the_address_and_the_owner_undoes_a_change() {
    let (sink, app) = spawn_open_app().await;
    let stolen = verified_account(&app, &sink, "kari", "kari@example.no").await;
    // The token alone moves nothing.
    for body in [
        json!({"email": "thief@evil.example"}),
        json!({"email": "thief@evil.example", "current_password": "guessed wrong"}),
    ] {
        let p = problem(patch_me(&app, &stolen, body).await, 422).await;
        assert_eq!(fields(&p), ["current_password"]);
    }
    assert_eq!(queued_for(&app, "thief@evil.example"), 0);

    // A thief who has the password too, and confirms at once: the owner's notice still undoes it.
    let before = sink.to("kari@example.no").len();
    assert_eq!(
        change_address(&app, &stolen, "thief@evil.example")
            .await
            .status(),
        200
    );
    let code = next_mail(&sink, "thief@evil.example", 0).await.code("ec_");
    let notice = next_mail(&sink, "kari@example.no", before).await;
    assert_eq!(app.verify_email(&code).await.status(), 204);
    assert_eq!(app.me(&stolen).await["email"], "thief@evil.example");
    let reset = notice.code("pr_");
    let r = app
        .post(
            "/api/v1/auth/password-reset/confirm",
            None,
            json!({"token": reset, "password": "the owner's new passphrase"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    // Every session of the thief ends; the owner signs in and takes the address back.
    let mut refused = false;
    for _ in 0..50 {
        if app.get("/api/v1/me", Some(&stolen)).await.status() == 401 {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(refused, "the stolen token is refused");
    let owner = app.token("kari", "the owner's new passphrase").await;
    let before = sink.to("kari@example.no").len();
    let r = patch_me(
        &app,
        &owner,
        json!({"email": "kari@example.no", "current_password": "the owner's new passphrase"}),
    )
    .await;
    assert_eq!(r.status(), 200);
    let back = next_mail(&sink, "kari@example.no", before)
        .await
        .code("ec_");
    assert_eq!(app.verify_email(&back).await.status(), 204);
    assert_eq!(app.me(&owner).await["email"], "kari@example.no");

    // A change not confirmed yet is cancelled by the reset: its code no longer works.
    let before = sink.to("kari@example.no").len();
    let thief_before = sink.wait_for("thief@evil.example", 2, 20).await.len();
    let r = patch_me(
        &app,
        &owner,
        json!({"email": "thief@evil.example", "current_password": "the owner's new passphrase"}),
    )
    .await;
    assert_eq!(r.status(), 200);
    let pending = next_mail(&sink, "thief@evil.example", thief_before)
        .await
        .code("ec_");
    let reset = next_mail(&sink, "kari@example.no", before)
        .await
        .code("pr_");
    let r = app
        .post(
            "/api/v1/auth/password-reset/confirm",
            None,
            json!({"token": reset, "password": "a third long passphrase"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    problem(app.verify_email(&pending).await, 422).await;
    let owner = app.token("kari", "a third long passphrase").await;
    let now = app.me(&owner).await;
    assert_eq!(now["email"], "kari@example.no");
    assert_eq!(now["pending_email"], Value::Null);
}

#[actix_web::test]
async fn a_new_verification_code_spends_the_ones_before() {
    let (sink, app) = spawn_open_app().await;
    let first = signed_up(&app, &sink, "ola", "ola@example.no", None).await;
    let r = resend_verification(&app, "ola@example.no").await;
    assert_eq!(r.status(), 202);
    let fresh = sink.wait_for("ola@example.no", 2, 20).await[1].code("ev_");
    let p = problem(app.verify_email(&first).await, 422).await;
    assert!(says(&p, "already used"));
    assert_eq!(app.verify_email(&fresh).await.status(), 204);
    assert_eq!(app.sign_in("ola", PASSWORD).await.status(), 200);
}

#[actix_web::test]
async fn resends_are_counted_in_the_auth_class() {
    let limits = tourney::infra::ratelimit::Limits {
        auth: 2,
        ..TEST_LIMITS
    };
    let app = spawn_app_with_limits(limits).await;
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let r = resend_verification(&app, "ola@example.no").await;
        statuses.push(r.status().as_u16());
    }
    assert_eq!(statuses[2], 429, "{statuses:?}");
}

/// Users for the search: an account linked to the player "Øystein Berg", a verified one with
/// an address, a disabled one, a keeper of a pool (and a pool it does not keep) and a stranger.
struct People {
    admin: String,
    keeper: String,
    stranger: String,
    oystein: i64,
    kari: i64,
    pool: i64,
    other_pool: i64,
}

async fn people(app: &TestApp, sink: &SmtpSink) -> People {
    let admin = app.admin_token().await;
    let (oystein, _) = app.user("o.berg").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Øystein Berg", "user_id": oystein}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let kari_token = verified_account(app, sink, "kari.berg", "kari@example.no").await;
    let kari = app.me(&kari_token).await["id"].as_i64().unwrap();
    let (gone, _) = app.user("berg.disabled").await;
    let r = app
        .patch(
            &format!("/api/v1/users/{gone}"),
            Some(&admin),
            json!({"disabled": true}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let (keeper_id, keeper) = app.user("keeper").await;
    let pool = crate::rating_fixtures::pool(
        app,
        &admin,
        json!({"name": "Norway", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}),
    )
    .await;
    let r = app
        .req(
            reqwest::Method::PUT,
            &format!("/api/v1/rating-pools/{pool}/keepers/{keeper_id}"),
            Some(&admin),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let other_pool = crate::rating_fixtures::pool(
        app,
        &admin,
        json!({"name": "Poland", "preset": "agricola_norway", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let (_, stranger) = app.user("stranger").await;
    People {
        admin,
        keeper,
        stranger,
        oystein,
        kari,
        pool,
        other_pool,
    }
}

async fn search(app: &TestApp, token: Option<&str>, query: &str) -> reqwest::Response {
    app.get(&format!("/api/v1/users?{query}"), token).await
}

async fn candidates(
    app: &TestApp,
    token: Option<&str>,
    pool: i64,
    query: &str,
) -> reqwest::Response {
    app.get(
        &format!("/api/v1/rating-pools/{pool}/keeper-candidates?{query}"),
        token,
    )
    .await
}

async fn found(app: &TestApp, token: &str, query: &str) -> Value {
    let r = search(app, Some(token), query).await;
    assert_eq!(r.status(), 200, "{query}");
    r.json().await.unwrap()
}

fn names(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap().to_string())
        .collect()
}

#[actix_web::test]
async fn admins_find_accounts_by_name_player_or_address() {
    let (sink, app) = spawn_open_app().await;
    let p = people(&app, &sink).await;
    // Folded: `oystein` finds the account of "Øystein Berg" by its display name.
    let page = found(&app, &p.admin, "q=oystein").await;
    assert_eq!(names(&page), ["o.berg"]);
    assert_eq!(page["items"][0]["id"], p.oystein);
    assert_eq!(page["items"][0]["display_name"], "Øystein Berg");
    assert_eq!(page["items"][0]["is_admin"], false);
    assert_eq!(page["items"][0]["email"], Value::Null);
    let r = app
        .get(&format!("/api/v1/users/{}", p.oystein), Some(&p.admin))
        .await;
    assert_eq!(
        r.json::<Value>().await.unwrap()["display_name"],
        "Øystein Berg"
    );
    // By address, with it shown.
    let page = found(&app, &p.admin, "q=KARI@example").await;
    assert_eq!(page["items"][0]["id"], p.kari);
    assert_eq!(page["items"][0]["email"], "kari@example.no");
    assert_eq!(page["items"][0]["email_verified"], true);
    // Disabled accounts too; paged with limit, offset, total and a cursor.
    let page = found(&app, &p.admin, "q=berg&limit=2").await;
    assert_eq!(page["total"], 3);
    assert_eq!(names(&page), ["o.berg", "kari.berg"]);
    let cursor = page["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_string();
    let page = found(&app, &p.admin, &format!("q=berg&limit=2&cursor={cursor}")).await;
    assert_eq!(names(&page), ["berg.disabled"]);
    assert_eq!(page["items"][0]["disabled"], true);
    let page = found(&app, &p.admin, "q=berg&limit=2&offset=2").await;
    assert_eq!(names(&page), ["berg.disabled"]);
    // A cursor of one search is refused on another.
    let p2 = problem(
        search(&app, Some(&p.admin), &format!("q=kari&cursor={cursor}")).await,
        422,
    )
    .await;
    assert_eq!(fields(&p2), ["cursor"]);
    // Without q the whole list, as before, with the new fields.
    let page = found(&app, &p.admin, "limit=200").await;
    assert_eq!(page["total"], 6);
    assert_eq!(page["items"][0]["username"], "admin");
    assert!(page["items"][0].get("created_at").is_some());
}

#[actix_web::test]
async fn a_keeper_finds_enabled_accounts_by_name_and_sees_no_more_than_choosing_needs() {
    let (sink, app) = spawn_open_app().await;
    let p = people(&app, &sink).await;
    let r = candidates(&app, Some(&p.keeper), p.pool, "q=berg").await;
    assert_eq!(r.status(), 200);
    let page: Value = r.json().await.unwrap();
    assert_eq!(names(&page), ["o.berg", "kari.berg"], "no disabled account");
    assert_eq!(page["total"], 2);
    for item in page["items"].as_array().unwrap() {
        let mut keys: Vec<&str> = item
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        keys.sort();
        assert_eq!(keys, ["display_name", "id", "username"], "{item}");
    }
    let r = candidates(&app, Some(&p.keeper), p.pool, "q=oystein").await;
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["items"][0]["id"], p.oystein);
    // The address is not searched.
    let r = candidates(&app, Some(&p.keeper), p.pool, "q=kari@example").await;
    assert_eq!(r.json::<Value>().await.unwrap()["total"], 0);
    // A keeper must search.
    for query in ["", "q=", "q=b"] {
        let e = problem(candidates(&app, Some(&p.keeper), p.pool, query).await, 422).await;
        assert_eq!(fields(&e), ["q"], "{query}");
    }
    // An admin may look too; the keeper of another pool, a stranger: 403 before the query is
    // read; no such pool: 404; nobody: 401. The account list itself stays the admins'.
    let r = candidates(&app, Some(&p.admin), p.pool, "q=berg").await;
    assert_eq!(r.status(), 200);
    for query in ["q=berg", "", "limit=0"] {
        problem(
            candidates(&app, Some(&p.keeper), p.other_pool, query).await,
            403,
        )
        .await;
        problem(
            candidates(&app, Some(&p.stranger), p.pool, query).await,
            403,
        )
        .await;
        problem(search(&app, Some(&p.keeper), query).await, 403).await;
        problem(search(&app, Some(&p.stranger), query).await, 403).await;
    }
    problem(
        candidates(&app, Some(&p.keeper), 999_999, "q=berg").await,
        404,
    )
    .await;
    problem(candidates(&app, None, p.pool, "q=berg").await, 401).await;
    problem(search(&app, None, "q=berg").await, 401).await;
}
