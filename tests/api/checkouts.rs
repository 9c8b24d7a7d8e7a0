//! Issue 32, item 6: a tournament checked out to a venue's instance (another service on
//! another database) is read-only centrally and says where it runs, is played at the venue from
//! its archive, and is checked back in; a check-in after a central change is refused with the
//! differences; an admin breaks a stale check-out with a reason.

use serde_json::{json, Value};

use crate::archives::{forger, resign};
use crate::case_fixtures::ok;
use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{fields, problem, spawn_app, TestApp};

async fn standings_by_name(app: &TestApp, tid: i64) -> Vec<Value> {
    let s = ok(
        app.get(&format!("/api/v1/tournaments/{tid}/standings"), None)
            .await,
        200,
    )
    .await;
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["player_name"], r["place"], r["tp"]]))
        .collect()
}

/// Imports a check-out's archive at the venue (trusting the central key); returns (venue
/// tournament id, the maps back for the check-in: `player_map` and `user_map`, venue id ->
/// central id, and the venue's key for `trust_key`).
pub(crate) async fn run_at_venue(
    venue: &TestApp,
    admin: &str,
    archive: &Value,
    central: &TestApp,
) -> (i64, Value) {
    let body = json!({"archive": archive, "trust_key": central.archive_key().await});
    let r = venue
        .post("/api/v1/tournament-imports", Some(admin), body)
        .await;
    let out = ok(r, 201).await;
    let back = |key: &str| -> Value {
        out[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["id"].to_string(), m["archive_id"].clone()))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let maps = json!({"player_map": back("players"), "user_map": back("users"),
                      "trust_key": venue.archive_key().await});
    (out["tournament_id"].as_i64().unwrap(), maps)
}

/// A check-in's body: the venue's archive with the maps back and the venue's key.
pub(crate) fn check_in_body(played: &Value, maps: &Value) -> Value {
    let mut body = maps.clone();
    body["archive"] = played.clone();
    body
}

#[actix_web::test]
async fn a_tournament_runs_at_the_venue_and_is_checked_back_in() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, referee, _) = event(&central, "agricola_norway", 8).await;
    let r1 = new_round(&central, tid, &org, json!({"method": "random"})).await;
    play_round(&central, tid, &referee, &r1, |p| 10 + p % 7).await;

    let path = format!("/api/v1/tournaments/{tid}/checkout");
    problem(
        central
            .post(&path, Some(&referee), json!({"runs_at": "x"}))
            .await,
        403,
    )
    .await;
    let p = problem(
        central
            .post(&path, Some(&org), json!({"runs_at": ""}))
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["runs_at"]);
    let out = ok(
        central
            .post(&path, Some(&org), json!({"runs_at": "laptop at Hyttetur"}))
            .await,
        200,
    )
    .await;
    assert_eq!(out["checkout"]["state"], "out");
    let archive = out["archive"].clone();
    // Central reads say where it runs; every write is refused, naming the place.
    let t = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(t["checked_out_to"], "laptop at Hyttetur");
    let p = problem(
        central
            .post(
                &format!("/api/v1/tournaments/{tid}/rounds"),
                Some(&org),
                json!({"method": "random"}),
            )
            .await,
        409,
    )
    .await;
    assert_eq!(fields(&p), vec!["tournament"], "{p}");
    assert!(p["detail"].as_str().unwrap().contains("Hyttetur"), "{p}");
    let table = r1["draw"]["tables"][0].clone();
    let seats: Vec<Value> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"player_id": p, "score": 50}))
        .collect();
    let result = format!(
        "/api/v1/tournaments/{tid}/rounds/1/tables/{}/result",
        table["number"]
    );
    let r = central
        .put_if_match(
            &result,
            Some(&referee),
            1,
            json!({"seats": seats, "reason": "x"}),
        )
        .await;
    assert_eq!(problem(r, 409).await["errors"][0]["field"], "tournament");
    let r = central
        .patch_if_match(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&org),
            &t["version"],
            json!({"venue": "Oslo"}),
        )
        .await;
    problem(r, 409).await;
    problem(
        central
            .post(&path, Some(&org), json!({"runs_at": "again"}))
            .await,
        409,
    )
    .await;

    // The venue plays round 2 without a connection.
    let admin_v = venue.admin_token().await;
    let (vtid, back) = run_at_venue(&venue, &admin_v, &archive, &central).await;
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

    // Checked back in: the central copy is the venue's, and writable again.
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &back))
        .await;
    let done = ok(r, 200).await;
    assert_eq!(done["state"], "in");
    assert_eq!(
        standings_by_name(&central, tid).await,
        standings_by_name(&venue, vtid).await
    );
    let t = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}"), None)
            .await,
        200,
    )
    .await;
    assert!(t["checked_out_to"].is_null());
    assert_eq!(
        t["created_by"], archive["content"]["tournament"]["created_by"],
        "the central owner stays"
    );
    let r2 = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}/rounds/2"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(r2["seed"], v2["seed"]);
    let r3 = new_round(&central, tid, &org, json!({"method": "random"})).await;
    assert_eq!(r3["number"], 3);
    // Checking in twice is refused.
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &back))
        .await;
    assert_eq!(problem(r, 409).await["errors"][0]["field"], "tournament");
}

#[actix_web::test]
async fn a_check_in_after_a_central_change_is_refused_and_the_organiser_ends_a_stale_check_out() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, referee, players) = event(&central, "agricola_norway", 8).await;
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
    let admin_v = venue.admin_token().await;
    let (vtid, back) = run_at_venue(&venue, &admin_v, &out["archive"], &central).await;
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

    // Only the tournament's organisers and admins end it (issue 40, item 5), and only with a
    // reason; a stranger is refused before the reason is read.
    let brk = format!("/api/v1/tournaments/{tid}/checkout/break");
    let (_, stranger) = central.user("someone_else").await;
    for who in [&stranger, &referee] {
        problem(
            central.post(&brk, Some(who), json!({"reason": " "})).await,
            403,
        )
        .await;
    }
    let p = problem(
        central.post(&brk, Some(&org), json!({"reason": ""})).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["reason"]);
    let admin = central.admin_token().await;
    let p = problem(
        central
            .post(&brk, Some(&admin), json!({"reason": " "}))
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["reason"]);
    let broken = ok(
        central
            .post(
                &brk,
                Some(&org),
                json!({"reason": "the venue laptop was lost"}),
            )
            .await,
        200,
    )
    .await;
    assert_eq!(broken["state"], "broken");
    assert_eq!(broken["reason"], "the venue laptop was lost");
    problem(
        central
            .post(&brk, Some(&admin), json!({"reason": "again"}))
            .await,
        409,
    )
    .await;
    // Writable again: the referee records a penalty centrally.
    let r = central
        .post(
            &format!("/api/v1/tournaments/{tid}/penalties"),
            Some(&referee),
            json!({"player_id": players[0], "kind": "warning", "reason": "late"}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    // The venue's copy cannot replace it now: the differences are named.
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let r = central
        .post(&checkin, Some(&org), check_in_body(&played, &back))
        .await;
    let p = problem(r, 409).await;
    assert_eq!(fields(&p), vec!["archive"], "{p}");
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("penalties: 0 rows then, 1 now"),
        "{p}"
    );
    let pen = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}/penalties"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(pen["total"], 1, "the refused check-in changed nothing");
    // A forged venue archive is refused by the import's checks.
    let mut forged = played.clone();
    forged["content"]["results"][0]["seats"][0]["score"] = json!(99);
    let r = central
        .post(&checkin, Some(&org), check_in_body(&forged, &back))
        .await;
    assert_eq!(
        problem(r, 422).await["errors"][0]["field"],
        "archive.digest"
    );
}

/// The venue's archive is signed by whatever key the organiser names, so a check-in takes only
/// what a change here could make: the ruleset, its overrides and the table size are fixed when
/// the tournament is created (409), a setting a PATCH changes stays within the PATCH's limits
/// (422 naming the archive's field), and nothing is written on a refusal; a change within them
/// is checked in.
#[actix_web::test]
async fn a_check_in_keeps_the_fixed_settings_and_the_limits_of_a_change() {
    let central = spawn_app().await;
    let venue = spawn_app().await;
    let (tid, org, referee, _) = event(&central, "agricola_norway", 8).await;
    let r1 = new_round(&central, tid, &org, json!({"method": "random"})).await;
    play_round(&central, tid, &referee, &r1, |p| 10 + p % 7).await;
    let path = format!("/api/v1/tournaments/{tid}/checkout");
    let out = ok(
        central
            .post(&path, Some(&org), json!({"runs_at": "Hyttetur"}))
            .await,
        200,
    )
    .await;
    let admin_v = venue.admin_token().await;
    let (vtid, mut back) = run_at_venue(&venue, &admin_v, &out["archive"], &central).await;
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
    // The organiser edits the venue's archive and signs it with a key of their own.
    back["trust_key"] = json!(forger().public_hex());
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let send = |column: &str, value: Value| {
        let mut forged = played.clone();
        forged["content"]["tournament"][column] = value;
        resign(&mut forged);
        check_in_body(&forged, &back)
    };
    let fixed = [
        ("ruleset", json!("ashes_league")),
        ("ruleset_overrides", json!({"clarification_bonus": 5})),
        ("table_size", json!(5)),
    ];
    for (column, value) in fixed {
        let r = central
            .post(&checkin, Some(&org), send(column, value))
            .await;
        let p = problem(r, 409).await;
        let at = format!("archive.content.tournament.{column}");
        assert_eq!(fields(&p), vec![at.as_str()], "{p}");
    }
    let starts_on = played["content"]["tournament"]["starts_on"]
        .as_str()
        .unwrap();
    let far =
        chrono::NaiveDate::parse_from_str(starts_on, "%Y-%m-%d").unwrap() + chrono::Days::new(60);
    let beyond = [
        ("name", json!("x".repeat(201))),
        ("name", json!(" ")),
        ("name", Value::Null),
        ("game", json!("g".repeat(101))),
        ("venue", json!("v".repeat(201))),
        ("venue", json!("")),
        ("planned_rounds", json!(51)),
        ("planned_rounds", json!(0)),
        ("appeal_window_minutes", json!(10081)),
        ("appeal_window_minutes", json!(-1)),
        ("prize_places", json!(0)),
        ("qualification_places", json!(1001)),
        ("country", json!("XYZ")),
        ("country", json!("no")),
        ("time_zone", json!("Mars/Olympus")),
        ("ends_on", json!(far.to_string())),
    ];
    for (column, value) in beyond {
        let r = central
            .post(&checkin, Some(&org), send(column, value.clone()))
            .await;
        let p = problem(r, 422).await;
        let at = format!("archive.content.tournament.{column}");
        assert_eq!(fields(&p), vec![at.as_str()], "{column} = {value}: {p}");
    }
    let t = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(t["checked_out_to"], "Hyttetur", "nothing was written");
    assert_eq!(t["ruleset"], "agricola_norway");
    // A change an organiser makes here is checked in: a new name within the limits.
    let r = central
        .post(
            &checkin,
            Some(&org),
            send("name", json!("Hyttetur (venue)")),
        )
        .await;
    assert_eq!(ok(r, 200).await["state"], "in");
    let t = ok(
        central
            .get(&format!("/api/v1/tournaments/{tid}"), None)
            .await,
        200,
    )
    .await;
    assert_eq!(t["name"], "Hyttetur (venue)");
    assert!(t["checked_out_to"].is_null());
}

#[derive(diesel::QueryableByName)]
struct Unguarded {
    #[diesel(sql_type = diesel::sql_types::Text)]
    table_name: String,
}

/// Every table that belongs to a tournament (a `tournament_id`, `round_id` or `case_id`
/// column) carries the check-out guard, or is named here with the reason it may change while
/// the tournament runs elsewhere: a table added later cannot slip past the check-out.
#[actix_web::test]
async fn every_table_of_a_tournament_is_guarded_while_it_is_checked_out() {
    use diesel::prelude::*;
    let app = spawn_app().await;
    let mut conn = diesel::PgConnection::establish(&app.database_url).unwrap();
    let exempt = [
        // An account's key scoped to a tournament: the account's, not the event's.
        "api_keys",
        // The pool's log and the pool keeper's decisions: the pool rates at check-in.
        "rating_changes",
        "rating_decisions",
        // The check-out itself, and the live feed the check-in writes to.
        "tournament_checkouts",
        "tournament_events",
        // An integrator's subscription: configuration, not the event.
        "webhook_endpoints",
    ];
    let unguarded: Vec<String> = diesel::sql_query(
        "SELECT DISTINCT c.table_name::text AS table_name
         FROM information_schema.columns c
         JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name
         WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
           AND c.column_name IN ('tournament_id', 'round_id', 'case_id')
           AND NOT EXISTS (
               SELECT 1 FROM pg_trigger g
               WHERE g.tgrelid = format('public.%I', c.table_name)::regclass
                 AND g.tgname = 'checkout_guard')
         ORDER BY 1",
    )
    .load::<Unguarded>(&mut conn)
    .unwrap()
    .into_iter()
    .map(|u| u.table_name)
    .filter(|t| !exempt.contains(&t.as_str()))
    .collect();
    assert!(unguarded.is_empty(), "not guarded: {unguarded:?}");
}
