//! Issue 37, item 6 (archives): an archive is signed by the instance that wrote it and imports
//! only when a key the importer trusts signed it; accounts cross instances only through an
//! explicit map; a second import of a pool is a conflict naming the pool.

use serde_json::{json, Value};

use crate::case_fixtures::{ok, patch_tournament};
use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{problem, spawn_app, TestApp};

/// A played Agricola event on `a` (one round); returns (tournament, organiser token, archive).
async fn played(a: &TestApp) -> (i64, String, Value) {
    let (tid, org, referee, _) = event(a, "agricola_norway", 8).await;
    let r1 = new_round(a, tid, &org, json!({"method": "random"})).await;
    play_round(a, tid, &referee, &r1, |p| 20 + p % 31).await;
    let archive = ok(
        a.get(&format!("/api/v1/tournaments/{tid}/archive"), Some(&org))
            .await,
        200,
    )
    .await;
    (tid, org, archive)
}

fn count(url: &str, table: &str) -> i64 {
    use diesel::prelude::*;
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

fn field(p: &Value) -> &str {
    p["errors"][0]["field"].as_str().unwrap_or_default()
}

#[actix_web::test]
async fn a_changed_score_with_a_recomputed_digest_is_refused_by_its_signature() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let (_, _, archive) = played(&a).await;
    let key_a = a.archive_key().await;
    assert_eq!(archive["version"], 2);
    assert_eq!(archive["signature"]["algorithm"], "ed25519");
    assert_eq!(
        archive["signature"]["key"],
        key_a.as_str(),
        "signed by A's key"
    );
    let admin_b = b.admin_token().await;
    let before = count(&b.database_url, "tournaments");

    // The forger changes a score and computes the digest again (what was enough before).
    let mut forged = archive.clone();
    forged["content"]["results"][0]["seats"][0]["score"] = json!(99);
    let content: tourney::services::archives::ArchiveContent =
        serde_json::from_value(forged["content"].clone()).unwrap();
    forged["digest"] = json!(tourney::services::archives::digest_of(&content).unwrap());
    let body = json!({"archive": forged, "trust_key": key_a});
    let p = problem(
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await,
        422,
    )
    .await;
    assert_eq!(field(&p), "archive.signature.value", "{p}");
    // Nor does naming another key in the signature help: B does not trust the forger's key.
    let forger = tourney::services::archives::ArchiveKeys::new([7; 32], Vec::new());
    let signed = forger.sign(
        "tourney.tournament-archive",
        2,
        forged["digest"].as_str().unwrap(),
    );
    forged["signature"] = serde_json::to_value(&signed).unwrap();
    let body = json!({"archive": forged, "trust_key": key_a});
    let p = problem(
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await,
        422,
    )
    .await;
    assert_eq!(field(&p), "archive.signature.key", "{p}");
    assert_eq!(
        count(&b.database_url, "tournaments"),
        before,
        "nothing written"
    );

    // The untouched archive imports once B trusts A's key.
    let body = json!({"archive": archive, "trust_key": key_a});
    ok(
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await,
        201,
    )
    .await;
}

#[actix_web::test]
async fn an_archive_imports_only_when_a_trusted_key_signed_it_or_the_admin_names_it() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let (_, _, archive) = played(&a).await;
    let admin_b = b.admin_token().await;
    let send = |body: Value| b.post("/api/v1/tournament-imports", Some(&admin_b), body);
    // The key is public, and it is the one the archive names.
    let key = ok(a.get("/api/v1/archive-key", None).await, 200).await;
    assert_eq!(key["algorithm"], "ed25519");
    assert_eq!(key["key"], archive["signature"]["key"]);
    assert_ne!(key["key"].as_str().unwrap(), b.archive_key().await);

    // B does not know A's key: refused, naming the key and what to do.
    let p = problem(send(json!({"archive": archive})).await, 422).await;
    assert_eq!(field(&p), "archive.signature.key", "{p}");
    let message = p["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains(key["key"].as_str().unwrap()), "{p}");
    // Another key named does not make A's trusted.
    let other = json!({"archive": archive, "trust_key": b.archive_key().await});
    let p = problem(send(other).await, 422).await;
    assert_eq!(field(&p), "archive.signature.key", "{p}");
    // Unsigned (as archives were before): refused unless the admin accepts it.
    let mut unsigned = archive.clone();
    unsigned.as_object_mut().unwrap().remove("signature");
    let p = problem(send(json!({"archive": unsigned})).await, 422).await;
    assert_eq!(field(&p), "archive.signature", "{p}");
    ok(
        send(json!({"archive": unsigned, "accept_unsigned": true})).await,
        201,
    )
    .await;
    // Named by the admin: imported.
    ok(
        send(json!({"archive": archive, "trust_key": key["key"]})).await,
        201,
    )
    .await;
    // A's own archive imports on A without naming anything.
    let admin_a = a.admin_token().await;
    ok(
        a.post(
            "/api/v1/tournament-imports",
            Some(&admin_a),
            json!({"archive": archive}),
        )
        .await,
        201,
    )
    .await;
}

#[actix_web::test]
async fn accounts_are_linked_only_through_the_user_map_never_by_username() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let (tid_a, _, archive) = played(&a).await;
    let key_a = a.archive_key().await;
    // B has its own, unrelated `organiser`.
    let (org_b_id, org_b) = b.user("organiser").await;
    let admin_b = b.admin_token().await;
    let body = json!({"archive": archive, "trust_key": key_a});
    let out = ok(
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await,
        201,
    )
    .await;
    let users = out["users"].as_array().unwrap();
    assert!(!users.is_empty());
    assert!(
        users
            .iter()
            .all(|u| u["created"] == true && u["id"] != org_b_id),
        "nobody is matched by name: {out}"
    );
    let tid = out["tournament_id"].as_i64().unwrap();
    // B's `organiser` holds no right on the imported tournament.
    problem(
        b.get(&format!("/api/v1/tournaments/{tid}/archive"), Some(&org_b))
            .await,
        403,
    )
    .await;
    let t = ok(
        b.get(&format!("/api/v1/tournaments/{tid}"), None).await,
        200,
    )
    .await;
    assert_ne!(t["created_by"], org_b_id);

    // Mapped explicitly, the same person is linked.
    let org_a_id = ok(
        a.get(&format!("/api/v1/tournaments/{tid_a}"), None).await,
        200,
    )
    .await["created_by"]
        .clone();
    let body = json!({"archive": archive, "trust_key": key_a,
                      "user_map": {org_a_id.to_string(): org_b_id}});
    let out = ok(
        b.post("/api/v1/tournament-imports", Some(&admin_b), body)
            .await,
        201,
    )
    .await;
    let mapped = out["users"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["archive_id"] == org_a_id)
        .cloned()
        .unwrap();
    assert_eq!(mapped["id"], org_b_id);
    assert_eq!(mapped["created"], false);
    let tid = out["tournament_id"].as_i64().unwrap();
    ok(
        b.get(&format!("/api/v1/tournaments/{tid}/archive"), Some(&org_b))
            .await,
        200,
    )
    .await;
}

#[actix_web::test]
async fn a_second_import_of_a_pool_is_a_conflict_naming_the_pool() {
    let a = spawn_app().await;
    let b = spawn_app().await;
    let admin = a.admin_token().await;
    let body = json!({"name": "Agricola Norway", "preset": "agricola_norway",
                      "time_zone": "Europe/Oslo"});
    let pool = ok(
        a.post("/api/v1/rating-pools", Some(&admin), body).await,
        201,
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let (tid, org, referee, _) = event(&a, "agricola_norway", 8).await;
    patch_tournament(&a, tid, &org, json!({"rating_pool_id": pool})).await;
    a.accept_rating(pool, tid).await;
    let r1 = new_round(&a, tid, &org, json!({"method": "random"})).await;
    play_round(&a, tid, &referee, &r1, |p| 20 + p % 17).await;
    let archive = ok(
        a.get(
            &format!("/api/v1/rating-pools/{pool}/archive"),
            Some(&admin),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(archive["signature"]["key"], a.archive_key().await.as_str());
    let admin_b = b.admin_token().await;
    let body = json!({"archive": archive, "trust_key": a.archive_key().await});
    let first = ok(
        b.post("/api/v1/pool-imports", Some(&admin_b), body.clone())
            .await,
        201,
    )
    .await;
    let (pools, tournaments) = (
        count(&b.database_url, "rating_pools"),
        count(&b.database_url, "tournaments"),
    );
    let p = problem(
        b.post("/api/v1/pool-imports", Some(&admin_b), body).await,
        409,
    )
    .await;
    assert_eq!(field(&p), "archive.content.pool.name", "{p}");
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("Agricola Norway")
            && detail.contains(&format!("pool {}", first["pool_id"])),
        "{p}"
    );
    assert!(!detail.contains("duplicate key"), "{p}");
    assert_eq!(
        (
            count(&b.database_url, "rating_pools"),
            count(&b.database_url, "tournaments")
        ),
        (pools, tournaments),
        "nothing written"
    );
}

/// An archive creates players only as `POST /players` would (a country cell such as `=1+2`
/// would reach the leaderboard's CSV): each field refused with 422 naming it, nothing written;
/// a valid one is stored as the form stores it.
#[actix_web::test]
async fn an_archive_creates_only_players_the_player_form_accepts() {
    let a = spawn_app().await;
    let (_, _, archive) = played(&a).await;
    let admin = a.admin_token().await;
    let forger = tourney::services::archives::ArchiveKeys::new([8; 32], Vec::new());
    let sign = |edit: &dyn Fn(&mut Value)| {
        let mut f = archive.clone();
        edit(&mut f["content"]["players"][0]);
        let content: tourney::services::archives::ArchiveContent =
            serde_json::from_value(f["content"].clone()).unwrap();
        let digest = tourney::services::archives::digest_of(&content).unwrap();
        f["digest"] = json!(digest);
        let signed = forger.sign("tourney.tournament-archive", 2, &digest);
        f["signature"] = serde_json::to_value(&signed).unwrap();
        json!({"archive": f, "trust_key": forger.public_hex()})
    };
    let before = count(&a.database_url, "players");
    type Edit<'a> = &'a dyn Fn(&mut Value);
    let cases: [(Edit, &str); 6] = [
        (&|p| p["country"] = json!("=1+2"), "country"),
        (&|p| p["country"] = json!("NOR"), "country"),
        (&|p| p["name"] = json!("x".repeat(101)), "name"),
        (&|p| p["name"] = json!(" "), "name"),
        (&|p| p["name"] = json!(5), "name"),
        (&|p| p["club"] = json!("Oslo\u{7}"), "club"),
    ];
    for (edit, column) in cases {
        let r = a
            .post("/api/v1/tournament-imports", Some(&admin), sign(edit))
            .await;
        let p = problem(r, 422).await;
        assert_eq!(
            field(&p),
            format!("archive.content.players[0].{column}"),
            "{p}"
        );
    }
    assert_eq!(count(&a.database_url, "players"), before, "nothing written");
    let body = sign(&|p| {
        p["country"] = json!("se");
        p["club"] = json!(" Oslo ");
    });
    let out = ok(
        a.post("/api/v1/tournament-imports", Some(&admin), body)
            .await,
        201,
    )
    .await;
    let first = archive["content"]["players"][0]["id"].clone();
    let made = out["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["archive_id"] == first)
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let p = ok(
        a.get(&format!("/api/v1/players/{made}"), Some(&admin))
            .await,
        200,
    )
    .await;
    assert_eq!((&p["country"], &p["club"]), (&json!("SE"), &json!("Oslo")));
}
