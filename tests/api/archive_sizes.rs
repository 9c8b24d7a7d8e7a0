//! An archive re-signed by a key the importer trusts holds no more than the routes let a
//! tournament have: at most 50 rounds numbered 1, 2, ... (a tournament plans 1-50), an appeals
//! committee of at most three, registrations seeded as the registration routes take them, and
//! settings within what a PATCH takes. Beyond, the import is refused naming the archive's field
//! (422) and nothing is written; at the limit it imports.

use serde_json::{json, Value};

use crate::archives::{count, forger, json_of, played_event, resign};
use crate::case_fixtures::ok;
use crate::helpers::{problem, spawn_app};

#[actix_web::test]
async fn an_archive_beyond_the_routes_limits_is_refused_and_one_at_them_imports() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let archive = json_of(&a, &path, Some(&e.org)).await;
    let content = &archive["content"];
    let committee = content["staff"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["role"] == "appeals_committee")
        .count();
    assert_eq!(committee, 3, "the fixture's committee is full");
    let organiser = content["staff"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["role"] == "organiser")
        .unwrap()
        .clone();
    let before = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
    );
    type Forge = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Forge, &str)> = vec![
        (
            "51 rounds",
            Box::new(|c| {
                let first = c["rounds"][0].clone();
                let rounds = c["rounds"].as_array_mut().unwrap();
                while rounds.len() < 51 {
                    let mut r = first.clone();
                    r["id"] = json!(900_000 + rounds.len());
                    r["number"] = json!(rounds.len() + 1);
                    rounds.push(r);
                }
            }),
            "rounds",
        ),
        (
            "a round numbered out of turn",
            Box::new(|c| c["rounds"][1]["number"] = json!(7)),
            "rounds[1].number",
        ),
        (
            "two rounds of one number",
            Box::new(|c| c["rounds"][1]["number"] = c["rounds"][0]["number"].clone()),
            "rounds[1].number",
        ),
        (
            "a fourth member of the appeals committee",
            Box::new(move |c| {
                let mut s = organiser.clone();
                s["role"] = json!("appeals_committee");
                c["staff"].as_array_mut().unwrap().push(s);
            }),
            "staff",
        ),
        (
            "51 planned rounds",
            Box::new(|c| c["tournament"]["planned_rounds"] = json!(51)),
            "tournament.planned_rounds",
        ),
        (
            "no planned round",
            Box::new(|c| c["tournament"]["planned_rounds"] = json!(0)),
            "tournament.planned_rounds",
        ),
        (
            "a name of 201 characters",
            Box::new(|c| c["tournament"]["name"] = json!("n".repeat(201))),
            "tournament.name",
        ),
        (
            "1001 prize places",
            Box::new(|c| c["tournament"]["prize_places"] = json!(1001)),
            "tournament.prize_places",
        ),
        (
            "1001 qualification places",
            Box::new(|c| c["tournament"]["qualification_places"] = json!(1001)),
            "tournament.qualification_places",
        ),
        (
            "an appeal window over a week",
            Box::new(|c| c["tournament"]["appeal_window_minutes"] = json!(10081)),
            "tournament.appeal_window_minutes",
        ),
        (
            "a seeding rating over 10000",
            Box::new(|c| c["registrations"][0]["seeding_rating"] = json!(10000.5)),
            "registrations[0].seeding_rating",
        ),
        (
            "a negative seeding rating",
            Box::new(|c| c["registrations"][1]["seeding_rating"] = json!(-1)),
            "registrations[1].seeding_rating",
        ),
        (
            "over 100000 rated games",
            Box::new(|c| c["registrations"][0]["seeding_rated_games"] = json!(100_001)),
            "registrations[0].seeding_rated_games",
        ),
    ];
    let trusted_forger = forger().public_hex();
    let send = |archive: Value| {
        let body = json!({"archive": archive, "trust_key": trusted_forger});
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
    };
    for (what, forge, field) in cases {
        let mut changed = archive.clone();
        forge(&mut changed["content"]);
        resign(&mut changed);
        let p = problem(send(changed).await, 422).await;
        let at = format!("archive.content.{field}");
        assert_eq!(p["errors"][0]["field"], at.as_str(), "{what}: {p}");
    }
    let after = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
    );
    assert_eq!(before, after, "nothing was written");
    // At every limit (and with its full committee of three) it imports.
    let mut at_limits = archive.clone();
    let c = &mut at_limits["content"];
    c["tournament"]["planned_rounds"] = json!(50);
    c["tournament"]["name"] = json!("n".repeat(200));
    c["tournament"]["prize_places"] = json!(1000);
    c["tournament"]["qualification_places"] = json!(1000);
    c["tournament"]["appeal_window_minutes"] = json!(10080);
    c["registrations"][0]["seeding_rating"] = json!(10000);
    c["registrations"][0]["seeding_rated_games"] = json!(100_000);
    c["registrations"][1]["seeding_rating"] = json!(0);
    resign(&mut at_limits);
    let tid = ok(send(at_limits).await, 201).await["tournament_id"].clone();
    let t = json_of(&b, &format!("/api/v1/tournaments/{tid}"), Some(&admin_b)).await;
    assert_eq!(t["planned_rounds"], 50, "{t}");
}
