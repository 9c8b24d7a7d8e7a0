//! The contract's own parts of the document (issue 38): its version (the crate's, semver), the
//! deprecated forms (`infra::deprecation`) marked `deprecated` with their headers, and the
//! webhooks (OpenAPI 3.1 `webhooks`, one per delivery kind) so that what a receiver gets is
//! versioned and diffed with the rest (`scripts/contract-check`).

use serde_json::{json, Map, Value};

use super::{add_headers, each_operation, header};
use crate::infra::deprecation::{Deprecation, ALL};

/// `info.version`: the crate's version, which `tourney --version` and `/healthz` report too.
pub fn version(doc: &mut Value) {
    if let Some(info) = doc.get_mut("info").and_then(Value::as_object_mut) {
        info.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    }
}

/// The headers a deprecated answer carries (documented on the operations' 200 and 304).
fn deprecation_headers(d: &Deprecation) -> [(&'static str, Value); 3] {
    [
        (
            "Deprecation",
            header(
                "Sent when the request used a deprecated form: when it was deprecated \
                 (RFC 9745, `@` Unix time)",
                &d.deprecation_header(),
            ),
        ),
        (
            "Sunset",
            header(
                "Sent with `Deprecation`: from when the deprecated form may no longer be \
                 answered (RFC 8594)",
                &d.sunset_header(),
            ),
        ),
        (
            "Link",
            header(
                "With `Deprecation`: the changelog (`rel=\"deprecation\"`); on pages also the \
                 next page (`rel=\"next\"`)",
                &d.link_header(),
            ),
        ),
    ]
}

/// Marks every deprecated form in the document: the deprecated parameter (added if the
/// operation does not declare it) or the whole operation `deprecated: true`, a description
/// naming the sunset and what to do instead, and the headers of its answers.
pub fn deprecations(doc: &mut Value) {
    for d in ALL {
        let note = format!(
            "Deprecated (sunset {}): {} See the changelog (`GET /changelog`).",
            d.sunset_date(),
            d.instead
        );
        each_operation(doc, |op| {
            let id = op.get("operationId").and_then(Value::as_str).unwrap_or("");
            if !d.operations.contains(&id) {
                return;
            }
            match d.parameter {
                Some(name) => deprecate_parameter(op, name, &note),
                None => {
                    op["deprecated"] = json!(true);
                    append_description(op, &note);
                }
            }
            let headers = deprecation_headers(d);
            for status in ["200", "304"] {
                if let Some(response) = op.pointer_mut(&format!("/responses/{status}")) {
                    add_headers(response, &headers);
                }
            }
        });
    }
}

fn append_description(target: &mut Value, note: &str) {
    let text = target
        .get("description")
        .and_then(Value::as_str)
        .map(|t| format!("{t}\n\n{note}"))
        .unwrap_or_else(|| note.to_string());
    target["description"] = json!(text);
}

fn deprecate_parameter(op: &mut Value, name: &str, note: &str) {
    let Some(obj) = op.as_object_mut() else {
        return;
    };
    let params = obj
        .entry("parameters")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(params) = params.as_array_mut() else {
        return;
    };
    if !params
        .iter()
        .any(|p| p["name"] == name && p["in"] == "query")
    {
        // The CSV it selects has an operation of its own, so only `json` is in the schema: a
        // typed client sees one body per operation.
        params.push(json!({
            "name": name, "in": "query", "required": false,
            "description": "`json` (the default) or, deprecated, `csv`.",
            "schema": { "type": "string", "enum": ["json"] }
        }));
    }
    for p in params.iter_mut().filter(|p| p["name"] == name) {
        p["deprecated"] = json!(true);
        append_description(p, note);
    }
}

/// OpenAPI 3.1 `webhooks`: one entry per delivery kind (`WebhookBody`'s discriminator), whose
/// POST carries that kind's body, with the Standard Webhooks signature headers.
pub fn webhooks(doc: &mut Value) {
    let Some(mapping) = doc
        .pointer("/components/schemas/WebhookBody/discriminator/mapping")
        .and_then(Value::as_object)
        .cloned()
    else {
        return;
    };
    let signed = [
        (
            "webhook-id",
            "The delivery's id (`msg_...`), the same on every attempt",
        ),
        (
            "webhook-timestamp",
            "Unix seconds when this attempt was signed",
        ),
        (
            "webhook-signature",
            "`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` under the subscription's secret \
             (two while a rotated secret overlaps)",
        ),
    ];
    let parameters: Vec<Value> = signed
        .iter()
        .map(|(name, description)| {
            json!({ "name": name, "in": "header", "required": true,
                    "description": description, "schema": { "type": "string" } })
        })
        .collect();
    let mut hooks = Map::new();
    for (kind, target) in mapping {
        hooks.insert(
            kind.clone(),
            json!({ "post": {
                "summary": format!("A `{kind}` delivery"),
                "description": "POSTed to a subscription's URL (docs/webhooks.md). Answer any 2xx \
                                to acknowledge it; anything else is retried.",
                "parameters": parameters,
                "requestBody": { "required": true, "content": {
                    "application/json": { "schema": { "$ref": target } } } },
                "responses": { "2XX": { "description": "Delivered" } }
            }}),
        );
    }
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("webhooks".into(), Value::Object(hooks));
    }
}
