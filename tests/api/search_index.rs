//! Issue 42: the instance's search index of the registry's names answers the lists' `q` as
//! PostgreSQL does (same items, order, totals and cursors) after writes through the API,
//! erasures and rows imported straight into the database, with every filter; and an instance
//! whose index is not built (here: its listener cannot connect) answers from PostgreSQL.

use std::time::Duration;

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::helpers::{fresh_database, item_names, serve_with_replica, spawn_app, TestApp};

// The rating pools' searches and signed-in readers' searches (beside: this file's length).
mod readers;
// A database whose collation is not bytewise.
mod collations;

/// Searches answered so far: (by the index, by PostgreSQL).
async fn searches(app: &TestApp) -> (f64, f64) {
    app.cache_reads("search").await
}

/// `q` with `n` spaces after it: the same search (the text is trimmed) under another query
/// string, so no kept body answers it. Without a `q`, the limit with `n` zeros before it.
fn padded(query: &str, n: usize) -> String {
    match query.contains("q=") {
        true => query.replacen("q=", &format!("q={}", "%20".repeat(n)), 1),
        false => query.replacen("limit=", &format!("limit={}", "0".repeat(n)), 1),
    }
}

/// The anonymous answer to `path` (200).
async fn public(app: &TestApp, path: &str) -> Value {
    let r = app.get(path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

/// The anonymous answer of `list?query` computed by the search index: read under new query
/// strings until the index (current after the writes) answered one.
async fn from_index(app: &TestApp, list: &str, query: &str) -> Value {
    if query.contains("starts_on") {
        // Sorted by first day, a search stays in PostgreSQL.
        return public(app, &format!("/api/v1/{list}?{query}")).await;
    }
    for n in 0..60 {
        let before = searches(app).await;
        let path = format!("/api/v1/{list}?{}", padded(query, n));
        let r = app.get(&path, None).await;
        assert_eq!(r.status(), 200, "{path}");
        let body: Value = r.json().await.unwrap();
        if searches(app).await.0 == before.0 + 1.0 {
            return body;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the search index never answered {list}?{query}");
}

/// What PostgreSQL answers an anonymous reader (the list's service without the index).
fn from_database(app: &TestApp, list: &str, query: &str) -> Value {
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    match list {
        "players" => {
            let f = serde_urlencoded::from_str(query).unwrap();
            let page = tourney::services::players::list_players(&mut conn, f, None).unwrap();
            serde_json::to_value(page).unwrap()
        }
        "rating-pools" => {
            let f = serde_urlencoded::from_str(query).unwrap();
            let page = tourney::services::ratings::list_pools(&mut conn, f, None).unwrap();
            serde_json::to_value(page).unwrap()
        }
        _ => {
            let f = serde_urlencoded::from_str(query).unwrap();
            let anonymous = tourney::auth::MaybeCaller(None);
            let page = tourney::services::running::tournament_list::list_tournaments(
                &mut conn, &anonymous, f, None,
            )
            .unwrap();
            serde_json::to_value(page).unwrap()
        }
    }
}

/// The index's answer to `query` and to the page after it (by its cursor) equal the
/// database's; the first page is returned.
async fn agree(app: &TestApp, list: &str, query: &str) -> Value {
    let indexed = from_index(app, list, query).await;
    let expected = from_database(app, list, query);
    assert_eq!(indexed, expected, "{list}?{query}");
    if let Some(cursor) = indexed["next_cursor"].as_str() {
        // A cursor goes without an offset.
        let unpaged: Vec<&str> = query
            .split('&')
            .filter(|p| !p.starts_with("offset="))
            .collect();
        let next = format!("{}&cursor={cursor}", unpaged.join("&"));
        let page = from_index(app, list, &next).await;
        assert_eq!(page, from_database(app, list, &next), "{list}?{next}");
    }
    indexed
}

fn exec(app: &TestApp, sql: &str) {
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query(sql).execute(&mut conn).unwrap();
}

/// Rows written straight into the database, as an import or a bulk load writes them: 240
/// players from 4 first names and 6 surnames with marks, 60 published tournaments.
fn import(app: &TestApp) {
    exec(
        app,
        "INSERT INTO players (name, country, created_by)
         SELECT (ARRAY['Kari','Karin','Øystein','Łukasz'])[1 + g % 4] || ' ' ||
                (ARRAY['Nordmann','Stadheim','Ødegård','Wiśniewska','Berg','Łódź'])[1 + g % 6]
                || ' ' || g,
                (ARRAY['NO','SE','PL'])[1 + g % 3],
                (SELECT min(id) FROM users)
         FROM generate_series(1, 240) g",
    );
    exec(
        app,
        "INSERT INTO tournaments (name, game, ruleset, table_size, planned_rounds, starts_on,
                                  ends_on, time_zone, status, created_by, country)
         SELECT (ARRAY['Ålesund','Tromsø','Łódź Open'])[1 + g % 3] || ' Cup ' || g,
                'Agricola', 'agricola_norway', 4, 5, date '2020-01-01' + g,
                date '2020-01-01' + g, 'Europe/Oslo',
                (ARRAY['registration_open','running','finished','draft'])[1 + g % 4],
                (SELECT min(id) FROM users), CASE WHEN g % 2 = 0 THEN 'NO' ELSE 'PL' END
         FROM generate_series(1, 60) g",
    );
}

const PLAYER_QUERIES: [&str; 17] = [
    // The list by name, with no text (every query here names its limit: `padded`).
    "limit=7",
    "limit=5&country=SE",
    "sort=name&limit=3&offset=4",
    "country=PL&limit=2&offset=9",
    "limit=1",
    "q=kar&limit=7",
    "q=kari%20n&limit=7",
    "q=k&limit=7",
    "q=stad&limit=10",
    "q=oysten&limit=5",
    "q=%C3%98ystein%20%C3%B8deg%C3%A5rd&limit=5",
    "q=lodz&limit=5&country=PL",
    "q=wisniewska&sort=name&limit=6",
    "q=nordman&country=SE&limit=4&offset=3",
    "q=berg%2012&limit=3",
    "q=zzzq",
    "q=kari&sort=relevance&limit=200",
];

const TOURNAMENT_QUERIES: [&str; 8] = [
    "q=ale&limit=5",
    "q=alesund%20cup%201&limit=5",
    "q=tromso&status=finished&limit=3",
    "q=lodz&country=NO&limit=4",
    "q=cup&sort=name&limit=7&offset=2",
    "q=trom&starts_from=2020-01-20&starts_until=2020-02-20&limit=3",
    "q=open&sort=starts_on&limit=3",
    "q=tromsa&limit=4",
];

#[actix_web::test]
async fn the_index_answers_as_postgresql_does_after_writes_erasures_and_imports() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    import(&app);
    // Prefixes as people type, and a near match of a word.
    let kar = agree(&app, "players", "q=kar&limit=50").await;
    assert!(
        item_names(&kar).iter().all(|n| n.starts_with("Kari")),
        "{kar}"
    );
    assert_eq!(kar["total"], 120);
    let typo = agree(&app, "players", "q=oysten&limit=5").await;
    assert!(
        item_names(&typo).iter().all(|n| n.starts_with("Øystein")),
        "{typo}"
    );
    assert!(item_names(&agree(&app, "tournaments", "q=tromsa").await)[0].starts_with("Tromsø"));
    for q in PLAYER_QUERIES {
        agree(&app, "players", q).await;
    }
    for q in TOURNAMENT_QUERIES {
        agree(&app, "tournaments", q).await;
    }

    // Written through the API: created, renamed, erased.
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Karl Zyxwood"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let karl = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        item_names(&agree(&app, "players", "q=zyxwood").await),
        ["Karl Zyxwood"]
    );
    let r = app
        .patch(
            &format!("/api/v1/players/{karl}"),
            Some(&admin),
            json!({"name": "Karla Quorvik"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(agree(&app, "players", "q=zyxwood").await["total"], 0);
    assert_eq!(
        item_names(&agree(&app, "players", "q=quorvik").await),
        ["Karla Quorvik"]
    );
    let (user, token) = app.user("erasable").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Vebjørn Erasable", "user_id": user}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert_eq!(agree(&app, "players", "q=vebjorn").await["total"], 1);
    assert_eq!(app.erase_me(&token).await.status(), 200);
    assert_eq!(agree(&app, "players", "q=vebjorn").await["total"], 0);

    // Written straight into the database: renamed, removed, a tournament added and renamed.
    exec(
        &app,
        "UPDATE players SET name = 'Kari Quorvik' WHERE name LIKE 'Kari Berg %'",
    );
    // 20 imported Kari Berg and Karla Quorvik.
    assert_eq!(
        agree(&app, "players", "q=quorvik&limit=5").await["total"],
        21
    );
    exec(
        &app,
        "DELETE FROM players WHERE name LIKE 'Karin Stadheim%'",
    );
    agree(&app, "players", "q=stad&limit=10").await;
    let tid = app.tournament(&admin, "agricola_norway").await;
    exec(
        &app,
        &format!(
            "UPDATE tournaments SET name = 'Zyxburg Masters', status = 'running' WHERE id = {tid}"
        ),
    );
    assert_eq!(
        item_names(&agree(&app, "tournaments", "q=zyxburg").await),
        ["Zyxburg Masters"]
    );
    for q in PLAYER_QUERIES {
        agree(&app, "players", q).await;
    }
    for q in TOURNAMENT_QUERIES {
        agree(&app, "tournaments", q).await;
    }
    // The whole list by name, page by page by cursor, from the index as from the database
    // (renamed players in fresh slots, removed ones in dead slots, equal names told apart by
    // id), and of one country.
    for query in ["limit=9", "country=NO&limit=11"] {
        let (mut page, mut seen) = (agree(&app, "players", query).await, 0);
        let total = page["total"].as_i64().unwrap();
        assert!(total > 50, "{page}");
        loop {
            seen += page["items"].as_array().unwrap().len() as i64;
            let Some(cursor) = page["next_cursor"].as_str() else {
                break;
            };
            let next = format!("{query}&cursor={cursor}");
            page = from_index(&app, "players", &next).await;
            assert_eq!(page, from_database(&app, "players", &next), "{next}");
        }
        assert_eq!(seen, total, "{query}");
    }
}

/// What PostgreSQL answers for player `id` (the service without the index; `None`: no such
/// player).
fn profile_in_database(app: &TestApp, id: i64) -> Option<Value> {
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let player = tourney::services::players::read_player(&mut conn, id).ok()?;
    Some(serde_json::to_value(player).unwrap())
}

/// The anonymous profile of player `id` (`None`: 404) and whether the index answered it.
async fn profile(app: &TestApp, id: i64) -> (Option<Value>, bool) {
    let before = searches(app).await.0;
    let r = app.get(&format!("/api/v1/players/{id}"), None).await;
    let body = match r.status().as_u16() {
        200 => Some(r.json().await.unwrap()),
        404 => None,
        other => panic!("player {id}: {other}"),
    };
    (body, searches(app).await.0 == before + 1.0)
}

/// The ids of the players in the database, ascending.
fn player_ids(app: &TestApp) -> Vec<i64> {
    #[derive(QueryableByName)]
    struct Id {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        id: i64,
    }
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let ids: Vec<Id> = diesel::sql_query("SELECT id FROM players ORDER BY id")
        .load(&mut conn)
        .unwrap();
    ids.into_iter().map(|i| i.id).collect()
}

#[actix_web::test]
async fn a_players_profile_is_read_from_the_index_as_postgresql_reads_it() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    import(&app);
    // Once a search was answered by the index, it has applied the import.
    agree(&app, "players", "q=kar&limit=5").await;
    let ids = player_ids(&app);
    assert!(ids.len() >= 240, "{ids:?}");
    for &id in ids.iter().step_by(7) {
        let (body, held) = profile(&app, id).await;
        assert!(held, "player {id} was not read from the index");
        assert_eq!(body, profile_in_database(&app, id), "player {id}");
    }
    // Read again, the kept answer (the index is not asked); signed in, PostgreSQL's.
    let id = ids[7];
    let (body, held) = profile(&app, id).await;
    assert!(!held);
    assert_eq!(body, profile_in_database(&app, id));
    let before = searches(&app).await;
    let r = app
        .get(&format!("/api/v1/players/{id}"), Some(&admin))
        .await;
    assert_eq!(Some(r.json::<Value>().await.unwrap()), body);
    assert_eq!(searches(&app).await, before);

    // Created with a club and a linked account, renamed, linked elsewhere: every read right
    // after the write shows it (from the index once current, else from PostgreSQL).
    let (user, token) = app.user("profiled").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Ørjan Profilé", "club": "Ålesund BSK", "country": "NO", "user_id": user}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let new = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let (body, _) = profile(&app, new).await;
    assert_eq!(body, profile_in_database(&app, new));
    assert_eq!(body.as_ref().unwrap()["club"], "Ålesund BSK");
    assert_eq!(body.as_ref().unwrap()["user_id"], user);
    for patch in [
        json!({"name": "Ørjan Omdøpt"}),
        json!({"club": null, "country": "SE"}),
    ] {
        let r = app
            .patch(&format!("/api/v1/players/{new}"), Some(&admin), patch)
            .await;
        assert_eq!(r.status(), 200);
        let (body, _) = profile(&app, new).await;
        assert_eq!(body, profile_in_database(&app, new));
    }
    let (body, _) = profile(&app, new).await;
    assert_eq!(body.as_ref().unwrap()["name"], "Ørjan Omdøpt");
    assert_eq!(body.as_ref().unwrap()["club"], Value::Null);
    // Read from the index once it is current: a new page of a search waits for that.
    agree(&app, "players", "q=omdopt").await;
    let (body, held) = profile(&app, ids[5]).await;
    assert!(held);
    assert_eq!(body, profile_in_database(&app, ids[5]));

    // Erased with its account, removed and renamed beside the service, never there.
    assert_eq!(app.erase_me(&token).await.status(), 200);
    let (body, _) = profile(&app, new).await;
    assert_eq!(body, profile_in_database(&app, new));
    exec(&app, &format!("DELETE FROM players WHERE id = {}", ids[10]));
    assert_eq!(profile(&app, ids[10]).await.0, None);
    exec(
        &app,
        &format!(
            "UPDATE players SET name = 'Beside Service' WHERE id = {}",
            ids[11]
        ),
    );
    let (body, _) = profile(&app, ids[11]).await;
    assert_eq!(body.as_ref().unwrap()["name"], "Beside Service");
    assert_eq!(body, profile_in_database(&app, ids[11]));
    let (body, held) = profile(&app, i64::MAX).await;
    assert_eq!((body, held), (None, false));
}

#[actix_web::test]
async fn an_instance_without_its_index_answers_from_postgresql() {
    // Its listener cannot connect: the index is never built, nothing is kept.
    let db = fresh_database();
    let blind = serve_with_replica(&db, &db, "postgres://nobody@127.0.0.1:1/none");
    import(&blind);
    for q in ["q=kar&limit=7", "q=oysten", "q=lodz&country=PL&limit=3"] {
        let r = blind.get(&format!("/api/v1/players?{q}"), None).await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body, from_database(&blind, "players", q), "{q}");
        assert!(body["total"].as_i64().unwrap() > 0, "{q}");
    }
    // A profile too.
    let id = player_ids(&blind)[0];
    let r = blind.get(&format!("/api/v1/players/{id}"), None).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(Some(body), profile_in_database(&blind, id));
    let (by_index, by_database) = searches(&blind).await;
    assert_eq!((by_index, by_database), (0.0, 3.0));
}

/// The database's search stamp (migration `search_stamp`).
fn stamp(app: &TestApp) -> i64 {
    #[derive(QueryableByName)]
    struct Stamp {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query("SELECT n FROM search_stamp")
        .get_result::<Stamp>(&mut conn)
        .unwrap()
        .n
}

fn batch(app: &TestApp, sql: &str) {
    use diesel::connection::SimpleConnection;
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    conn.batch_execute(sql).unwrap();
}

#[actix_web::test]
async fn the_stamp_moves_once_per_committed_transaction_that_changed_a_name() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let s = stamp(&app);
    // Two statements, each its own transaction, hundreds of rows each: one stamp each.
    import(&app);
    assert_eq!(stamp(&app), s + 2);
    // One transaction of several statements (a bulk insert, a rename, a removal): one stamp.
    batch(
        &app,
        "BEGIN;
         INSERT INTO players (name, created_by)
             SELECT 'Bulk ' || g, (SELECT min(id) FROM users) FROM generate_series(1, 1000) g;
         UPDATE players SET country = 'DK' WHERE name LIKE 'Bulk 1%';
         DELETE FROM players WHERE name LIKE 'Bulk 2%';
         COMMIT;",
    );
    assert_eq!(stamp(&app), s + 3);
    // A writer that rolls back takes its stamp back with it; a change to no field the index
    // holds (a tournament's status) takes none.
    batch(
        &app,
        "BEGIN; INSERT INTO players (name, created_by) VALUES ('Gone', (SELECT min(id) FROM users));
         ROLLBACK;",
    );
    exec(
        &app,
        "UPDATE tournaments SET status = 'finished' WHERE status = 'running'",
    );
    assert_eq!(stamp(&app), s + 3);
    // Any change to a player row takes one: the index holds what the list shows of a player
    // (migration `search_stamp_rows`), a club among it.
    exec(
        &app,
        "UPDATE players SET club = 'Oslo BK' WHERE name LIKE 'Kari%'",
    );
    assert_eq!(stamp(&app), s + 4);
    // Through the API: a player created, a tournament created and renamed.
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Stamp Once"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert_eq!(stamp(&app), s + 5);
    let tid = app.tournament(&admin, "agricola_norway").await;
    assert_eq!(stamp(&app), s + 6);
    exec(
        &app,
        &format!("UPDATE tournaments SET name = 'Stamped Open' WHERE id = {tid}"),
    );
    assert_eq!(stamp(&app), s + 7);
    // The index follows: what it answers agrees with the database.
    agree(&app, "players", "q=bulk%202&limit=5").await;
    // Bulk 1, 10-19, 100-199 and 1000.
    let dk = agree(&app, "players", "q=bulk&country=DK&limit=5").await;
    assert_eq!(dk["total"], 112);
}

#[actix_web::test]
async fn a_name_written_beside_the_service_is_in_the_very_next_search() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    import(&app);
    // The index is built and answering.
    agree(&app, "players", "q=kar&limit=5").await;
    let tid = app.tournament(&admin, "agricola_norway").await;
    exec(
        &app,
        &format!("UPDATE tournaments SET status = 'running' WHERE id = {tid}"),
    );
    let (hits, _) = searches(&app).await;
    for i in 0..20 {
        // Written straight into the tables (as an import or another instance writes), then
        // read at once, each time under a query string never asked before.
        exec(
            &app,
            &format!(
                "INSERT INTO players (name, created_by)
                 VALUES ('Zorvath Beside{i:02}', (SELECT min(id) FROM users))"
            ),
        );
        let page = public(&app, &format!("/api/v1/players?q=zorvath%20beside{i:02}")).await;
        assert_eq!(item_names(&page), [format!("Zorvath Beside{i:02}")], "{i}");
        // What the list shows beyond the name too (the index holds the whole row).
        exec(
            &app,
            &format!("UPDATE players SET club = 'Club {i:02}' WHERE name = 'Zorvath Beside{i:02}'"),
        );
        let club = public(
            &app,
            &format!("/api/v1/players?q=zorvath%20beside{i:02}&limit=2"),
        )
        .await;
        assert_eq!(club["items"][0]["club"], format!("Club {i:02}"), "{i}");
        exec(
            &app,
            &format!(
                "UPDATE players SET name = 'Quexal Moved{i:02}' WHERE name = 'Zorvath Beside{i:02}'"
            ),
        );
        let gone = public(
            &app,
            &format!("/api/v1/players?q=zorvath%20beside{i:02}&limit=3"),
        )
        .await;
        assert_eq!(gone["total"], 0, "{i}: {gone}");
        let moved = public(&app, &format!("/api/v1/players?q=quexal%20moved{i:02}")).await;
        // Ranked first (the earlier ones are near matches).
        assert_eq!(item_names(&moved)[0], format!("Quexal Moved{i:02}"), "{i}");
        assert_eq!(moved["total"], i + 1, "{i}");
        exec(
            &app,
            &format!("UPDATE tournaments SET name = 'Yarrow Cup {i:02}' WHERE id = {tid}"),
        );
        let cup = public(
            &app,
            &format!("/api/v1/tournaments?q=yarrow%20cup%20{i:02}"),
        )
        .await;
        assert_eq!(
            item_names(&cup),
            [format!("Yarrow Cup {i:02}")],
            "{i}: {cup}"
        );
    }
    // The index answered (most of) them; whichever answered, the answers were exact.
    assert!(searches(&app).await.0 > hits);
    agree(&app, "players", "q=quexal&limit=30").await;
}

/// The public cache's misses so far (`tourney_cache_reads_total{cache="public"}`).
async fn kept_misses(app: &TestApp) -> f64 {
    app.cache_reads("public").await.1
}

#[actix_web::test]
async fn a_cold_search_read_by_many_at_once_is_computed_once() {
    let app = spawn_app().await;
    import(&app);
    agree(&app, "players", "q=kar&limit=5").await;
    let (hits, misses) = searches(&app).await;
    let kept = kept_misses(&app).await;
    // 24 readers of one search nobody asked before, all at once.
    let path = "/api/v1/players?q=stadheim&limit=20";
    let answers = futures_util::future::join_all((0..24).map(|_| app.get(path, None))).await;
    let mut bodies = Vec::new();
    for r in answers {
        assert_eq!(r.status(), 200);
        bodies.push(r.json::<Value>().await.unwrap());
    }
    assert!(bodies.iter().all(|b| b == &bodies[0]));
    assert_eq!(bodies[0]["total"], 40);
    // One of them computed it (one search, one miss of the kept bodies); the rest waited for
    // it and were answered with its body.
    let (h, m) = searches(&app).await;
    assert_eq!((h - hits) + (m - misses), 1.0);
    assert_eq!(kept_misses(&app).await, kept + 1.0);
}

/// One page of `list?query`, the index's answer equal to the database's.
async fn same(app: &TestApp, list: &str, query: &str) -> Value {
    let indexed = from_index(app, list, query).await;
    assert_eq!(indexed, from_database(app, list, query), "{list}?{query}");
    indexed
}

/// The page of `list?query` read with `count=false` (from the index and from PostgreSQL
/// alike), checked against the page read with the count: the same items, cursor and link;
/// the same total where a first page holds the whole list, else a lower bound of it (the
/// items up to the page and one more where a next page exists, 0 past the end) with
/// `total_exact` false. Returns the uncounted page.
async fn uncounted(app: &TestApp, list: &str, query: &str) -> Value {
    let counted = same(app, list, query).await;
    let page = same(app, list, &format!("{query}&count=false")).await;
    assert_eq!(page["items"], counted["items"], "{list}?{query}");
    assert_eq!(
        page["next_cursor"], counted["next_cursor"],
        "{list}?{query}"
    );
    let items = page["items"].as_array().unwrap().len() as i64;
    let more = i64::from(page["next_cursor"].is_string());
    let offset = page["offset"].as_i64().unwrap();
    let whole = !query.contains("cursor=") && offset == 0 && more == 0;
    if whole {
        assert_eq!(page["total"], counted["total"], "{list}?{query}");
        assert_eq!(page["total_exact"], true, "{list}?{query}");
        return page;
    }
    let shown = if items == 0 { 0 } else { offset + items + more };
    assert_eq!(page["total"], shown.min(1000), "{list}?{query}");
    assert_eq!(page["total_exact"], false, "{list}?{query}");
    assert!(
        shown <= counted["total"].as_i64().unwrap() || counted["total_exact"] == false,
        "{list}?{query}: {shown} is more than {}",
        counted["total"]
    );
    page
}

#[actix_web::test]
async fn a_search_not_counted_shows_the_same_page_and_a_lower_bound() {
    let app = spawn_app().await;
    import(&app);
    // Pages that hold the whole list, pages with a next one, pages by offset and past the
    // end, ranked and by name, with every filter; the index and PostgreSQL alike (`agree`).
    for q in PLAYER_QUERIES
        .into_iter()
        .chain(["q=kar&limit=7&offset=200", "q=kari&limit=3&offset=58"])
    {
        uncounted(&app, "players", q).await;
    }
    for q in TOURNAMENT_QUERIES {
        uncounted(&app, "tournaments", q).await;
    }
    // A walk by cursor keeps `count=false` in its links, and every page gives what the pages
    // so far show (a page by cursor knows nothing of those before it).
    let kar = uncounted(&app, "players", "q=kar&limit=50").await;
    assert_eq!(
        (&kar["total"], &kar["total_exact"]),
        (&json!(51), &json!(false))
    );
    let r = app
        .get("/api/v1/players?q=kar&limit=50&count=false", None)
        .await;
    let next = r.headers()["link"].to_str().unwrap().to_string();
    assert!(next.contains("count=false"), "{next}");
    let cursor = kar["next_cursor"].as_str().unwrap();
    let page = uncounted(&app, "players", &format!("q=kar&limit=50&cursor={cursor}")).await;
    assert_eq!(
        (&page["total"], &page["total_exact"]),
        (&json!(51), &json!(false))
    );
    let cursor = page["next_cursor"].as_str().unwrap();
    let last = uncounted(&app, "players", &format!("q=kar&limit=50&cursor={cursor}")).await;
    assert_eq!(
        (&last["total"], &last["total_exact"]),
        (&json!(20), &json!(false))
    );
    // Counted as asked by default or with `count=true`; anything else names the field.
    let counted = public(&app, "/api/v1/players?q=kar&limit=50&count=true").await;
    assert_eq!(
        (&counted["total"], &counted["total_exact"]),
        (&json!(120), &json!(true))
    );
    for list in ["players", "tournaments"] {
        let p = crate::helpers::problem(
            app.get(&format!("/api/v1/{list}?q=kar&count=maybe"), None)
                .await,
            422,
        )
        .await;
        assert_eq!(crate::helpers::fields(&p), ["count"], "{list}");
    }
}
