//! The feed's events in the OpenAPI document, typed per kind (issue 30, item 3): `LiveEvent`
//! and a webhook delivery's body are each a `oneOf` with a discriminator (`kind`, `type`)
//! whose every branch names its payload schema. Made from `domain::events::TournamentEvent`'s
//! generated schema, so the document lists exactly the kinds the code can record.

use serde_json::{json, Map, Value};

/// `LiveEventRoundPublished` from `round_published`.
fn camel(prefix: &str, kind: &str) -> String {
    let mut out = prefix.to_string();
    for part in kind.split('_') {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

/// The (kind, payload schema) pairs of the generated `TournamentEvent` schema.
fn tournament_kinds(schemas: &Map<String, Value>) -> Vec<(String, Value)> {
    schemas
        .get("TournamentEvent")
        .and_then(|s| s.get("oneOf"))
        .and_then(Value::as_array)
        .map(|branches| {
            branches
                .iter()
                .filter_map(|b| {
                    let kind = b.pointer("/properties/kind/enum/0")?.as_str()?.to_string();
                    Some((kind, b.pointer("/properties/payload")?.clone()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The pools' webhook kinds and their `data` (beside `pool_id`).
fn pool_kinds() -> Vec<(String, Value)> {
    let decision = json!({ "$ref": "#/components/schemas/RatingStatusChangedPayload" });
    vec![
        (
            "leaderboard_changed".into(),
            json!({
                "type": "object",
                "required": ["leaderboard_version"],
                "properties": {
                    "leaderboard_version": { "type": "integer", "format": "int64",
                        "description": "The leaderboard's version after the change" }
                }
            }),
        ),
        ("rating_requested".into(), decision.clone()),
        ("rating_decided".into(), decision),
    ]
}

fn one_of(branches: &[(String, String)], property: &str, description: &str) -> Value {
    let refs: Vec<Value> = branches
        .iter()
        .map(|(_, name)| json!({ "$ref": format!("#/components/schemas/{name}") }))
        .collect();
    let mapping: Map<String, Value> = branches
        .iter()
        .map(|(kind, name)| (kind.clone(), json!(format!("#/components/schemas/{name}"))))
        .collect();
    json!({
        "description": description,
        "oneOf": refs,
        "discriminator": { "propertyName": property, "mapping": mapping }
    })
}

/// Rewrites `LiveEvent` and `DeliveryOut.body` as one schema per kind.
pub fn typed_events(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let kinds = tournament_kinds(schemas);
    if kinds.is_empty() {
        return;
    }
    schemas.remove("TournamentEvent");
    let live = schemas.get("LiveEvent").cloned().unwrap_or_default();
    let id = live.pointer("/properties/id").cloned().unwrap_or(json!({}));
    let at = live.pointer("/properties/at").cloned().unwrap_or(json!({}));
    let mut live_branches = Vec::new();
    for (kind, payload) in &kinds {
        let name = camel("LiveEvent", kind);
        schemas.insert(
            name.clone(),
            json!({
                "type": "object",
                "description": format!("A `{kind}` event of the live feed."),
                "required": ["id", "kind", "at", "payload"],
                "properties": {
                    "id": id, "kind": { "type": "string", "enum": [kind] },
                    "at": at, "payload": payload
                }
            }),
        );
        live_branches.push((kind.clone(), name));
    }
    schemas.insert(
        "LiveEvent".into(),
        one_of(
            &live_branches,
            "kind",
            "One event of the live feed (the JSON in an SSE frame's `data` line): its `kind` \
             names the payload's schema.",
        ),
    );
    let pools = pool_kinds();
    let subjects = kinds
        .iter()
        .map(|k| (k, "tournament_id"))
        .chain(pools.iter().map(|k| (k, "pool_id")));
    let mut hook_branches = Vec::new();
    for ((kind, payload), subject) in subjects {
        let name = camel("WebhookBody", kind);
        schemas.insert(
            name.clone(),
            json!({
                "type": "object",
                "description": format!("The body of a `{kind}` delivery (Standard Webhooks)."),
                "required": ["type", "timestamp", "data"],
                "properties": {
                    "type": { "type": "string", "enum": [kind] },
                    "timestamp": { "type": "string", "format": "date-time" },
                    "data": { "allOf": [payload, {
                        "type": "object", "required": [subject],
                        "properties": { subject: { "type": "integer", "format": "int64" } }
                    }] }
                }
            }),
        );
        hook_branches.push((kind.clone(), name));
    }
    schemas.insert(
        "WebhookBodyPing".into(),
        json!({
            "type": "object",
            "description": "The body of a `ping` delivery (`POST /webhooks/{id}/ping`).",
            "required": ["type", "timestamp", "data"],
            "properties": {
                "type": { "type": "string", "enum": ["ping"] },
                "timestamp": { "type": "string", "format": "date-time" },
                "data": { "type": "object", "required": ["webhook"], "properties": {
                    "webhook": { "type": "integer", "format": "int64" } } }
            }
        }),
    );
    hook_branches.push(("ping".into(), "WebhookBodyPing".into()));
    schemas.insert(
        "WebhookBody".into(),
        one_of(
            &hook_branches,
            "type",
            "What a delivery POSTs: the event's `type`, its time and its `data` (the feed's \
             payload and the tournament's or pool's id).",
        ),
    );
    if let Some(body) = schemas
        .get_mut("DeliveryOut")
        .and_then(|d| d.pointer_mut("/properties/body"))
    {
        *body = json!({ "$ref": "#/components/schemas/WebhookBody" });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_camel_case() {
        assert_eq!(
            camel("LiveEvent", "round_published"),
            "LiveEventRoundPublished"
        );
        assert_eq!(camel("WebhookBody", "penalty"), "WebhookBodyPenalty");
    }
}
