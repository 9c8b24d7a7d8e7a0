//! Rate limits for everyone (issue 30, item 9): per class of operation, per credential and
//! per address, answered 429 with `Retry-After`, `RateLimit` and `RateLimit-Policy`.

use diesel::{Connection, RunQueryDsl};
use serde_json::{json, Value};
use tourney::infra::ratelimit::Limits;

use crate::helpers::{spawn_app_with_limits, TestApp, ADMIN, PASSWORD};

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name}"))
        .to_str()
        .unwrap()
        .to_string()
}

/// Limits of 5 reads, 3 writes and 3 sign-in calls a minute a credential (twice that an
/// address).
fn small_limits() -> Limits {
    Limits {
        read: 5,
        write: 3,
        auth: 3,
        ..Limits::default()
    }
}

/// An instance of [`small_limits`] and the admin's token there (one sign-in call used).
async fn signed_in_with_small_limits() -> (TestApp, String) {
    let app = spawn_app_with_limits(small_limits()).await;
    let token = app.token(ADMIN, PASSWORD).await;
    (app, token)
}

/// Reads with `token`, each answered on its own counter (q=5) with `left` reads left after it.
async fn reads_on_its_own_counter(app: &TestApp, token: &str, left: impl IntoIterator<Item = u32>) {
    for left in left {
        let r = app.get("/api/v1/players", Some(token)).await;
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
        assert!(
            header(&r, "ratelimit").starts_with(&format!("\"read\";r={left};t=")),
            "{}",
            header(&r, "ratelimit")
        );
    }
}

#[actix_web::test]
async fn every_caller_is_limited_per_class_credential_and_address() {
    // Sign-ins: per address. (One here, one below: the third call would be the last.)
    let (app, token) = signed_in_with_small_limits().await;
    let second = app.token(ADMIN, PASSWORD).await;
    // Reads with one token: five, then 429; the headers count down.
    reads_on_its_own_counter(&app, &token, (0..5).rev()).await;
    let r = app.get("/api/v1/tournaments", Some(&token)).await;
    assert_eq!(r.status(), 429);
    // The minute slides: the 5 counted weigh in full until their window ends, and one read
    // comes back once they weigh 4 (a fifth into the next window): 72 s from the window's start.
    let wait: u64 = header(&r, "retry-after").parse().unwrap();
    assert!((71..=72).contains(&wait), "Retry-After {wait}");
    assert!(header(&r, "ratelimit").starts_with("\"read\";r=0;t="));
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["type"], "/problems/too-many-requests");
    assert_eq!(p["status"], 429);
    // Writes are their own class.
    let r = app
        .post(
            "/api/v1/players",
            Some(&token),
            json!({"name": "Still Allowed"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "ratelimit-policy"), "\"write\";q=3;w=60");
    // Another credential from the same address reads until the address's 10 are used.
    for _ in 0..5 {
        assert_eq!(
            app.get("/api/v1/players", Some(&second)).await.status(),
            200
        );
    }
    // Both its 5 and the address's 10 are used: the answer names the one refusing longer (5
    // of 5 weigh 4 a fifth into the next window, 10 of 10 weigh 9 a tenth into it).
    let r = app.get("/api/v1/players", Some(&second)).await;
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
    // Anonymous callers share the address's count.
    let r = app.get("/api/v1/players", None).await;
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=10;w=60");
    let wait: u64 = header(&r, "retry-after").parse().unwrap();
    assert!((65..=66).contains(&wait), "Retry-After {wait}");
    // Probes, the document and the pages are not counted.
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    assert_eq!(app.get("/openapi.json", None).await.status(), 200);
    // The third sign-in call is the last of the minute.
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": ADMIN, "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": ADMIN, "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "ratelimit-policy"), "\"auth\";q=3;w=60");
}

/// Every operation of the API documents its 429 with the headers it sends.
#[test]
fn every_operation_documents_its_429() {
    let doc = tourney::app::openapi();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !path.starts_with("/api/v1/") {
                continue;
            }
            let headers = &op["responses"]["429"]["headers"];
            for h in ["Retry-After", "RateLimit", "RateLimit-Policy"] {
                assert!(headers.get(h).is_some(), "{method} {path}: 429 without {h}");
            }
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}

/// A client of `app` whose requests come from another loopback address.
fn from_address(address: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(address))
        .build()
        .unwrap()
}

async fn read_from(
    client: &reqwest::Client,
    app: &TestApp,
    token: Option<&str>,
) -> reqwest::Response {
    let mut r = client.get(app.url("/api/v1/players"));
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    r.send().await.unwrap()
}

/// Issue 43: made-up tokens mint no counters of their own. A flood of them from one address is
/// counted, and refused, on that address's counter; a genuine token keeps its own counter; another
/// address is not touched.
#[actix_web::test]
async fn made_up_tokens_count_on_their_address_and_leave_others_alone() {
    let (app, token) = signed_in_with_small_limits().await;
    // The genuine token: its own counter (q=5) is the tightest.
    reads_on_its_own_counter(&app, &token, [4, 3]).await;
    // Made-up tokens of every kind: random text, a made-up API key, a token signed with
    // another secret. Each is answered 401 and counted on the address (q=10, two used), never
    // on a counter of its own (which would show q=5).
    let forged = tourney::auth::JwtKeys::new(b"not the secret", std::time::Duration::from_secs(60))
        .issue(tourney::auth::jwt::Subject {
            user_id: 1,
            username: ADMIN,
            is_admin: true,
            session_epoch: 0,
            session: None,
            password_at: None,
        })
        .unwrap()
        .0;
    let mut made_up: Vec<String> = (0..6).map(|i| format!("made-up-{i}")).collect();
    made_up.push(format!("tk_{}", "0".repeat(64)));
    made_up.push(forged.clone());
    for (i, bad) in made_up.iter().enumerate() {
        let r = app.get("/api/v1/players", Some(bad)).await;
        assert_eq!(r.status(), 401, "{bad}");
        assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=10;w=60");
        let left = 7 - i;
        assert!(
            header(&r, "ratelimit").starts_with(&format!("\"read\";r={left};t=")),
            "{}",
            header(&r, "ratelimit")
        );
    }
    // The address is used up: the next made-up token, an anonymous read and the genuine token
    // from this address are refused on the address's counter.
    for t in [
        Some("made-up-again"),
        Some(forged.as_str()),
        None,
        Some(token.as_str()),
    ] {
        let r = app.get("/api/v1/players", t).await;
        assert_eq!(r.status(), 429);
        assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=10;w=60");
        assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    }
    // Another address is untouched: its anonymous callers have their 10...
    let other = from_address([127, 0, 0, 2]);
    let r = read_from(&other, &app, None).await;
    assert_eq!(r.status(), 200);
    assert!(header(&r, "ratelimit").starts_with("\"read\";r=9;t="));
    // ...and the genuine token there still has its own counter, with the 3 the flood left it.
    let r = read_from(&other, &app, Some(&token)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
    assert!(header(&r, "ratelimit").starts_with("\"read\";r=2;t="));
}

/// Issue 43: an API key counts as itself once this instance has found it live (its first use
/// reads it, counted on the address); a made-up key counts on its address.
#[actix_web::test]
async fn a_live_api_key_has_its_own_counter_once_it_was_seen() {
    let (app, token) = signed_in_with_small_limits().await;
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(&token),
            json!({"name": "club site", "scopes": ["read"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    let key = created["key"].as_str().unwrap().to_string();
    let other = from_address([127, 0, 0, 3]);
    // First use: not yet known, counted on the address (q=10).
    let r = read_from(&other, &app, Some(&key)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=10;w=60");
    // From then on its own counter (q=5) is the tightest.
    let r = read_from(&other, &app, Some(&key)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=5;w=60");
    assert!(header(&r, "ratelimit").starts_with("\"read\";r=4;t="));
    // A key made up beside it is counted on the address (two used there, now three).
    let r = read_from(&other, &app, Some(&format!("tk_{}", "1".repeat(64)))).await;
    assert_eq!(r.status(), 401);
    assert_eq!(header(&r, "ratelimit-policy"), "\"read\";q=10;w=60");
    assert!(header(&r, "ratelimit").starts_with("\"read\";r=7;t="));
}

/// The requests left in the tightest counter an answer shows (`RateLimit: "read";r=<n>;...`).
fn left(r: &reqwest::Response) -> i64 {
    let h = header(r, "ratelimit");
    let r = h.split(";r=").nth(1).and_then(|t| t.split(';').next());
    r.and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{h}"))
}

/// Searches the index answered so far.
async fn indexed(app: &TestApp) -> f64 {
    app.cache_reads("search").await.0
}

/// Limits of `read` reads a credential, a search charged one read more a microsecond.
fn charged_by_the_microsecond(read: u32) -> Limits {
    Limits {
        read,
        write: 100,
        auth: 10,
        search_micros: 1,
    }
}

/// `n` players with names of four first names and four surnames, written beside the service.
fn add_players(app: &TestApp, n: u32) {
    let mut conn = diesel::PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query(format!(
        "INSERT INTO players (name, country, created_by)
         SELECT (ARRAY['Kari','Karin','Øystein','Łukasz'])[1 + g % 4] || ' ' ||
                (ARRAY['Nordmann','Stadheim','Ødegård','Berg'])[1 + g / 4 % 4] || ' ' || g,
                'NO', (SELECT min(id) FROM users)
         FROM generate_series(1, {n}) g"
    ))
    .execute(&mut conn)
    .unwrap();
}

/// Issue 42 (what a stranger's texts cost): a search is charged one read more for every whole
/// `search_micros` of processor time the index spent on it, anonymous or signed in, so texts
/// that read every name (`%`) use up an address's reads far sooner than typed names; a read
/// that searched nothing, and a search answered from what the instance kept, cost one.
#[actix_web::test]
async fn a_search_is_charged_by_the_time_it_took() {
    let app = spawn_app_with_limits(charged_by_the_microsecond(5_000)).await;
    let token = app.token(ADMIN, PASSWORD).await;
    add_players(&app, 3000);
    let (stranger, member) = (from_address([127, 0, 0, 5]), from_address([127, 0, 0, 7]));
    let get = |path: String, token: Option<String>| {
        let client = if token.is_some() { &member } else { &stranger };
        let mut r = client.get(app.url(&path));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        async move { r.send().await.unwrap() }
    };
    // Until the index has the rows (the search stamp moved), PostgreSQL answers (charged by
    // the time its queries took: each try from an address of its own).
    let mut ready = false;
    for n in 0..100 {
        let before = indexed(&app).await;
        let path = format!("/api/v1/players?limit=1&q=kari{}", "%20".repeat(n));
        let waiting = from_address([127, 0, 1, n as u8]);
        let r = waiting.get(app.url(&path)).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        // 1,500 match; the count stops at 1,000.
        if indexed(&app).await == before + 1.0 && body["total"] == 1000 {
            ready = true;
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(ready, "the index never answered with the imported names");
    // A read that searches nothing costs one.
    let plain = get("/api/v1/tournaments".into(), None).await;
    assert_eq!(plain.status(), 200);
    let before = left(&plain);
    // A text that reads every name costs its time: far more than one.
    let before_index = indexed(&app).await;
    let all = get("/api/v1/players?limit=5&q=%25".into(), None).await;
    assert_eq!(all.status(), 200);
    assert_eq!(
        indexed(&app).await,
        before_index + 1.0,
        "the index answered"
    );
    let after = left(&all);
    assert!(before - after > 10, "charged {}", before - after);
    let plain = get("/api/v1/tournaments".into(), None).await;
    assert_eq!(left(&plain), after - 1);
    // Asked again, the search is kept; asked a third time, the kept answer costs one.
    let again = get("/api/v1/players?limit=5&q=%25".into(), None).await;
    assert_eq!(again.status(), 200);
    let kept = get("/api/v1/players?limit=5&q=%25".into(), None).await;
    assert_eq!(kept.status(), 200);
    assert_eq!(left(&kept), left(&again) - 1);
    // Signed in (answered on a blocking thread, from another address), its credential is
    // charged as well.
    let mine = get("/api/v1/players".into(), Some(token.clone())).await;
    assert_eq!(header(&mine, "ratelimit-policy"), "\"read\";q=5000;w=60");
    let before = left(&mine);
    let r = get(
        "/api/v1/players?limit=5&q=%25%20".into(),
        Some(token.clone()),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(before - left(&r) > 10, "charged {}", before - left(&r));
    // Such texts use up the address's 10,000 reads in a tenth of as many requests or fewer;
    // then every read from it is refused, whatever it asks.
    let mut asked = 0;
    loop {
        let path = format!("/api/v1/players?limit=5&q=%25{}", "%20".repeat(asked + 2));
        let r = get(path, None).await;
        asked += 1;
        if r.status() == 429 {
            break;
        }
        assert_eq!(r.status(), 200);
        assert!(asked < 1_000, "still answered after {asked} searches");
    }
    let r = get("/api/v1/tournaments".into(), None).await;
    assert_eq!(r.status(), 429);
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    // The instance counts what it charged.
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    let charged: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("tourney_rate_limit_charged_reads_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("tourney_rate_limit_charged_reads_total");
    assert!(charged >= 9_000.0, "{charged}");
    // Another address is untouched.
    let r = read_from(&from_address([127, 0, 0, 6]), &app, None).await;
    assert_eq!(r.status(), 200);
}

/// A search PostgreSQL answers (an instance whose index is not built) is charged by the time
/// its queries took, on the players', the tournaments' and the pools' lists, anonymous or
/// signed in; a read that searches nothing still costs one.
#[actix_web::test]
async fn a_search_postgresql_answers_is_charged_by_the_time_it_took() {
    let app = crate::helpers::spawn_app_without_index(charged_by_the_microsecond(100_000)).await;
    let token = app.token(ADMIN, PASSWORD).await;
    add_players(&app, 2000);
    let (stranger, member) = (from_address([127, 0, 0, 5]), from_address([127, 0, 0, 7]));
    let get = |client: &reqwest::Client, path: &str, token: Option<&str>| {
        let mut r = client.get(app.url(path));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        async move { r.send().await.unwrap() }
    };
    let plain = get(&stranger, "/api/v1/tournaments", None).await;
    assert_eq!(plain.status(), 200);
    let mut before = left(&plain);
    // Charged at a read a microsecond: each search costs more than one (2,000 names scored
    // take well over 0.1 ms; the empty lists' queries some microseconds), a read without a
    // search one.
    for (path, more_than) in [
        ("/api/v1/players?limit=5&q=%25", 100),
        ("/api/v1/players?limit=5&q=kari", 100),
        ("/api/v1/tournaments?q=open", 1),
        ("/api/v1/rating-pools?q=norway", 1),
    ] {
        let r = get(&stranger, path, None).await;
        assert_eq!(r.status(), 200, "{path}");
        let now = left(&r);
        assert!(before - now > more_than, "{path}: charged {}", before - now);
        let plain = get(&stranger, "/api/v1/tournaments", None).await;
        assert_eq!(left(&plain), now - 1, "{path}");
        before = now - 1;
    }
    // Signed in: the credential is charged too.
    let mine = get(&member, "/api/v1/players", Some(&token)).await;
    let before = left(&mine);
    let r = get(&member, "/api/v1/players?limit=5&q=%25%20", Some(&token)).await;
    assert_eq!(r.status(), 200);
    assert!(before - left(&r) > 100, "charged {}", before - left(&r));
    // No index answered any of it.
    assert_eq!(indexed(&app).await, 0.0);
}

/// Behind a trusted reverse proxy (`TRUSTED_PROXIES`), each client counts by the address the
/// proxy names in `X-Forwarded-For`, an IPv6 client by its /64; what a client writes in the
/// header itself, or any peer that is not a trusted proxy, is not believed.
#[actix_web::test]
async fn behind_a_trusted_proxy_each_client_counts_by_its_own_address() {
    // The tests' connections come from 127.0.0.1: the proxy.
    let app = crate::helpers::spawn_app_behind(
        "127.0.0.1, 10.0.0.0/8",
        Limits {
            read: 2,
            write: 3,
            auth: 3,
            ..Limits::default()
        },
    )
    .await;
    let via = |client: &reqwest::Client, xff: &str, path: &str| {
        let sent = client
            .get(app.url(path))
            .header("x-forwarded-for", xff)
            .send();
        async move { sent.await.unwrap() }
    };
    let proxy = reqwest::Client::new();
    // Each client its own 4 anonymous reads (2 per credential, twice that per address).
    for n in (0..4).rev() {
        let r = via(&proxy, "198.51.100.1", "/api/v1/players").await;
        assert_eq!(r.status(), 200);
        assert_eq!(left(&r), n);
    }
    let r = via(&proxy, "198.51.100.1", "/api/v1/players").await;
    assert_eq!(r.status(), 429);
    // Another client behind the same proxy is untouched.
    let r = via(&proxy, "198.51.100.2", "/api/v1/players").await;
    assert_eq!((r.status().as_u16(), left(&r)), (200, 3));
    // A client writing an address of its own before the proxy's entry is still itself, and
    // so is one behind a second trusted proxy.
    for xff in ["203.0.113.77, 198.51.100.1", "198.51.100.1, 10.1.2.3"] {
        let r = via(&proxy, xff, "/api/v1/players").await;
        assert_eq!(r.status(), 429, "{xff}");
    }
    // A second header line is read after the first: its entry is the proxy's.
    let r = proxy
        .get(app.url("/api/v1/players"))
        .header("x-forwarded-for", "203.0.113.8")
        .header("x-forwarded-for", "198.51.100.1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    // IPv6: one /64 is one client.
    for _ in 0..4 {
        let r = via(&proxy, "2001:db8:1:2::1", "/api/v1/tournaments").await;
        assert_eq!(r.status(), 200);
    }
    let r = via(&proxy, "2001:db8:1:2:ffff::9", "/api/v1/tournaments").await;
    assert_eq!(r.status(), 429);
    let r = via(&proxy, "[2001:db8:1:3::1]:443", "/api/v1/tournaments").await;
    assert_eq!((r.status().as_u16(), left(&r)), (200, 3));
    // A peer that is no trusted proxy is counted by its own address, whatever it writes.
    let stranger = from_address([127, 0, 0, 9]);
    for i in 0..4 {
        let r = via(
            &stranger,
            &format!("198.51.100.{}", 10 + i),
            "/api/v1/players",
        )
        .await;
        assert_eq!(r.status(), 200);
    }
    let r = via(&stranger, "198.51.100.99", "/api/v1/players").await;
    assert_eq!(r.status(), 429);
    // Sign-in calls count per client as well.
    let sign_in = |xff: &'static str| {
        proxy
            .post(app.url("/api/v1/auth/token"))
            .header("x-forwarded-for", xff)
            .json(&json!({"username": ADMIN, "password": "not the password"}))
            .send()
    };
    for _ in 0..3 {
        assert_eq!(sign_in("198.51.100.5").await.unwrap().status(), 401);
    }
    assert_eq!(sign_in("198.51.100.5").await.unwrap().status(), 429);
    assert_eq!(sign_in("198.51.100.6").await.unwrap().status(), 401);
    // A report on a table's page carries a table code: it counts as a write of the client's
    // address, whatever it says (here a table that does not exist); a hall's phones share one
    // address, and the wrong-code throttle bounds guessing.
    let report = || {
        proxy
            .post(app.url("/hall/tournaments/999/rounds/1/tables/1"))
            .header("x-forwarded-for", "198.51.100.7")
            .form(&[("code", "ABCD-EFGH")])
            .send()
    };
    for _ in 0..6 {
        let r = report().await.unwrap();
        assert_ne!(r.status(), 429);
        assert_eq!(header(&r, "ratelimit-policy"), "\"write\";q=6;w=60");
    }
    let r = report().await.unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "ratelimit-policy"), "\"write\";q=6;w=60");
}

/// A request is counted in the class of the path the router matches, percent-decoded: a
/// sign-in at `/api/v1/%61uth/token` or `/%61pi/v1/auth/token` is an `auth` call (not a
/// write, nor left uncounted), and so is every sign-in after the minute's last.
#[actix_web::test]
async fn an_encoded_path_counts_in_the_class_it_reaches() {
    let app = spawn_app_with_limits(small_limits()).await;
    let sign_in = |path: &'static str| {
        let app = &app;
        async move {
            app.post(path, None, json!({"username": ADMIN, "password": PASSWORD}))
                .await
        }
    };
    for path in [
        "/api/v1/%61uth/token",
        "/%61pi/v1/auth/token",
        "/api/v1/auth/tok%65n",
    ] {
        let r = sign_in(path).await;
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(
            header(&r, "ratelimit-policy"),
            "\"auth\";q=3;w=60",
            "{path}"
        );
    }
    for path in ["/api/v1/%61uth/token", "/api/v1/auth/token"] {
        let r = sign_in(path).await;
        assert_eq!(r.status(), 429, "{path}");
        assert_eq!(
            header(&r, "ratelimit-policy"),
            "\"auth\";q=3;w=60",
            "{path}"
        );
    }
}
