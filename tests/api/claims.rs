//! Issue 29, item 5: an account without a player claims one; an admin, a keeper of a pool the
//! player is rated in, or an organiser of a tournament the player played decides; approval
//! links (once), refusal needs a reason, the claimant can withdraw and hears of the decision.

use serde_json::{json, Value};

use crate::helpers::verified_account;
use crate::helpers::{fields, problem, spawn_open_app, TestApp};
use crate::signup::sql;

async fn player(app: &TestApp, admin: &str, name: &str) -> i64 {
    let r = app
        .post("/api/v1/players", Some(admin), json!({"name": name}))
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn claim(app: &TestApp, token: &str, player: i64) -> reqwest::Response {
    app.post(
        &format!("/api/v1/players/{player}/claims"),
        Some(token),
        json!({"message": "This is me."}),
    )
    .await
}

async fn decide(
    app: &TestApp,
    token: &str,
    player: i64,
    id: i64,
    body: Value,
) -> reqwest::Response {
    app.post(
        &format!("/api/v1/players/{player}/claims/{id}/decision"),
        Some(token),
        body,
    )
    .await
}

async fn claim_id(r: reqwest::Response) -> i64 {
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

#[actix_web::test]
async fn who_decides_refusal_needs_a_reason_and_a_claim_is_decided_once() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let kari = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let p = player(&app, &admin, "Kari Nordmann").await;
    // The organiser of a tournament the player played; a keeper of a pool it is rated in;
    // an organiser elsewhere, a keeper of another pool.
    let (_, org) = app.user("leader").await;
    let tid = app.tournament(&org, "tantrix").await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&org),
            json!({"player_id": p}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let (_, stranger) = app.user("stranger").await;
    app.tournament(&stranger, "tantrix").await;
    let (keeper_id, keeper) = app.user("keeper").await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway", "preset": "ashes_poland", "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    sql(&app, &format!("INSERT INTO pool_keepers (pool_id, user_id, granted_by) SELECT {pool}, {keeper_id}, min(id) FROM users WHERE is_admin"));
    let id = claim_id(claim(&app, &kari, p).await).await;
    // One open claim per player and account.
    assert_eq!(
        fields(&problem(claim(&app, &kari, p).await, 409).await),
        ["player_id"]
    );
    // The queue: the organiser sees it, the stranger and the keeper (not rated yet) do not.
    let q: Value = app
        .get("/api/v1/player-claims", Some(&org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(q["items"][0]["id"], id);
    for t in [&stranger, &keeper] {
        let q: Value = app
            .get("/api/v1/player-claims", Some(t))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(q["total"], 0);
        problem(decide(&app, t, p, id, json!({"approve": true})).await, 403).await;
    }
    problem(
        decide(&app, &kari, p, id, json!({"approve": true})).await,
        403,
    )
    .await;
    // Rated in the keeper's pool: now the keeper decides. Refusal needs a reason.
    sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({pool}, {p}, 1500, 3, 3, 0)"));
    let r = decide(&app, &keeper, p, id, json!({"approve": false})).await;
    assert_eq!(fields(&problem(r, 422).await), ["reason"]);
    let r = decide(
        &app,
        &keeper,
        p,
        id,
        json!({"approve": false, "reason": "Kari Nordmann of Asker is someone else."}),
    )
    .await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["status"], "refused");
    let mail = sink.wait_for("kari@example.no", 2, 20).await;
    assert!(
        mail[1].body().contains("someone else"),
        "{}",
        mail[1].body()
    );
    // Decided once. Rated now, the player is no longer the organiser's alone (issue 37).
    problem(
        decide(&app, &org, p, id, json!({"approve": true})).await,
        403,
    )
    .await;
    let r = decide(&app, &keeper, p, id, json!({"approve": true})).await;
    assert_eq!(fields(&problem(r, 409).await), ["claim_id"]);
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM players WHERE id = {p} AND user_id IS NULL")
        ),
        1
    );
    // A new claim, approved by the keeper: linked, mailed.
    let again = claim_id(claim(&app, &kari, p).await).await;
    let r = decide(&app, &keeper, p, again, json!({"approve": true})).await;
    assert_eq!(r.status(), 200);
    let mail = sink.wait_for("kari@example.no", 3, 20).await;
    assert!(mail[2].header("subject").unwrap().contains("approved"));
    let kari_id: i64 = app.me(&kari).await["id"].as_i64().unwrap();
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM players WHERE id = {p} AND user_id = {kari_id}")
        ),
        1
    );
    // An account with a player claims no other; a linked player is claimed by nobody.
    let other = player(&app, &admin, "Someone").await;
    assert_eq!(
        fields(&problem(claim(&app, &kari, other).await, 409).await),
        ["player_id"]
    );
    let (_, ola) = app.user("ola").await;
    assert_eq!(
        fields(&problem(claim(&app, &ola, p).await, 409).await),
        ["player_id"]
    );
    // The claimant sees their own claims; a decider sees all.
    let mine: Value = app
        .get(&format!("/api/v1/players/{p}/claims"), Some(&kari))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(mine["total"], 2);
    let none: Value = app
        .get(&format!("/api/v1/players/{p}/claims"), Some(&ola))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(none["total"], 0);
}

#[actix_web::test]
async fn a_player_linked_meanwhile_is_not_linked_twice_and_claims_can_be_withdrawn() {
    let (_sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let p = player(&app, &admin, "Anna").await;
    let (_, ola) = app.user("ola").await;
    let (_, per) = app.user("per").await;
    let a = claim_id(claim(&app, &ola, p).await).await;
    let b = claim_id(claim(&app, &per, p).await).await;
    // Two approvals at once: exactly one links, the other is 409 naming player_id.
    let mut both = futures_util::future::join_all([
        decide(&app, &admin, p, a, json!({"approve": true})),
        decide(&app, &admin, p, b, json!({"approve": true})),
    ])
    .await;
    let (r2, r1) = (both.pop().unwrap(), both.pop().unwrap());
    let mut statuses = [r1.status().as_u16(), r2.status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409]);
    let loser = if r1.status() == 409 { r1 } else { r2 };
    assert_eq!(fields(&problem(loser, 409).await), ["player_id"]);
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM players WHERE id = {p} AND user_id IS NOT NULL")
        ),
        1
    );
    // Withdrawal: the claimant only, once.
    let q = player(&app, &admin, "Bob").await;
    let (_, kim) = app.user("kim").await;
    let c = claim_id(claim(&app, &kim, q).await).await;
    let path = format!("/api/v1/players/{q}/claims/{c}");
    problem(app.delete_req(&path, &admin).await, 403).await;
    assert_eq!(app.delete_req(&path, &kim).await.status(), 204);
    assert_eq!(
        fields(&problem(app.delete_req(&path, &kim).await, 409).await),
        ["claim_id"]
    );
    let r = decide(&app, &admin, q, c, json!({"approve": true})).await;
    assert_eq!(fields(&problem(r, 409).await), ["claim_id"]);
    // Another claim may follow a withdrawn one.
    claim_id(claim(&app, &kim, q).await).await;
    let r = app
        .post(
            &format!("/api/v1/players/{q}/claims"),
            Some(&kim),
            json!({"message": "  "}),
        )
        .await;
    assert_eq!(fields(&problem(r, 422).await), ["message"]);
    problem(claim(&app, &kim, 999999).await, 404).await;
}

/// The deciders' queue and a player's claims are pages read in SQL: each decider sees exactly
/// the open claims they may decide (a cancelled registration gives no say), pages by offset
/// hold them in order, and a claimant sees only their own claims on a player.
#[actix_web::test]
async fn the_queue_pages_in_sql_and_shows_each_decider_theirs() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let kari = verified_account(&app, &sink, "kari", "kari@example.no").await;
    let ola = verified_account(&app, &sink, "ola", "ola@example.no").await;
    let registered = player(&app, &admin, "Registered").await;
    let cancelled = player(&app, &admin, "Cancelled").await;
    let rated = player(&app, &admin, "Rated").await;
    let unrelated = player(&app, &admin, "Unrelated").await;
    let (_, org) = app.user("leader").await;
    let tid = app.tournament(&org, "tantrix").await;
    for p in [registered, cancelled] {
        let path = format!("/api/v1/tournaments/{tid}/registrations");
        let r = app.post(&path, Some(&org), json!({"player_id": p})).await;
        assert_eq!(r.status(), 201);
    }
    let r = app
        .delete_req(
            &format!("/api/v1/tournaments/{tid}/registrations/{cancelled}"),
            &org,
        )
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    let (keeper_id, keeper) = app.user("keeper").await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway", "preset": "ashes_poland", "time_zone": "Europe/Oslo"}),
        )
        .await;
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    sql(&app, &format!("INSERT INTO pool_keepers (pool_id, user_id, granted_by) SELECT {pool}, {keeper_id}, min(id) FROM users WHERE is_admin"));
    sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({pool}, {rated}, 1500, 3, 3, 0)"));
    let mut ids = Vec::new();
    for p in [registered, cancelled, rated, unrelated] {
        ids.push(claim_id(claim(&app, &kari, p).await).await);
    }
    let ola_claim = claim_id(claim(&app, &ola, registered).await).await;
    let ids_of = |page: &Value| -> Vec<i64> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_i64().unwrap())
            .collect()
    };
    let read = |path: String, token: String| {
        let app = &app;
        async move {
            let r = app.get(&path, Some(&token)).await;
            assert_eq!(r.status(), 200, "{path}");
            r.json::<Value>().await.unwrap()
        }
    };
    let queue = |token: &str| read("/api/v1/player-claims".to_string(), token.to_string());
    let org_queue = queue(&org).await;
    assert_eq!(ids_of(&org_queue), [ids[0], ola_claim]);
    assert_eq!(org_queue["total"], 2);
    assert_eq!(ids_of(&queue(&keeper).await), [ids[2]]);
    assert_eq!(queue(&kari).await["total"], 0);
    // The admin's queue, two at a time, in order.
    let mut all = ids.clone();
    all.push(ola_claim);
    let mut walked = Vec::new();
    for offset in [0, 2, 4] {
        let page = read(
            format!("/api/v1/player-claims?limit=2&offset={offset}"),
            admin.clone(),
        )
        .await;
        assert_eq!(page["total"], 5);
        walked.extend(ids_of(&page));
    }
    assert_eq!(walked, all);
    // A decided claim leaves the queue.
    let r = decide(
        &app,
        &org,
        registered,
        ids[0],
        json!({"approve": false, "reason": "No."}),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(ids_of(&queue(&org).await), [ola_claim]);
    // A player's claims: all for its decider (decided too), one's own for a claimant.
    let of_registered = format!("/api/v1/players/{registered}/claims");
    let page = read(of_registered.clone(), org.clone()).await;
    assert_eq!(ids_of(&page), [ids[0], ola_claim]);
    assert_eq!(
        ids_of(&read(of_registered.clone(), ola.clone()).await),
        [ola_claim]
    );
    let page = read(format!("{of_registered}?limit=1&offset=1"), org.clone()).await;
    assert_eq!(
        (ids_of(&page), page["total"].as_i64()),
        (vec![ola_claim], Some(2))
    );
}

async fn register(app: &TestApp, org: &str, tid: i64, player: i64) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(org),
            json!({"player_id": player}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

async fn rating_pool(app: &TestApp, admin: &str, name: &str) -> i64 {
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(admin),
            json!({"name": name, "preset": "ashes_poland", "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn queue_ids(app: &TestApp, token: &str) -> Vec<i64> {
    let r = app
        .get("/api/v1/player-claims?limit=200", Some(token))
        .await;
    assert_eq!(r.status(), 200);
    let page: Value = r.json().await.unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect()
}

async fn links(app: &TestApp, token: &str, player: i64) -> reqwest::Response {
    app.get(&format!("/api/v1/players/{player}/links"), Some(token))
        .await
}

/// Issue 37, item 2, the attack exactly: an account organises its own tournament, registers a
/// player whose records lie in another organiser's tournament, a second account claims it, and
/// the first approves "as an organiser of a tournament the player is registered in". Now
/// standing comes only from the player's records: the organiser of every one of them, a keeper
/// of a pool it is rated in, an admin. Each branch decides (or is refused) and the queue shows
/// each decider exactly the claims they may decide.
#[actix_web::test]
async fn standing_to_decide_comes_only_from_the_players_records() {
    let (sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let kari = verified_account(&app, &sink, "kari", "kari@example.no").await;
    // The victim: registered in a club's tournament, rated in the national pool.
    let victim = player(&app, &admin, "Player 5").await;
    let (_, club) = app.user("club").await;
    let club_t = app.tournament(&club, "tantrix").await;
    register(&app, &club, club_t, victim).await;
    let national = rating_pool(&app, &admin, "National").await;
    let other_pool = rating_pool(&app, &admin, "Elsewhere").await;
    sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({national}, {victim}, 1500, 3, 3, 0)"));
    let (keeper_id, keeper) = app.user("keeper").await;
    let (other_keeper_id, other_keeper) = app.user("other.keeper").await;
    for (pool, user) in [(national, keeper_id), (other_pool, other_keeper_id)] {
        sql(&app, &format!("INSERT INTO pool_keepers (pool_id, user_id, granted_by) SELECT {pool}, {user}, min(id) FROM users WHERE is_admin"));
    }
    // The attacker organises a tournament of their own and registers the victim in it; their
    // referee and committee member.
    let (_, attacker) = app.user("attacker").await;
    let own_t = app.tournament(&attacker, "tantrix").await;
    register(&app, &attacker, own_t, victim).await;
    let (referee_id, referee) = app.user("referee").await;
    let (member_id, member) = app.user("member").await;
    for (user, role) in [(referee_id, "referee"), (member_id, "appeals_committee")] {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{own_t}/staff"),
                Some(&attacker),
                json!({"user_id": user, "role": role}),
            )
            .await;
        assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    }
    let c = claim_id(claim(&app, &kari, victim).await).await;

    // Refused: the attacker (one record lies elsewhere, and the player is rated), the club's
    // organiser (one record lies in the attacker's tournament), the referee and the committee
    // member (they run games, not the registry), the keeper of another pool, the claimant.
    for token in [&attacker, &club, &referee, &member, &other_keeper, &kari] {
        assert!(!queue_ids(&app, token).await.contains(&c));
        problem(
            decide(&app, token, victim, c, json!({"approve": true})).await,
            403,
        )
        .await;
        problem(links(&app, token, victim).await, 403).await;
    }
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM players WHERE id = {victim} AND user_id IS NULL")
        ),
        1
    );
    // The keeper of the pool it is rated in and the admin may: the keeper refuses, the admin
    // approves a second claim.
    assert_eq!(queue_ids(&app, &keeper).await, [c]);
    assert!(queue_ids(&app, &admin).await.contains(&c));
    let r = decide(
        &app,
        &keeper,
        victim,
        c,
        json!({"approve": false, "reason": "Not you."}),
    )
    .await;
    assert_eq!(r.status(), 200);
    let again = claim_id(claim(&app, &kari, victim).await).await;
    let r = decide(&app, &admin, victim, again, json!({"approve": true})).await;
    assert_eq!(r.status(), 200);

    // An organiser of every record decides: a player registered only in the attacker's
    // tournament; one more record elsewhere (a cancelled registration counts) takes it away,
    // and so does a rating anywhere.
    let (_, ola) = app.user("ola").await;
    let fresh = player(&app, &admin, "Fresh").await;
    register(&app, &attacker, own_t, fresh).await;
    let fc = claim_id(claim(&app, &ola, fresh).await).await;
    assert_eq!(queue_ids(&app, &attacker).await, [fc]);
    let elsewhere = player(&app, &admin, "Elsewhere").await;
    register(&app, &attacker, own_t, elsewhere).await;
    register(&app, &club, club_t, elsewhere).await;
    let r = app
        .delete_req(
            &format!("/api/v1/tournaments/{club_t}/registrations/{elsewhere}"),
            &club,
        )
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    let rated = player(&app, &admin, "Rated").await;
    register(&app, &attacker, own_t, rated).await;
    sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({other_pool}, {rated}, 1500, 3, 3, 0)"));
    let (_, per) = app.user("per").await;
    let (_, kim) = app.user("kim").await;
    let ec = claim_id(claim(&app, &per, elsewhere).await).await;
    let rc = claim_id(claim(&app, &kim, rated).await).await;
    assert_eq!(queue_ids(&app, &attacker).await, [fc]);
    for (p, id) in [(elsewhere, ec), (rated, rc)] {
        problem(
            decide(&app, &attacker, p, id, json!({"approve": true})).await,
            403,
        )
        .await;
    }
    // The rated one is its pool's keeper's; the other one only the admin's.
    assert_eq!(queue_ids(&app, &other_keeper).await, [rc]);
    let r = decide(&app, &attacker, fresh, fc, json!({"approve": true})).await;
    assert_eq!(r.status(), 200);
    // The organiser's own claim is decided by someone else.
    let (_, owner) = app.user("owner").await;
    let own_tournament = app.tournament(&owner, "tantrix").await;
    let mine = player(&app, &admin, "Mine").await;
    register(&app, &owner, own_tournament, mine).await;
    let oc = claim_id(claim(&app, &owner, mine).await).await;
    assert!(!queue_ids(&app, &owner).await.contains(&oc));
    problem(
        decide(&app, &owner, mine, oc, json!({"approve": true})).await,
        403,
    )
    .await;
}

/// Who linked a player to an account, when and on whose decision is kept (after the account
/// and its claims are gone) and shown to the player's keepers and admins only.
#[actix_web::test]
async fn who_linked_a_player_is_kept_and_shown_to_its_keepers() {
    let (_sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let admin_id: i64 = app.me(&admin).await["id"].as_i64().unwrap();
    let p = player(&app, &admin, "Kari Nordmann").await;
    let pool = rating_pool(&app, &admin, "National").await;
    sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({pool}, {p}, 1500, 3, 3, 0)"));
    let (keeper_id, keeper) = app.user("keeper").await;
    sql(&app, &format!("INSERT INTO pool_keepers (pool_id, user_id, granted_by) SELECT {pool}, {keeper_id}, min(id) FROM users WHERE is_admin"));
    let (kari_id, kari) = app.user("kari").await;
    let c = claim_id(claim(&app, &kari, p).await).await;
    let r = decide(&app, &keeper, p, c, json!({"approve": true})).await;
    assert_eq!(r.status(), 200);
    // The admin cuts the link and makes it again.
    for link in [Value::Null, json!(kari_id)] {
        let r = app
            .patch_any(
                &format!("/api/v1/players/{p}"),
                Some(&admin),
                json!({ "user_id": link }),
            )
            .await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
    // The account goes: its claims go with it, its links stay.
    let r = app
        .delete_req(&format!("/api/v1/users/{kari_id}"), &admin)
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(
        sql(&app, &format!("SELECT 1 FROM player_claims WHERE id = {c}")),
        0
    );
    let (_, stranger) = app.user("stranger").await;
    problem(links(&app, &stranger, p).await, 403).await;
    problem(links(&app, &stranger, 999_999).await, 404).await;
    for token in [&keeper, &admin] {
        let r = links(&app, token, p).await;
        assert_eq!(r.status(), 200);
        let page: Value = r.json().await.unwrap();
        let rows: Vec<(bool, i64, String, Value, Value)> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["linked"].as_bool().unwrap(),
                    l["user_id"].as_i64().unwrap(),
                    l["via"].as_str().unwrap().to_string(),
                    l["claim_id"].clone(),
                    l["decided_by"].clone(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (
                    true,
                    kari_id,
                    "claim".to_string(),
                    json!(c),
                    json!(keeper_id)
                ),
                (
                    false,
                    kari_id,
                    "admin".to_string(),
                    Value::Null,
                    json!(admin_id)
                ),
                (
                    true,
                    kari_id,
                    "admin".to_string(),
                    Value::Null,
                    json!(admin_id)
                ),
                (
                    false,
                    kari_id,
                    "account_removed".to_string(),
                    Value::Null,
                    Value::Null
                ),
            ],
            "{page}"
        );
        assert!(page["items"][0]["at"].is_string());
    }
}

async fn scoped_key(app: &TestApp, token: &str, scopes: Value) -> String {
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(token),
            json!({"name": "script", "scopes": scopes}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A claim decided through an API key needs the scope its decider's standing does: a keeper's
/// key `pools:write`, an admin's `admin`; a `tournaments:write` key (a tournament's software)
/// acts as an organiser, so a stolen one does not hand a rated player to an account.
#[actix_web::test]
async fn a_key_decides_a_claim_only_with_the_scope_its_standing_needs() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.admin_token().await;
    let (_, kari) = app.user("kari").await;
    let (_, ola) = app.user("ola").await;
    let (keeper_id, keeper) = app.user("keeper").await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway", "preset": "ashes_poland", "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    sql(&app, &format!("INSERT INTO pool_keepers (pool_id, user_id, granted_by) SELECT {pool}, {keeper_id}, min(id) FROM users WHERE is_admin"));
    let (p, q) = (
        player(&app, &admin, "Kari Nordmann").await,
        player(&app, &admin, "Ola Nordmann").await,
    );
    for x in [p, q] {
        sql(&app, &format!("INSERT INTO rating_standings (pool_id, player_id, rating, games, trend_games, trend_delta) VALUES ({pool}, {x}, 1500, 3, 3, 0)"));
    }
    let id = claim_id(claim(&app, &kari, p).await).await;
    let approve = json!({"approve": true});
    for owner in [&keeper, &admin] {
        let k = scoped_key(&app, owner, json!(["tournaments:write"])).await;
        problem(decide(&app, &k, p, id, approve.clone()).await, 403).await;
    }
    let open = format!("SELECT 1 FROM players WHERE id = {p} AND user_id IS NULL");
    assert_eq!(sql(&app, &open), 1);
    let k = scoped_key(&app, &keeper, json!(["tournaments:write", "pools:write"])).await;
    assert_eq!(decide(&app, &k, p, id, approve.clone()).await.status(), 200);
    assert_eq!(sql(&app, &open), 0);
    let id = claim_id(claim(&app, &ola, q).await).await;
    let k = scoped_key(&app, &admin, json!(["admin"])).await;
    assert_eq!(decide(&app, &k, q, id, approve).await.status(), 200);
}

/// A disabled account's open claim is not approved: approving it would hand the player to an
/// account an admin has stopped (409 naming `claim_id`, nothing linked, the claim still open);
/// it can be refused, and approved once the account is enabled again.
#[actix_web::test]
async fn a_disabled_claimants_claim_is_approved_only_once_the_account_is_enabled() {
    let (_sink, app) = spawn_open_app().await;
    let admin = app.admin_token().await;
    let p = player(&app, &admin, "Anna").await;
    let q = player(&app, &admin, "Bob").await;
    let (ola_id, ola) = app.user("ola").await;
    let a = claim_id(claim(&app, &ola, p).await).await;
    let b = claim_id(claim(&app, &ola, q).await).await;
    let set_disabled = |disabled: bool| {
        let (app, admin) = (&app, &admin);
        async move {
            let r = app
                .patch(
                    &format!("/api/v1/users/{ola_id}"),
                    Some(admin),
                    json!({ "disabled": disabled }),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    };
    let linked = |p: i64| {
        sql(
            &app,
            &format!("SELECT 1 FROM players WHERE id = {p} AND user_id IS NOT NULL"),
        )
    };
    set_disabled(true).await;
    let r = decide(&app, &admin, p, a, json!({"approve": true})).await;
    assert_eq!(fields(&problem(r, 409).await), ["claim_id"]);
    assert_eq!(linked(p), 0);
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM player_claims WHERE id = {a} AND status = 'open'")
        ),
        1
    );
    // Refusing it is still possible.
    let r = decide(
        &app,
        &admin,
        q,
        b,
        json!({"approve": false, "reason": "Not this one."}),
    )
    .await;
    assert_eq!(r.status(), 200);
    // Enabled again, the open claim is approved.
    set_disabled(false).await;
    let r = decide(&app, &admin, p, a, json!({"approve": true})).await;
    assert_eq!(r.status(), 200);
    assert_eq!(linked(p), 1);
}
