//! A check-in takes an archive signed by whatever key its caller names (the venue's), so an
//! organiser can edit the checked-out archive and sign it with a key of their own. It is held to
//! what a change here is held to: an accepted tournament's dates, time zone and completed
//! rounds' times of play move only for a keeper or an admin (409 naming the archive's field,
//! the attempt kept in the rating decisions); a round not completed here is played within the
//! playing days; the status only takes steps an organiser takes by hand; the national rank and
//! announcement date stay; `user_map` maps only onto accounts the checked-out archive named or
//! onto the caller.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

use super::support::*;

fn forger() -> tourney::services::archives::ArchiveKeys {
    tourney::services::archives::ArchiveKeys::new([9; 32], Vec::new())
}

/// The archive with `edit` applied to its content, signed by the forger; the check-in's body
/// naming the forger's key, with `user_map`.
fn forged(archive: &Value, edit: impl FnOnce(&mut Value), user_map: Value) -> Value {
    let mut a = archive.clone();
    edit(&mut a["content"]);
    let content: tourney::services::archives::ArchiveContent =
        serde_json::from_value(a["content"].clone()).unwrap();
    let digest = tourney::services::archives::digest_of(&content).unwrap();
    let version = a["version"].as_u64().unwrap() as u32;
    let signature = forger().sign("tourney.tournament-archive", version, &digest);
    a["digest"] = json!(digest);
    a["signature"] = serde_json::to_value(signature).unwrap();
    json!({"archive": a, "trust_key": forger().public_hex(), "user_map": user_map})
}

/// The index of round `number` in the archive's rounds.
fn round_at(archive: &Value, number: i64) -> usize {
    let rounds = archive["content"]["rounds"].as_array().unwrap();
    rounds.iter().position(|r| r["number"] == number).unwrap()
}

/// The tournament's rating decisions of `kind`: (field, decided_by).
async fn decisions(app: &TestApp, tid: i64, kind: &str) -> Vec<(String, i64)> {
    let admin = app.admin_token().await;
    let path = format!("/api/v1/tournaments/{tid}/rating-decisions?limit=200");
    let page = get_json(app, &path, Some(&admin)).await;
    let items = page["items"].as_array().unwrap();
    items
        .iter()
        .filter(|d| d["kind"] == kind)
        .map(|d| {
            let field = d["field"].as_str().unwrap().to_string();
            (field, d["decided_by"].as_i64().unwrap())
        })
        .collect()
}

#[actix_web::test]
async fn a_forged_check_in_is_held_to_what_a_change_here_is() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let admin_id = get_json(&app, "/api/v1/me", Some(&admin)).await["id"]
        .as_i64()
        .unwrap();
    let pool_id = agricola_pool(&app, &admin, "Agricola Norge", json!({})).await;
    let (keeper_id, keeper_token) = keeper(&app, &admin, pool_id, "rating.officer").await;
    let (org_id, org) = app.user("club.organiser").await;
    let (victim_id, _) = app.user("bystander").await;
    let field = players(&app, &admin, "Player", 4).await;
    let day = days_ago(30);
    let tid = id(&rated_tournament(&app, &org, Some(pool_id), &day).await);
    open_with(&app, tid, &org, &field).await;
    accept(&app, &keeper_token, pool_id, tid).await;
    play(&app, tid, &org, &at(&day, 12), &field).await;
    draw(&app, tid, &org, &at(&day, 15)).await;
    let before = tournament(&app, tid, &org).await;
    let out = app
        .post(
            &format!("/api/v1/tournaments/{tid}/checkout"),
            Some(&org),
            json!({"runs_at": "Hyttetur"}),
        )
        .await;
    assert_eq!(out.status(), 200);
    let archive = out.json::<Value>().await.unwrap()["archive"].clone();
    assert_eq!(archive["content"]["tournament"]["status"], "running");
    let named: Vec<i64> = archive["content"]["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_i64().unwrap())
        .collect();
    assert!(
        named.contains(&keeper_id) && !named.contains(&admin_id) && !named.contains(&victim_id)
    );
    let (r1, r2) = (round_at(&archive, 1), round_at(&archive, 2));
    let checkin = format!("/api/v1/tournaments/{tid}/checkin");
    let none = json!({});
    let set = |k: &'static str, v: Value| move |c: &mut Value| c["tournament"][k] = v;

    // The organiser alone: each refused, naming the archive's field; nothing is written.
    let earlier = days_ago(300);
    let refusals: Vec<(Value, u16, String)> = vec![
        (
            // Ten days earlier (within a change's limit of 60 days an event: 300 days
            // earlier is 422 on its length before the hold is asked).
            forged(
                &archive,
                set("starts_on", json!(days_ago(40))),
                none.clone(),
            ),
            409,
            "archive.content.tournament.starts_on".into(),
        ),
        (
            forged(&archive, set("ends_on", json!(days_ago(29))), none.clone()),
            409,
            "archive.content.tournament.ends_on".into(),
        ),
        (
            forged(
                &archive,
                set("time_zone", json!("America/New_York")),
                none.clone(),
            ),
            409,
            "archive.content.tournament.time_zone".into(),
        ),
        (
            forged(
                &archive,
                |c| c["rounds"][r1]["played_at"] = json!(at(&day, 8)),
                none.clone(),
            ),
            409,
            format!("archive.content.rounds[{r1}].played_at"),
        ),
        (
            forged(
                &archive,
                |c| c["rounds"][r2]["played_at"] = json!(at(&earlier, 12)),
                none.clone(),
            ),
            422,
            format!("archive.content.rounds[{r2}].played_at"),
        ),
        (
            forged(&archive, set("status", json!("draft")), none.clone()),
            409,
            "archive.content.tournament.status".into(),
        ),
        (
            forged(&archive, |_| {}, json!({org_id.to_string(): victim_id})),
            422,
            format!("user_map.{org_id}"),
        ),
    ];
    for (body, status, at_field) in refusals {
        refused_on(
            app.post(&checkin, Some(&org), body).await,
            status,
            &at_field,
        )
        .await;
    }
    let now = tournament(&app, tid, &org).await;
    assert_eq!(now["checked_out_to"], "Hyttetur");
    assert_eq!(now["starts_on"], before["starts_on"]);
    let refused = decisions(&app, tid, "time_change_refused").await;
    let fields: Vec<(&str, i64)> = refused.iter().map(|(f, by)| (f.as_str(), *by)).collect();
    assert_eq!(
        fields,
        [
            // The first start moves the start and (its end kept) the length.
            ("starts_on", org_id),
            ("days", org_id),
            ("days", org_id),
            ("time_zone", org_id),
            ("played_at", org_id)
        ]
    );

    // An admin moves it in time (kept in the decisions), finishes it and maps the keeper onto
    // themselves; the league's national rank and announcement date stay as they were here.
    let moved = days_ago(31);
    let body = forged(
        &archive,
        |c| {
            let t = &mut c["tournament"];
            t["starts_on"] = json!(moved);
            t["status"] = json!("finished");
            t["national_rank"] = json!(!before["national_rank"].as_bool().unwrap());
            t["announced_at"] = json!("2001-01-01T00:00:00Z");
        },
        json!({keeper_id.to_string(): admin_id, org_id.to_string(): org_id}),
    );
    let r = app.post(&checkin, Some(&admin), body).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let now = tournament(&app, tid, &admin).await;
    assert!(now["checked_out_to"].is_null());
    assert_eq!(now["starts_on"], moved);
    assert_eq!(now["status"], "finished");
    assert_eq!(now["national_rank"], before["national_rank"]);
    assert_eq!(now["announced_at"], before["announced_at"]);
    let made = decisions(&app, tid, "time_changed").await;
    let fields: Vec<(&str, i64)> = made.iter().map(|(f, by)| (f.as_str(), *by)).collect();
    assert_eq!(fields, [("starts_on", admin_id), ("days", admin_id)]);
}
