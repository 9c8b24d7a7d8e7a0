//! An archive's people stay as many people here as they were: two of its accounts (or players)
//! mapped onto one here are refused naming the map's entry, and its staff holds no referee who
//! also sits on the appeals committee (the staff route refuses that appointment). Before, an
//! import mapping the archive's referee and a committee member onto one account made that
//! account judge appeals against its own decisions.

use serde_json::{json, Value};

use crate::archives::{count, forger, json_of, played_event, resign};
use crate::case_fixtures::ok;
use crate::helpers::{problem, spawn_app};

fn staff_of(archive: &Value, role: &str) -> Vec<Value> {
    let staff = archive["content"]["staff"].as_array().unwrap();
    staff
        .iter()
        .filter(|s| s["role"] == role)
        .cloned()
        .collect()
}

#[actix_web::test]
async fn two_of_an_archives_people_never_become_one_here() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let path = format!("/api/v1/tournaments/{}/archive", e.tid);
    let archive = json_of(&a, &path, Some(&e.org)).await;
    let key_a = a.archive_key().await;
    let referee = staff_of(&archive, "referee")[0]["user_id"].clone();
    let member = staff_of(&archive, "appeals_committee")[0]["user_id"].clone();
    let (someone, _) = b.user("someone").await;
    let before = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "tournament_staff"),
        count(&b.database_url, "users"),
    );
    let send = |body: Value| b.post("/api/v1/tournament-imports", Some(&admin_b), body);
    // The referee and a committee member mapped onto one account here.
    let user_map = json!({referee.to_string(): someone, member.to_string(): someone});
    let body = json!({"archive": archive, "trust_key": key_a, "user_map": user_map});
    let p = problem(send(body).await, 422).await;
    let field = p["errors"][0]["field"].as_str().unwrap().to_string();
    let keys = [format!("user_map.{referee}"), format!("user_map.{member}")];
    assert!(keys.contains(&field), "{p}");
    // Two players mapped onto one player here.
    let here = ok(
        b.post(
            "/api/v1/players",
            Some(&admin_b),
            json!({"name": "Ola Nordmann"}),
        )
        .await,
        201,
    )
    .await["id"]
        .clone();
    let (p1, p2) = (e.players[0].0, e.players[1].0);
    let player_map = json!({p1.to_string(): here, p2.to_string(): here});
    let body = json!({"archive": archive, "trust_key": key_a, "player_map": player_map});
    let p = problem(send(body).await, 422).await;
    let field = p["errors"][0]["field"].as_str().unwrap().to_string();
    let keys = [format!("player_map.{p1}"), format!("player_map.{p2}")];
    assert!(keys.contains(&field), "{p}");
    // A forged staff whose referee also sits on the committee (in place of a member).
    let mut forged = archive.clone();
    let staff = forged["content"]["staff"].as_array_mut().unwrap();
    let i = staff
        .iter()
        .position(|s| s["role"] == "appeals_committee")
        .unwrap();
    staff[i]["user_id"] = referee.clone();
    resign(&mut forged);
    let body = json!({"archive": forged, "trust_key": forger().public_hex()});
    let p = problem(send(body).await, 422).await;
    let at = format!("archive.content.staff[{i}].role");
    assert_eq!(p["errors"][0]["field"], at.as_str(), "{p}");
    let after = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "tournament_staff"),
        count(&b.database_url, "users"),
    );
    assert_eq!(before, after, "nothing was written");
    // One account for one person imports.
    let body = json!({"archive": archive, "trust_key": key_a,
                      "user_map": {referee.to_string(): someone},
                      "player_map": {p1.to_string(): here}});
    ok(send(body).await, 201).await;
}
