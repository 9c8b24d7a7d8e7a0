//! What a check-in may bring back (issue 32, item 6, held to what a change here makes): the
//! settings it changes pass the very checks of `PATCH /tournaments/{id}` (one copy of each
//! limit, the same detail, the archive's field named), and the people erased here while the
//! tournament ran at the venue stay erased, in the content kept for the check-in and after it.

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::archives::{forger, resign};
use crate::case_fixtures::ok;
use crate::checkouts::{check_in_body, run_at_venue};
use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{fields, problem, spawn_app, TestApp};

/// A tournament with a round played, checked out and run at the venue: (tournament id,
/// organiser token, the venue's archive, the maps back with the venue's key).
pub(crate) async fn checked_out(
    central: &TestApp,
    venue: &TestApp,
    players: usize,
) -> (i64, String, Value, Value) {
    let (tid, org, referee, _) = event(central, "agricola_norway", players).await;
    let r1 = new_round(central, tid, &org, json!({"method": "random"})).await;
    play_round(central, tid, &referee, &r1, |p| 10 + p % 7).await;
    let path = format!("/api/v1/tournaments/{tid}/checkout");
    let out = ok(
        central
            .post(&path, Some(&org), json!({"runs_at": "Hyttetur"}))
            .await,
        200,
    )
    .await;
    let admin_v = venue.admin_token().await;
    let (vtid, back) = run_at_venue(venue, &admin_v, &out["archive"], central).await;
    let played = ok(
        venue
            .get(
                &format!("/api/v1/tournaments/{vtid}/archive"),
                Some(&admin_v),
            )
            .await,
        200,
    )
    .await;
    (tid, org, played, back)
}

/// The errors of a problem as (field, message).
fn errors(p: &Value) -> Vec<(String, String)> {
    p["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (s("field"), s("message"))
        })
        .collect()
}

/// Every value a PATCH refuses is refused by a check-in that writes it, with the PATCH's own
/// detail and the archive's field (a PATCH's `days` is the archive's `ends_on`); the values at
/// the edges of every limit, which a PATCH takes, a check-in takes too.
#[actix_web::test]
async fn a_check_in_holds_each_setting_to_the_patchs_own_checks() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, played, mut back) = checked_out(&central, &venue, 8).await;
    back["trust_key"] = json!(forger().public_hex());
    let tournament = format!("/api/v1/tournaments/{tid}");
    let checkin = format!("{tournament}/checkin");
    let send = |columns: &[(&str, Value)]| {
        let mut forged = played.clone();
        for (c, v) in columns {
            forged["content"]["tournament"][*c] = v.clone();
        }
        resign(&mut forged);
        check_in_body(&forged, &back)
    };
    let starts_on = played["content"]["tournament"]["starts_on"]
        .as_str()
        .unwrap();
    let start = chrono::NaiveDate::parse_from_str(starts_on, "%Y-%m-%d").unwrap();
    let day = |n: u64| json!((start + chrono::Days::new(n)).to_string());
    let version = ok(central.get(&tournament, None).await, 200).await["version"].clone();
    // (the PATCH's body, the archive's columns)
    let refused: Vec<(Value, Vec<(&str, Value)>)> = vec![
        (
            json!({"name": "x".repeat(201)}),
            vec![("name", json!("x".repeat(201)))],
        ),
        (json!({"name": " "}), vec![("name", json!(" "))]),
        (json!({"name": "a\u{7}b"}), vec![("name", json!("a\u{7}b"))]),
        (
            json!({"game": "g".repeat(101)}),
            vec![("game", json!("g".repeat(101)))],
        ),
        (
            json!({"venue": "v".repeat(201)}),
            vec![("venue", json!("v".repeat(201)))],
        ),
        (json!({"venue": ""}), vec![("venue", json!(""))]),
        (
            json!({"planned_rounds": 51}),
            vec![("planned_rounds", json!(51))],
        ),
        (
            json!({"planned_rounds": 0}),
            vec![("planned_rounds", json!(0))],
        ),
        (
            json!({"appeal_window_minutes": 10081}),
            vec![("appeal_window_minutes", json!(10081))],
        ),
        (
            json!({"appeal_window_minutes": -1}),
            vec![("appeal_window_minutes", json!(-1))],
        ),
        (json!({"prize_places": 0}), vec![("prize_places", json!(0))]),
        (
            json!({"prize_places": 1001}),
            vec![("prize_places", json!(1001))],
        ),
        (
            json!({"qualification_places": -1}),
            vec![("qualification_places", json!(-1))],
        ),
        (
            json!({"qualification_places": 1001}),
            vec![("qualification_places", json!(1001))],
        ),
        (json!({"country": "XYZ"}), vec![("country", json!("XYZ"))]),
        (json!({"country": "N1"}), vec![("country", json!("N1"))]),
        (
            json!({"time_zone": "Mars/Olympus"}),
            vec![("time_zone", json!("Mars/Olympus"))],
        ),
        (json!({"days": 61}), vec![("ends_on", day(60))]),
        (
            json!({"days": 0}),
            vec![("ends_on", day(0).clone()), ("starts_on", day(1))],
        ),
        (
            json!({"starts_on": "0000-06-01", "days": 1}),
            vec![
                ("starts_on", json!("0000-06-01")),
                ("ends_on", json!("0000-06-01")),
            ],
        ),
    ];
    for (body, columns) in refused {
        let r = central
            .patch_if_match(&tournament, Some(&org), &version, body.clone())
            .await;
        let by_patch = errors(&problem(r, 422).await);
        assert_eq!(by_patch.len(), 1, "{body}: {by_patch:?}");
        let r = central.post(&checkin, Some(&org), send(&columns)).await;
        let by_check_in = errors(&problem(r, 422).await);
        let (field, message) = by_patch[0].clone();
        let field = match field.as_str() {
            "days" => "ends_on".to_string(),
            f => f.to_string(),
        };
        let at = format!("archive.content.tournament.{field}");
        assert_eq!(by_check_in, vec![(at, message)], "{body}");
    }
    let t = ok(central.get(&tournament, None).await, 200).await;
    assert_eq!(t["checked_out_to"], "Hyttetur", "nothing was written");
    // A value a PATCH takes but stores otherwise is written as a PATCH stores it.
    for (c, v, stored) in [
        ("country", "se", "\"SE\""),
        ("name", " Hyttetur ", "\"Hyttetur\""),
    ] {
        let r = central
            .post(&checkin, Some(&org), send(&[(c, json!(v))]))
            .await;
        let p = problem(r, 422).await;
        assert_eq!(
            fields(&p),
            vec![format!("archive.content.tournament.{c}")],
            "{p}"
        );
        assert!(errors(&p)[0].1.ends_with(stored), "{p}");
    }
    // Every limit's edge, which a PATCH takes, is checked in.
    let edges = [
        ("name", json!("N".repeat(200))),
        ("game", json!("G".repeat(100))),
        ("venue", Value::Null),
        ("planned_rounds", json!(50)),
        ("appeal_window_minutes", json!(10080)),
        ("prize_places", json!(1000)),
        ("qualification_places", json!(1000)),
        ("country", json!("SE")),
        ("ends_on", day(59)),
    ];
    let r = central.post(&checkin, Some(&org), send(&edges)).await;
    assert_eq!(ok(r, 200).await["state"], "in");
    let t = ok(central.get(&tournament, None).await, 200).await;
    for (c, v) in edges {
        assert_eq!(t[c], v, "{c}");
    }
    assert_eq!(t["days"], 60);
}

#[derive(QueryableByName)]
struct Kept {
    #[diesel(sql_type = diesel::sql_types::Text)]
    base: String,
}

/// The content the central instance keeps of its check-outs, as text.
fn kept_content(app: &TestApp, tid: i64) -> String {
    let mut conn = diesel::PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query(format!(
        "SELECT string_agg(base::text, ' ') AS base FROM tournament_checkouts \
         WHERE tournament_id = {tid}"
    ))
    .get_result::<Kept>(&mut conn)
    .unwrap()
    .base
}

/// `map` without the entry mapping onto `here`.
fn without(map: &Value, here: i64) -> Value {
    let mut m = map.as_object().unwrap().clone();
    m.retain(|_, v| v.as_i64() != Some(here));
    assert_eq!(
        m.len() + 1,
        map.as_object().unwrap().len(),
        "{map} maps onto {here}"
    );
    Value::Object(m)
}

/// A player who erases her account while her tournament runs at the venue stays erased: the
/// content kept for the check-in loses her name, club, country and username as her player and
/// account here do, and the check-in brings none of them back: it refuses to create her anew
/// from the venue's copy (her name on a new player or account) and maps the venue's copy onto
/// her pseudonymised player, whose results stay hers.
#[actix_web::test]
async fn a_player_erased_during_a_check_out_stays_erased_after_the_check_in() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let admin = central.admin_token().await;
    let (tid, org, referee, _) = event(&central, "agricola_norway", 7).await;
    let (uid, token) = central.user("kowalska").await;
    let r = central
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Ania Kowalska", "club": "Krakowski Klub", "country": "PL", "user_id": uid}),
        )
        .await;
    let pid = ok(r, 201).await["id"].as_i64().unwrap();
    let r = central
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&token),
            json!({"player_id": pid}),
        )
        .await;
    ok(r, 201).await;
    let r1 = new_round(&central, tid, &org, json!({"method": "random"})).await;
    play_round(&central, tid, &referee, &r1, |p| 10 + p % 7).await;
    let out = ok(
        central
            .post(
                &format!("/api/v1/tournaments/{tid}/checkout"),
                Some(&org),
                json!({"runs_at": "Hyttetur"}),
            )
            .await,
        200,
    )
    .await;
    let kept = kept_content(&central, tid);
    assert!(
        kept.contains("Ania Kowalska") && kept.contains("kowalska"),
        "{kept}"
    );
    let admin_v = venue.admin_token().await;
    let (vtid, back) = run_at_venue(&venue, &admin_v, &out["archive"], &central).await;
    let v2 = new_round(&venue, vtid, &admin_v, json!({"method": "random"})).await;
    play_round(&venue, vtid, &admin_v, &v2, |p| 3 + p % 5).await;
    let played = ok(
        venue
            .get(
                &format!("/api/v1/tournaments/{vtid}/archive"),
                Some(&admin_v),
            )
            .await,
        200,
    )
    .await;

    // She erases her account while the tournament runs at the venue.
    let erased = ok(central.erase_me(&token).await, 200).await;
    assert_eq!(erased["player"], "pseudonymised");
    let kept = kept_content(&central, tid);
    for gone in ["Ania", "Kowalska", "kowalska", "Krakowski", "\"PL\""] {
        assert!(
            !kept.contains(gone),
            "the kept content still holds {gone}: {kept}"
        );
    }
    assert!(kept.contains(&format!("Player {pid} (erased)")), "{kept}");

    // A check-in that would create her anew from the venue's copy is refused, nothing written.
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let mut no_player = back.clone();
    no_player["player_map"] = without(&back["player_map"], pid);
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &no_player))
        .await;
    let p = problem(r, 422).await;
    assert_eq!(fields(&p), vec!["player_map"], "{p}");
    let mut no_account = back.clone();
    no_account["user_map"] = without(&back["user_map"], uid);
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &no_account))
        .await;
    let p = problem(r, 422).await;
    assert_eq!(fields(&p), vec!["user_map"], "{p}");
    let t = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(t["checked_out_to"], "Hyttetur", "nothing was written");

    // Mapped back onto her, the venue's results are checked in under her pseudonym.
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &back))
        .await;
    assert_eq!(ok(r, 200).await["state"], "in");
    let kept = kept_content(&central, tid);
    assert!(
        !kept.contains("Kowalska") && !kept.contains("kowalska"),
        "{kept}"
    );
    let p = ok(
        central.get(&format!("/api/v1/players/{pid}"), None).await,
        200,
    )
    .await;
    assert_eq!(p["name"], format!("Player {pid} (erased)"));
    assert!(p["club"].is_null() && p["country"].is_null(), "{p}");
    let standings = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
            .await,
        200,
    )
    .await
    .to_string();
    assert!(!standings.contains("Kowalska"), "{standings}");
    assert!(
        standings.contains(&format!("Player {pid} (erased)")),
        "{standings}"
    );
    let mut conn = diesel::PgConnection::establish(&central.database_url).unwrap();
    for (what, table, column) in [
        ("name", "players", "name"),
        ("username", "users", "username"),
    ] {
        let n: i64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(&format!(
            "(SELECT count(*) FROM {table} WHERE {column} ILIKE '%kowalska%')"
        )))
        .get_result(&mut conn)
        .unwrap();
        assert_eq!(n, 0, "her {what} came back");
    }
}

/// The staff row of `role` in the venue's archive whose account the maps back name (`mapped`)
/// or not (the venue's own organiser, new here), as a row of `as_role`.
fn staff_row(played: &Value, back: &Value, role: &str, mapped: bool, as_role: &str) -> Value {
    let map = back["user_map"].as_object().unwrap();
    let mut row = played["content"]["staff"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["role"] == role && map.contains_key(&r["user_id"].to_string()) == mapped)
        .unwrap_or_else(|| panic!("no {role} (mapped: {mapped}) in {played}"))
        .clone();
    row["role"] = json!(as_role);
    row
}

/// The venue's archive with `rows` added to its staff (and its first row of `drop_role` left
/// out), re-signed by the forger.
fn with_staff(played: &Value, rows: Vec<Value>, drop_role: Option<&str>) -> Value {
    let mut forged = played.clone();
    let staff = forged["content"]["staff"].as_array_mut().unwrap();
    if let Some(role) = drop_role {
        let at = staff.iter().position(|r| r["role"] == role).unwrap();
        staff.remove(at);
    }
    staff.extend(rows);
    resign(&mut forged);
    forged
}

/// Once a round is drawn the appeals committee is fixed (seed 000 section (4)): a check-in that
/// appoints a member (here the organiser) is refused as an appointment here is, nothing written.
#[actix_web::test]
async fn a_check_in_cannot_appoint_to_a_committee_fixed_before_it_was_checked_out() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, played, back) = checked_out(&central, &venue, 8).await;
    let mut forged_back = back.clone();
    forged_back["trust_key"] = json!(forger().public_hex());
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let member = staff_row(&played, &back, "organiser", true, "appeals_committee");
    let forged = with_staff(&played, vec![member], None);
    let r = central
        .post(&checkin, Some(&org), check_in_body(&forged, &forged_back))
        .await;
    let p = problem(r, 409).await;
    assert_eq!(fields(&p), vec!["archive.content.staff"], "{p}");
    let staff = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}/staff"), None)
            .await,
        200,
    )
    .await;
    assert!(!staff.to_string().contains("appeals_committee"), "{staff}");
    // The venue's own archive, its committee as checked out, is checked in.
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &back))
        .await;
    assert_eq!(ok(r, 200).await["state"], "in");
}

/// Before the tournament starts a check-in may change the committee, as an appointment here
/// may, within the same rules: at most three members, no referee among them.
#[actix_web::test]
async fn a_check_in_before_the_start_keeps_the_committees_rules() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, _, _) = event(&central, "agricola_norway", 8).await;
    for name in ["member_one", "member_two"] {
        let (uid, _) = central.user(name).await;
        let r = central
            .post(
                &format!("/api/v1/tournaments/{tid}/staff"),
                Some(&org),
                json!({"user_id": uid, "role": "appeals_committee"}),
            )
            .await;
        ok(r, 201).await;
    }
    let out = ok(
        central
            .post(
                &format!("/api/v1/tournaments/{tid}/checkout"),
                Some(&org),
                json!({"runs_at": "Hyttetur"}),
            )
            .await,
        200,
    )
    .await;
    let admin_v = venue.admin_token().await;
    let (vtid, mut back) = run_at_venue(&venue, &admin_v, &out["archive"], &central).await;
    back["trust_key"] = json!(forger().public_hex());
    let played = ok(
        venue
            .get(
                &format!("/api/v1/tournaments/{vtid}/archive"),
                Some(&admin_v),
            )
            .await,
        200,
    )
    .await;
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let as_member =
        |role: &str, mapped: bool| staff_row(&played, &back, role, mapped, "appeals_committee");
    let refused = [
        // The referee on the committee.
        with_staff(&played, vec![as_member("referee", true)], None),
        // Four members: the organiser and the venue's own organiser (new here) join two.
        with_staff(
            &played,
            vec![as_member("organiser", true), as_member("organiser", false)],
            None,
        ),
    ];
    // Refused by the checks every archive passes (an import's too): 422 naming the staff.
    for archive in refused {
        let r = central
            .post(&checkin, Some(&org), check_in_body(&archive, &back))
            .await;
        let p = problem(r, 422).await;
        let named = fields(&p);
        assert!(
            !named.is_empty() && named.iter().all(|f| f.starts_with("archive.content.staff")),
            "{p}"
        );
    }
    // A member dismissed and the organiser appointed: as an appointment here before the start.
    let changed = with_staff(
        &played,
        vec![as_member("organiser", true)],
        Some("appeals_committee"),
    );
    let r = central
        .post(&checkin, Some(&org), check_in_body(&changed, &back))
        .await;
    assert_eq!(ok(r, 200).await["state"], "in");
    let staff = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}/staff"), None)
            .await,
        200,
    )
    .await;
    let committee: Vec<&Value> = staff["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["role"] == "appeals_committee")
        .collect();
    assert_eq!(committee.len(), 2, "{staff}");
    assert!(
        committee.iter().any(|s| s["username"] == "organiser"),
        "{staff}"
    );
}
