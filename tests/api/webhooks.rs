//! Signed webhooks (issue 17, item 3): a receiver on 127.0.0.1 gets every event of a small
//! event exactly once with a valid Standard Webhooks signature, from two instances, also after
//! it was down for a while; access rules and the refusal of private targets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::event_fixtures::{event, new_round};
use crate::helpers::{
    fields, problem, second_instance, spawn_app, spawn_app_refusing_private_targets,
};

/// One request the receiver got: id, timestamp, signature, body, and the status it answered.
pub(crate) type Got = (String, String, String, String, u16);

#[derive(Clone)]
pub(crate) struct Receiver {
    pub(crate) got: Arc<Mutex<Vec<Got>>>,
    pub(crate) status: Arc<AtomicU16>,
}

impl Receiver {
    pub(crate) fn answered_ok(&self) -> Vec<Got> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|g| g.4 == 200)
            .cloned()
            .collect()
    }
}

pub(crate) async fn receiver() -> (String, Receiver) {
    let r = Receiver {
        got: Arc::default(),
        status: Arc::new(AtomicU16::new(200)),
    };
    let shared = r.clone();
    let server = actix_web::HttpServer::new(move || {
        let shared = shared.clone();
        actix_web::App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
            let shared = shared.clone();
            async move {
                let header = |n: &str| {
                    req.headers()
                        .get(n)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .to_string()
                };
                let status = shared.status.load(Ordering::SeqCst);
                shared.got.lock().unwrap().push((
                    header("webhook-id"),
                    header("webhook-timestamp"),
                    header("webhook-signature"),
                    String::from_utf8_lossy(&body).to_string(),
                    status,
                ));
                HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).finish()
            }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let port = server.addrs()[0].port();
    actix_web::rt::spawn(server.run());
    (format!("http://127.0.0.1:{port}/hooks/tourney"), r)
}

/// Verifies a delivery as a receiver would (Standard Webhooks): one of its space-separated
/// `v1,` signatures is the secret's.
pub(crate) fn signature_valid(secret: &str, g: &Got) -> bool {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{}.{}.{}", g.0, g.1, g.3).as_bytes());
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    g.2.split(' ').any(|s| s == format!("v1,{expected}"))
}

pub(crate) async fn wait_for(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[actix_web::test]
async fn every_event_arrives_once_signed_even_after_the_receiver_was_down() {
    let app = spawn_app().await;
    let _other = second_instance(&app).await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let (url, rx) = receiver().await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/webhooks"),
            Some(&org),
            json!({"url": url, "kinds": ["round_published", "result_entered", "result_corrected", "standings_changed"]}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let created: Value = r.json().await.unwrap();
    let secret = created["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let hook = created["webhook"]["id"].as_i64().unwrap();
    let listed: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/webhooks"), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        !listed.to_string().contains(&secret),
        "the secret is shown once"
    );

    // The event: a round, its one table's result, a refused write, and a correction while the
    // receiver answers 500.
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let table = &round["draw"]["tables"][0];
    let seats: Vec<Value> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"player_id": p, "score": 50 - 5 * i as i64}))
        .collect();
    let result = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result");
    let r = app
        .put(&result, Some(&referee), json!({"seats": seats}))
        .await;
    assert_eq!(r.status(), 200);
    problem(
        app.put(&result, Some(&referee), json!({"seats": seats}))
            .await,
        428,
    )
    .await;
    assert!(
        wait_for(|| rx.answered_ok().len() == 3).await,
        "three events delivered"
    );
    rx.status.store(500, Ordering::SeqCst);
    let mut corrected = seats.clone();
    corrected[0]["score"] = json!(61);
    let r = app
        .put_if_match(
            &result,
            Some(&referee),
            1,
            json!({"seats": corrected, "reason": "miscounted"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(
        wait_for(|| rx.got.lock().unwrap().iter().any(|g| g.4 == 500)).await,
        "a delivery tried while the receiver is down"
    );
    actix_web::rt::time::sleep(Duration::from_millis(1500)).await;
    rx.status.store(200, Ordering::SeqCst);
    assert!(
        wait_for(|| rx.answered_ok().len() >= 5).await,
        "the retries arrive"
    );
    actix_web::rt::time::sleep(Duration::from_millis(2500)).await;

    // Exactly once each, in a valid signature, the types of the changes made.
    let ok = rx.answered_ok();
    let mut per_id: HashMap<String, usize> = HashMap::new();
    for g in &ok {
        *per_id.entry(g.0.clone()).or_default() += 1;
        assert!(signature_valid(&secret, g), "signature of {}", g.0);
    }
    assert_eq!(ok.len(), 5, "{ok:?}");
    assert!(per_id.values().all(|n| *n == 1), "{per_id:?}");
    for g in rx.got.lock().unwrap().iter() {
        assert!(signature_valid(&secret, g));
    }
    let mut types: Vec<String> = ok
        .iter()
        .map(|g| {
            serde_json::from_str::<Value>(&g.3).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    types.sort();
    assert_eq!(
        types,
        vec![
            "result_corrected",
            "result_entered",
            "round_published",
            "standings_changed",
            "standings_changed"
        ]
    );
    let first: Value = serde_json::from_str(&ok[0].3).unwrap();
    assert_eq!(first["data"]["tournament_id"], tid);
    // The delivery log shows the retried ones; a redelivery sends the same id again.
    let log: Value = app
        .get(&format!("/api/v1/webhooks/{hook}/deliveries"), Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(log["total"], 5);
    let log = log["items"].as_array().unwrap();
    assert_eq!(log.len(), 5);
    assert!(log.iter().all(|d| d["status"] == "delivered"));
    assert!(log.iter().any(|d| d["attempts"].as_i64().unwrap() >= 2));
    let again = &log[0];
    let r = app
        .post(
            &format!(
                "/api/v1/webhooks/{hook}/deliveries/{}/redeliver",
                again["id"]
            ),
            Some(&org),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 202);
    let id = again["webhook_id"].as_str().unwrap().to_string();
    assert!(wait_for(|| rx.answered_ok().iter().filter(|g| g.0 == id).count() == 2).await);
}

#[actix_web::test]
async fn only_organisers_and_admins_subscribe_and_private_targets_are_refused() {
    let lookup = Arc::new(tourney::services::integrations::webhook_dns::SystemLookup);
    let app = spawn_app_refusing_private_targets(lookup);
    let admin = app.admin_token().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let url = format!("/api/v1/tournaments/{tid}/webhooks");
    for target in [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://10.0.0.1/hook",
        "http://192.168.1.20/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[fd00::1]/hook",
        // IPv6 ranges that reach an IPv4 address or are not global: 6to4 of 127.0.0.1, of
        // 169.254.169.254 and of 10.0.0.1, Teredo, site-local, discard-only, reserved (::/8),
        // IPv4-mapped cloud metadata.
        "http://[2002:7f00:1::1]/hook",
        "http://[2002:a9fe:a9fe::1]/latest/meta-data",
        "http://[2002:a00:1::]/hook",
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook",
        "http://[fec0::1]/hook",
        "http://[100::1]/hook",
        "http://[::1:0:0:0]/hook",
        "http://[::ffff:169.254.169.254]/hook",
        "file:///etc/passwd",
        "ftp://files.example/x",
        "not a url",
    ] {
        let p = problem(
            app.post(
                &url,
                Some(&org),
                json!({"url": target, "kinds": ["result_entered"]}),
            )
            .await,
            422,
        )
        .await;
        assert_eq!(fields(&p), vec!["url"], "{target}");
    }
    let p = problem(
        app.post(
            &url,
            Some(&org),
            json!({"url": "https://8.8.8.8/hook", "kinds": ["leaderboard_changed"]}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["kinds[0]"]);
    // A 6to4 address of a public IPv4 address is taken.
    let r = app
        .post(
            &url,
            Some(&org),
            json!({"url": "https://[2002:808:808::1]/hook", "kinds": ["result_entered"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    // A public address is taken.
    let r = app
        .post(
            &url,
            Some(&org),
            json!({"url": "https://8.8.8.8/hook", "kinds": ["result_entered"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let hook = r.json::<Value>().await.unwrap()["webhook"]["id"]
        .as_i64()
        .unwrap();
    // Others may not subscribe, list, read deliveries or remove.
    problem(
        app.post(
            &url,
            Some(&referee),
            json!({"url": "https://8.8.8.8/h", "kinds": ["result_entered"]}),
        )
        .await,
        403,
    )
    .await;
    problem(
        app.post(
            &url,
            None,
            json!({"url": "https://8.8.8.8/h", "kinds": ["result_entered"]}),
        )
        .await,
        401,
    )
    .await;
    problem(app.get(&url, Some(&referee)).await, 403).await;
    problem(
        app.get(
            &format!("/api/v1/webhooks/{hook}/deliveries"),
            Some(&referee),
        )
        .await,
        404,
    )
    .await;
    // Pools: admins only.
    let pool = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway", "time_zone": "Europe/Oslo"}),
        )
        .await
        .json::<Value>()
        .await
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let pool_url = format!("/api/v1/rating-pools/{pool}/webhooks");
    let body = json!({"url": "https://8.8.8.8/list", "kinds": ["leaderboard_changed"]});
    problem(app.post(&pool_url, Some(&org), body.clone()).await, 403).await;
    assert_eq!(app.post(&pool_url, Some(&admin), body).await.status(), 201);
    let r = app
        .req(
            reqwest::Method::DELETE,
            &format!("/api/v1/webhooks/{hook}"),
            Some(&org),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
}
