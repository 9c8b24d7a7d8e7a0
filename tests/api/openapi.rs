//! The committed `openapi/openapi.json` is what the code generates and what the service serves.

use crate::helpers::spawn_app;

const REFRESH: &str = "cargo run -q -- openapi > openapi/openapi.json";

#[test]
fn committed_openapi_matches_the_code() {
    let generated = tourney::app::openapi().to_pretty_json().unwrap();
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
    let generated = serde_json::to_value(tourney::app::openapi()).unwrap();
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
