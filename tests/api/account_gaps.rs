//! People and credentials, what a stranger or a limited credential could still do: an erased
//! person's address left in the mail outbox.

use serde_json::{json, Value};

use crate::helpers::{spawn_open_app, verified_account};
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
