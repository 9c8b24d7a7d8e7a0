//! Server-side request forgery at delivery: a target name that answered a public address when
//! it was subscribed and answers a private one at delivery (DNS rebinding) is never connected
//! to, and the delivery's error says why; a redirect is not followed.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::{IpAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, HttpResponse};
use serde_json::Value;

use crate::event_fixtures::event;
use crate::helpers::{spawn_app, spawn_app_refusing_private_targets, TestApp};
use crate::webhooks::receiver;
use crate::webhooks_manage::{ping, read, subscribe};

/// A resolver answering from a table the test changes (no DNS).
#[derive(Default)]
struct Table(Mutex<HashMap<String, Vec<IpAddr>>>);

impl Table {
    fn answer(&self, host: &str, addresses: &[&str]) {
        let ips = addresses.iter().map(|a| a.parse().unwrap()).collect();
        self.0.lock().unwrap().insert(host.to_string(), ips);
    }

    fn forget(&self, host: &str) {
        self.0.lock().unwrap().remove(host);
    }
}

impl tourney::services::integrations::webhook_dns::Lookup for Table {
    fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        let table = self.0.lock().unwrap();
        let found = table.get(host).cloned();
        found.ok_or_else(|| std::io::Error::new(ErrorKind::NotFound, "no such host"))
    }
}

/// The delivery `d` of `hook` once an attempt failed: its last error.
async fn failed_attempt(app: &TestApp, hook: i64, d: &Value, org: &str) -> Value {
    let path = format!("/api/v1/webhooks/{hook}/deliveries/{}", d["id"]);
    for _ in 0..200 {
        let now = read(app, &path, org).await;
        if now["last_error"].is_string() {
            return now;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("delivery {} was never attempted", d["id"]);
}

#[actix_web::test]
async fn a_name_that_turns_private_after_subscribing_is_never_connected_to() {
    // `localhost`: the system's resolver answers 127.0.0.1, where this test listens; the
    // service's lookup answers what the table says (a rebinding name's answers).
    let table = Arc::new(Table::default());
    table.answer("localhost", &["8.8.8.8"]);
    let app = spawn_app_refusing_private_targets(table.clone());
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let url = format!("http://localhost:{port}/hook");
    // Public when subscribed.
    let (hook, _) = subscribe(&app, tid, &org, &url).await;
    // Private at delivery: loopback, a private network, cloud metadata, IPv6 forms of
    // loopback, and several at once.
    for answer in [
        &["127.0.0.1"][..],
        &["10.0.0.1"],
        &["169.254.169.254"],
        &["::ffff:127.0.0.1"],
        &["2002:7f00:1::1"],
        &["::1", "127.0.0.1", "fd00::1", "192.168.1.1"],
    ] {
        table.answer("localhost", answer);
        let d = ping(&app, hook, &org).await;
        let d = failed_attempt(&app, hook, &d, &org).await;
        let error = d["last_error"].as_str().unwrap();
        assert!(
            error.starts_with("refused: the host localhost resolves to no public address"),
            "{answer:?}: {error}"
        );
        assert!(error.contains(answer[0]), "{answer:?}: {error}");
        assert!(error.ends_with("nothing was sent"), "{error}");
        assert!(d["last_status"].is_null());
        assert_eq!(d["status"], "pending");
    }
    // A name that stopped resolving.
    table.forget("localhost");
    let d = ping(&app, hook, &org).await;
    let d = failed_attempt(&app, hook, &d, &org).await;
    assert_eq!(
        d["last_error"],
        "the host localhost does not resolve; nothing was sent"
    );
    // The subscription shows the last of them; nothing ever reached the listener.
    let shown = read(&app, &format!("/api/v1/webhooks/{hook}"), &org).await;
    assert!(shown["last_error"].is_string());
    assert!(shown["last_delivered_at"].is_null());
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the private address was connected to: {other:?}"),
    }
}

#[actix_web::test]
async fn a_redirect_is_not_followed() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    // The redirect's target, which must hear nothing.
    let (inside, rx) = receiver().await;
    let location = inside.clone();
    let server = actix_web::HttpServer::new(move || {
        let location = location.clone();
        actix_web::App::new().default_service(web::to(move || {
            let location = location.clone();
            async move {
                HttpResponse::TemporaryRedirect()
                    .insert_header(("location", location))
                    .finish()
            }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let port = server.addrs()[0].port();
    actix_web::rt::spawn(server.run());
    let (hook, _) = subscribe(&app, tid, &org, &format!("http://127.0.0.1:{port}/h")).await;
    let d = ping(&app, hook, &org).await;
    let d = failed_attempt(&app, hook, &d, &org).await;
    assert_eq!(d["last_error"], "answered 307");
    assert_eq!(d["last_status"], 307);
    // (A redirect followed would have been followed within the attempt.)
    assert!(rx.got.lock().unwrap().is_empty());
}
