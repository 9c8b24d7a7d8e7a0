//! Issue 32, item 1: a tournament's archive, imported into another instance (another service
//! on another database), recreates it with new ids: the same standings, draws, result history,
//! cases and ratings; a changed, damaged or inconsistent archive is refused whole.

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::case_fixtures::{ok, open_case, setup, Event};
use crate::helpers::{problem, spawn_app, TestApp};

/// A played Ashes event on `a`: two rounds, a correction, a case upheld with a penalty.
pub(crate) async fn played_event(a: &TestApp) -> Event {
    let e = setup(a, true).await;
    let (table, winner, loser) = e.tables[0];
    let case = open_case(
        a,
        &e,
        e.token_of_player(loser),
        json!({"subject": "conduct", "statement": "My opponent kept rushing me.",
               "respondents": [{"player_id": winner}],
               "remedies": [{"kind": "add_penalty", "player_id": winner, "penalty": "warning"}]}),
    )
    .await;
    let decision = format!(
        "/api/v1/tournaments/{}/cases/{}/decision",
        e.tid, case["id"]
    );
    let body = json!({"verdict": "uphold", "reason": "seen by the next table"});
    ok(a.post(&decision, Some(&e.referee), body).await, 200).await;
    // A correction of round 1, table 1 (version 2).
    let path = format!(
        "/api/v1/tournaments/{}/rounds/1/tables/{table}/result",
        e.tid
    );
    let seats = json!([{"player_id": winner, "score": 10, "outcome": "win"},
                       {"player_id": loser, "score": 6, "outcome": "loss"}]);
    let r = a
        .put_if_match(
            &path,
            Some(&e.referee),
            1,
            json!({"seats": seats, "reason": "miscounted"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let round =
        crate::event_fixtures::new_round(a, e.tid, &e.org, json!({"method": "swiss_2p"})).await;
    crate::event_fixtures::play_duels(a, e.tid, &e.referee, &round, &[]).await;
    e
}

pub(crate) async fn json_of(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    ok(app.get(path, token).await, 200).await
}

/// Standings rows without ids: (name, place, points).
fn standing_rows(s: &Value) -> Vec<Value> {
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            json!([
                r["player_name"],
                r["place"],
                r["tp"],
                r["match_points"],
                r["tie_breaks"]
            ])
        })
        .collect()
}

/// Every seed and seed commitment in a JSON value, in order.
fn seeds_in(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                if k == "seed" || k == "seed_commitment" {
                    out.push(v.clone());
                } else {
                    out.extend(seeds_in(v));
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| out.extend(seeds_in(i))),
        _ => {}
    }
    out
}

fn names_of(board: &Value) -> Vec<Value> {
    board["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["player_name"], r["rating"], r["games"]]))
        .collect()
}

pub(crate) fn count(url: &str, table: &str) -> i64 {
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = PgConnection::establish(url).unwrap();
    diesel::sql_query(format!("SELECT count(*) AS n FROM {table}"))
        .get_result::<N>(&mut conn)
        .unwrap()
        .n
}

/// The key of a forger whom the importing admin was made to trust (issue 37: the semantic
/// checks still hold then).
pub(crate) fn forger() -> tourney::services::archives::ArchiveKeys {
    tourney::services::archives::ArchiveKeys::new([7; 32], Vec::new())
}

/// Re-signs a changed archive the way an exporter would (a forger who knows the format): a new
/// digest, signed with the forger's key.
pub(crate) fn resign(archive: &mut Value) {
    let content: tourney::services::archives::ArchiveContent =
        serde_json::from_value(archive["content"].clone()).unwrap();
    let digest = tourney::services::archives::digest_of(&content).unwrap();
    let version = archive["version"].as_u64().unwrap() as u32;
    let signature = forger().sign("tourney.tournament-archive", version, &digest);
    archive["digest"] = json!(digest);
    archive["signature"] = serde_json::to_value(signature).unwrap();
}

#[actix_web::test]
async fn a_whole_event_moves_to_another_instance_with_new_ids_and_everything_equal() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_a = a.admin_token().await;
    let admin_b = b.admin_token().await;
    // B already has players (ids differ) and its own pool; "Player 1" exists there.
    let mut existing = 0;
    for name in ["Somebody", "Player 1"] {
        let r = b
            .post("/api/v1/players", Some(&admin_b), json!({"name": name}))
            .await;
        existing = ok(r, 201).await["id"].as_i64().unwrap();
    }
    let r = b
        .post(
            "/api/v1/rating-pools",
            Some(&admin_b),
            json!({"name": "Ashes Poland", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
        )
        .await;
    let pool_b = ok(r, 201).await["id"].as_i64().unwrap();

    // Only the tournament's organisers (and admins) may take its archive.
    let archive_path = format!("/api/v1/tournaments/{}/archive", e.tid);
    problem(a.get(&archive_path, Some(&e.referee)).await, 403).await;
    let archive = json_of(&a, &archive_path, Some(&e.org)).await;
    assert_eq!(archive["format"], "tourney.tournament-archive");
    assert_eq!(archive["version"], 2);
    assert_eq!(
        archive["content"]["results"].as_array().unwrap().len(),
        5,
        "4 tables + a correction"
    );
    assert_eq!(archive["content"]["cases"].as_array().unwrap().len(), 1);
    assert_eq!(archive["content"]["penalties"].as_array().unwrap().len(), 1);
    let player1 = e.players[0].0;
    let import = json!({"archive": archive, "player_map": {player1.to_string(): existing},
                        "trust_key": a.archive_key().await,
                        "rating_pool_id": pool_b});
    // Only an admin imports.
    problem(
        b.post(
            "/api/v1/tournament-imports",
            Some(&b.user("org_b").await.1),
            import.clone(),
        )
        .await,
        403,
    )
    .await;
    let r = b
        .post("/api/v1/tournament-imports", Some(&admin_b), import.clone())
        .await;
    let out = ok(r, 201).await;
    let tid = out["tournament_id"].as_i64().unwrap();
    assert_eq!(
        out["rating_status"], "accepted",
        "an admin's request is accepted at once"
    );
    let mapped: Vec<(i64, i64, bool)> = out["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["archive_id"].as_i64().unwrap(),
                m["id"].as_i64().unwrap(),
                m["created"].as_bool().unwrap(),
            )
        })
        .collect();
    assert!(mapped.contains(&(player1, existing, false)), "{mapped:?}");
    assert_eq!(
        mapped.iter().filter(|m| m.2).count(),
        3,
        "the other three are created"
    );
    let here = |p: i64| mapped.iter().find(|m| m.0 == p).unwrap().1;

    // Standings, result history, draws, cases and the rating list are equal.
    let sa = json_of(
        &a,
        &format!("/api/v1/tournaments/{}/standings", e.tid),
        None,
    )
    .await;
    let sb = json_of(&b, &format!("/api/v1/tournaments/{tid}/standings"), None).await;
    assert_eq!(standing_rows(&sa), standing_rows(&sb));
    for p in sa["rows"].as_array().unwrap() {
        let id = p["player_id"].as_i64().unwrap();
        let row = sb["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == here(id));
        assert_eq!(
            row.unwrap()["tp"],
            p["tp"],
            "player {id} is player {} here",
            here(id)
        );
    }
    let table = e.tables[0].0;
    let result = |t: i64| format!("/api/v1/tournaments/{t}/rounds/1/tables/{table}/result");
    let ra = json_of(&a, &result(e.tid), None).await;
    let rb = json_of(&b, &result(tid), None).await;
    assert_eq!(rb["current"]["version"], 2);
    assert_eq!(
        ra["history"].as_array().map(Vec::len),
        rb["history"].as_array().map(Vec::len)
    );
    for (x, y) in ra["current"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .zip(rb["current"]["seats"].as_array().unwrap())
    {
        assert_eq!(
            here(x["player_id"].as_i64().unwrap()),
            y["player_id"].as_i64().unwrap()
        );
        assert_eq!(x["score"], y["score"]);
    }
    for n in [1, 2] {
        let da = json_of(
            &a,
            &format!("/api/v1/tournaments/{}/rounds/{n}/draws", e.tid),
            None,
        )
        .await;
        let db = json_of(
            &b,
            &format!("/api/v1/tournaments/{tid}/rounds/{n}/draws",),
            None,
        )
        .await;
        assert!(!seeds_in(&da).is_empty(), "{da}");
        assert_eq!(
            seeds_in(&da),
            seeds_in(&db),
            "round {n}: the same seeds and commitments"
        );
        let ta = json_of(
            &a,
            &format!("/api/v1/tournaments/{}/rounds/{n}", e.tid),
            None,
        )
        .await;
        let tb = json_of(&b, &format!("/api/v1/tournaments/{tid}/rounds/{n}"), None).await;
        assert_eq!(ta["seed"], tb["seed"]);
        for (x, y) in ta["draw"]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .zip(tb["draw"]["tables"].as_array().unwrap())
        {
            let xs: Vec<i64> = x["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| here(p.as_i64().unwrap()))
                .collect();
            let ys: Vec<i64> = y["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .collect();
            assert_eq!(xs, ys, "round {n} table {}", x["number"]);
        }
    }
    let ca = json_of(
        &a,
        &format!("/api/v1/tournaments/{}/cases", e.tid),
        Some(&admin_a),
    )
    .await;
    let cb = json_of(
        &b,
        &format!("/api/v1/tournaments/{tid}/cases"),
        Some(&admin_b),
    )
    .await;
    assert_eq!(ca["total"], 1);
    assert_eq!(cb["total"], 1);
    for k in ["status", "outcome", "subject", "decision_reason"] {
        assert_eq!(ca["items"][0][k], cb["items"][0][k], "{k}");
    }
    let pa = json_of(
        &a,
        &format!("/api/v1/tournaments/{}/penalties", e.tid),
        None,
    )
    .await;
    let pb = json_of(&b, &format!("/api/v1/tournaments/{tid}/penalties"), None).await;
    assert_eq!(pa["total"], pb["total"]);
    assert_eq!(pb["items"][0]["player_id"], here(e.tables[0].1));
    let board =
        |pool: i64| format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true");
    let la = json_of(&a, &board(e.pool.unwrap()), None).await;
    let lb = json_of(&b, &board(pool_b), None).await;
    assert_eq!(la["total"], 4);
    assert_eq!(
        names_of(&la),
        names_of(&lb),
        "the imported list equals the original"
    );

    // The same archive again into the same pool would count its games twice: refused. As a
    // copy outside the pool it is a second, separate tournament (new ids again).
    let p = problem(
        b.post("/api/v1/tournament-imports", Some(&admin_b), import.clone())
            .await,
        409,
    )
    .await;
    assert_eq!(p["errors"][0]["field"], "rating_pool_id", "{p}");
    let mut import = import;
    import["rating_pool_id"] = Value::Null;
    let again = ok(
        b.post("/api/v1/tournament-imports", Some(&admin_b), import)
            .await,
        201,
    )
    .await;
    assert_ne!(again["tournament_id"], tid);
}

#[actix_web::test]
async fn a_changed_damaged_or_inconsistent_archive_is_refused_whole() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let e = played_event(&a).await;
    let admin_b = b.admin_token().await;
    let archive = json_of(
        &a,
        &format!("/api/v1/tournaments/{}/archive", e.tid),
        Some(&e.org),
    )
    .await;
    let before = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
    );
    let key_a = a.archive_key().await;
    let import = |archive: &Value| json!({"archive": archive, "trust_key": key_a});
    let trusted_forger = forger().public_hex();
    let forged_import = |archive: &Value| json!({"archive": archive, "trust_key": trusted_forger});
    let send = |body: Value| b.post("/api/v1/tournament-imports", Some(&admin_b), body);

    // A score changed without a new digest.
    let mut changed = archive.clone();
    changed["content"]["results"][0]["seats"][0]["score"] = json!(99);
    let p = problem(send(import(&changed)).await, 422).await;
    assert_eq!(p["errors"][0]["field"], "archive.digest", "{p}");
    // Another format, another version.
    let mut other = archive.clone();
    other["version"] = json!(3);
    let p = problem(send(import(&other)).await, 422).await;
    assert_eq!(p["errors"][0]["field"], "archive.version", "{p}");
    // Truncated: not JSON at all.
    let text = import(&archive).to_string();
    let r = b
        .req(
            reqwest::Method::POST,
            "/api/v1/tournament-imports",
            Some(&admin_b),
        )
        .header("content-type", "application/json")
        .body(text[..text.len() / 2].to_string())
        .send()
        .await
        .unwrap();
    problem(r, 400).await;
    // A section missing.
    let mut cut = archive.clone();
    cut["content"].as_object_mut().unwrap().remove("results");
    let p = problem(send(import(&cut)).await, 422).await;
    assert_eq!(p["errors"][0]["field"], "archive.content", "{p}");
    // Re-signed forgeries: a result of a round the archive does not hold ...
    let mut forged = archive.clone();
    forged["content"]["results"][1]["round_id"] = json!(987654);
    resign(&mut forged);
    let p = problem(send(forged_import(&forged)).await, 422).await;
    assert_eq!(
        p["errors"][0]["field"], "archive.content.results[1].round_id",
        "{p}"
    );
    // ... a draw that does not follow from its seed (two players swapped) ...
    let mut forged = archive.clone();
    let seats = &mut forged["content"]["round_draws"][0]["draw"]["tables"][0]["seats"];
    let (x, y) = (seats[0].clone(), seats[1].clone());
    seats[0] = y;
    seats[1] = x;
    forged["content"]["rounds"][0]["draw"] = forged["content"]["round_draws"][0]["draw"].clone();
    resign(&mut forged);
    let p = problem(send(forged_import(&forged)).await, 422).await;
    assert_eq!(
        p["errors"][0]["field"], "archive.content.round_draws[0].draw",
        "{p}"
    );
    // ... a seed that is not the one committed to ...
    let mut forged = archive.clone();
    forged["content"]["round_draws"][0]["seed_commitment"] = json!("00".repeat(32));
    resign(&mut forged);
    let p = problem(send(forged_import(&forged)).await, 422).await;
    assert_eq!(
        p["errors"][0]["field"], "archive.content.round_draws[0].draw",
        "{p}"
    );
    assert!(
        p["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("commitment"),
        "{p}"
    );
    // ... and a row with a column the schema does not have, found only while writing (after
    // players and accounts were created in the same transaction).
    let mut forged = archive.clone();
    forged["content"]["withdrawals"] = json!([]);
    forged["content"]["registrations"][2]["bogus"] = json!(1);
    resign(&mut forged);
    let p = problem(send(forged_import(&forged)).await, 422).await;
    assert_eq!(
        p["errors"][0]["field"], "archive.content.registrations[2].bogus",
        "{p}"
    );
    // A player map naming a player who is not here.
    let body = json!({"archive": archive, "player_map": {e.players[0].0.to_string(): 424242},
                      "trust_key": key_a});
    let p = problem(send(body).await, 422).await;
    assert_eq!(
        p["errors"][0]["field"],
        format!("player_map.{}", e.players[0].0),
        "{p}"
    );

    // Nothing of any of them was written.
    let after = (
        count(&b.database_url, "tournaments"),
        count(&b.database_url, "players"),
        count(&b.database_url, "users"),
    );
    assert_eq!(before, after);
    // The untouched archive imports.
    ok(send(import(&archive)).await, 201).await;
    assert_eq!(count(&b.database_url, "tournaments"), before.0 + 1);
}
