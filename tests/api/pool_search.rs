//! The rating pool list searched as the player list is (issue 42): `q` finds a part of the name
//! or a near match of a word of it, ignoring case and diacritics, ranked by similarity then name
//! (then id: pool names are unique, so the id only makes the order total); `sort=name`; keyset
//! pages with cursors; `q` checked as every search text. Without `q` and `sort` the list is as
//! it was: creation order, offset pages, an exact total, no cursor.

use diesel::{Connection, QueryDsl, RunQueryDsl};
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};

async fn pool(app: &TestApp, token: &str, name: &str) -> i64 {
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(token),
            json!({"name": name, "time_zone": "Europe/Oslo"}),
        )
        .await;
    assert_eq!(r.status(), 201, "{name}");
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

/// Every pool's name as the database orders them (`ORDER BY name, id`).
fn by_name_in_db(app: &TestApp) -> Vec<String> {
    use tourney::db::schema::rating_pools::dsl::{id, name, rating_pools};
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    rating_pools
        .order((name, id))
        .select(name)
        .load(&mut conn)
        .expect("names")
}

async fn page(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

async fn names(app: &TestApp, path: &str, token: Option<&str>) -> Vec<String> {
    page(app, path, token).await["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn search(q: &str) -> String {
    format!("/api/v1/rating-pools?q={}", urlencode(q))
}

fn link_next(r: &reqwest::Response) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?.to_string();
    link.split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .map(|l| l[1..l.find('>').unwrap()].to_string())
}

/// Follows `next` links from `first` to the end: the ids in order and how many cursors.
async fn walk(app: &TestApp, first: &str, token: Option<&str>) -> (Vec<i64>, usize) {
    let (mut ids, mut cursors) = (Vec::new(), 0);
    let mut next = Some(first.to_string());
    while let Some(path) = next {
        let r = app.get(&path, token).await;
        assert_eq!(r.status(), 200, "{path}");
        next = link_next(&r);
        let page: Value = r.json().await.unwrap();
        assert_eq!(page["total_exact"], true, "{path}");
        match (&next, page["next_cursor"].as_str()) {
            (Some(link), Some(c)) => {
                assert!(link.contains(&format!("cursor={c}")), "{link}");
                cursors += 1;
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
        assert!(ids.len() < 100, "the walk does not end");
    }
    (ids, cursors)
}

const POOLS: [&str; 8] = [
    "Ålesund Sjakklubb",
    "Ashes Poland Juniors",
    "Ashes Poland",
    "Agricola Norway",
    "Łódź Open",
    "Kari Cup",
    "Ola Kari",
    "Karianne Berg",
];

#[actix_web::test]
async fn pool_search_finds_prefixes_near_matches_and_folded_marks_ranked_by_similarity() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for name in POOLS {
        pool(&app, &admin, name).await;
    }
    // prefixes as typed, one keystroke after another
    assert_eq!(
        names(&app, &search("Åle"), None).await,
        ["Ålesund Sjakklubb"]
    );
    assert_eq!(names(&app, &search("agr"), None).await, ["Agricola Norway"]);
    assert_eq!(
        names(&app, &search("agricola nor"), None).await,
        ["Agricola Norway"]
    );
    // marks and case folded, both ways
    assert_eq!(
        names(&app, &search("alesund"), None).await,
        ["Ålesund Sjakklubb"]
    );
    assert_eq!(
        names(&app, &search("ALESUND"), None).await,
        ["Ålesund Sjakklubb"]
    );
    assert_eq!(names(&app, &search("lodz"), None).await, ["Łódź Open"]);
    assert_eq!(names(&app, &search("ŁÓDŹ"), None).await, ["Łódź Open"]);
    // a near match of a word (a typo; the old spelling), which LIKE alone would not find
    assert_eq!(
        names(&app, &search("agricolla"), None).await,
        ["Agricola Norway"]
    );
    assert_eq!(
        names(&app, &search("aalesund"), None).await,
        ["Ålesund Sjakklubb"]
    );
    // nothing like it; wildcards are characters
    assert!(names(&app, &search("zzzz"), None).await.is_empty());
    assert!(names(&app, &search("%"), None).await.is_empty());
    assert!(names(&app, &search("_"), None).await.is_empty());
    // ranked: whole words first, equal scores by name, then partial matches
    assert_eq!(
        names(&app, &search("kari"), None).await,
        ["Kari Cup", "Ola Kari", "Karianne Berg"]
    );
    assert_eq!(
        names(&app, &search("ashes poland"), None).await,
        ["Ashes Poland", "Ashes Poland Juniors"]
    );
    // sort=name: the matches by name; without q, every pool by name
    assert_eq!(
        names(&app, &format!("{}&sort=name", search("kari")), None).await,
        ["Kari Cup", "Karianne Berg", "Ola Kari"]
    );
    // (the database's collation places Å and Ł; the order is the one it gives `ORDER BY name`)
    assert_eq!(
        names(&app, "/api/v1/rating-pools?sort=name", None).await,
        by_name_in_db(&app)
    );
    // the total of a search counts its matches
    let p = page(&app, &search("kari"), None).await;
    assert_eq!(p["total"], 3);
    assert_eq!(p["total_exact"], true);
    // signed in or not, a search answers the same (pools are public: there is nothing to hide)
    let (_, stranger) = app.user("stranger").await;
    assert_eq!(
        names(&app, &search("kari"), Some(&stranger)).await,
        ["Kari Cup", "Ola Kari", "Karianne Berg"]
    );
}

#[actix_web::test]
async fn pool_searches_page_by_cursor_and_the_list_without_q_is_as_before() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut made = Vec::new();
    for name in [
        "Club E",
        "Club A",
        "Club D",
        "Other",
        "Club C",
        "Club B",
        "Clubhouse",
    ] {
        made.push((name, pool(&app, &admin, name).await));
    }
    let id_of = |n: &str| made.iter().find(|(m, _)| *m == n).unwrap().1;
    // by relevance: the five whole-word matches tie on the score (by name), then the partial
    let ranked: Vec<i64> = [
        "Club A",
        "Club B",
        "Club C",
        "Club D",
        "Club E",
        "Clubhouse",
    ]
    .map(id_of)
    .to_vec();
    let (ids, cursors) = walk(&app, "/api/v1/rating-pools?q=club&limit=2", None).await;
    assert_eq!(ids, ranked);
    assert_eq!(cursors, 2);
    // by name, with q and without it
    let (ids, _) = walk(&app, "/api/v1/rating-pools?q=club&sort=name&limit=4", None).await;
    assert_eq!(ids, ranked);
    let (ids, cursors) = walk(&app, "/api/v1/rating-pools?sort=name&limit=3", None).await;
    assert_eq!(ids.len(), 7);
    assert_eq!(cursors, 2);
    assert_eq!(ids[6], id_of("Other"));
    // signed in: the same pages (not kept, read on the primary)
    let (ids, _) = walk(&app, "/api/v1/rating-pools?q=club&limit=2", Some(&admin)).await;
    assert_eq!(ids, ranked);
    // a page by cursor starts after the last item shown, offset 0
    let first = app.get("/api/v1/rating-pools?q=club&limit=2", None).await;
    let next = link_next(&first).unwrap();
    let p: Value = first.json().await.unwrap();
    let cursor = p["next_cursor"].as_str().unwrap().to_string();
    let p = page(&app, &next, None).await;
    assert_eq!(p["offset"], 0);
    assert_eq!(p["total"], 6);
    assert_eq!(p["items"][0]["id"], json!(ranked[2]));

    // a cursor of another query, another list, or with an offset is refused naming it
    for (other, field) in [
        (
            format!("/api/v1/rating-pools?q=clu&limit=2&cursor={cursor}"),
            "cursor",
        ),
        (
            format!("/api/v1/rating-pools?q=club&sort=name&limit=2&cursor={cursor}"),
            "cursor",
        ),
        (
            format!("/api/v1/players?q=club&limit=2&cursor={cursor}"),
            "cursor",
        ),
        (
            format!("/api/v1/rating-pools?limit=2&cursor={cursor}"),
            "cursor",
        ),
        (
            format!("/api/v1/rating-pools?q=club&offset=2&cursor={cursor}"),
            "offset",
        ),
        (
            "/api/v1/rating-pools?q=club&cursor=garbage".to_string(),
            "cursor",
        ),
    ] {
        let p = problem(app.get(&other, None).await, 422).await;
        assert_eq!(fields(&p), [field], "{other}");
    }

    // without q and sort: creation order, offset pages, an exact total, no cursor (as before)
    let all: Vec<i64> = made.iter().map(|(_, id)| *id).collect();
    let r = app.get("/api/v1/rating-pools?limit=3&offset=2", None).await;
    assert_eq!(r.status(), 200);
    let link = r.headers()["link"].to_str().unwrap().to_string();
    assert!(link.contains("offset=5>; rel=\"next\""), "{link}");
    assert!(link.contains("offset=0>; rel=\"prev\""), "{link}");
    assert!(!link.contains("cursor="), "{link}");
    let p: Value = r.json().await.unwrap();
    let mut keys: Vec<&str> = p.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["items", "limit", "offset", "total"]);
    assert_eq!(
        (p["total"].clone(), p["offset"].clone()),
        (json!(7), json!(2))
    );
    let ids: Vec<i64> = p["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, all[2..5]);
    // a blank q is no filter: the same list, byte for byte
    let plain = app
        .get("/api/v1/rating-pools", None)
        .await
        .text()
        .await
        .unwrap();
    let blank = app
        .get("/api/v1/rating-pools?q=%20%20", None)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(plain, blank);
    let p: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(p["items"].as_array().unwrap().len(), 7);
    assert_eq!(p["items"][0]["id"], json!(all[0]));
    assert!(p.get("next_cursor").is_none() && p.get("total_exact").is_none());
}

#[actix_web::test]
async fn a_bad_pool_search_is_refused_naming_q_or_sort() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    pool(&app, &admin, "Ashes Poland").await;
    let long = "a".repeat(101);
    for bad in [
        format!("q={long}"),
        "q=ashes%01".to_string(),
        "q=%00".to_string(),
        "q=ashes%0Apoland".to_string(),
        "q=%C2%85".to_string(),
    ] {
        for token in [None, Some(admin.as_str())] {
            let p = problem(
                app.get(&format!("/api/v1/rating-pools?{bad}"), token).await,
                422,
            )
            .await;
            assert_eq!(fields(&p), ["q"], "{bad}");
        }
    }
    // 100 characters are fine (nothing matches)
    assert!(names(&app, &search(&"a".repeat(100)), None)
        .await
        .is_empty());
    // relevance needs a query; unknown sorts are refused, naming the parameter
    for bad in ["sort=relevance", "sort=newest", "q=ashes&sort=-name"] {
        let p = problem(
            app.get(&format!("/api/v1/rating-pools?{bad}"), None).await,
            422,
        )
        .await;
        assert_eq!(fields(&p), ["sort"], "{bad}");
    }
    // an unknown parameter is refused as before
    let p = problem(app.get("/api/v1/rating-pools?name=ashes", None).await, 422).await;
    assert_eq!(p["status"], 422);
}

#[actix_web::test]
async fn a_kept_anonymous_search_follows_a_renamed_pool() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let id = pool(&app, &admin, "Ashes Poland").await;
    assert_eq!(names(&app, &search("ashes"), None).await, ["Ashes Poland"]);
    assert!(names(&app, &search("tantrix"), None).await.is_empty());
    let r = app
        .patch_if_match(
            &format!("/api/v1/rating-pools/{id}"),
            Some(&admin),
            1,
            json!({"name": "Tantrix Norge"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // the same queries again, anonymous: kept pages do not outlive the change
    assert!(names(&app, &search("ashes"), None).await.is_empty());
    assert_eq!(
        names(&app, &search("tantrix"), None).await,
        ["Tantrix Norge"]
    );
    assert_eq!(names(&app, &search("norge"), None).await, ["Tantrix Norge"]);
}
