//! The registry at scale (issue 31): search that ignores case and diacritics, ranked by
//! similarity; tournament filters and sorts; keyset pages with opaque cursors; the offset
//! bound; capped totals.

use diesel::{Connection, RunQueryDsl};
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};

/// Runs SQL on the test's database (bulk rows the API would take minutes to create).
fn sql(app: &TestApp, statement: &str) {
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    diesel::sql_query(statement)
        .execute(&mut conn)
        .expect(statement);
}

async fn player(app: &TestApp, token: &str, name: &str, country: Option<&str>) -> i64 {
    let r = app
        .post(
            "/api/v1/players",
            Some(token),
            json!({"name": name, "country": country}),
        )
        .await;
    assert_eq!(r.status(), 201, "{name}");
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

async fn names(app: &TestApp, path: &str, token: Option<&str>) -> Vec<String> {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    let page: Value = r.json().await.unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

fn link_next(r: &reqwest::Response) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?.to_string();
    link.split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .map(|l| l[1..l.find('>').unwrap()].to_string())
}

/// Follows `next` links from `first` to the end; the ids in order and the pages' cursors.
async fn walk(app: &TestApp, first: &str, token: Option<&str>) -> (Vec<i64>, Vec<String>) {
    let mut ids = Vec::new();
    let mut cursors = Vec::new();
    let mut next = Some(first.to_string());
    while let Some(path) = next {
        let r = app.get(&path, token).await;
        assert_eq!(r.status(), 200, "{path}");
        next = link_next(&r);
        let page: Value = r.json().await.unwrap();
        assert_eq!(page["total_exact"], true);
        match (&next, page["next_cursor"].as_str()) {
            (Some(link), Some(c)) => {
                assert!(link.contains(&format!("cursor={c}")), "{link}");
                cursors.push(c.to_string());
            }
            (None, None) => {}
            other => panic!("link and next_cursor disagree: {other:?}"),
        }
        ids.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["id"].as_i64().unwrap()),
        );
        assert!(ids.len() < 1000, "the walk does not end");
    }
    (ids, cursors)
}

#[actix_web::test]
async fn player_search_ignores_case_and_diacritics_and_ranks_by_similarity() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for name in [
        "Øystein Ødegård",
        "Łukasz Żółć",
        "Kari Nordmann",
        "Karianne Berg",
        "Ola Kari",
        // decomposed: O + combining diaeresis
        "O\u{308}yvind Strasse",
        "GROẞMANN",
        "Percent 100% Sure",
    ] {
        player(&app, &admin, name, None).await;
    }
    let search = |q: &str| format!("/api/v1/players?q={}", urlencode(q));
    assert_eq!(
        names(&app, &search("oystein"), None).await,
        ["Øystein Ødegård"]
    );
    assert_eq!(
        names(&app, &search("ØYSTEIN"), None).await,
        ["Øystein Ødegård"]
    );
    assert_eq!(
        names(&app, &search("odegard"), None).await,
        ["Øystein Ødegård"]
    );
    assert_eq!(names(&app, &search("zolc"), None).await, ["Łukasz Żółć"]);
    assert_eq!(names(&app, &search("LUKASZ"), None).await, ["Łukasz Żółć"]);
    // a precomposed query finds a decomposed name, and ß matches ss
    assert_eq!(
        names(&app, &search("Öyvind"), None).await,
        ["O\u{308}yvind Strasse"]
    );
    assert_eq!(
        names(&app, &search("straße"), None).await,
        ["O\u{308}yvind Strasse"]
    );
    assert_eq!(names(&app, &search("grossmann"), None).await, ["GROẞMANN"]);
    // a near match of a word (a letter missing) is found
    assert_eq!(
        names(&app, &search("oysten"), None).await,
        ["Øystein Ødegård"]
    );
    // wildcards are characters, not patterns
    assert_eq!(
        names(&app, &search("100%"), None).await,
        ["Percent 100% Sure"]
    );
    assert!(names(&app, &search("%"), None).await.len() == 1);
    assert!(names(&app, &search("_"), None).await.is_empty());
    // ranked: whole words first (ties by name), then partial matches
    assert_eq!(
        names(&app, &search("kari"), None).await,
        ["Kari Nordmann", "Ola Kari", "Karianne Berg"]
    );
    assert_eq!(
        names(&app, &format!("{}&sort=name", search("kari")), None).await,
        ["Kari Nordmann", "Karianne Berg", "Ola Kari"]
    );
    // relevance needs a query; unknown sorts are refused, naming the parameter
    for bad in ["sort=relevance", "sort=newest", "q=kari&sort=-name"] {
        let p = problem(app.get(&format!("/api/v1/players?{bad}"), None).await, 422).await;
        assert_eq!(fields(&p), ["sort"], "{bad}");
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[actix_web::test]
async fn player_pages_follow_cursors_through_ties_in_a_fixed_order() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut expected = Vec::new();
    for name in ["Same Name", "Another", "Same Name", "Same Name", "Zed"] {
        expected.push((name, player(&app, &admin, name, Some("NO")).await));
    }
    for _ in 0..3 {
        expected.push(("Same Name", player(&app, &admin, "Same Name", None).await));
    }
    expected.sort();
    let all: Vec<i64> = expected.iter().map(|(_, id)| *id).collect();
    // by name: ties on the name are broken by id
    let (ids, cursors) = walk(&app, "/api/v1/players?limit=2", None).await;
    assert_eq!(ids, all);
    assert_eq!(cursors.len(), 3);
    // by relevance: every "Same Name" ties on the score too
    let same: Vec<i64> = expected
        .iter()
        .filter(|(n, _)| *n == "Same Name")
        .map(|(_, id)| *id)
        .collect();
    let (ids, _) = walk(&app, "/api/v1/players?q=same&limit=2", None).await;
    assert_eq!(ids, same);
    // filters stay in the links
    let (ids, _) = walk(&app, "/api/v1/players?country=no&limit=1", None).await;
    assert_eq!(ids.len(), 5);
    // a page reached by cursor has no prev link; an offset page has one
    let r = app.get("/api/v1/players?limit=3", None).await;
    let next = link_next(&r).unwrap();
    let r = app.get(&next, None).await;
    let link = r.headers()["link"].to_str().unwrap().to_string();
    assert!(!link.contains("rel=\"prev\""), "{link}");
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["offset"], 0);
    assert_eq!(page["total"], 8);
    let r = app.get("/api/v1/players?limit=3&offset=3", None).await;
    let link = r.headers()["link"].to_str().unwrap().to_string();
    assert!(link.contains("offset=0>; rel=\"prev\""), "{link}");
    assert!(link.contains("cursor="), "{link}");
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["items"][0]["id"], json!(all[3]));
}

#[actix_web::test]
async fn a_cursor_that_was_altered_or_moved_is_refused_naming_it() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for name in ["A", "B", "C"] {
        player(&app, &admin, name, None).await;
    }
    let page: Value = app
        .get("/api/v1/players?limit=1", None)
        .await
        .json()
        .await
        .unwrap();
    let cursor = page["next_cursor"].as_str().unwrap().to_string();
    let ok = app
        .get(&format!("/api/v1/players?limit=1&cursor={cursor}"), None)
        .await;
    assert_eq!(ok.status(), 200);
    // a changed key (the id of the last item) with the old check
    let (body, tag) = cursor.split_once('.').unwrap();
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let keys = String::from_utf8(engine.decode(body).unwrap()).unwrap();
    let forged = engine.encode(keys.replace(",1]", ",2]"));
    assert_ne!(forged, body);
    let mut flipped = cursor.clone().into_bytes();
    flipped[2] = if flipped[2] == b'A' { b'B' } else { b'A' };
    for bad in [
        format!("{forged}.{tag}"),
        String::from_utf8(flipped).unwrap(),
        format!("{body}.0000000000000000"),
        "garbage".to_string(),
        "%%%.abc".to_string(),
        String::new(),
    ] {
        let p = problem(
            app.get(&format!("/api/v1/players?limit=1&cursor={bad}"), None)
                .await,
            422,
        )
        .await;
        assert_eq!(fields(&p), ["cursor"], "{bad}");
    }
    // another query's or another list's cursor
    for other in [
        format!("/api/v1/players?limit=1&q=a&cursor={cursor}"),
        format!("/api/v1/players?limit=1&sort=name&country=NO&cursor={cursor}"),
        format!("/api/v1/tournaments?limit=1&cursor={cursor}"),
    ] {
        let p = problem(app.get(&other, None).await, 422).await;
        assert_eq!(fields(&p), ["cursor"], "{other}");
    }
    // a cursor and an offset together
    let p = problem(
        app.get(&format!("/api/v1/players?offset=1&cursor={cursor}"), None)
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["offset"]);
}

#[actix_web::test]
async fn offsets_end_at_the_bound_and_big_lists_count_to_the_cap() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let me: Value = app.me(&admin).await;
    let uid = me["id"].as_i64().unwrap();
    sql(
        &app,
        &format!(
            "INSERT INTO players (name, country, created_by) SELECT 'Bulk ' || lpad(g::text, 5, '0'), \
             CASE WHEN g <= 3 THEN 'SE' END, {uid} FROM generate_series(1, 1005) g"
        ),
    );
    for path in [
        "/api/v1/players?offset=10000",
        "/api/v1/tournaments?offset=10000",
    ] {
        assert_eq!(app.get(path, None).await.status(), 200, "{path}");
    }
    for path in [
        "/api/v1/players?offset=10001",
        "/api/v1/tournaments?offset=10001",
        "/api/v1/players?offset=-1",
        "/api/v1/players?offset=x",
    ] {
        let p = problem(app.get(path, None).await, 422).await;
        assert_eq!(fields(&p), ["offset"], "{path}");
    }
    let page: Value = app
        .get("/api/v1/players?limit=200&offset=1000", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["total"], 1000);
    assert_eq!(page["total_exact"], false);
    assert_eq!(page["items"].as_array().unwrap().len(), 5);
    assert_eq!(page["items"][4]["name"], "Bulk 01005");
    let page: Value = app
        .get("/api/v1/players?country=SE", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["total"], 3);
    assert_eq!(page["total_exact"], true);
    assert!(page.get("next_cursor").is_none());
    // the late page by cursor: the walk over 1005 players in pages of 200
    let (ids, cursors) = walk_capped(&app, "/api/v1/players?limit=200").await;
    assert_eq!(ids, 1005);
    assert_eq!(cursors, 5);
    // A ranked search counts its matches in the page's own pass: capped like every total, and
    // on a page reached by offset (first, middle, past the end) equal to what a walk finds.
    let json = |path: String| {
        let app = &app;
        async move { app.get(&path, None).await.json::<Value>().await.unwrap() }
    };
    let page = json("/api/v1/players?q=bulk&limit=5".into()).await;
    assert_eq!(
        (&page["total"], &page["total_exact"]),
        (&json!(1000), &json!(false))
    );
    sql(
        &app,
        &format!(
            "INSERT INTO players (name, created_by) VALUES ('Żaneta Kowalska', {uid}), \
             ('Zaneta Kowalski', {uid}), ('Anna Kowalczyk', {uid}), ('Kowal Jan', {uid}), \
             ('Janina Kowalewska', {uid})"
        ),
    );
    for q in ["kowal", "kowalsk", "KOWALS"] {
        let (ids, _) = walk(&app, &format!("/api/v1/players?q={q}&limit=2"), None).await;
        assert!(ids.len() > 2 && ids.len() < 10, "{q}: {}", ids.len());
        for offset in [0, 1, ids.len() - 1, ids.len() + 3] {
            let page = json(format!("/api/v1/players?q={q}&limit=2&offset={offset}")).await;
            assert_eq!(page["total"], ids.len(), "{q} at {offset}");
            assert_eq!(page["total_exact"], true, "{q} at {offset}");
        }
    }
}

/// [`walk`] for lists beyond the count cap: how many items and cursors.
async fn walk_capped(app: &TestApp, first: &str) -> (usize, usize) {
    let (mut items, mut cursors) = (0, 0);
    let mut next = Some(first.to_string());
    while let Some(path) = next {
        let r = app.get(&path, None).await;
        assert_eq!(r.status(), 200);
        next = link_next(&r);
        cursors += usize::from(next.is_some());
        let page: Value = r.json().await.unwrap();
        items += page["items"].as_array().unwrap().len();
    }
    (items, cursors)
}

async fn tournament(app: &TestApp, token: &str, body: Value) -> i64 {
    let mut full = json!({
        "game": "Agricola", "ruleset": "agricola_norway", "planned_rounds": 3,
        "starts_on": "2026-06-12", "time_zone": "Europe/Oslo"
    });
    full.as_object_mut()
        .unwrap()
        .extend(body.as_object().unwrap().clone());
    let r = app.post("/api/v1/tournaments", Some(token), full).await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

#[actix_web::test]
async fn tournaments_are_searched_filtered_and_sorted() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool: Value = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Agricola Norway", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let pool = pool["id"].as_i64().unwrap();
    let nm = tournament(
        &app,
        &admin,
        json!({"name": "NM i Agricola, Ålesund", "country": "no", "starts_on": "2026-03-01",
               "rating_pool_id": pool}),
    )
    .await;
    let krakow = tournament(
        &app,
        &admin,
        json!({"name": "Puchar Krakowa w Tantrixa, Łódź", "game": "Tantrix", "ruleset": "tantrix",
               "country": "PL", "starts_on": "2026-05-01", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let bergen = tournament(
        &app,
        &admin,
        json!({"name": "Bergen Open", "country": "NO", "starts_on": "2026-04-01"}),
    )
    .await;
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{bergen}"),
            Some(&admin),
            1,
            json!({"status": "registration_open"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let ids = |path: String| {
        let app = &app;
        let admin = admin.clone();
        async move {
            let r = app.get(&path, Some(&admin)).await;
            assert_eq!(r.status(), 200, "{path}");
            let page: Value = r.json().await.unwrap();
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_i64().unwrap())
                .collect::<Vec<_>>()
        }
    };
    let list = |q: &str| format!("/api/v1/tournaments?{q}");
    assert_eq!(ids(list("")).await, [krakow, bergen, nm]);
    assert_eq!(ids(list("sort=starts_on")).await, [nm, bergen, krakow]);
    assert_eq!(ids(list("sort=-starts_on")).await, [krakow, bergen, nm]);
    assert_eq!(ids(list("sort=name")).await, [bergen, nm, krakow]);
    assert_eq!(ids(list("q=ALESUND")).await, [nm]);
    assert_eq!(ids(list("q=lodz")).await, [krakow]);
    assert_eq!(ids(list("q=open&sort=name")).await, [bergen]);
    assert_eq!(ids(list("status=registration_open")).await, [bergen]);
    assert_eq!(ids(list("status=draft")).await, [krakow, nm]);
    assert_eq!(ids(list("game=TANTRIX")).await, [krakow]);
    assert_eq!(ids(list("game=agricola")).await, [bergen, nm]);
    assert_eq!(ids(list("ruleset=tantrix")).await, [krakow]);
    assert_eq!(ids(list("country=no")).await, [bergen, nm]);
    assert_eq!(ids(list("country=PL")).await, [krakow]);
    assert_eq!(ids(list(&format!("rating_pool_id={pool}"))).await, [nm]);
    assert_eq!(ids(list("starts_from=2026-04-01")).await, [krakow, bergen]);
    assert_eq!(ids(list("starts_until=2026-04-01")).await, [bergen, nm]);
    assert_eq!(
        ids(list("starts_from=2026-04-01&starts_until=2026-04-01")).await,
        [bergen]
    );
    assert_eq!(ids(list("country=NO&status=draft")).await, [nm]);
    assert!(ids(list("country=SE")).await.is_empty());
    // the public sees the published one only, filters or not
    let public: Value = app
        .get("/api/v1/tournaments?country=NO", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(public["total"], 1);
    assert_eq!(public["items"][0]["id"], json!(bergen));
    assert_eq!(public["items"][0]["country"], "NO");
    // the country can be changed and cleared
    let r = app
        .patch_if_match(
            &format!("/api/v1/tournaments/{nm}"),
            Some(&admin),
            1,
            json!({"country": null}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(ids(list("country=NO")).await, [bergen]);

    // every bad value is a 422 naming its parameter
    for (bad, field) in [
        ("status=over", "status"),
        ("ruleset=chess", "ruleset"),
        ("starts_from=2026-13-01", "starts_from"),
        ("starts_until=tomorrow", "starts_until"),
        (
            "starts_from=2026-05-01&starts_until=2026-04-01",
            "starts_until",
        ),
        ("country=NOR", "country"),
        ("rating_pool_id=999999", "rating_pool_id"),
        ("rating_pool_id=x", "rating_pool_id"),
        ("sort=newest", "sort"),
        ("sort=relevance", "sort"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("offset=-1", "offset"),
        ("offset=10001", "offset"),
        ("cursor=abc", "cursor"),
        ("game=%01", "game"),
        ("q=%01", "q"),
        ("colour=red", "colour"),
    ] {
        let p = problem(app.get(&list(bad), Some(&admin)).await, 422).await;
        let f = fields(&p);
        assert!(
            f == [field] || (field == "colour" && f == ["query"]),
            "{bad}: {f:?}"
        );
    }
    let long = "x".repeat(201);
    let p = problem(app.get(&list(&format!("q={long}")), None).await, 422).await;
    assert_eq!(fields(&p), ["q"]);
    // A ranked search counts its matches in the page's own pass: the total of every page
    // reached by offset, past the end too, is the number of matches.
    for name in ["Ålesund Cup", "Alesund Open 2027"] {
        tournament(&app, &admin, json!({ "name": name })).await;
    }
    let found = ids(list("q=alesund&limit=50")).await;
    assert_eq!(found.len(), 3, "{found:?}");
    for offset in [0, 1, 2, 5] {
        let r = app
            .get(
                &list(&format!("q=alesund&limit=1&offset={offset}")),
                Some(&admin),
            )
            .await;
        let page: Value = r.json().await.unwrap();
        assert_eq!(
            (&page["total"], &page["total_exact"]),
            (&json!(3), &json!(true)),
            "{offset}"
        );
    }
}

#[actix_web::test]
async fn tournament_pages_follow_cursors_through_equal_dates() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut made = Vec::new();
    for (i, day) in [
        "2026-06-01",
        "2026-06-01",
        "2026-07-01",
        "2026-06-01",
        "2026-05-01",
    ]
    .iter()
    .enumerate()
    {
        let id = tournament(
            &app,
            &admin,
            json!({"name": format!("Cup {}", i % 2), "starts_on": day}),
        )
        .await;
        made.push((day.to_string(), format!("Cup {}", i % 2), id));
    }
    let mut by_day = made.clone();
    by_day.sort_by(|a, b| (&b.0, b.2).cmp(&(&a.0, a.2)));
    let (ids, _) = walk(&app, "/api/v1/tournaments?limit=2", Some(&admin)).await;
    assert_eq!(ids, by_day.iter().map(|t| t.2).collect::<Vec<_>>());
    by_day.sort_by(|a, b| (&a.0, a.2).cmp(&(&b.0, b.2)));
    let (ids, _) = walk(
        &app,
        "/api/v1/tournaments?limit=2&sort=starts_on",
        Some(&admin),
    )
    .await;
    assert_eq!(ids, by_day.iter().map(|t| t.2).collect::<Vec<_>>());
    let mut by_name = made.clone();
    by_name.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    let (ids, _) = walk(&app, "/api/v1/tournaments?limit=2&sort=name", Some(&admin)).await;
    assert_eq!(ids, by_name.iter().map(|t| t.2).collect::<Vec<_>>());
    let (ids, _) = walk(&app, "/api/v1/tournaments?limit=1&q=cup", Some(&admin)).await;
    assert_eq!(ids, by_name.iter().map(|t| t.2).collect::<Vec<_>>());
    // a cursor of one sort is refused by another
    let page: Value = app
        .get("/api/v1/tournaments?limit=1", Some(&admin))
        .await
        .json()
        .await
        .unwrap();
    let c = page["next_cursor"].as_str().unwrap();
    let p = problem(
        app.get(
            &format!("/api/v1/tournaments?limit=1&sort=name&cursor={c}"),
            Some(&admin),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["cursor"]);
}

#[actix_web::test]
async fn a_players_rating_history_pages_by_cursor_in_rated_order() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pid = player(&app, &admin, "Kari", None).await;
    let mut pools = Vec::new();
    for name in ["List A", "List B"] {
        let p: Value = app
            .post(
                "/api/v1/rating-pools",
                Some(&admin),
                json!({"name": name, "preset": "agricola_norway", "time_zone": "Europe/Oslo"}),
            )
            .await
            .json()
            .await
            .unwrap();
        pools.push(p["id"].as_i64().unwrap());
    }
    // seven changes, five of them at the same moment in two pools: ties on rated_at
    sql(
        &app,
        &format!(
            "INSERT INTO rating_changes (pool_id, sequence, player_id, kind, tournament_id, round_id, \
             table_number, result_version, rated_at, rating_before, rating_after, delta, games) \
             SELECT CASE WHEN g % 2 = 0 THEN {a} ELSE {b} END, g, {pid}, 'game', 0, 0, 1, 1, \
             CASE WHEN g <= 5 THEN timestamptz '2026-05-01 12:00Z' ELSE timestamptz '2026-04-01 12:00Z' END, \
             1000 + g, 1001 + g, 1, g FROM generate_series(1, 7) g",
            a = pools[0],
            b = pools[1]
        ),
    );
    let base = format!("/api/v1/players/{pid}/ratings");
    let whole: Value = app.get(&base, None).await.json().await.unwrap();
    let expected: Vec<(i64, f64)> = whole["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["pool_id"].as_i64().unwrap(),
                c["rating_before"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(whole["total"], 7);
    // the April ones first (sequences 6 and 7), then May's by pool, then by sequence
    let (a, b) = (pools[0], pools[1]);
    assert_eq!(
        expected,
        [
            (a, 1006.0),
            (b, 1007.0),
            (a, 1002.0),
            (a, 1004.0),
            (b, 1001.0),
            (b, 1003.0),
            (b, 1005.0)
        ]
    );
    let mut walked = Vec::new();
    let mut next = Some(format!("{base}?limit=2"));
    while let Some(path) = next {
        let r = app.get(&path, None).await;
        assert_eq!(r.status(), 200);
        next = link_next(&r);
        let page: Value = r.json().await.unwrap();
        walked.extend(page["items"].as_array().unwrap().iter().map(|c| {
            (
                c["pool_id"].as_i64().unwrap(),
                c["rating_before"].as_f64().unwrap(),
            )
        }));
    }
    assert_eq!(walked, expected);
    // one pool only; its cursor does not serve the other
    let page: Value = app
        .get(&format!("{base}?pool={b}&limit=1"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["total"], 4);
    let c = page["next_cursor"].as_str().unwrap().to_string();
    let p = problem(
        app.get(&format!("{base}?pool={a}&cursor={c}"), None).await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["cursor"]);
    for (bad, field) in [
        ("pool=0", "pool"),
        ("offset=10001", "offset"),
        ("cursor=x.y", "cursor"),
    ] {
        let p = problem(app.get(&format!("{base}?{bad}"), None).await, 422).await;
        assert_eq!(fields(&p), [field], "{bad}");
    }
}
