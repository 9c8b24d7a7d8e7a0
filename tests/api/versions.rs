//! Issue 38: one version everywhere (the binary, `/healthz`, the document), the changelog
//! served, the webhooks in the document, and a deprecated form (`format` / `Accept: text/csv`
//! on the JSON standings, leaderboard and league) answered with `Deprecation`, `Sunset` and a
//! `Link` to the changelog, counted per credential in `/metrics` without a secret in sight.

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{spawn_app, TestApp};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn series(text: &str, credential: &str) -> Option<f64> {
    let name = format!(
        "tourney_deprecated_requests_total{{form=\"csv_on_json_paths\",credential=\"{credential}\"}}"
    );
    text.lines()
        .find_map(|l| l.strip_prefix(&name)?.strip_prefix(' ')?.parse().ok())
}

async fn scrape(app: &TestApp) -> String {
    app.get("/metrics", None).await.text().await.unwrap()
}

fn assert_deprecated(r: &reqwest::Response, what: &str) {
    let h = r.headers();
    assert_eq!(h["deprecation"], "@1795651200", "{what}");
    assert_eq!(h["sunset"], "Tue, 01 Jun 2027 00:00:00 GMT", "{what}");
    let links: Vec<&str> = h
        .get_all("link")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert!(
        links.contains(&"</changelog>; rel=\"deprecation\"; type=\"text/markdown\""),
        "{what}: {links:?}"
    );
}

#[actix_web::test]
async fn one_version_in_the_binary_the_probes_and_the_document() {
    let app = spawn_app().await;
    for probe in ["/healthz", "/readyz"] {
        let body: Value = app.get(probe, None).await.json().await.unwrap();
        assert_eq!(body, json!({"status": "ok", "version": VERSION}), "{probe}");
    }
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert_eq!(doc["info"]["version"], VERSION);
    let parts: Vec<u64> = VERSION.split('.').map(|p| p.parse().unwrap()).collect();
    assert_eq!(parts.len(), 3, "semver: {VERSION}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tourney"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("tourney {VERSION}")
    );
    // The changelog is served, and names the version being served.
    let r = app.get("/changelog", None).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/markdown"));
    let text = r.text().await.unwrap();
    assert!(text.contains(&format!("## [{VERSION}]")), "{text}");
}

#[actix_web::test]
async fn the_document_holds_the_webhooks_and_marks_the_deprecated_form() {
    let doc = tourney::app::openapi();
    // One webhook per delivery kind, each POSTing that kind's body.
    let mapping = doc["components"]["schemas"]["WebhookBody"]["discriminator"]["mapping"]
        .as_object()
        .unwrap();
    let hooks = doc["webhooks"].as_object().unwrap();
    assert_eq!(hooks.len(), mapping.len());
    for (kind, target) in mapping {
        let schema = &hooks[kind]["post"]["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(schema["$ref"], *target, "{kind}");
    }
    assert!(hooks.contains_key("ping") && hooks.contains_key("result_entered"));
    for path in [
        "/api/v1/tournaments/{id}/standings",
        "/api/v1/rating-pools/{id}/leaderboard",
        "/api/v1/rating-pools/{id}/league",
    ] {
        let op = &doc["paths"][path]["get"];
        let format = op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "format")
            .unwrap_or_else(|| panic!("{path} documents format"));
        assert_eq!(format["deprecated"], true, "{path}");
        assert!(format["description"]
            .as_str()
            .unwrap()
            .contains("sunset 2027-06-01"));
        let headers = &op["responses"]["200"]["headers"];
        for h in ["Deprecation", "Sunset", "Link"] {
            assert!(headers.get(h).is_some(), "{path} documents {h}");
        }
        // The operation itself stays: only the form is deprecated.
        assert!(op.get("deprecated").is_none(), "{path}");
    }
}

#[actix_web::test]
async fn the_deprecated_csv_form_is_announced_and_counted_per_credential() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;
    let me: Value = app.me(&org).await;
    let org_id = me["id"].as_i64().unwrap();
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "club site", "scopes": ["read"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    let key = created["key"].as_str().unwrap().to_string();
    let key_id = created["api_key"]["id"].as_i64().unwrap();
    let standings = format!("/api/v1/tournaments/{tid}/standings");

    // The current forms carry no deprecation and count nothing.
    for path in [standings.clone(), format!("{standings}.csv")] {
        let r = app.get(&path, Some(&org)).await;
        assert_eq!(r.status(), 200);
        assert!(r.headers().get("deprecation").is_none(), "{path}");
        assert!(r.headers().get("sunset").is_none(), "{path}");
    }
    assert_eq!(series(&scrape(&app).await, &format!("user:{org_id}")), None);

    // `format=csv`: anonymous (twice: the kept answer too), the organiser's session, the key.
    let csv = format!("{standings}?format=csv");
    for token in [None, None, Some(org.as_str()), Some(key.as_str())] {
        let r = app.get(&csv, token).await;
        assert_eq!(r.status(), 200);
        assert!(r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv"));
        assert_deprecated(&r, "format=csv");
    }
    // `Accept: text/csv` and `format=json` are the same deprecated form.
    let r = app
        .req(Method::GET, &standings, Some(&org))
        .header("accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_deprecated(&r, "Accept: text/csv");
    let r = app
        .get(&format!("{standings}?format=json"), Some(&org))
        .await;
    assert_eq!(r.status(), 200);
    assert_deprecated(&r, "format=json");

    let text = scrape(&app).await;
    assert_eq!(series(&text, "anonymous"), Some(2.0), "{text}");
    assert_eq!(
        series(&text, &format!("user:{org_id}")),
        Some(3.0),
        "{text}"
    );
    // The key counts under its id, apart from its owner's session, and is never shown.
    assert_eq!(series(&text, &format!("key:{key_id}")), Some(1.0), "{text}");
    assert!(!text.contains(&key), "the key's secret is not in /metrics");
    assert!(!text.contains(&org), "the token is not in /metrics");
}
