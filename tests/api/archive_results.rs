//! An archive re-signed by a key the importer trusts holds only results the results route
//! would have taken: every version of every table's result is checked against its round's draw
//! and the tournament's ruleset with the route's own check, else the import is refused naming
//! the archive's row and field (422), and nothing is written.

use serde_json::{json, Value};

use crate::archives::{count, forger, json_of, played_event, resign};
use crate::case_fixtures::ok;
use crate::helpers::{fields, problem, spawn_app};

/// The player ids seated in an archived result, seat order.
fn seated(result: &Value) -> Vec<Value> {
    let seats = result["seats"].as_array().unwrap();
    seats.iter().map(|s| s["player"].clone()).collect()
}

#[actix_web::test]
async fn results_the_ruleset_or_the_draw_would_refuse_are_refused_naming_the_field() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let archive = json_of(&a, &path, Some(&e.org)).await;
    let results = archive["content"]["results"].as_array().unwrap().clone();
    let first = &results[0];
    let here = seated(first);
    assert_eq!(here.len(), 2, "{first}");
    // A player of the same round at another table.
    let other = results
        .iter()
        .find(|r| r["round_id"] == first["round_id"] && r["table_number"] != first["table_number"])
        .map(|r| seated(r)[0].clone())
        .unwrap();
    let before = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
        count(&b.database_url, "results"),
    );
    type Forge = Box<dyn Fn(&mut Value)>;
    let o = other.clone();
    let cases: Vec<(&str, Forge, &str)> = vec![
        // Wrong number of seats: a seated player left out, or one too many.
        (
            "a seated player without a result",
            Box::new(|r| {
                r["seats"].as_array_mut().unwrap().pop();
            }),
            "seats",
        ),
        (
            "a player of another table added",
            Box::new(move |r| {
                let mut extra = r["seats"][0].clone();
                extra["player"] = o.clone();
                r["seats"].as_array_mut().unwrap().push(extra);
            }),
            "seats[2].player",
        ),
        // A result for a player not seated at that table.
        (
            "a seat given to a player of another table",
            Box::new({
                let o = other.clone();
                move |r| r["seats"][0]["player"] = o.clone()
            }),
            "seats[0].player",
        ),
        (
            "a seated player twice",
            Box::new(|r| r["seats"][1]["player"] = r["seats"][0]["player"].clone()),
            "seats[1].player",
        ),
        // Placements that do not match: both won.
        (
            "two winners",
            Box::new(|r| {
                r["seats"][0]["outcome"] = json!("win");
                r["seats"][1]["outcome"] = json!("win");
            }),
            "seats",
        ),
        // Points outside the route's bounds.
        (
            "a score over 10000",
            Box::new(|r| r["seats"][0]["score"] = json!(10_001)),
            "seats[0].score",
        ),
        (
            "a score under -1000",
            Box::new(|r| r["seats"][1]["score"] = json!(-1_001)),
            "seats[1].score",
        ),
        (
            "a negative bonus",
            Box::new(|r| r["seats"][0]["bonus"] = json!(-1)),
            "seats[0].bonus",
        ),
        (
            "a penalty over 1000",
            Box::new(|r| r["seats"][0]["penalty"] = json!(1_001)),
            "seats[0].penalty",
        ),
        (
            "a day and more of thinking time",
            Box::new(|r| r["seats"][0]["time_used_secs"] = json!(86_401)),
            "seats[0].time_used_secs",
        ),
        // A table the round's draw does not have.
        (
            "a table the draw lacks",
            Box::new(|r| r["table_number"] = json!(99)),
            "table_number",
        ),
        // A play-off winner outside a cup match.
        (
            "a play-off winner in a Swiss round",
            Box::new(|r| r["playoff_winner"] = r["seats"][0]["player"].clone()),
            "playoff_winner",
        ),
    ];
    let trusted_forger = forger().public_hex();
    for (what, forge, field) in cases {
        let mut changed = archive.clone();
        forge(&mut changed["content"]["results"][0]);
        resign(&mut changed);
        let body = json!({"archive": changed, "trust_key": trusted_forger});
        let r = b
            .post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await;
        let p = problem(r, 422).await;
        let at = format!("archive.content.results[0].{field}");
        let fields: Vec<&Value> = p["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| &e["field"])
            .collect();
        assert!(fields.iter().any(|f| *f == at.as_str()), "{what}: {p}");
    }
    // A later version (the correction) and another round are checked too.
    for i in 1..results.len() {
        let mut changed = archive.clone();
        changed["content"]["results"][i]["seats"][0]["score"] = json!(20_000);
        resign(&mut changed);
        let body = json!({"archive": changed, "trust_key": trusted_forger});
        let r = b
            .post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await;
        let p = problem(r, 422).await;
        let at = format!("archive.content.results[{i}].seats[0].score");
        assert_eq!(p["errors"][0]["field"], at.as_str(), "{p}");
    }
    let after = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
        count(&b.database_url, "results"),
    );
    assert_eq!(before, after, "nothing was written");
    // The archive as made (every result as the route took it) imports, and so does the same
    // archive re-signed by the trusted forger untouched.
    let body = json!({"archive": archive, "trust_key": a.archive_key().await});
    let r = b
        .post("/api/v1/tournament-imports", Some(&admin_b), body)
        .await;
    ok(r, 201).await;
    assert_eq!(
        count(&b.database_url, "results"),
        before.3 + results.len() as i64
    );
}

/// The index of the archive's round that `result` names.
fn round_of(archive: &Value, result: &Value) -> usize {
    let rounds = archive["content"]["rounds"].as_array().unwrap();
    rounds
        .iter()
        .position(|r| r["id"] == result["round_id"])
        .unwrap()
}

/// A result on a draft round (a round its staff alone see, not published: the results route
/// answers 409) and a correction without a reason (the route's 422) are refused on import as
/// the route refuses them, naming the archive's row; a correction with its reason imports.
#[actix_web::test]
async fn a_result_on_a_draft_round_or_a_correction_without_a_reason_is_refused() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let archive = json_of(&a, &path, Some(&e.org)).await;
    let results = archive["content"]["results"].as_array().unwrap().clone();
    // The fixture's correction (version 2 of round 1's first table, with its reason).
    let k = results.iter().position(|r| r["version"] == 2).unwrap();
    assert_eq!(results[k]["reason"], "miscounted");
    let last = results.len() - 1;
    let trusted_forger = forger().public_hex();
    let send = |archive: Value| {
        let body = json!({"archive": archive, "trust_key": trusted_forger});
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
    };
    let before = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "results"),
    );
    // The round of the last result back to a draft: each of its results is named.
    let mut draft = archive.clone();
    let j = round_of(&archive, &results[last]);
    draft["content"]["rounds"][j]["status"] = json!("draft");
    let of_round: Vec<String> = (0..results.len())
        .filter(|i| results[*i]["round_id"] == results[last]["round_id"])
        .map(|i| format!("archive.content.results[{i}].round_id"))
        .collect();
    resign(&mut draft);
    let p = problem(send(draft).await, 422).await;
    assert_eq!(fields(&p), of_round, "{p}");
    // The correction without its reason.
    let mut unexplained = archive.clone();
    unexplained["content"]["results"][k]["reason"] = Value::Null;
    resign(&mut unexplained);
    let p = problem(send(unexplained).await, 422).await;
    let at = format!("archive.content.results[{k}].reason");
    assert_eq!(fields(&p), vec![at], "{p}");
    // A third version without a reason, after the second.
    let mut third = archive.clone();
    let mut v3 = results[k].clone();
    v3["version"] = json!(3);
    v3["reason"] = Value::Null;
    third["content"]["results"]
        .as_array_mut()
        .unwrap()
        .push(v3.clone());
    let mut explained = third.clone();
    resign(&mut third);
    let p = problem(send(third).await, 422).await;
    let at = format!("archive.content.results[{}].reason", results.len());
    assert_eq!(fields(&p), vec![at], "{p}");
    let after = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "results"),
    );
    assert_eq!(before, after, "nothing was written");
    // With its reason the third version imports; a first version needs none.
    explained["content"]["results"][results.len()]["reason"] = json!("recounted at the table");
    resign(&mut explained);
    ok(send(explained).await, 201).await;
    assert_eq!(
        count(&b.database_url, "results"),
        before.2 + results.len() as i64 + 1
    );
}

/// A check-in is held to the same: the venue's archive with a result on a draft round, or a
/// correction without a reason, is refused (422 naming the row) and nothing here changes; the
/// correction with its reason checks in.
#[actix_web::test]
async fn a_check_in_refuses_a_result_on_a_draft_round_or_a_correction_without_a_reason() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, played, mut back) =
        crate::checkout_trust::checked_out(&central, &venue, 8).await;
    back["trust_key"] = json!(forger().public_hex());
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let results = played["content"]["results"].as_array().unwrap().clone();
    let before = count(&central.database_url, "results");
    let send = |archive: &Value| {
        let body = crate::checkouts::check_in_body(archive, &back);
        central.post(&checkin, Some(&org), body)
    };
    // Round 1 (every result's) a draft.
    let mut draft = played.clone();
    let j = round_of(&played, &results[0]);
    draft["content"]["rounds"][j]["status"] = json!("draft");
    resign(&mut draft);
    let p = problem(send(&draft).await, 422).await;
    let named = fields(&p);
    assert!(
        !named.is_empty()
            && named
                .iter()
                .all(|f| f.starts_with("archive.content.results[") && f.ends_with("].round_id")),
        "{p}"
    );
    // A correction of the first table without a reason.
    let mut corrected = played.clone();
    let mut v2 = results[0].clone();
    v2["version"] = json!(2);
    v2["reason"] = Value::Null;
    corrected["content"]["results"]
        .as_array_mut()
        .unwrap()
        .push(v2);
    let mut explained = corrected.clone();
    resign(&mut corrected);
    let p = problem(send(&corrected).await, 422).await;
    let at = format!("archive.content.results[{}].reason", results.len());
    assert_eq!(fields(&p), vec![at], "{p}");
    assert_eq!(
        count(&central.database_url, "results"),
        before,
        "nothing written"
    );
    // With its reason it checks in.
    explained["content"]["results"][results.len()]["reason"] = json!("recounted");
    resign(&mut explained);
    assert_eq!(ok(send(&explained).await, 200).await["state"], "in");
    assert_eq!(count(&central.database_url, "results"), before + 1);
}
