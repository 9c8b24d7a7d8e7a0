//! An archive re-signed by a key the importer trusts holds only cases and votes the case
//! routes would have stored, checked by the routes' own checks: a complaint as it is opened,
//! an appeal as it is lodged, a decided case's reason and remedies as a ruling's, a vote as it
//! is cast. Beyond a limit the import is refused naming the archive's row and column (422) and
//! nothing is written; at the limits it imports.

use serde_json::{json, Value};

use crate::archives::{count, forger, json_of, played_event, resign};
use crate::case_fixtures::ok;
use crate::helpers::{fields, problem, spawn_app, TestApp};

type Forge = Box<dyn Fn(&mut Value)>;

fn counts(app: &TestApp) -> Vec<i64> {
    ["tournaments", "players", "users", "cases", "votes"]
        .iter()
        .map(|t| count(&app.database_url, t))
        .collect()
}

/// `n` links of `len` characters each.
fn links(n: usize, len: usize) -> Value {
    let link = format!("https://{}", "a".repeat(len - 8));
    json!(vec![link; n])
}

/// The forgeries of the archive's first case (field under `archive.content.cases[0]`).
fn case_forgeries() -> Vec<(&'static str, Forge, &'static str)> {
    let case = |f: fn(&mut Value)| -> Forge { Box::new(move |c| f(&mut c["cases"][0])) };
    vec![
        (
            "an empty statement",
            case(|r| r["statement"] = json!(" ")),
            "statement",
        ),
        (
            "a statement of 4001 characters",
            case(|r| r["statement"] = json!("s".repeat(4001))),
            "statement",
        ),
        (
            "a statement with a control character",
            case(|r| r["statement"] = json!("a\u{7}b")),
            "statement",
        ),
        (
            "evidence of 4001 characters",
            case(|r| r["evidence_text"] = json!("e".repeat(4001))),
            "evidence_text",
        ),
        (
            "eleven links",
            case(|r| r["evidence_links"] = links(11, 30)),
            "evidence_links",
        ),
        (
            "a link that is no http(s) URL",
            case(|r| r["evidence_links"] = json!(["ftp://example.org/a.jpg"])),
            "evidence_links[0]",
        ),
        (
            "a link of 501 characters",
            case(|r| r["evidence_links"] = links(1, 501)),
            "evidence_links[0]",
        ),
        (
            "round 0",
            case(|r| r["round_number"] = json!(0)),
            "round_number",
        ),
        (
            "table 10001",
            case(|r| r["table_number"] = json!(10_001)),
            "table_number",
        ),
        (
            "a result case without its round and table",
            case(|r| r["subject"] = json!("result")),
            "round_number",
        ),
        (
            "a penalty case without its penalty",
            case(|r| {
                r["subject"] = json!("penalty");
                r["penalty_id"] = Value::Null;
            }),
            "penalty_id",
        ),
        (
            "six remedies asked for",
            case(|r| {
                let one = r["requested_remedies"][0].clone();
                r["requested_remedies"] = json!(vec![one; 6]);
            }),
            "requested_remedies",
        ),
        (
            "a remedy of 0 points asked for",
            case(|r| r["requested_remedies"][0]["points"] = json!(0)),
            "requested_remedies[0].points",
        ),
        (
            "an appeal of an empty statement",
            case(|r| {
                r["kind"] = json!("appeal");
                r["statement"] = json!("");
            }),
            "statement",
        ),
        (
            "no kind of case",
            case(|r| r["kind"] = json!("hearing")),
            "kind",
        ),
        (
            "no subject",
            case(|r| r["subject"] = json!("weather")),
            "subject",
        ),
        (
            "no outcome",
            case(|r| r["outcome"] = json!("maybe")),
            "outcome",
        ),
        (
            "a decision without a reason",
            case(|r| r["decision_reason"] = json!("")),
            "decision_reason",
        ),
        (
            "a decision's reason of 501 characters",
            case(|r| r["decision_reason"] = json!("r".repeat(501))),
            "decision_reason",
        ),
        (
            "remedies ordered without a remedy",
            case(|r| {
                r["outcome"] = json!("remedied");
                r["remedy"] = json!([]);
            }),
            "remedy",
        ),
        (
            "six remedies ordered",
            case(|r| {
                r["outcome"] = json!("remedied");
                let one = r["remedy"][0].clone();
                r["remedy"] = json!(vec![one; 6]);
            }),
            "remedy",
        ),
        (
            "a remedy ordered of 1001 points",
            case(|r| {
                r["outcome"] = json!("remedied");
                r["remedy"][0]["order"]["points"] = json!(1001);
            }),
            "remedy[0].order.points",
        ),
    ]
}

/// The forgeries of a vote added to the archive (field under `archive.content.votes[0]`).
fn vote_forgeries() -> Vec<(&'static str, Forge, &'static str)> {
    let vote = |f: fn(&mut Value)| -> Forge { Box::new(move |c| f(&mut c["votes"][0])) };
    vec![
        (
            "a vote without a reason",
            vote(|v| v["reason"] = json!(" ")),
            "reason",
        ),
        (
            "a vote's reason of 501 characters",
            vote(|v| v["reason"] = json!("r".repeat(501))),
            "reason",
        ),
        (
            "a remedy vote without remedies",
            vote(|v| v["vote"] = json!("remedy")),
            "remedy",
        ),
        (
            "a dismissal with remedies",
            vote(|v| v["remedy"] = json!([{"kind": "replay_table", "round": 1, "table": 1}])),
            "remedy",
        ),
        (
            "six remedies voted for",
            vote(|v| {
                v["vote"] = json!("remedy");
                v["remedy"] = json!(vec![
                    json!({"kind": "replay_table", "round": 1, "table": 1});
                    6
                ]);
            }),
            "remedy",
        ),
        (
            "a replay of table 0 voted for",
            vote(|v| {
                v["vote"] = json!("remedy");
                v["remedy"] = json!([{"kind": "replay_table", "round": 1, "table": 0}]);
            }),
            "remedy[0].table",
        ),
        ("no verdict", vote(|v| v["vote"] = json!("abstain")), "vote"),
    ]
}

#[actix_web::test]
async fn an_archives_cases_and_votes_are_held_to_the_case_routes_checks() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let mut archive = json_of(&a, &path, Some(&e.org)).await;
    let content = &mut archive["content"];
    assert_eq!(content["cases"][0]["outcome"], "upheld", "{content}");
    // A committee member's vote on the case, as the votes route stores one.
    let member = content["staff"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["role"] == "appeals_committee")
        .unwrap()["user_id"]
        .clone();
    let case = content["cases"][0].clone();
    content["votes"] = json!([{"case_id": case["id"], "member_id": member, "vote": "dismiss",
                               "remedy": null, "reason": "seen", "at": case["opened_at"]}]);
    let trusted_forger = forger().public_hex();
    let send = |archive: Value| {
        let body = json!({"archive": archive, "trust_key": trusted_forger});
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
    };
    let before = counts(&b);
    let refused = case_forgeries()
        .into_iter()
        .map(|(w, f, c)| (w, f, format!("cases[0].{c}")));
    let votes = vote_forgeries()
        .into_iter()
        .map(|(w, f, c)| (w, f, format!("votes[0].{c}")));
    for (what, forge, field) in refused.chain(votes) {
        let mut forged = archive.clone();
        forge(&mut forged["content"]);
        resign(&mut forged);
        let p = problem(send(forged).await, 422).await;
        let at = format!("archive.content.{field}");
        assert_eq!(fields(&p), vec![at], "{what}: {p}");
    }
    assert_eq!(before, counts(&b), "nothing was written");
    // At every limit it imports: texts and links at their longest, five remedies asked for,
    // round 1000 and table 10000, a decision's and a vote's reason of 500 characters.
    let mut at_limits = archive.clone();
    let r = &mut at_limits["content"]["cases"][0];
    r["statement"] = json!("s".repeat(4000));
    r["evidence_text"] = json!("e".repeat(4000));
    r["evidence_links"] = links(10, 500);
    r["round_number"] = json!(1000);
    r["table_number"] = json!(10_000);
    let one = r["requested_remedies"][0].clone();
    r["requested_remedies"] = json!(vec![one; 5]);
    r["decision_reason"] = json!("r".repeat(500));
    at_limits["content"]["votes"][0]["reason"] = json!("v".repeat(500));
    resign(&mut at_limits);
    ok(send(at_limits).await, 201).await;
    let after = counts(&b);
    assert_eq!((after[3], after[4]), (before[3] + 1, before[4] + 1));
}
