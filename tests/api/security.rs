//! Attacks that must not work.

use serde_json::{json, Value};

use crate::helpers::spawn_app;

/// A name that a spreadsheet would run as a formula is exported as text (OWASP CSV
/// injection). The standings, leaderboard and league exports share `infra::csv::field`,
/// whose unit tests cover every dangerous lead character.
#[actix_web::test]
async fn csv_exports_neutralise_formulas() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let evil = "=HYPERLINK(\"http://evil.example\",\"click\")";
    let r = app
        .post("/api/v1/players", Some(&admin), json!({"name": evil}))
        .await;
    assert_eq!(r.status(), 201);
    let player = r.json::<Value>().await.unwrap()["id"].clone();
    let tid = app.tournament(&admin, "agricola_norway").await;
    // A full table, so the player is confirmed and listed.
    let mut table = vec![player];
    for name in ["Kari", "Ola", "Per"] {
        let r = app
            .post("/api/v1/players", Some(&admin), json!({"name": name}))
            .await;
        table.push(r.json::<Value>().await.unwrap()["id"].clone());
    }
    for p in table {
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&admin),
                json!({"player_id": p}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    let csv = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?format=csv"),
            Some(&admin),
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(csv.contains("HYPERLINK"), "the player is listed: {csv}");
    for line in csv.lines() {
        for cell in line.split(',') {
            let cell = cell.trim_start_matches('"');
            assert!(
                !cell.starts_with(['=', '+', '@']),
                "a live formula in the standings CSV: {line}"
            );
        }
    }
}

/// Excel in the Norwegian, Polish and German settings splits a CSV at `;` and takes its
/// commas and quotes as text, so a formula after a `;` in a name opens as a cell of its own
/// (OWASP: "take care of the field separator"): it is exported as text too, after the `;`
/// and any spaces, with `=`, `+`, `-` and `@`; a `;` before anything else stays as it is.
#[actix_web::test]
async fn csv_exports_neutralise_formulas_after_a_semicolon() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "agricola_norway").await;
    let names = [
        "Kari;=HYPERLINK(\"http://evil.example\",\"click\")",
        "Ola; +2",
        "Per;-3;@SUM(A1)",
        "Liv; Oslo",
    ];
    for name in names {
        let r = app
            .post("/api/v1/players", Some(&admin), json!({"name": name}))
            .await;
        assert_eq!(r.status(), 201);
        let p = r.json::<Value>().await.unwrap()["id"].clone();
        let r = app
            .post(
                &format!("/api/v1/tournaments/{tid}/registrations"),
                Some(&admin),
                json!({"player_id": p}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    for path in ["standings.csv", "standings?format=csv"] {
        let csv = app
            .get(&format!("/api/v1/tournaments/{tid}/{path}"), Some(&admin))
            .await
            .text()
            .await
            .unwrap();
        for shown in [
            "\"Kari;'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\"",
            "Ola; '+2",
            "Per;'-3;'@SUM(A1)",
            "Liv; Oslo",
        ] {
            assert!(csv.contains(shown), "{shown} in {csv}");
        }
        for line in csv.lines() {
            // The cells a spreadsheet splitting at `;` opens: none is a formula.
            for cell in line.split(';').skip(1) {
                assert!(
                    !cell
                        .trim_start_matches(' ')
                        .starts_with(['=', '+', '-', '@']),
                    "a live formula after a ';' in {path}: {line}"
                );
            }
        }
    }
}

/// Linking an account to a player needs the account's consent: an organiser cannot link a
/// stranger's account (their `/me` would show the organiser's player); the owner or an admin
/// can.
#[actix_web::test]
async fn an_organiser_cannot_link_another_persons_account() {
    let app = spawn_app().await;
    let (_, org) = app.user("organiser").await;
    app.tournament(&org, "agricola_norway").await; // an organiser may create players
    let (victim, victim_token) = app.user("victim").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&org),
            json!({"name": "Not the victim", "user_id": victim}),
        )
        .await;
    assert_eq!(r.status(), 403);
    let me: Value = app.me(&victim_token).await;
    assert!(me["player_id"].is_null());
    // The organiser links their own account; an admin links the victim's on their behalf.
    let own: Value = app.me(&org).await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&org),
            json!({"name": "Organiser", "user_id": own["id"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Victim", "user_id": victim}),
        )
        .await;
    assert_eq!(r.status(), 201);
}

/// Guessing is throttled per account and address: after the allowed failures that address
/// waits, even with the right password (429 and Retry-After); the owner signing in from
/// another address is slowed, not locked out; another account is unaffected.
#[actix_web::test]
async fn repeated_wrong_passwords_are_throttled_with_retry_after() {
    let app = spawn_app().await;
    let (_, _) = app.user("kari").await;
    let attempt = |password: &'static str| {
        app.post(
            "/api/v1/auth/token",
            None,
            json!({"username": "kari", "password": password}),
        )
    };
    for _ in 0..tourney::infra::throttle::PER_ACCOUNT_AND_ADDRESS {
        assert_eq!(attempt("wrong password").await.status(), 401);
    }
    let r = attempt(crate::helpers::PASSWORD).await;
    assert_eq!(r.status(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    // Ten failures at once lie within the sliding five minutes until one of them has left
    // them: a tenth into the next window (330 s, less the seconds the test took).
    assert!((300..=330).contains(&wait), "{wait}");
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["type"], "/problems/too-many-requests");
    // Kari from another address (127.0.0.2 reaches the service on 127.0.0.1) gets in.
    let elsewhere = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let r = elsewhere
        .post(app.url("/api/v1/auth/token"))
        .json(&json!({"username": "kari", "password": crate::helpers::PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the owner is locked out");
    // Another account signs in as usual.
    let admin = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": crate::helpers::ADMIN, "password": crate::helpers::PASSWORD}),
        )
        .await;
    assert_eq!(admin.status(), 200);
}

/// The most common passwords and the username itself are refused as passwords.
#[actix_web::test]
async fn common_passwords_and_the_username_are_refused() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for (username, password) in [
        ("kari", "password123"),
        ("ola", "QWERTY123"),
        ("per", "qwertyuiop"),
        ("nordmann", "Nordmann"),
    ] {
        let r = app
            .post(
                "/api/v1/users",
                Some(&admin),
                json!({"username": username, "password": password}),
            )
            .await;
        let p = crate::helpers::problem(r, 422).await;
        // (Short ones are named twice: too short and common.)
        let mut named = crate::helpers::fields(&p);
        named.dedup();
        assert_eq!(named, vec!["password"], "{password}");
    }
}

/// A token's power follows the account as stored: a demoted admin loses admin power and a
/// deleted account its access within seconds, not when the token expires.
#[actix_web::test]
async fn a_demoted_or_deleted_account_loses_its_power_within_seconds() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin),
            json!({"username": "second.admin", "password": crate::helpers::PASSWORD, "is_admin": true}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let second = app.token("second.admin", crate::helpers::PASSWORD).await;
    let (_, gone) = app.user("leaving").await;
    let new_admin = |name: &'static str| {
        app.post(
            "/api/v1/users",
            Some(&second),
            json!({"username": name, "password": crate::helpers::PASSWORD, "is_admin": true}),
        )
    };
    assert_eq!(new_admin("made.by.second").await.status(), 201);
    assert_eq!(app.get("/api/v1/me", Some(&gone)).await.status(), 200);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query("UPDATE users SET is_admin = false WHERE username = 'second.admin'")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("DELETE FROM users WHERE username = 'leaving'")
        .execute(&mut conn)
        .unwrap();
    tokio::time::sleep(
        tourney::services::accounts::auth::ACCOUNT_TTL + std::time::Duration::from_millis(200),
    )
    .await;
    assert_eq!(new_admin("after.demotion").await.status(), 403);
    assert_eq!(app.get("/api/v1/me", Some(&gone)).await.status(), 401);
    assert_eq!(
        app.get("/api/v1/tournaments", Some(&gone)).await.status(),
        401,
        "a deleted account's token does not even read"
    );
}

/// A browser's script on another site may read the headers the README tells it to use
/// (`Link` to page, `Retry-After` and the rate-limit headers to back off), and no answer may
/// be sniffed into another type: JSON, CSV, problems, pages and the preflight alike.
#[actix_web::test]
async fn browsers_read_paging_and_back_off_headers_and_never_sniff() {
    let app = spawn_app().await;
    let r = app
        .req(reqwest::Method::GET, "/api/v1/players?limit=1", None)
        .header("origin", "https://club.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let exposed = r.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    for h in [
        "link",
        "retry-after",
        "ratelimit",
        "ratelimit-policy",
        "etag",
        "location",
        "x-request-id",
    ] {
        assert!(
            exposed.split(',').any(|e| e.trim() == h),
            "{h} not exposed: {exposed}"
        );
    }
    for path in [
        "/api/v1/players",
        "/api/v1/tournaments/999999",
        "/openapi.json",
        "/healthz",
        "/no/such/page",
    ] {
        let r = app.get(path, None).await;
        assert_eq!(
            r.headers()
                .get("x-content-type-options")
                .map(|v| v.to_str().unwrap()),
            Some("nosniff"),
            "{path} answered {} without nosniff",
            r.status()
        );
    }
}
