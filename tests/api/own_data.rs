//! Issue 29, item 6: a person's own data. `GET /me/export` returns everything stored about the
//! account and its player; `DELETE /me` erases the account; a player with rated games stays in
//! the lists under a pseudonym with results and ratings intact; an admin does both for anyone.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use serde_json::{json, Value};

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

use crate::event_fixtures::account_player;
use crate::helpers::{problem, spawn_app, TestApp, PASSWORD};
use crate::rating_fixtures::{completed_round, db, feed, player, pool, result, tournament, win};

async fn leaderboard(app: &TestApp, pool_id: i64) -> String {
    let r = app
        .get(
            &format!("/api/v1/rating-pools/{pool_id}/leaderboard?include_provisional=true"),
            None,
        )
        .await;
    assert_eq!(r.status(), 200);
    r.text().await.unwrap()
}

fn rating_of(board: &str, player_id: i64) -> (f64, i64) {
    let v: Value = serde_json::from_str(board).unwrap();
    let row = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == json!(player_id))
        .expect("the player is listed")
        .clone();
    (
        row["rating"].as_f64().unwrap(),
        row["games"].as_i64().unwrap(),
    )
}

/// Ania (an account with a player, "Ania" from Kraków) with two rated games in an Ashes pool;
/// (app, admin token, pool, Ania's player, Ania's user id, Ania's token).
async fn rated_ania() -> (TestApp, String, i64, i64, i64, String) {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let (uid, token) = app.user("ania").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Ania", "country": "PL", "club": "Kraków", "user_id": uid}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let a = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let b = player(&app, &admin, "Bartek", "PL", "Kraków").await;
    let t = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    let r1 = completed_round(&mut conn, t, 1, "2026-03-07T10:00:00Z");
    result(&mut conn, r1, 1, 1, win(a, b));
    let r2 = completed_round(&mut conn, t, 2, "2026-03-07T11:00:00Z");
    result(&mut conn, r2, 1, 1, win(b, a));
    feed(&mut conn, t);
    (app, admin, pool_id, a, uid, token)
}

#[actix_web::test]
async fn the_export_holds_the_account_the_player_and_what_refers_to_them_without_secrets() {
    let (app, admin, _, a, uid, token) = rated_ania().await;
    let r = app.get("/api/v1/me/export", Some(&token)).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["cache-control"]
        .to_str()
        .unwrap()
        .contains("no-store"));
    let export: Value = r.json().await.unwrap();
    assert_eq!(export["account"]["username"], "ania");
    assert_eq!(export["account"]["id"], json!(uid));
    assert_eq!(export["player"]["id"], json!(a));
    assert_eq!(export["player"]["club"], "Kraków");
    assert_eq!(export["rating_changes"].as_array().unwrap().len(), 2);
    assert_eq!(export["ratings"].as_array().unwrap().len(), 1);
    let results = export["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let mut outcomes: Vec<&str> = results
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    outcomes.sort();
    assert_eq!(outcomes, ["loss", "win"], "her own seat of each table");
    assert!(!export["sessions"].as_array().unwrap().is_empty());
    assert!(export.get("records").is_none(), "no catalogue dump");
    let text = export.to_string();
    assert!(!text.contains("hash") && !text.contains("argon2"), "{text}");
    // An admin reads the same for anyone; nobody else does, nor an API key.
    let r = app
        .get(&format!("/api/v1/users/{uid}/export"), Some(&admin))
        .await;
    assert_eq!(r.json::<Value>().await.unwrap()["player"]["id"], json!(a));
    let (_, other) = app.user("bartek").await;
    problem(
        app.get(&format!("/api/v1/users/{uid}/export"), Some(&other))
            .await,
        403,
    )
    .await;
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(&token),
            json!({"name": "reader", "scopes": ["read"]}),
        )
        .await;
    let key = r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    problem(app.get("/api/v1/me/export", Some(&key)).await, 403).await;
    problem(app.erase_me(&key).await, 403).await;
    problem(app.get("/api/v1/me/export", None).await, 401).await;
}

#[actix_web::test]
async fn an_erased_player_with_rated_games_keeps_its_ratings_under_a_pseudonym() {
    let (app, admin, pool_id, a, uid, token) = rated_ania().await;
    let before = leaderboard(&app, pool_id).await;
    assert!(before.contains("Ania"));
    // Her claim on another player, an invitation she accepted, one still waiting at her
    // address (in other letters' case), and someone else's invitation.
    let b = player(&app, &admin, "Bartek Two", "PL", "Kraków").await;
    let mut conn = db(&app);
    let count = |conn: &mut PgConnection, sql: &str| -> i64 {
        diesel::sql_query(sql).get_result::<Count>(conn).unwrap().n
    };
    conn.batch_execute(&format!(
        "UPDATE users SET email = 'ania@example.org' WHERE id = {uid};
         INSERT INTO player_claims (player_id, user_id, message, status)
             VALUES ({b}, {uid}, 'I am Bartek too', 'open');
         INSERT INTO invitations (tournament_id, email, token_hash, expires_at, accepted_at,
                                  accepted_by)
         SELECT id, e, sha256(e::bytea), now() + interval '1 day', a, u
         FROM (SELECT min(id) AS id FROM tournaments) t,
              (VALUES ('ania@example.org', now(), {uid}), ('ANIA@example.org', NULL, NULL),
                      ('celina@example.org', NULL, NULL)) v(e, a, u)"
    ))
    .unwrap();
    let r = app.erase_me(&token).await;
    assert_eq!(r.status(), 200);
    let erased: Value = r.json().await.unwrap();
    assert_eq!(erased, json!({"user_id": uid, "player": "pseudonymised"}));
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) AS n FROM player_claims WHERE user_id = {uid}")
        ),
        0,
        "her claim went with the account"
    );
    let left = "SELECT count(*) AS n FROM invitations WHERE email <> 'celina@example.org'";
    assert_eq!(
        count(&mut conn, left),
        0,
        "her invitations went with her address"
    );
    let other = "SELECT count(*) AS n FROM invitations WHERE email = 'celina@example.org'";
    assert_eq!(count(&mut conn, other), 1, "another's invitation stays");
    let after = leaderboard(&app, pool_id).await;
    assert!(!after.contains("Ania") && !after.contains("Kraków\",\"player_id\":{a}"));
    assert!(after.contains(&format!("Player {a} (erased)")), "{after}");
    assert_eq!(
        rating_of(&after, a),
        rating_of(&before, a),
        "ratings intact"
    );
    let p: Value = app
        .get(&format!("/api/v1/players/{a}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(p["name"], format!("Player {a} (erased)"));
    assert_eq!(p["club"], Value::Null);
    assert_eq!(p["country"], Value::Null);
    // The account is gone: no sign-in, its token refused, nothing left to export.
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": "ania", "password": PASSWORD}),
        )
        .await;
    problem(r, 401).await;
    actix_web::rt::time::sleep(std::time::Duration::from_millis(2100)).await;
    problem(app.get("/api/v1/me", Some(&token)).await, 401).await;
    problem(
        app.get(&format!("/api/v1/users/{uid}/export"), Some(&admin))
            .await,
        404,
    )
    .await;
}

#[actix_web::test]
async fn a_player_without_records_is_removed_and_admins_erase_others_but_not_the_last_admin() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (kari, kari_token) = account_player(&app, "kari").await;
    let r = app.erase_me(&kari_token).await;
    assert_eq!(r.json::<Value>().await.unwrap()["player"], "removed");
    problem(app.get(&format!("/api/v1/players/{kari}"), None).await, 404).await;
    // Without a player.
    let (ola, ola_token) = app.user("ola").await;
    let (_, per_token) = app.user("per").await;
    problem(
        app.post(
            &format!("/api/v1/users/{ola}/erasure"),
            Some(&per_token),
            json!({}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .post(
            &format!("/api/v1/users/{ola}/erasure"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"user_id": ola, "player": "none"})
    );
    actix_web::rt::time::sleep(std::time::Duration::from_millis(2100)).await;
    problem(app.get("/api/v1/me", Some(&ola_token)).await, 401).await;
    // The name is free again for an admin-made account.
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin),
            json!({"username": "ola", "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 201);
    // The last enabled admin cannot erase themselves.
    let p = problem(app.erase_me(&admin).await, 409).await;
    assert!(p["detail"].as_str().unwrap().contains("last enabled admin"));
    let _ = app.admin_token().await;
}

#[actix_web::test]
async fn an_admin_links_and_unlinks_a_player_and_an_account_directly() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (uid, token) = app.user("kari").await;
    let p = player(&app, &admin, "Kari Nordmann", "NO", "Oslo").await;
    let q = player(&app, &admin, "Kari N.", "NO", "Oslo").await;
    let path = format!("/api/v1/players/{p}");
    // Only an admin; the account must exist and have no other player.
    let (_, other) = app.user("ola").await;
    problem(
        app.patch(&path, Some(&other), json!({"user_id": uid}))
            .await,
        403,
    )
    .await;
    let r = app
        .patch(&path, Some(&admin), json!({"user_id": 999_999}))
        .await;
    assert_eq!(crate::helpers::fields(&problem(r, 422).await), ["user_id"]);
    let r = app
        .patch(&path, Some(&admin), json!({"user_id": uid}))
        .await;
    assert_eq!(r.status(), 200);
    let mine: Value = app.me(&token).await;
    assert_eq!(mine["player_id"], json!(p));
    let r = app
        .patch(
            &format!("/api/v1/players/{q}"),
            Some(&admin),
            json!({"user_id": uid}),
        )
        .await;
    assert_eq!(crate::helpers::fields(&problem(r, 409).await), ["user_id"]);
    // The same link again changes nothing; null unlinks.
    let r = app
        .patch(&path, Some(&admin), json!({"user_id": uid}))
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .patch(&path, Some(&admin), json!({"user_id": null}))
        .await;
    assert_eq!(r.status(), 200);
    let mine: Value = app.me(&token).await;
    assert_eq!(mine["player_id"], Value::Null);
}

/// `POST /users/{id}/erasure` is an admin's, for another account: an owner's token (perhaps
/// stolen) cannot erase its own account there without the password `DELETE /me` asks for, nor
/// can an admin's; an admin still erases someone else.
#[actix_web::test]
async fn the_admin_erasure_is_for_admins_and_never_for_the_callers_own_account() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (kari, kari_token) = app.user("kari").await;
    for body in [json!({}), json!({"password": PASSWORD})] {
        let p = problem(
            app.post(
                &format!("/api/v1/users/{kari}/erasure"),
                Some(&kari_token),
                body,
            )
            .await,
            403,
        )
        .await;
        assert!(p["detail"].as_str().unwrap().contains("admin"), "{p}");
    }
    assert_eq!(app.sign_in("kari", PASSWORD).await.status(), 200);
    let _ = app.me(&kari_token).await;
    // An admin (not the last one, so that is not the refusal) on their own id: 403 naming
    // DELETE /me; the admin still signs in.
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin),
            json!({"username": "second.admin", "password": PASSWORD, "is_admin": true}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let second: i64 = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let second_token = app.token("second.admin", PASSWORD).await;
    let p = problem(
        app.post(
            &format!("/api/v1/users/{second}/erasure"),
            Some(&second_token),
            json!({}),
        )
        .await,
        403,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("DELETE /me"), "{p}");
    assert_eq!(app.sign_in("second.admin", PASSWORD).await.status(), 200);
    // An admin erases another account, an admin's too.
    for id in [kari, second] {
        let r = app
            .post(
                &format!("/api/v1/users/{id}/erasure"),
                Some(&admin),
                json!({}),
            )
            .await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.json::<Value>().await.unwrap(),
            json!({"user_id": id, "player": "none"})
        );
    }
    assert_eq!(app.sign_in("kari", PASSWORD).await.status(), 401);
    assert_eq!(app.sign_in("second.admin", PASSWORD).await.status(), 401);
}
