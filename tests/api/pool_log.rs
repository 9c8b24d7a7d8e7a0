//! A pool's log, `GET /rating-pools/{id}/changes` (issue 31): every change in the pool's order,
//! paged by cursor, its filters, its refusals and what a recompute does to it.

use diesel::prelude::*;
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};

#[allow(unused_imports)]
use crate::rating_fixtures::*;

/// A pool with two seasons (March, April 2026), four players and two tournaments:
/// T1 round 1 on 7 March (A beats B, C beats D), T2 round 1 on 8 March (A beats C, D beats B),
/// T1 round 2 on 10 April (B beats C, D beats A). 12 changes, sequences 0-5.
struct Rated {
    app: TestApp,
    admin: String,
    pool: i64,
    players: [i64; 4],
    t1: i64,
    t2: i64,
    t1_r1: i64,
}

async fn rated() -> Rated {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({
            "name": "Ashes 2026", "preset": "ashes_poland", "time_zone": "Europe/Warsaw",
            "seasons": [
                {"name": "Marzec", "first_day": "2026-03-01", "last_day": "2026-03-31"},
                {"name": "Kwiecień", "first_day": "2026-04-01", "last_day": "2026-04-30"}
            ]
        }),
    )
    .await;
    let mut p = [0; 4];
    for (i, n) in ["Ania", "Bartek", "Cecylia", "Dawid"].iter().enumerate() {
        p[i] = player(&app, &admin, n, "PL", "K").await;
    }
    let t1 = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let t2 = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-08").await;
    let mut conn = db(&app);
    let t1_r1 = completed_round(&mut conn, t1, 1, "2026-03-07T10:00:00Z");
    result(&mut conn, t1_r1, 1, 1, win(p[0], p[1]));
    result(&mut conn, t1_r1, 2, 1, win(p[2], p[3]));
    feed(&mut conn, t1);
    let r = completed_round(&mut conn, t2, 1, "2026-03-08T10:00:00Z");
    result(&mut conn, r, 1, 1, win(p[0], p[2]));
    result(&mut conn, r, 2, 1, win(p[3], p[1]));
    feed(&mut conn, t2);
    let r = completed_round(&mut conn, t1, 2, "2026-04-10T10:00:00Z");
    result(&mut conn, r, 1, 1, win(p[1], p[2]));
    result(&mut conn, r, 2, 1, win(p[3], p[0]));
    feed(&mut conn, t1);
    Rated {
        app,
        admin,
        pool: pool_id,
        players: p,
        t1,
        t2,
        t1_r1,
    }
}

async fn get_ok(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

fn link_next(r: &reqwest::Response) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?.to_string();
    link.split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .map(|l| l[1..l.find('>').unwrap()].to_string())
}

/// (sequence, player) of each item.
fn keys(page: &Value) -> Vec<(i64, i64)> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["sequence"].as_i64().unwrap(),
                c["player_id"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// (sequence, player, before, after, delta) of each item, as `rating_fixtures::log` reads.
fn entries(page: &Value) -> Vec<(i64, i64, f64, f64, f64)> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["sequence"].as_i64().unwrap(),
                c["player_id"].as_i64().unwrap(),
                c["rating_before"].as_f64().unwrap(),
                c["rating_after"].as_f64().unwrap(),
                c["delta"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn rounded(log: Vec<(i64, i64, f64, f64, f64)>) -> Vec<(i64, i64, f64, f64, f64)> {
    log.into_iter()
        .map(|(s, p, b, a, d)| (s, p, round1(b), round1(a), round1(d)))
        .collect()
}

/// Follows `next` links from `first`; the items' keys and how many pages.
async fn walk(app: &TestApp, first: &str) -> (Vec<(i64, i64)>, usize) {
    let (mut out, mut pages) = (Vec::new(), 0);
    let mut next = Some(first.to_string());
    while let Some(path) = next {
        let r = app.get(&path, None).await;
        assert_eq!(r.status(), 200, "{path}");
        next = link_next(&r);
        let page: Value = r.json().await.unwrap();
        if pages > 0 {
            assert!(path.contains("cursor="), "{path}");
            assert_eq!(page["offset"], 0, "a page reached by cursor");
        }
        assert_eq!(page["next_cursor"].is_string(), next.is_some(), "{path}");
        out.extend(keys(&page));
        pages += 1;
    }
    (out, pages)
}

#[actix_web::test]
async fn the_log_lists_every_change_in_order_and_matches_each_history() {
    let s = rated().await;
    let (app, pool_id) = (&s.app, s.pool);
    let base = format!("/api/v1/rating-pools/{pool_id}/changes");
    let whole = get_ok(app, &format!("{base}?limit=200"), None).await;
    let mut conn = db(app);
    let stored = rounded(log(&mut conn, pool_id));
    assert_eq!(stored.len(), 12);
    assert_eq!(entries(&whole), stored, "the log as stored, in its order");
    let mut sorted = keys(&whole);
    sorted.sort();
    assert_eq!(keys(&whole), sorted, "sequence, then player");
    assert_eq!(whole["total"], 12);
    assert_eq!(whole["total_exact"], true);
    assert!(whole.get("next_cursor").is_none());
    assert_eq!(whole["log_rewrites"], 0);
    assert_eq!(whole["log_rewritten_from"], Value::Null);
    // The first item: A beat B at T1 round 1 table 1, result version 1.
    let first = &whole["items"][0];
    assert_eq!(first["player_id"], s.players[0]);
    assert_eq!(first["player_name"], "Ania");
    assert_eq!(first["kind"], "game");
    assert_eq!(first["tournament_id"], s.t1);
    assert_eq!(first["round_id"], s.t1_r1);
    assert_eq!(first["round_number"], 1);
    assert_eq!(first["table_number"], 1);
    assert_eq!(first["result_version"], 1);
    assert_eq!(first["import_id"], Value::Null);
    assert_eq!(first["games"], 1);
    assert_eq!(first["rating_before"], 1000.0);
    assert_eq!(first["delta"], 12.5);
    // Each player's part of the log is their history in this pool, in the same order.
    for p in s.players {
        let mine = get_ok(app, &format!("{base}?player_id={p}&limit=200"), None).await;
        let history = get_ok(
            app,
            &format!("/api/v1/players/{p}/ratings?pool={pool_id}&limit=200"),
            None,
        )
        .await;
        let pick = |v: &Value, fields: &[&str]| -> Vec<Vec<Value>> {
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| fields.iter().map(|f| c[*f].clone()).collect())
                .collect()
        };
        let shared = [
            "kind",
            "tournament_id",
            "round_id",
            "round_number",
            "table_number",
            "result_version",
            "rated_at",
            "rating_before",
            "rating_after",
            "delta",
        ];
        assert_eq!(pick(&mine, &shared), pick(&history, &shared), "player {p}");
        assert_eq!(mine["total"], 3, "player {p}");
        assert!(mine["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["player_id"] == p));
    }
    // Signed in, the same answer; the ETag answers 304.
    let signed = get_ok(app, &format!("{base}?limit=200"), Some(&s.admin)).await;
    assert_eq!(signed, whole);
    let r = app.get(&format!("{base}?limit=200"), None).await;
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let again = app
        .req(reqwest::Method::GET, &format!("{base}?limit=200"), None)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    // No such pool.
    problem(
        app.get("/api/v1/rating-pools/999999/changes", None).await,
        404,
    )
    .await;
}

#[actix_web::test]
async fn paging_by_cursor_gives_the_whole_log_and_offsets_agree() {
    let s = rated().await;
    let (app, pool_id) = (&s.app, s.pool);
    let base = format!("/api/v1/rating-pools/{pool_id}/changes");
    let whole = keys(&get_ok(app, &format!("{base}?limit=200"), None).await);
    for limit in [1, 5, 12] {
        let (walked, pages) = walk(app, &format!("{base}?limit={limit}")).await;
        assert_eq!(walked, whole, "limit {limit}");
        assert_eq!(pages, 12usize.div_ceil(limit), "limit {limit}");
    }
    // A filtered walk keeps its filter in the next links.
    let t2 = keys(&get_ok(app, &format!("{base}?tournament_id={}", s.t2), None).await);
    let (walked, _) = walk(app, &format!("{base}?tournament_id={}&limit=1", s.t2)).await;
    assert_eq!(walked, t2);
    // An offset within the bound gives the same slice, and a cursor next.
    let page = get_ok(app, &format!("{base}?offset=4&limit=3"), None).await;
    assert_eq!(keys(&page), whole[4..7].to_vec());
    assert_eq!(page["offset"], 4);
    assert!(page["next_cursor"].is_string());
    assert_eq!(page["total"], 12);
    let next = get_ok(
        app,
        &format!(
            "{base}?limit=3&cursor={}",
            page["next_cursor"].as_str().unwrap()
        ),
        None,
    )
    .await;
    assert_eq!(keys(&next), whole[7..10].to_vec());
    assert_eq!(next["total"], 12, "every page counts the list");
}

#[actix_web::test]
async fn each_filter_selects_its_part_of_the_log() {
    let s = rated().await;
    let (app, pool_id) = (&s.app, s.pool);
    let base = format!("/api/v1/rating-pools/{pool_id}/changes");
    let whole = get_ok(app, &format!("{base}?limit=200"), None).await;
    let items = whole["items"].as_array().unwrap().clone();
    let expect = |keep: &dyn Fn(&Value) -> bool| -> Vec<(i64, i64)> {
        items
            .iter()
            .filter(|c| keep(c))
            .map(|c| {
                (
                    c["sequence"].as_i64().unwrap(),
                    c["player_id"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let (t1, t2, [a, b, ..]) = (s.t1, s.t2, s.players);
    let at = |c: &Value| c["rated_at"].as_str().unwrap().to_string();
    let cases: Vec<(String, Vec<(i64, i64)>)> = vec![
        (
            format!("tournament_id={t1}"),
            expect(&|c| c["tournament_id"] == t1),
        ),
        (
            format!("tournament_id={t2}"),
            expect(&|c| c["tournament_id"] == t2),
        ),
        (format!("player_id={b}"), expect(&|c| c["player_id"] == b)),
        (
            format!("player_id={a}&tournament_id={t1}"),
            expect(&|c| c["player_id"] == a && c["tournament_id"] == t1),
        ),
        (
            "since=2".into(),
            expect(&|c| c["sequence"].as_i64() >= Some(2)),
        ),
        ("since=6".into(), vec![]),
        ("season=1".into(), expect(&|c| at(c).starts_with("2026-03"))),
        ("season=2".into(), expect(&|c| at(c).starts_with("2026-04"))),
        (
            "season=1&since=3".into(),
            expect(&|c| at(c).starts_with("2026-03") && c["sequence"].as_i64() >= Some(3)),
        ),
        (
            format!("season=2&player_id={a}"),
            expect(&|c| at(c).starts_with("2026-04") && c["player_id"] == a),
        ),
    ];
    for (q, expected) in cases {
        let page = get_ok(app, &format!("{base}?{q}&limit=200"), None).await;
        assert_eq!(keys(&page), expected, "{q}");
        assert_eq!(page["total"], expected.len(), "{q}");
    }
    // March is 8 changes, April 4: the filters are not vacuous.
    let march = get_ok(app, &format!("{base}?season=1"), None).await;
    assert_eq!(march["total"], 8);
    // Bad values name their parameter; a season the pool does not have is a 404.
    for (q, field) in [
        ("season=0", "season"),
        ("season=25", "season"),
        ("since=-1", "since"),
        ("tournament_id=0", "tournament_id"),
        ("player_id=-3", "player_id"),
        ("limit=0", "limit"),
        ("offset=10001", "offset"),
    ] {
        let p = problem(app.get(&format!("{base}?{q}"), None).await, 422).await;
        assert_eq!(fields(&p), [field], "{q}");
    }
    problem(app.get(&format!("{base}?season=3"), None).await, 404).await;
    problem(app.get(&format!("{base}?colour=red"), None).await, 422).await;
}

#[actix_web::test]
async fn a_cursor_is_refused_elsewhere_and_with_an_offset() {
    let s = rated().await;
    let (app, pool_id) = (&s.app, s.pool);
    let base = format!("/api/v1/rating-pools/{pool_id}/changes");
    let page = get_ok(app, &format!("{base}?limit=2"), None).await;
    let cursor = page["next_cursor"].as_str().unwrap().to_string();
    assert_eq!(
        app.get(&format!("{base}?limit=2&cursor={cursor}"), None)
            .await
            .status(),
        200
    );
    let other_pool = pool(
        app,
        &s.admin,
        json!({"name": "Other", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let history = get_ok(
        app,
        &format!("/api/v1/players/{}/ratings?limit=1", s.players[0]),
        None,
    )
    .await;
    let history_cursor = history["next_cursor"].as_str().unwrap().to_string();
    let (body, tag) = cursor.split_once('.').unwrap();
    let altered = format!(
        "{}{}",
        &body[..body.len() - 1],
        if body.ends_with('A') { 'B' } else { 'A' }
    );
    for (path, why) in [
        (
            format!("{base}?tournament_id={}&cursor={cursor}", s.t1),
            "another filter",
        ),
        (
            format!("{base}?player_id={}&cursor={cursor}", s.players[0]),
            "another filter",
        ),
        (format!("{base}?since=0&cursor={cursor}"), "another filter"),
        (format!("{base}?season=1&cursor={cursor}"), "another filter"),
        (
            format!("/api/v1/rating-pools/{other_pool}/changes?cursor={cursor}"),
            "another pool",
        ),
        (format!("{base}?cursor={history_cursor}"), "another list"),
        (
            format!("{base}?cursor={body}.0000000000000000"),
            "tampered check",
        ),
        (format!("{base}?cursor={altered}.{tag}"), "tampered keys"),
        (format!("{base}?cursor=garbage"), "garbage"),
    ] {
        let p = problem(app.get(&path, None).await, 422).await;
        assert_eq!(fields(&p), ["cursor"], "{why}: {path}");
    }
    let p = problem(
        app.get(&format!("{base}?offset=2&cursor={cursor}"), None)
            .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), ["offset"]);
    // The other pool exists and has an empty log; an unknown one is a 404 before the cursor.
    let empty = get_ok(
        app,
        &format!("/api/v1/rating-pools/{other_pool}/changes"),
        None,
    )
    .await;
    assert_eq!(empty["total"], 0);
    assert_eq!(empty["log_rewrites"], 0);
    problem(app.get("/api/v1/rating-pools/0/changes", None).await, 404).await;
}

#[actix_web::test]
async fn a_recompute_rewrites_the_log_and_says_from_where() {
    let s = rated().await;
    let (app, pool_id) = (&s.app, s.pool);
    let base = format!("/api/v1/rating-pools/{pool_id}/changes?limit=200");
    let mut conn = db(app);
    // Read anonymously first, so the instance keeps the page.
    let before = get_ok(app, &base, None).await;
    let [a, b, c, d] = s.players;
    // A later round only appends: no rewrite.
    let r3 = completed_round(&mut conn, s.t1, 3, "2026-04-11T10:00:00Z");
    result(&mut conn, r3, 1, 1, win(a, b));
    feed(&mut conn, s.t1);
    let appended = get_ok(app, &base, None).await;
    assert_eq!(appended["total"], 14);
    assert_eq!(entries(&appended)[..12], entries(&before)[..]);
    assert_eq!(appended["log_rewrites"], 0);
    assert_eq!(appended["log_rewritten_from"], Value::Null);
    // The referee corrects T2 round 1 table 2 (sequence 3): B beat D after all.
    let t2_r1: i64 = {
        use tourney::db::schema::rounds::dsl as r;
        r::rounds
            .filter(r::tournament_id.eq(s.t2))
            .select(r::id)
            .first(&mut conn)
            .unwrap()
    };
    result(&mut conn, t2_r1, 2, 2, win(b, d));
    feed(&mut conn, s.t2);
    let corrected = get_ok(app, &base, None).await;
    assert_eq!(corrected["log_rewrites"], 1);
    assert_eq!(corrected["log_rewritten_from"], 3);
    assert_eq!(
        entries(&corrected),
        rounded(log(&mut conn, pool_id)),
        "the kept page was dropped"
    );
    // Before sequence 3 nothing moved; from it on, the rows of B and D did.
    assert_eq!(entries(&corrected)[..6], entries(&appended)[..6]);
    assert_ne!(entries(&corrected), entries(&appended));
    let row = corrected["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["sequence"] == 3 && x["player_id"] == b)
        .unwrap();
    assert_eq!(row["result_version"], 2);
    assert!(row["delta"].as_f64().unwrap() > 0.0, "B won it now");
    // A mirror reads on from there and has the log again.
    let tail = get_ok(app, &format!("{base}&since=3"), None).await;
    assert_eq!(entries(&tail), entries(&corrected)[6..].to_vec());
    // A round played before the latest rated one, rated late, shifts the later sequences.
    let early = completed_round(&mut conn, s.t2, 2, "2026-03-08T12:00:00Z");
    result(&mut conn, early, 1, 1, win(c, d));
    feed(&mut conn, s.t2);
    let late = get_ok(app, &base, None).await;
    assert_eq!(late["total"], 16);
    assert_eq!(late["log_rewrites"], 2);
    assert_eq!(late["log_rewritten_from"], 4);
    assert_eq!(entries(&late), rounded(log(&mut conn, pool_id)));
    let inserted = &late["items"][8];
    assert_eq!(inserted["sequence"], 4);
    assert_eq!(inserted["round_id"], early);
    // A full rebuild rewrites it from the start, even when nothing moves.
    rebuild_over_http(app, &s.admin, pool_id).await;
    let rebuilt = get_ok(app, &base, None).await;
    assert_eq!(rebuilt["log_rewrites"], 3);
    assert_eq!(rebuilt["log_rewritten_from"], 0);
    assert_eq!(entries(&rebuilt), entries(&late));
}

#[actix_web::test]
async fn an_imported_list_shows_in_its_place_without_a_game() {
    let s = rated().await;
    let (app, pool_id) = (&s.app, s.pool);
    let [_, _, c, _] = s.players;
    // A list that applies from 8 March, 00:00 in Warsaw: after T1 round 1 (sequences 0-1),
    // before T2 round 1, so it takes sequence 2 and the log is rewritten from there.
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool_id}/imports"),
            Some(&s.admin),
            json!({"applies_from": "2026-03-08", "source": "PL list",
                   "csv": format!("player_id,rating,games\n{c},1612.5,41\n")}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let import: Value = r.json().await.unwrap();
    notified();
    let base = format!("/api/v1/rating-pools/{pool_id}/changes?limit=200");
    let page = get_ok(app, &base, None).await;
    assert_eq!(page["total"], 13);
    assert_eq!(page["log_rewrites"], 1);
    assert_eq!(page["log_rewritten_from"], 2);
    let mut conn = db(app);
    assert_eq!(entries(&page), rounded(log(&mut conn, pool_id)));
    let row = &page["items"][4];
    assert_eq!(row["sequence"], 2);
    assert_eq!(row["player_id"], c);
    assert_eq!(row["kind"], "import");
    assert_eq!(row["import_id"], import["id"]);
    assert_eq!(row["rated_at"], import["applies_at"]);
    for field in [
        "tournament_id",
        "round_id",
        "round_number",
        "table_number",
        "result_version",
    ] {
        assert_eq!(row[field], Value::Null, "{field}");
    }
    assert_eq!(row["games"], 41);
    assert_eq!(row["rating_after"], 1612.5);
    // No tournament selects it; the player's part of the log has it.
    for t in [s.t1, s.t2] {
        let only = get_ok(app, &format!("{base}&tournament_id={t}"), None).await;
        assert!(only["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["kind"] == "game" && x["tournament_id"] == t));
    }
    let mine = get_ok(app, &format!("{base}&player_id={c}"), None).await;
    assert_eq!(mine["total"], 4);
    assert_eq!(mine["items"][1]["kind"], "import");
}
