//! Issue 41 item 4: calendars. A tournament's iCalendar feed (its rounds' deadlines and the
//! self-scheduled games once agreed) and a player's private feed behind an unguessable URL the
//! player rotates and revokes; valid RFC 5545 (CRLF, folding, escaping, stable UIDs).

use std::collections::HashMap;

use chrono::{DateTime, Duration as Days, Utc};
use diesel::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::case_fixtures::{ok, patch_tournament};
use crate::event_fixtures::{event, linked_player, new_round};
use crate::helpers::{problem, spawn_app, TestApp};

const NAMES: [&str; 4] = ["karinordmann", "olahansen", "perolsen", "livberg"];

fn at(t: DateTime<Utc>) -> Value {
    json!(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn ical_time(t: DateTime<Utc>) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

/// A self-scheduled Tantrix round among four linked players; the game at the first table is
/// agreed at `agreed`. Returns (tournament, organiser, tokens by player, tables as
/// (number, seats), deadline, agreed time).
struct Setting {
    tid: i64,
    org: String,
    tokens: HashMap<i64, String>,
    tables: Vec<(i64, Vec<i64>)>,
    deadline: DateTime<Utc>,
    agreed: DateTime<Utc>,
}

async fn setting(app: &TestApp) -> Setting {
    let (tid, org, _, _) = event(app, "tantrix", 0).await;
    let mut tokens = HashMap::new();
    for name in NAMES {
        let (pid, token) = linked_player(app, tid, name).await;
        tokens.insert(pid, token);
    }
    let deadline = (Utc::now() + Days::days(30)).with_timezone(&Utc);
    let deadline = DateTime::from_timestamp(deadline.timestamp(), 0).unwrap();
    let round = new_round(
        app,
        tid,
        &org,
        json!({"method": "round_robin", "self_scheduled_until": at(deadline)}),
    )
    .await;
    let tables: Vec<(i64, Vec<i64>)> = round["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let seats = t["seats"].as_array().unwrap();
            (
                t["number"].as_i64().unwrap(),
                seats.iter().map(|p| p.as_i64().unwrap()).collect(),
            )
        })
        .collect();
    let agreed = DateTime::from_timestamp(Utc::now().timestamp() + 86_400, 0).unwrap();
    let (t1, seats) = &tables[0];
    let base = format!("/api/v1/tournaments/{tid}/rounds/1/tables/{t1}/schedule");
    let r = app
        .post(
            &format!("{base}/proposals"),
            Some(&tokens[&seats[0]]),
            json!({"times": [at(agreed)]}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = app
        .post(
            &format!("{base}/accept"),
            Some(&tokens[&seats[1]]),
            json!({"time": at(agreed)}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    Setting {
        tid,
        org,
        tokens,
        tables,
        deadline,
        agreed,
    }
}

/// The RFC 5545 form: CRLF everywhere, no line over 75 octets, continuation lines start with
/// a space, one calendar. Returns the unfolded lines.
fn unfolded(body: &str) -> Vec<String> {
    assert!(
        body.starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"),
        "{body}"
    );
    assert!(body.ends_with("END:VCALENDAR\r\n"), "{body}");
    assert!(
        !body.replace("\r\n", "").contains('\n'),
        "a bare LF: {body:?}"
    );
    let mut lines: Vec<String> = Vec::new();
    for line in body.trim_end_matches("\r\n").split("\r\n") {
        assert!(line.len() <= 75, "{} octets: {line}", line.len());
        match line.strip_prefix(' ') {
            Some(more) => lines.last_mut().unwrap().push_str(more),
            None => lines.push(line.to_string()),
        }
    }
    let begins = lines.iter().filter(|l| *l == "BEGIN:VEVENT").count();
    let stamps = lines.iter().filter(|l| l.starts_with("DTSTAMP:")).count();
    let uids = lines.iter().filter(|l| l.starts_with("UID:")).count();
    assert_eq!((stamps, uids), (begins, begins), "{body}");
    lines
}

async fn feed(app: &TestApp, path: &str) -> reqwest::Response {
    app.get(path, None).await
}

async fn calendar_text(r: reqwest::Response) -> String {
    assert_eq!(r.status(), 200);
    let ct = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/calendar"), "{ct}");
    r.text().await.unwrap()
}

#[actix_web::test]
async fn a_tournaments_feed_shows_its_deadlines_and_agreed_games_in_rfc_5545() {
    let app = spawn_app().await;
    let s = setting(&app).await;
    // A name with the characters TEXT escapes, long enough to fold.
    let name = "Tantrix Cup, Oslo; the long autumn weekend with a very long name";
    patch_tournament(&app, s.tid, &s.org, json!({"name": name})).await;
    let path = format!("/api/v1/tournaments/{}/calendar", s.tid);
    let body = calendar_text(feed(&app, &path).await).await;
    let lines = unfolded(&body);
    assert!(
        body.lines().any(|l| l.len() > 70),
        "something folds: {body}"
    );
    let escaped = "Tantrix Cup\\, Oslo\\; the long autumn weekend with a very long name";
    assert!(lines.contains(&format!("X-WR-CALNAME:{escaped}")), "{body}");
    let tid = s.tid;
    let (t1, t2) = (s.tables[0].0, s.tables[1].0);
    let event_of = |uid: &str| {
        let i = lines
            .iter()
            .position(|l| *l == format!("UID:{uid}"))
            .unwrap_or_else(|| panic!("no {uid} in {body}"));
        lines[i..]
            .iter()
            .take_while(|l| *l != "END:VEVENT")
            .cloned()
            .collect::<Vec<_>>()
    };
    let deadline = event_of(&format!("tournament-{tid}-round-1-deadline@tourney"));
    assert!(
        deadline.contains(&format!("DTSTART:{}", ical_time(s.deadline))),
        "{deadline:?}"
    );
    let game = event_of(&format!("tournament-{tid}-round-1-table-{t1}@tourney"));
    assert!(
        game.contains(&format!("DTSTART:{}", ical_time(s.agreed))),
        "{game:?}"
    );
    assert!(game
        .iter()
        .any(|l| l.starts_with("SUMMARY:") && l.contains(escaped)));
    assert!(
        !body.contains(&format!("table-{t2}@")),
        "a game not yet agreed is not in the calendar: {body}"
    );
    // The same feed on the next read: UIDs and stamps stay.
    assert_eq!(calendar_text(feed(&app, &path).await).await, body);
    problem(feed(&app, "/api/v1/tournaments/999999/calendar").await, 404).await;
}

#[actix_web::test]
async fn a_players_private_feed_shows_only_their_games_and_rotates_and_revokes() {
    let app = spawn_app().await;
    let s = setting(&app).await;
    let (t1, seats1) = s.tables[0].clone();
    let (t2, seats2) = s.tables[1].clone();
    let kari = &s.tokens[&seats1[0]];
    problem(app.post("/api/v1/me/calendar", None, json!({})).await, 401).await;
    // An account without a player has no games to show.
    let admin = app.admin_token().await;
    problem(
        app.post("/api/v1/me/calendar", Some(&admin), json!({}))
            .await,
        409,
    )
    .await;
    let made = ok(
        app.post("/api/v1/me/calendar", Some(kari), json!({})).await,
        200,
    )
    .await;
    let (path, token) = (
        made["path"].as_str().unwrap().to_string(),
        made["token"].as_str().unwrap().to_string(),
    );
    assert_eq!(path, format!("/api/v1/calendars/{token}"));
    assert!(token.len() >= 64, "unguessable: {token}");
    let body = calendar_text(feed(&app, &path).await).await;
    let lines = unfolded(&body);
    let tid = s.tid;
    assert!(lines.contains(&format!("UID:tournament-{tid}-round-1-table-{t1}@tourney")));
    assert!(lines.contains(&format!("DTSTART:{}", ical_time(s.agreed))));
    assert!(lines.contains(&format!("UID:tournament-{tid}-round-1-deadline@tourney")));
    // Not another table's game, nor its players.
    assert!(!body.contains(&format!("table-{t2}")), "{body}");
    for p in &seats2 {
        let r: Value = app
            .get(&format!("/api/v1/players/{p}"), None)
            .await
            .json()
            .await
            .unwrap();
        let n = r["name"].as_str().unwrap();
        assert!(!body.contains(n), "{n} is in kari's feed: {body}");
    }
    // Another player's feed does not show kari's game.
    let per = &s.tokens[&seats2[0]];
    let theirs = ok(
        app.post("/api/v1/me/calendar", Some(per), json!({})).await,
        200,
    )
    .await;
    let other = calendar_text(feed(&app, theirs["path"].as_str().unwrap()).await).await;
    assert!(!other.contains(&format!("table-{t1}@")), "{other}");

    // Only the token's hash is stored; neither a guessed token nor the stored hash opens it.
    let hash = hex::encode(Sha256::digest(token.as_bytes()));
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let stored: Vec<String> = diesel::sql_query("SELECT token_hash FROM calendar_feeds")
        .load::<Hashes>(&mut conn)
        .unwrap()
        .into_iter()
        .map(|h| h.token_hash)
        .collect();
    assert!(
        stored.contains(&hash) && !stored.contains(&token),
        "{stored:?}"
    );
    for guess in [
        format!("/api/v1/calendars/cal_{}", "0".repeat(64)),
        format!("/api/v1/calendars/{hash}"),
        format!("/api/v1/calendars/{}", &token[..token.len() - 1]),
    ] {
        problem(feed(&app, &guess).await, 404).await;
    }

    // Rotating: the old URL is dead, the new one works.
    let rotated = ok(
        app.post("/api/v1/me/calendar", Some(kari), json!({})).await,
        200,
    )
    .await;
    let new_path = rotated["path"].as_str().unwrap().to_string();
    assert_ne!(new_path, path);
    problem(feed(&app, &path).await, 404).await;
    calendar_text(feed(&app, &new_path).await).await;
    // Revoking: the URL answers 404, as a path that never existed; a second revoke is 404.
    let r = app.delete_req("/api/v1/me/calendar", kari).await;
    assert_eq!(r.status(), 204);
    problem(feed(&app, &new_path).await, 404).await;
    problem(app.delete_req("/api/v1/me/calendar", kari).await, 404).await;
    // Per's feed is untouched by kari's.
    calendar_text(feed(&app, theirs["path"].as_str().unwrap()).await).await;
}

#[derive(QueryableByName)]
struct Hashes {
    #[diesel(sql_type = diesel::sql_types::Text)]
    token_hash: String,
}

/// A player's private feed belongs to the account the player is linked to: an admin's unlink,
/// a move to another account and the account's erasure each end it (404), so the old
/// account's URL no longer serves the player's games; the new account makes its own.
#[actix_web::test]
async fn a_players_feed_ends_when_the_players_account_changes() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, _, _, _) = event(&app, "tantrix", 0).await;
    let (kari, kari_token) = linked_player(&app, tid, "kari").await;
    let (ola_id, ola_token) = app.user("ola").await;
    let make = |token: String| {
        let app = &app;
        async move {
            let made = ok(
                app.post("/api/v1/me/calendar", Some(&token), json!({}))
                    .await,
                200,
            )
            .await;
            let path = made["path"].as_str().unwrap().to_string();
            calendar_text(feed(app, &path).await).await;
            path
        }
    };
    let link = |user: Value| {
        let (app, admin) = (&app, &admin);
        async move {
            let r = app
                .patch(
                    &format!("/api/v1/players/{kari}"),
                    Some(admin),
                    json!({ "user_id": user }),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    };
    // Unlinked by an admin.
    let path = make(kari_token.clone()).await;
    link(Value::Null).await;
    problem(feed(&app, &path).await, 404).await;
    // Linked again to kari, a new feed; then moved to ola's account.
    let kari_id = app.me(&kari_token).await["id"].clone();
    link(kari_id).await;
    let path = make(kari_token.clone()).await;
    link(json!(ola_id)).await;
    problem(feed(&app, &path).await, 404).await;
    let olas = make(ola_token.clone()).await;
    // Renaming the player keeps the feed: only the account link ends it.
    let r = app
        .patch(
            &format!("/api/v1/players/{kari}"),
            Some(&admin),
            json!({"name": "Kari N."}),
        )
        .await;
    assert_eq!(r.status(), 200);
    calendar_text(feed(&app, &olas).await).await;
    // Ola's account erased: the player stays (registered), pseudonymised, and the feed ends.
    let r = app
        .delete_with(
            "/api/v1/me",
            &ola_token,
            json!({"password": crate::helpers::PASSWORD}),
        )
        .await;
    assert_eq!(r.json::<Value>().await.unwrap()["player"], "pseudonymised");
    problem(feed(&app, &olas).await, 404).await;
}

/// A draft's feed is read by its staff only: never offered to shared caches; once published,
/// everyone reads it and caches may keep it a minute.
#[actix_web::test]
async fn a_drafts_feed_is_private_to_its_staff() {
    let app = spawn_app().await;
    let (_, org) = app.user("organiser").await;
    let tid = app.tournament(&org, "agricola_norway").await;
    let path = format!("/api/v1/tournaments/{tid}/calendar");
    let cache = |r: &reqwest::Response| r.headers()["cache-control"].to_str().unwrap().to_string();
    problem(feed(&app, &path).await, 404).await;
    let r = app.get(&path, Some(&org)).await;
    assert_eq!(cache(&r), "private, no-cache");
    calendar_text(r).await;
    patch_tournament(&app, tid, &org, json!({"status": "registration_open"})).await;
    for token in [None, Some(org.as_str())] {
        let r = app.get(&path, token).await;
        assert_eq!(cache(&r), "public, max-age=60");
        calendar_text(r).await;
    }
}

/// The problem a made-up feed token answers, as a stranger sees it.
async fn unknown_feed(app: &TestApp) -> Value {
    let made_up = format!("/api/v1/calendars/cal_{}", "0".repeat(64));
    problem(feed(app, &made_up).await, 404).await
}

/// A disabled account's feed answers exactly as a made-up token does (a stranger cannot tell
/// that it exists), and serves the same games again once an admin enables the account; the
/// account's deletion by an admin ends it.
#[actix_web::test]
async fn a_disabled_accounts_feed_answers_as_an_unknown_one_until_it_is_enabled() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let s = setting(&app).await;
    let (_, seats) = s.tables[0].clone();
    let kari = &s.tokens[&seats[0]];
    let kari_id = app.me(kari).await["id"].as_i64().unwrap();
    let made = ok(
        app.post("/api/v1/me/calendar", Some(kari), json!({})).await,
        200,
    )
    .await;
    let path = made["path"].as_str().unwrap().to_string();
    let before = calendar_text(feed(&app, &path).await).await;
    assert!(before.contains("table-"), "{before}");
    let unknown = unknown_feed(&app).await;
    let set_disabled = |disabled: bool| {
        let (app, admin) = (&app, &admin);
        async move {
            let r = app
                .patch(
                    &format!("/api/v1/users/{kari_id}"),
                    Some(admin),
                    json!({ "disabled": disabled }),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
    };
    set_disabled(true).await;
    assert_eq!(problem(feed(&app, &path).await, 404).await, unknown);
    // Another player's feed is untouched.
    let per = &s.tokens[&s.tables[1].1[0]];
    let theirs = ok(
        app.post("/api/v1/me/calendar", Some(per), json!({})).await,
        200,
    )
    .await;
    calendar_text(feed(&app, theirs["path"].as_str().unwrap()).await).await;
    // Enabled again: the same URL serves the same games.
    set_disabled(false).await;
    assert_eq!(calendar_text(feed(&app, &path).await).await, before);
    // Deleted by an admin: gone for good.
    let r = app
        .delete_req(&format!("/api/v1/users/{kari_id}"), &admin)
        .await;
    assert_eq!(r.status(), 204);
    assert_eq!(problem(feed(&app, &path).await, 404).await, unknown);
}

/// A password reset (the recovery after a compromise) ends the account's feed, answering as a
/// made-up token, and the new password makes a new one; a changed password keeps the feed, and
/// API keys survive both (listed at `/me/api-keys` to revoke).
#[actix_web::test]
async fn a_password_reset_ends_the_feed_and_a_change_keeps_it() {
    const CHANGED: &str = "a changed passphrase";
    let (sink, app) = crate::helpers::spawn_open_app().await;
    let admin = app.admin_token().await;
    let token = crate::helpers::verified_account(&app, &sink, "kari", "kari@example.no").await;
    let kari_id = app.me(&token).await["id"].as_i64().unwrap();
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Kari Nordmann", "user_id": kari_id}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let key = ok(
        app.post(
            "/api/v1/me/api-keys",
            Some(&token),
            json!({"name": "club site", "scopes": ["read"]}),
        )
        .await,
        201,
    )
    .await["key"]
        .as_str()
        .unwrap()
        .to_string();
    let made = ok(
        app.post("/api/v1/me/calendar", Some(&token), json!({}))
            .await,
        200,
    )
    .await;
    let path = made["path"].as_str().unwrap().to_string();
    calendar_text(feed(&app, &path).await).await;
    // A changed password keeps the feed and the key.
    let changed = ok(
        app.post(
            "/api/v1/me/password",
            Some(&token),
            json!({"current_password": crate::helpers::PASSWORD, "new_password": CHANGED}),
        )
        .await,
        200,
    )
    .await;
    assert!(changed["access_token"].is_string());
    calendar_text(feed(&app, &path).await).await;
    assert_eq!(app.get("/api/v1/me", Some(&key)).await.status(), 200);
    // A reset ends the feed: it answers as a made-up token.
    let before = sink.to("kari@example.no").len();
    let r = app
        .post(
            "/api/v1/auth/password-reset",
            None,
            json!({"email": "kari@example.no"}),
        )
        .await;
    assert_eq!(r.status(), 202);
    let code = crate::helpers::next_mail(&sink, "kari@example.no", before)
        .await
        .code("pr_");
    let r = app
        .post(
            "/api/v1/auth/password-reset/confirm",
            None,
            json!({"token": code, "password": "a passphrase after the reset"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let unknown = unknown_feed(&app).await;
    assert_eq!(problem(feed(&app, &path).await, 404).await, unknown);
    assert_eq!(app.get("/api/v1/me", Some(&key)).await.status(), 200);
    // Signed in with the new password, the player makes a new feed.
    let token = app.token("kari", "a passphrase after the reset").await;
    let made = ok(
        app.post("/api/v1/me/calendar", Some(&token), json!({}))
            .await,
        200,
    )
    .await;
    calendar_text(feed(&app, made["path"].as_str().unwrap()).await).await;
}
