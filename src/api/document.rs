//! The last touches on the generated OpenAPI document, applied to every path at once so that
//! no handler can forget them: list items as references to their entity schemas, the response
//! headers the service sends (`ETag`, `Cache-Control`, `Link`, `Location`, `Retry-After`,
//! `Allow`), and each schema's example copied onto the media types that carry it.

mod contract;
mod events;

use serde_json::{json, Map, Value};

/// Operations whose 200 answer carries no `ETag`/`Cache-Control` (probes, metrics, the live
/// stream, answers computed per caller and never cached).
const UNCACHED: [&str; 32] = [
    "check_liveness",
    "read_changelog",
    "check_readiness",
    "read_metrics",
    "stream_events",
    "read_me",
    "list_users",
    "read_user",
    "list_api_keys",
    "read_api_key",
    "list_my_games",
    "list_my_tournaments",
    "read_report",
    "read_schedule",
    "list_tournament_webhooks",
    "list_pool_webhooks",
    "list_webhook_deliveries",
    "read_webhook",
    "update_webhook",
    "read_webhook_delivery",
    "export_me",
    "export_user",
    "update_me",
    "page_verify_email",
    "page_reset_password",
    "page_invitation",
    "read_tournament_calendar",
    "read_player_calendar",
    "report_queue",
    "slips_link",
    "print_slips",
    "table_report_page",
];

/// Applies every touch to the document. The result stays JSON: utoipa's own types would drop
/// or misspell some of it (its `Link` serialises `operation_id`, not `operationId`).
pub fn finish(doc: utoipa::openapi::OpenApi) -> Value {
    let mut value = serde_json::to_value(&doc).expect("the document serialises");
    pages_refer_to_entities(&mut value);
    events::typed_events(&mut value);
    live_feed_frames(&mut value);
    links_from_creations(&mut value);
    query_errors_documented(&mut value);
    rate_limits_documented(&mut value);
    document_headers(&mut value);
    contract::deprecations(&mut value);
    examples_on_media_types(&mut value);
    contract::webhooks(&mut value);
    contract::version(&mut value);
    plain_descriptions(&mut value);
    value
}

/// Descriptions come from Rust doc comments: their intra-doc links (``[`Draw::seeds`]``) are
/// shown as the plain name (`` `seeds` ``), which is what a reader of the API knows.
fn plain_descriptions(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                match x {
                    Value::String(text) if k == "description" => *text = plain_links(text),
                    _ => plain_descriptions(x),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain_descriptions),
        _ => {}
    }
}

/// ``[`A::b`]`` -> `` `b` ``; other text unchanged.
fn plain_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[`") {
        let Some(len) = rest[start + 2..].find("`]") else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        out.push('`');
        out.push_str(name.rsplit("::").next().unwrap_or(name));
        out.push('`');
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// `Page_PlayerOut.items` is an array of `PlayerOut` by reference, not an inline copy.
fn pages_refer_to_entities(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let names: Vec<String> = schemas.keys().cloned().collect();
    for (name, schema) in schemas.iter_mut() {
        let Some(entity) = name.strip_prefix("Page_") else {
            continue;
        };
        if names.iter().any(|n| n == entity) {
            if let Some(items) = schema.pointer_mut("/properties/items/items") {
                *items = json!({ "$ref": format!("#/components/schemas/{entity}") });
            }
        }
    }
}

/// The live feed's media type names its frames: `id`, `event` and `data` (a `LiveEvent` as
/// JSON), so that a client (and schemathesis) can check every event it receives.
fn live_feed_frames(doc: &mut Value) {
    let frame = json!({
        "type": "object",
        "description": "One Server-Sent Events frame.",
        "required": ["data"],
        "properties": {
            "id": { "type": "string", "pattern": "^[0-9]+$",
                    "description": "The event id; send it as `Last-Event-ID` to resume" },
            "event": { "$ref": "#/components/schemas/LiveEventKind" },
            "data": { "type": "string", "contentMediaType": "application/json",
                      "contentSchema": { "$ref": "#/components/schemas/LiveEvent" } },
            "retry": { "type": "integer" }
        }
    });
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(responses) = item.pointer_mut("/get/responses/200/content") else {
            continue;
        };
        if let Some(media) = responses.get_mut("text/event-stream") {
            media["schema"] = frame.clone();
        }
    }
}

/// OpenAPI links from each creating POST to the operations on what it created, by the `id` of
/// the answer: `POST /api/v1/tournaments` -> `GET /api/v1/tournaments/{id}`, its rounds, ...
/// (operations that need more than that id are left out). Clients and schemathesis' stateful
/// phase follow them.
fn links_from_creations(doc: &mut Value) {
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return;
    };
    let mut links: Vec<(String, String, Map<String, Value>)> = Vec::new();
    for (collection, item) in paths {
        let Some(post) = item.get("post") else {
            continue;
        };
        // Only where the created body names its `id` at the top (the link's expression).
        let has_id = post
            .pointer("/responses/201/content/application~1json/schema/$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .and_then(|name| doc.pointer(&format!("/components/schemas/{name}/properties/id")))
            .is_some();
        if !has_id || collection.contains('{') {
            continue;
        }
        let mut map = Map::new();
        let prefix = format!("{collection}/{{id}}");
        for (path, target) in paths {
            let rest = path.strip_prefix(&prefix);
            let only_id = rest.is_some_and(|r| !r.contains('{'));
            if !only_id {
                continue;
            }
            for (method, op) in target.as_object().into_iter().flatten() {
                let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                    continue;
                };
                if method == "head" {
                    continue;
                }
                map.insert(
                    id.to_string(),
                    json!({
                        "operationId": id,
                        "parameters": { "id": "$response.body#/id" },
                        "description": format!("{method} {path} of what was created"),
                    }),
                );
            }
        }
        if !map.is_empty() {
            links.push((collection.clone(), "post".into(), map));
        }
    }
    for (path, method, map) in links {
        let pointer = format!("/paths/{}/{method}/responses/201", path.replace('/', "~1"));
        if let Some(response) = doc.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            response.insert("links".into(), Value::Object(map));
        }
    }
}

/// Calls `f` with every operation of the document.
fn each_operation(doc: &mut Value, mut f: impl FnMut(&mut Value)) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        item.values_mut().for_each(&mut f);
    }
}

/// Every operation that takes query parameters documents the 422 its checks answer.
fn query_errors_documented(doc: &mut Value) {
    each_operation(doc, |op| {
        let has_query = op
            .get("parameters")
            .and_then(Value::as_array)
            .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query"));
        let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
            return;
        };
        if has_query && !responses.contains_key("422") {
            responses.insert(
                "422".into(),
                json!({
                    "description": "Invalid query parameters: the problem names each one",
                    "content": { "application/problem+json": {
                        "schema": { "$ref": "#/components/schemas/Problem" } } }
                }),
            );
        }
    });
}

/// Every operation of the API (`/api/v1/...`) may answer 429 when its caller's rate limit of
/// its class is used up (`infra::ratelimit`), with `Retry-After`, `RateLimit` and
/// `RateLimit-Policy`.
fn rate_limits_documented(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if !path.starts_with("/api/v1/") {
            continue;
        }
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            let entry = responses.entry("429").or_insert_with(|| {
                json!({
                    "description": "Too many requests of this class (reads, writes or sign-ins) \
                        from this credential or address over the last minute (it slides: a \
                        limit used up comes back as the minute passes); wait Retry-After \
                        seconds",
                    "content": { "application/problem+json": {
                        "schema": { "$ref": "#/components/schemas/Problem" } } }
                })
            });
            add_headers(
                entry,
                &[
                    (
                        "RateLimit",
                        header(
                            "The tightest limit's state: its class, requests left (r) and \
                             seconds until its current window ends (t), or when refused until a \
                             request is allowed again, as Retry-After (IETF httpapi draft)",
                            "\"read\";r=0;t=42",
                        ),
                    ),
                    (
                        "RateLimit-Policy",
                        header(
                            "The limit: its class, quota (q) and window in seconds (w)",
                            "\"read\";q=1200;w=60",
                        ),
                    ),
                ],
            );
        }
    }
}

fn header(description: &str, example: &str) -> Value {
    json!({
        "description": description,
        "schema": { "type": "string" },
        "example": example,
    })
}

fn add_headers(response: &mut Value, headers: &[(&str, Value)]) {
    let Some(obj) = response.as_object_mut() else {
        return;
    };
    let map = obj
        .entry("headers")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(map) = map.as_object_mut() {
        for (name, h) in headers {
            map.entry(name.to_string()).or_insert_with(|| h.clone());
        }
    }
}

/// Documents the headers the service sends, by status and method.
fn document_headers(doc: &mut Value) {
    let etag = header(
        "The representation's strong validator: for versioned resources (tournaments, rating \
         pools, results) the version, as `If-Match` takes it; send it in `If-None-Match` to get \
         304 when nothing changed",
        "\"3\"",
    );
    let cache = header(
        "`public, max-age=5, must-revalidate` for public reads (shared caches may serve them \
         for up to 5 seconds), `private, no-cache` for reads only the caller may see",
        "public, max-age=5, must-revalidate",
    );
    let link = header(
        "RFC 8288 links to the `next` and `prev` pages, where they exist",
        "</api/v1/players?limit=50&offset=50>; rel=\"next\"",
    );
    let location = header("The URL of the created resource", "/api/v1/players/42");
    let retry = header("Seconds to wait before trying again", "30");
    let allow = header("The methods the resource allows", "GET, HEAD, PATCH");
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            let id = op
                .get("operationId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            let is_page = |r: &Value| {
                r.pointer("/content/application~1json/schema/$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.contains("/Page_"))
            };
            for (status, response) in responses.iter_mut() {
                match (method.as_str(), status.as_str()) {
                    ("get", "200") if !UNCACHED.contains(&id.as_str()) => {
                        let mut hs = vec![("ETag", etag.clone()), ("Cache-Control", cache.clone())];
                        if is_page(response) {
                            hs.push(("Link", link.clone()));
                        }
                        add_headers(response, &hs);
                    }
                    ("get", "200") if is_page(response) => {
                        add_headers(response, &[("Link", link.clone())]);
                    }
                    ("get", "304") => add_headers(
                        response,
                        &[("ETag", etag.clone()), ("Cache-Control", cache.clone())],
                    ),
                    ("post", "201") if response_has_location(&id) => {
                        add_headers(response, &[("Location", location.clone())])
                    }
                    ("put" | "patch", "200") if versioned_write(&id) => {
                        add_headers(response, &[("ETag", etag.clone())])
                    }
                    (_, "429") | (_, "503") => {
                        add_headers(response, &[("Retry-After", retry.clone())])
                    }
                    (_, "405") => add_headers(response, &[("Allow", allow.clone())]),
                    _ => {}
                }
            }
        }
    }
}

/// The creating POSTs that answer `Location`.
fn response_has_location(id: &str) -> bool {
    matches!(
        id,
        "create_player"
            | "create_tournament"
            | "create_rating_pool"
            | "create_user"
            | "register_player"
            | "create_api_key"
            | "create_tournament_webhook"
            | "create_pool_webhook"
            | "ping_webhook"
    )
}

/// The writes of versioned resources, which answer the new version as `ETag`.
fn versioned_write(id: &str) -> bool {
    matches!(
        id,
        "update_tournament" | "update_rating_pool" | "enter_result"
    )
}

/// Resolves a `$ref` to a component schema.
fn component<'a>(doc: &'a Value, schema: &Value) -> Option<&'a Value> {
    let name = schema
        .get("$ref")?
        .as_str()?
        .strip_prefix("#/components/schemas/")?;
    doc.pointer(&format!("/components/schemas/{name}"))
}

/// Every media type whose schema (or referenced component) has an example shows it.
fn examples_on_media_types(doc: &mut Value) {
    let snapshot = doc.clone();
    each_operation(doc, |op| {
        let Some(content) = op
            .pointer_mut("/requestBody/content")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        for m in content.values_mut() {
            let Some(schema) = m.get("schema") else {
                continue;
            };
            let example = schema
                .get("example")
                .or_else(|| component(&snapshot, schema).and_then(|c| c.get("example")))
                .cloned();
            if let (Some(example), Some(obj)) = (example, m.as_object_mut()) {
                obj.entry("example").or_insert(example);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustdoc_links_read_as_plain_names() {
        assert_eq!(
            plain_links("pass them back as [`PlayerEntry::seed`] in [`plan`]; keep `x`"),
            "pass them back as `seed` in `plan`; keep `x`"
        );
        assert_eq!(plain_links("no [`link"), "no [`link");
    }

    #[test]
    fn pages_refer_to_their_entity() {
        let mut doc = json!({"components": {"schemas": {
            "PlayerOut": {"type": "object"},
            "Page_PlayerOut": {"properties": {"items": {"type": "array", "items": {"type": "object"}}}}
        }}});
        pages_refer_to_entities(&mut doc);
        assert_eq!(
            doc.pointer("/components/schemas/Page_PlayerOut/properties/items/items/$ref"),
            Some(&json!("#/components/schemas/PlayerOut"))
        );
    }

    #[test]
    fn request_examples_come_from_the_component() {
        let mut doc = json!({
            "paths": {"/x": {"post": {"requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/In"}}}}}}},
            "components": {"schemas": {"In": {"example": {"a": 1}}}}
        });
        examples_on_media_types(&mut doc);
        assert_eq!(
            doc.pointer("/paths/~1x/post/requestBody/content/application~1json/example"),
            Some(&json!({"a": 1}))
        );
    }
}
