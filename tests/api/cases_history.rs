//! A case's history is typed per step: the document gives each `what` its own `detail`
//! schema, and a history through every kind of step validates against it.

use serde_json::{json, Value};

use crate::helpers::spawn_app;

#[allow(unused_imports)]
use crate::case_fixtures::*;

/// Follows a local `$ref`.
fn resolve<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    match s["$ref"].as_str() {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            resolve(doc, &doc["components"]["schemas"][name])
        }
        None => s,
    }
}

/// The part of JSON Schema the document uses for these shapes; `Err` names what failed.
fn validate(doc: &Value, s: &Value, v: &Value, at: &str) -> Result<(), String> {
    let s = resolve(doc, s);
    if let Some(all) = s["allOf"].as_array() {
        for p in all {
            validate(doc, p, v, at)?;
        }
    }
    if let Some(one) = s["oneOf"].as_array() {
        let n = one
            .iter()
            .filter(|p| validate(doc, p, v, at).is_ok())
            .count();
        if n != 1 {
            return Err(format!("{at}: {n} branches of oneOf match {v}"));
        }
    }
    if let Some(e) = s["enum"].as_array() {
        if !e.contains(v) {
            return Err(format!("{at}: {v} not in {e:?}"));
        }
    }
    let types: Vec<&str> = match &s["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(|t| t.as_str()).collect(),
        _ => vec![],
    };
    let fits = |t: &str| match t {
        "null" => v.is_null(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| fits(t)) {
        return Err(format!("{at}: {v} is not {types:?}"));
    }
    if let (Some(o), Some(props)) = (v.as_object(), s["properties"].as_object()) {
        for r in s["required"].as_array().into_iter().flatten() {
            if !o.contains_key(r.as_str().unwrap()) {
                return Err(format!("{at}: {r} missing in {v}"));
            }
        }
        for (k, x) in o {
            match props.get(k) {
                Some(p) => validate(doc, p, x, &format!("{at}.{k}"))?,
                None if s["additionalProperties"] == false => {
                    return Err(format!("{at}: unexpected {k}"))
                }
                None => {}
            }
        }
    }
    if let (Some(a), Some(items)) = (v.as_array(), s.get("items")) {
        for (i, x) in a.iter().enumerate() {
            validate(doc, items, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

const KINDS: [&str; 7] = [
    "opened",
    "party_added",
    "panel_computed",
    "voted",
    "decided",
    "remedy_applied",
    "appealed",
];

#[actix_web::test]
async fn a_cases_history_is_typed_per_step_and_validates_against_the_document() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    // The document: one branch per kind, each with its own typed (object) detail.
    let event = &doc["components"]["schemas"]["CaseEvent"];
    let branches = event["oneOf"].as_array().expect("CaseEvent is a oneOf");
    for kind in KINDS {
        let b = branches
            .iter()
            .find(|b| b["properties"]["what"]["enum"] == json!([kind]))
            .unwrap_or_else(|| panic!("no branch for {kind}: {event}"));
        assert_eq!(b["required"], json!(["detail", "what"]), "{kind}");
        let detail = resolve(&doc, &b["properties"]["detail"]);
        let typed = detail["properties"].is_object() || detail["oneOf"].is_array();
        assert!(typed, "{kind}'s detail is untyped: {detail}");
    }
    assert_eq!(branches.len(), KINDS.len());
    // A history step: the same branches, each an object that also carries `author` and `at`
    // (a `oneOf` of objects, not an `allOf` of a union and an object, which
    // openapi-python-client cannot take and leaves out of the client).
    let out = &doc["components"]["schemas"]["CaseEventOut"];
    assert!(out.get("allOf").is_none(), "{out}");
    let steps = out["oneOf"].as_array().expect("CaseEventOut is a oneOf");
    assert_eq!(steps.len(), KINDS.len());
    for (step, branch) in steps.iter().zip(branches) {
        assert_eq!(step["type"], "object", "{step}");
        assert_eq!(step["required"], json!(["detail", "what", "author", "at"]));
        assert_eq!(step["properties"]["what"], branch["properties"]["what"]);
        assert_eq!(
            step["properties"]["detail"]["$ref"],
            branch["properties"]["detail"]["$ref"]
        );
        assert_eq!(step["properties"]["author"]["type"], "integer");
        assert_eq!(step["properties"]["at"]["format"], "date-time");
    }

    // A history through every kind: a complaint dismissed, appealed, remedied 2-1 by votes.
    let e = setup(&app, true).await;
    let (table, winner, loser) = e.tables[0];
    let correction = json!([{"kind": "correct_result", "round": 1, "table": table, "seats": [
        {"player_id": winner, "score": 4, "outcome": "loss"},
        {"player_id": loser, "score": 10, "outcome": "win"}]}]);
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "result", "round": 1, "table": table,
               "statement": "I won 10-4.", "remedies": correction}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    let decision = json!({"verdict": "dismiss", "reason": "the score sheet says otherwise"});
    let url = format!("/api/v1/tournaments/{}/cases/{cid}", e.tid);
    ok(
        app.post(&format!("{url}/decision"), Some(&e.referee), decision)
            .await,
        200,
    )
    .await;
    let appeal = json!({"statement": "The sheet was filled in by my opponent."});
    let appeal = ok(
        app.post(
            &format!("{url}/appeal"),
            Some(e.token_of_player(loser)),
            appeal,
        )
        .await,
        201,
    )
    .await;
    let aid = appeal["id"].as_i64().unwrap();
    let votes = [
        json!({"vote": "remedy", "remedies": correction, "reason": "the photo shows 10-4"}),
        json!({"vote": "dismiss", "reason": "the referee saw the game"}),
        json!({"vote": "remedy", "remedies": correction, "reason": "agreed"}),
    ];
    let mut decided = Value::Null;
    for (i, v) in votes.into_iter().enumerate() {
        decided = ok(vote(&app, &e, aid, &e.committee[i].1, v).await, 201).await;
    }
    assert_eq!(decided["outcome"], "remedied", "{decided}");
    let original = ok(app.get(&url, Some(&e.referee)).await, 200).await;

    let schema = json!({"$ref": "#/components/schemas/CaseEventOut"});
    let mut seen = Vec::new();
    for h in [&original, &decided]
        .iter()
        .flat_map(|c| c["history"].as_array().unwrap())
    {
        validate(&doc, &schema, h, "history").unwrap();
        seen.push(h["what"].as_str().unwrap().to_string());
    }
    for kind in KINDS {
        assert!(seen.iter().any(|s| s == kind), "no {kind} step in {seen:?}");
    }
    // What the steps recorded, field by field.
    let step = |c: &Value, what: &str| {
        c["history"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["what"] == what)
            .map(|h| h["detail"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        step(&original, "opened"),
        vec![json!({"penalty_id": null, "round": 1, "subject": "result", "table": table})]
    );
    assert_eq!(step(&decided, "opened"), vec![json!({"appeal_of": cid})]);
    assert_eq!(step(&original, "appealed"), vec![json!({"appeal": aid})]);
    let voted = step(&decided, "voted");
    assert_eq!(voted[0]["remedies"][0]["kind"], "correct_result");
    assert_eq!(voted[1]["remedies"], Value::Null);
    assert_eq!(
        step(&decided, "decided"),
        vec![json!({"outcome": "remedied", "reason": decided["decision_reason"], "remedies": 1})]
    );
    let applied = step(&decided, "remedy_applied");
    assert_eq!(applied[0]["order"]["kind"], "correct_result");
    assert_eq!(applied[0]["order"]["table"], table);
    assert_eq!(applied[0]["order"]["seats"][1]["score"], 10);
    assert_eq!(applied[0]["effect"]["result_version"], 2);
    // The validator refuses a detail of the wrong kind.
    let mut wrong = original["history"][0].clone();
    wrong["detail"] = json!({"appeal": aid});
    assert!(validate(&doc, &schema, &wrong, "history").is_err());
    wrong["what"] = json!("appealed");
    validate(&doc, &schema, &wrong, "history").unwrap();
}
