//! Issue 29, item 2: mail is written to an outbox with the change that causes it and sent by
//! the background job through a real SMTP server: a server that is down, then back, loses
//! nothing and gets nothing twice; two instances never send one message both.

use std::collections::BTreeSet;
use std::time::Duration;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use tourney::domain::accounts::SignupMode;

use crate::helpers::sign_up;
use crate::helpers::{second_instance_with_mail, spawn_app_with_signup, spawn_open_app, TestApp};
use crate::smtp_sink::SmtpSink;

#[derive(QueryableByName, Debug)]
struct OutboxRow {
    #[diesel(sql_type = BigInt)]
    attempts: i64,
    #[diesel(sql_type = Nullable<Text>)]
    sent: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
}

fn outbox(app: &TestApp) -> Vec<OutboxRow> {
    let mut conn = PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query(
        "SELECT attempts::bigint AS attempts, sent_at::text AS sent, last_error FROM mail_outbox ORDER BY id",
    )
    .load(&mut conn)
    .expect("outbox")
}

/// Each message once: by its Message-ID, and as many as were queued.
fn once_each(sink: &SmtpSink, expected: usize) {
    let messages = sink.messages();
    let ids: BTreeSet<String> = messages
        .iter()
        .map(|m| m.header("message-id").expect("a Message-ID"))
        .collect();
    assert_eq!(messages.len(), expected, "messages received");
    assert_eq!(ids.len(), expected, "distinct Message-IDs");
}

#[actix_web::test]
async fn a_mail_server_down_then_back_loses_nothing_and_gets_nothing_twice() {
    let mut sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Open, Some(&sink.url())).await;
    sink.stop();
    for i in 0..3 {
        let r = sign_up(
            &app,
            &format!("player{i}"),
            &format!("p{i}@example.org"),
            None,
        )
        .await;
        assert_eq!(
            r.status(),
            202,
            "the sign-up does not wait for the mail server"
        );
    }
    // Every message waits in the outbox, tried and failed at least once.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let rows = outbox(&app);
        if rows.len() == 3
            && rows
                .iter()
                .all(|r| r.attempts >= 1 && r.last_error.is_some())
        {
            assert!(rows.iter().all(|r| r.sent.is_none()));
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{rows:?}");
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(sink.messages().is_empty());
    sink.restart();
    for i in 0..3 {
        sink.wait_for(&format!("p{i}@example.org"), 1, 30).await;
    }
    // Later ticks send nothing again.
    actix_web::rt::time::sleep(Duration::from_secs(3)).await;
    once_each(&sink, 3);
    let rows = outbox(&app);
    assert!(
        rows.iter()
            .all(|r| r.sent.is_some() && r.last_error.is_none()),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| r.attempts >= 2), "{rows:?}");
}

#[actix_web::test]
async fn two_instances_send_each_message_once() {
    let (sink, app) = spawn_open_app().await;
    let other = second_instance_with_mail(&app, &sink.url());
    for i in 0..24 {
        let on = if i % 2 == 0 { &app } else { &other };
        let r = sign_up(
            on,
            &format!("member{i}"),
            &format!("m{i}@example.org"),
            None,
        )
        .await;
        assert_eq!(r.status(), 202);
    }
    for i in 0..24 {
        sink.wait_for(&format!("m{i}@example.org"), 1, 30).await;
    }
    actix_web::rt::time::sleep(Duration::from_secs(2)).await;
    once_each(&sink, 24);
    assert!(outbox(&app)
        .iter()
        .all(|r| r.attempts == 1 && r.sent.is_some()));
}
