//! The committed `openapi/openapi.json` is what the code generates and what the service serves.

use crate::helpers::spawn_app;

const REFRESH: &str = "cargo run -q -- openapi > openapi/openapi.json";

#[test]
fn committed_openapi_matches_the_code() {
    let generated = serde_json::to_string_pretty(&tourney::app::openapi()).unwrap();
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"))
            .unwrap_or_default();
    assert!(
        committed.trim_end() == generated.trim_end(),
        "openapi/openapi.json is stale; refresh it with `{REFRESH}` and commit it"
    );
}

#[actix_web::test]
async fn the_service_serves_the_same_document_and_the_docs_page() {
    let app = spawn_app().await;
    let served: serde_json::Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let generated = tourney::app::openapi();
    assert_eq!(served, generated);
    assert!(served["openapi"].as_str().unwrap().starts_with("3."));
    let docs = app.get("/docs/", None).await;
    assert_eq!(docs.status(), 200);
    let html = docs.text().await.unwrap();
    assert!(html.contains("swagger-ui"), "the docs page is Swagger UI");
    let js = app.get("/docs/swagger-ui-bundle.js", None).await;
    assert_eq!(
        js.status(),
        200,
        "Swagger UI's script is served locally, not from a CDN"
    );
}

fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                match (k.as_str(), x) {
                    ("$ref", serde_json::Value::String(r)) => out.push(r.clone()),
                    _ => refs(x, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// A generated client needs every reference to resolve and one name per operation.
#[test]
fn every_reference_resolves_and_operation_ids_are_unique() {
    let doc = tourney::app::openapi();
    let mut found = Vec::new();
    refs(&doc, &mut found);
    assert!(!found.is_empty());
    for r in &found {
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{r} is not a schema reference"));
        assert!(
            doc["components"]["schemas"].get(name).is_some(),
            "{r} does not resolve"
        );
    }
    let mut ids = Vec::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            if let Some(id) = op.get("operationId").and_then(|i| i.as_str()) {
                ids.push(id.to_string());
            }
        }
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "operation ids repeat: {ids:?}");
    assert!(ids.len() >= 57, "every operation has an id");
}

/// An integrator reads what an operation does and sees a request that works: every operation
/// has a summary and a description, every request body an example, and no object or string
/// property of a component is left untyped where the set of values is closed.
#[test]
fn every_operation_is_described_and_every_request_has_an_example() {
    let doc = tourney::app::openapi();
    let mut problems = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let name = format!("{method} {path}");
            for key in ["summary", "description", "operationId"] {
                if op[key].as_str().is_none_or(str::is_empty) {
                    problems.push(format!("{name}: no {key}"));
                }
            }
            if let Some(content) = op["requestBody"]["content"].as_object() {
                for (media, m) in content {
                    if m.get("example").is_none() {
                        problems.push(format!("{name}: {media} has no example"));
                    }
                }
            }
        }
    }
    // The seating method is one variant per method, told apart by `method`.
    let create_round = &doc["components"]["schemas"]["CreateRound"];
    assert_eq!(create_round["discriminator"]["propertyName"], "method");
    assert_eq!(create_round["oneOf"].as_array().unwrap().len(), 14);
    // Time zones are a checked string, not a ~600-value enum.
    assert!(doc["components"]["schemas"]["TimeZoneName"]["enum"].is_null());
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The feed's contract is the code's (issue 30, item 3): every kind the code can record is a
/// `LiveEventKind` of the document, the SSE frame's `event`, a branch of `LiveEvent`'s
/// discriminator with a typed payload, and a branch of the webhook body; and nothing records
/// an event but `db::events::record`, which takes the typed `TournamentEvent`.
#[test]
fn every_kind_the_code_can_emit_is_in_the_document() {
    use std::collections::BTreeSet;
    use tourney::domain::events::LiveEventKind;
    let doc = tourney::app::openapi();
    let schema = |name: &str| {
        doc.pointer(&format!("/components/schemas/{name}"))
            .unwrap_or_else(|| panic!("no schema {name}"))
            .clone()
    };
    let code: BTreeSet<String> = LiveEventKind::NAMES.iter().map(|k| k.to_string()).collect();
    assert_eq!(code.len(), LiveEventKind::ALL.len());
    for k in [
        "result_reported",
        "schedule_overdue",
        "game_forfeited",
        "forfeit_reversed",
    ] {
        assert!(code.contains(k), "{k}");
    }
    let listed: BTreeSet<String> = schema("LiveEventKind")["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, code, "LiveEventKind differs from the code's kinds");
    let live = schema("LiveEvent");
    assert_eq!(live["discriminator"]["propertyName"], "kind");
    let mapping = live["discriminator"]["mapping"].as_object().unwrap();
    assert_eq!(
        mapping.keys().cloned().collect::<BTreeSet<_>>(),
        code,
        "LiveEvent's branches differ from the code's kinds"
    );
    assert_eq!(live["oneOf"].as_array().unwrap().len(), code.len());
    for (kind, target) in mapping {
        let name = target.as_str().unwrap().rsplit('/').next().unwrap();
        let branch = schema(name);
        assert_eq!(
            branch["properties"]["kind"]["enum"],
            serde_json::json!([kind])
        );
        // The payload is a named, typed object, never a bare `object`.
        let payload = branch["properties"]["payload"]["$ref"]
            .as_str()
            .unwrap_or_else(|| panic!("{kind}: payload is not a typed schema"));
        let payload = schema(payload.rsplit('/').next().unwrap());
        assert!(
            !payload["properties"].as_object().unwrap().is_empty(),
            "{kind}: an empty payload"
        );
        assert!(!payload["required"].as_array().unwrap().is_empty());
    }
    // The frames' `event` names the same kinds.
    let frame = doc
        .pointer("/paths/~1api~1v1~1tournaments~1{id}~1events/get/responses/200/content/text~1event-stream/schema/properties/event/$ref")
        .and_then(|v| v.as_str());
    assert_eq!(frame, Some("#/components/schemas/LiveEventKind"));
    // Webhooks: every tournament kind and the pools' kinds, typed the same way.
    let hooks = schema("WebhookBody");
    assert_eq!(hooks["discriminator"]["propertyName"], "type");
    let hook_kinds: BTreeSet<String> = hooks["discriminator"]["mapping"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut expected = code.clone();
    expected.insert("ping".to_string());
    expected.extend(
        tourney::services::integrations::webhooks::POOL_KINDS
            .iter()
            .map(|k| k.to_string()),
    );
    assert_eq!(hook_kinds, expected);
    assert_eq!(
        tourney::services::integrations::webhooks::TOURNAMENT_KINDS.to_vec(),
        LiveEventKind::NAMES.to_vec()
    );
    assert_eq!(
        schema("DeliveryOut")["properties"]["body"]["$ref"],
        "#/components/schemas/WebhookBody"
    );
    // The embeds listen only to kinds the feed has.
    for k in tourney::api::embed::STANDINGS_KINDS
        .iter()
        .chain(tourney::api::embed::ROUND_KINDS)
    {
        assert!(code.contains(*k), "the embeds listen to {k}");
    }
}

/// Only `db::events::record` writes the feed: no other code or SQL inserts into
/// `tournament_events` (so every event went through the typed `TournamentEvent`).
#[test]
fn only_the_typed_recorder_writes_the_feed() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("rs" | "sql")) {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    walk(&root.join("migrations"), &mut files);
    let mut writers = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap().to_lowercase();
        let compact: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if compact.contains("insert into tournament_events")
            || compact.contains("insert_into(tournament_events")
            || compact.contains("insert_into(crate::db::schema::tournament_events")
        {
            writers.push(f.strip_prefix(root).unwrap().display().to_string());
        }
    }
    assert_eq!(writers, vec!["src/db/events.rs".to_string()]);
}
