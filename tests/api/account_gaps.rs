//! People and credentials, what a stranger or a limited credential could still do: an erased
//! person's address left in the mail outbox; a stranger holding the name a removal gives
//! (`deleted-<id>`), which made the removal fail.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, sign_up, spawn_open_app, verified_account, PASSWORD};
use crate::signup::sql;

fn messages_to(app: &crate::helpers::TestApp, email: &str) -> usize {
    sql(
        app,
        &format!("SELECT 1 FROM mail_outbox WHERE lower(to_address) = lower('{email}')"),
    )
}

/// Erasure takes every message to the person's address, those naming no account too (an
/// invitation's, sent before the address had an account or whatever its case): the export
/// counts them as the person's, and their recipient is the address. Other addresses' stay.
#[actix_web::test]
async fn erasure_leaves_no_message_to_the_persons_address() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    // Invited before the account existed, and after, in another case.
    for email in ["kari@example.no", "ola@example.no"] {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/invitations"),
                Some(&admin),
                json!({"email": email}),
            )
            .await;
        assert_eq!(r.status(), 201);
        sink.wait_for(email, 1, 20).await;
    }
    let kari = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let ola = verified_account(&app, &sink, "ola", "ola@example.no").await;
    for email in ["KARI@example.no", "Ola@Example.no"] {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/invitations"),
                Some(&admin),
                json!({"email": email}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    // The export shows them as the person's messages.
    let export: Value = app
        .get("/api/v1/me/export", Some(&kari))
        .await
        .json()
        .await
        .unwrap();
    let kinds: Vec<&str> = export["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "invitation").count(),
        2,
        "{kinds:?}"
    );
    // Erased by the person: nothing to the address stays; the others' messages do.
    assert_eq!(app.erase_me(&kari).await.status(), 200);
    assert_eq!(messages_to(&app, "kari@example.no"), 0);
    assert_eq!(messages_to(&app, "ola@example.no"), 3);
    // Erased by an admin: the same.
    let ola_id = app.me(&ola).await["id"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/users/{ola_id}/erasure"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(messages_to(&app, "ola@example.no"), 0);
}

/// No new account takes a name beginning with `deleted-` (a sign-up, an admin's, an
/// invitation's; 422 naming `username`, nothing made, the invitation still good); an account
/// that has one from before still signs in, and when it holds `deleted-<id>`, removing account
/// `<id>` (erasure or deletion) still works, its tombstone named `deleted-<id>-2`.
#[actix_web::test]
async fn no_new_account_takes_a_removed_accounts_name_and_one_taken_never_stops_a_removal() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "tantrix").await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/invitations"),
            Some(&admin),
            json!({"email": "invited@example.no"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let code = sink.wait_for("invited@example.no", 1, 20).await[0].code("in_");
    for name in ["deleted-7", "Deleted-99", "DELETED-x"] {
        let r = sign_up(&app, name, "someone@example.no", None).await;
        assert_eq!(fields(&problem(r, 422).await), ["username"], "{name}");
        let r = app
            .post(
                "/api/v1/users",
                Some(&admin),
                json!({"username": name, "password": PASSWORD}),
            )
            .await;
        assert_eq!(fields(&problem(r, 422).await), ["username"], "{name}");
        let r = app
            .post(
                "/api/v1/auth/invitations/accept",
                None,
                json!({"token": code, "consent_link_player": false, "username": name, "password": PASSWORD}),
            )
            .await;
        assert_eq!(fields(&problem(r, 422).await), ["username"], "{name}");
    }
    assert_eq!(
        sql(&app, "SELECT 1 FROM users WHERE username ILIKE 'deleted-%'"),
        0
    );
    // A name that only contains the word is a name like any other.
    let r = app
        .post(
            "/api/v1/auth/invitations/accept",
            None,
            json!({"token": code, "consent_link_player": false, "username": "un-deleted-1", "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // An account from before the rule holds the name a removal gives.
    for how in ["erasure", "deletion"] {
        let (busy, busy_token) = app.user(&format!("busy.{how}")).await;
        app.tournament(&busy_token, "tantrix").await;
        let (_, _) = app.user(&format!("squatter.{how}")).await;
        sql(
            &app,
            &format!(
                "UPDATE users SET username = 'deleted-{busy}' WHERE username = 'squatter.{how}'"
            ),
        );
        let r = match how {
            "erasure" => {
                app.post(
                    &format!("/api/v1/users/{busy}/erasure"),
                    Some(&admin),
                    json!({}),
                )
                .await
            }
            _ => {
                app.delete_req(&format!("/api/v1/users/{busy}"), &admin)
                    .await
            }
        };
        assert!(r.status().is_success(), "{how}: {}", r.status());
        assert_eq!(
            sql(
                &app,
                &format!(
                    "SELECT 1 FROM users WHERE id = {busy} AND username = 'deleted-{busy}-2' \
                     AND deleted_at IS NOT NULL"
                )
            ),
            1,
            "{how}"
        );
        assert_eq!(
            app.sign_in(&format!("deleted-{busy}"), PASSWORD)
                .await
                .status(),
            200,
            "{how}"
        );
    }
}
