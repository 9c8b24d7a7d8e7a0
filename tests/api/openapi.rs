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
