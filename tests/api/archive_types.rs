//! An archive re-signed by a key the importer trusts still holds only what the service can read
//! back: every JSON column the service reads as a type (a tournament's ruleset and overrides, a
//! round's options and colours, a result's seats, a case's evidence and remedies) reads as it,
//! else the import is refused naming the row and column, and nothing is written; stored, such a
//! value broke every later read of the tournament (its standings answered 500).

use serde_json::{json, Value};

use crate::archives::{count, forger, json_of, played_event, resign};
use crate::case_fixtures::ok;
use crate::helpers::{problem, spawn_app};

#[actix_web::test]
async fn an_archive_whose_json_the_service_cannot_read_is_refused_naming_the_row() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let archive = json_of(&a, &path, Some(&e.org)).await;
    let before = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
    );
    let trusted_forger = forger().public_hex();
    let forged: [(&str, &str, Value); 8] = [
        ("results[0]", "seats", json!({"not": "seats"})),
        ("tournament", "ruleset_overrides", json!({"bogus": 1})),
        ("rounds[0]", "options", json!("fast")),
        ("rounds[0]", "colours", json!({"table": 1})),
        ("cases[0]", "evidence_links", json!([1])),
        ("cases[0]", "requested_remedies", json!([{"kind": "nope"}])),
        ("cases[0]", "remedy", json!(5)),
        ("tournament", "ruleset", json!("chess")),
    ];
    for (row, column, value) in forged {
        let mut changed = archive.clone();
        let content = &mut changed["content"];
        let target = match row.split_once('[') {
            None => &mut content[row],
            Some((section, i)) => {
                let i: usize = i.trim_end_matches(']').parse().unwrap();
                &mut content[section][i]
            }
        };
        assert!(target.get(column).is_some(), "{row}.{column}");
        target[column] = value;
        resign(&mut changed);
        let body = json!({"archive": changed, "trust_key": trusted_forger});
        let r = b
            .post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await;
        let p = problem(r, 422).await;
        let at = format!("archive.content.{row}.{column}");
        assert_eq!(p["errors"][0]["field"], at.as_str(), "{p}");
    }
    let after = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
    );
    assert_eq!(before, after, "nothing was written");
    // The archive as made imports, and its standings read.
    let body = json!({"archive": archive, "trust_key": a.archive_key().await});
    let r = b
        .post("/api/v1/tournament-imports", Some(&admin_b), body)
        .await;
    let tid = ok(r, 201).await["tournament_id"].clone();
    let standings = format!("/api/v1/tournaments/{tid}/standings");
    assert_eq!(b.get(&standings, None).await.status(), 200);
}
