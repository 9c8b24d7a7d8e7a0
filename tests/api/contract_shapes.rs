//! The shapes an integrator relies on (issue 13): one list envelope with `Link` headers,
//! result seats that read back in the shape they are sent, one ETag that `If-Match` takes as
//! served, complete CSV exports, the round's effective weight, validated time zones.

use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{problem, spawn_app};

fn links(r: &reqwest::Response) -> String {
    r.headers()
        .get("link")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

#[actix_web::test]
async fn every_list_is_one_envelope_with_next_and_prev_links() {
    let app = spawn_app().await;
    let (tid, _, _, ids) = event(&app, "agricola_norway", 12).await;
    let base = format!("/api/v1/tournaments/{tid}/registrations");
    let r = app.get(&format!("{base}?limit=5"), None).await;
    assert_eq!(r.status(), 200);
    let link = links(&r);
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["total"], 12);
    assert_eq!(page["limit"], 5);
    assert_eq!(page["offset"], 0);
    assert_eq!(page["items"].as_array().unwrap().len(), 5);
    assert_eq!(page["items"][0]["player_id"], json!(ids[0]));
    assert_eq!(link, format!("<{base}?limit=5&offset=5>; rel=\"next\""));

    let r = app.get(&format!("{base}?limit=5&offset=5"), None).await;
    let link = links(&r);
    assert!(
        link.contains(&format!("<{base}?limit=5&offset=10>; rel=\"next\"")),
        "{link}"
    );
    assert!(
        link.contains(&format!("<{base}?limit=5&offset=0>; rel=\"prev\"")),
        "{link}"
    );
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["items"][0]["player_id"], json!(ids[5]));

    // The last page has no next; other query parameters are kept in the links.
    let r = app
        .get("/api/v1/players?q=player&limit=10&offset=10", None)
        .await;
    let link = links(&r);
    assert_eq!(
        link,
        "</api/v1/players?q=player&limit=10&offset=0>; rel=\"prev\""
    );

    // A list that fits one page has no Link at all.
    let r = app
        .get(&format!("/api/v1/tournaments/{tid}/staff"), None)
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(links(&r), "");
    let staff: Value = r.json().await.unwrap();
    assert_eq!(staff["total"], 2, "{staff}");

    // Bad paging is a 422 naming the parameter.
    let p = problem(app.get(&format!("{base}?limit=0"), None).await, 422).await;
    assert_eq!(p["errors"][0]["field"], "limit", "{p}");
}

#[actix_web::test]
async fn result_seats_read_back_as_sent_and_the_read_etag_corrects_them() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 4).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    assert_eq!(round["effective_weight"], "1");
    assert_eq!(round["kind"], "preliminary");
    play_round(&app, tid, &referee, &round, |p| 20 + p % 7).await;
    let path = format!("/api/v1/tournaments/{tid}/rounds/1/tables/1/result");
    let r = app.get(&path, None).await;
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(etag, "\"1\"");
    let read: Value = r.json().await.unwrap();
    let mut seats = read["current"]["seats"].clone();
    assert!(seats[0]["player_id"].is_i64(), "{seats}");
    assert!(seats[0].get("player").is_none(), "{seats}");
    // Edit what was read and send it back with the ETag as served.
    seats[0]["bonus"] = json!(4);
    let r = app
        .req(reqwest::Method::PUT, &path, Some(&referee))
        .header("if-match", &etag)
        .json(&json!({"seats": seats, "reason": "bonus points were missed"}))
        .send()
        .await
        .unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["current"]["version"], 2);
    assert_eq!(body["current"]["seats"][0]["bonus"], 4);
    // The old ETag no longer matches.
    let r = app
        .req(reqwest::Method::PUT, &path, Some(&referee))
        .header("if-match", &etag)
        .json(&json!({"seats": seats, "reason": "again"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 412);
}

#[actix_web::test]
async fn the_final_shows_its_effective_weight() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| p % 11).await;
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "final_groups", "kind": "final"}),
    )
    .await;
    assert_eq!(fin["effective_weight"], "5/4", "{fin}");
    assert_eq!(fin["weight"], Value::Null);
    play_round(&app, tid, &referee, &fin, |p| p % 13).await;
    let own = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "danish", "weight": "1.5"}),
        )
        .await;
    let own: Value = own.json().await.unwrap();
    assert_eq!(own["effective_weight"], "3/2", "{own}");
}

#[actix_web::test]
async fn an_option_of_another_method_is_refused() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 8).await;
    let p = problem(
        app.post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "danish", "options": {"rounds_remaining": 2}}),
        )
        .await,
        422,
    )
    .await;
    assert!(p.to_string().contains("rounds_remaining"), "{p}");
}

#[actix_web::test]
async fn an_unknown_time_zone_is_a_422_on_the_field() {
    let app = spawn_app().await;
    let (_, token) = app.user("org").await;
    let p = problem(
        app.post(
            "/api/v1/tournaments",
            Some(&token),
            json!({"name": "Cup", "game": "Agricola", "ruleset": "agricola_norway",
                   "planned_rounds": 3, "starts_on": "2027-01-02", "time_zone": "Mars/Olympus"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(p["errors"][0]["field"], "time_zone", "{p}");
}

#[actix_web::test]
async fn the_leaderboard_csv_holds_every_row_whatever_the_page() {
    use crate::rating_fixtures::{
        completed_round, db, feed, player, pool, result, tournament, win,
    };
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool_id = pool(
        &app,
        &admin,
        json!({"name": "Ashes", "preset": "ashes_poland", "time_zone": "Europe/Warsaw"}),
    )
    .await;
    let mut p = Vec::new();
    for i in 0..64 {
        p.push(player(&app, &admin, &format!("P{i:02}"), "PL", "Kraków").await);
    }
    let t = tournament(&app, &admin, "ashes_league", pool_id, "2026-03-07").await;
    let mut conn = db(&app);
    let r = completed_round(&mut conn, t, 1, "2026-03-07T11:00:00Z");
    for k in 0..32 {
        result(
            &mut conn,
            r,
            k + 1,
            1,
            win(p[2 * k as usize], p[2 * k as usize + 1]),
        );
    }
    feed(&mut conn, t);
    let path = format!("/api/v1/rating-pools/{pool_id}/leaderboard?include_provisional=true");
    let page: Value = app.get(&path, None).await.json().await.unwrap();
    assert_eq!(page["total"], 64);
    assert_eq!(page["items"].as_array().unwrap().len(), 50);
    let r = app
        .get(&format!("{path}&format=csv&limit=10&offset=20"), None)
        .await;
    assert_eq!(r.status(), 200);
    let csv = r.text().await.unwrap();
    assert_eq!(csv.lines().count(), 65, "{csv}");
    assert!(csv.starts_with("rank,player_id,player_name,"));
}

/// Every GET whose 200 documents `ETag`, `Cache-Control` or `Link` sends them (filled with one
/// played event's ids), and every documented header set is what the service sends.
#[actix_web::test]
async fn documented_response_headers_are_sent() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 8).await;
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| p % 9).await;
    let admin = app.admin_token().await;
    let pool = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "List", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}),
        )
        .await;
    let pool: i64 = pool.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(get) = item.get("get") else { continue };
        let Some(headers) = get["responses"]["200"]["headers"].as_object() else {
            continue;
        };
        let fillable = path
            .replace("{id}", "")
            .replace("{n}", "")
            .replace("{t}", "");
        // Team standings belong to team events; this one ranks players. A webhook's deliveries
        // (paged with Link) are checked in webhooks_manage.
        if fillable.contains('{')
            || path.ends_with("/team-standings")
            || path.starts_with("/api/v1/webhooks/")
        {
            continue;
        }
        let id = if path.starts_with("/api/v1/rating-pools") {
            pool
        } else if path.starts_with("/api/v1/players") {
            ids[0]
        } else {
            tid
        };
        let url = path
            .replace("{id}", &id.to_string())
            .replace("{n}", "1")
            .replace("{t}", "1")
            + if headers.contains_key("Link") && paged(get) {
                "?limit=1"
            } else {
                ""
            };
        let r = app.get(&url, Some(&admin)).await;
        assert_eq!(r.status(), 200, "{url}");
        for name in headers.keys() {
            // Sent only to the deprecated form of the read (tests/api/versions.rs checks them).
            if matches!(name.as_str(), "Deprecation" | "Sunset") {
                continue;
            }
            if name == "Link" && !url.contains("limit=1") {
                continue;
            }
            // A one-item list with more items has a next link; a list of one has none.
            if name == "Link" {
                let body: Value = r.json().await.unwrap();
                if body["total"].as_i64().unwrap() > 1 {
                    let again = app.get(&url, Some(&admin)).await;
                    assert!(again.headers().contains_key("link"), "Link on {url}");
                }
                break;
            }
            assert!(r.headers().contains_key(name.as_str()), "{name} on {url}");
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} reads checked");
}

/// Whether a read pages with `limit` (its `Link` is then a next page's; otherwise only a
/// deprecated form's link to the changelog).
fn paged(get: &Value) -> bool {
    get["parameters"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["name"] == "limit"))
}

/// A creating POST answers 201 with what it created and where it lives: a registration (also
/// on an idempotent retry), an API key (never its secret at the `Location`).
#[actix_web::test]
async fn creating_posts_answer_what_they_created_with_its_location() {
    let app = spawn_app().await;
    let (tid, org, _, ids) = event(&app, "agricola_norway", 0).await;
    let admin = app.admin_token().await;
    let player = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Ny Spiller"}),
        )
        .await
        .json::<Value>()
        .await
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    assert!(ids.is_empty());
    let send = || {
        app.req(
            reqwest::Method::POST,
            &format!("/api/v1/tournaments/{tid}/registrations"),
            Some(&org),
        )
        .header("idempotency-key", "register-ny-spiller")
        .json(&json!({"player_id": player}))
        .send()
    };
    for _ in 0..2 {
        let r = send().await.unwrap();
        assert_eq!(r.status(), 201);
        let location = r.headers()["location"].to_str().unwrap().to_string();
        assert_eq!(
            location,
            format!("/api/v1/tournaments/{tid}/registrations/{player}")
        );
        let created: Value = r.json().await.unwrap();
        assert_eq!(created["player_id"], player);
        assert_eq!(created["status"], "waitlisted");
        assert!(created.get("items").is_none());
        let read: Value = app.get(&location, Some(&org)).await.json().await.unwrap();
        assert_eq!(read, created);
    }
    problem(
        app.get(
            &format!("/api/v1/tournaments/{tid}/registrations/999999"),
            Some(&org),
        )
        .await,
        404,
    )
    .await;
    let r = app
        .post(
            "/api/v1/me/api-keys",
            Some(&org),
            json!({"name": "club site", "scopes": ["read"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let created: Value = r.json().await.unwrap();
    assert_eq!(
        location,
        format!("/api/v1/me/api-keys/{}", created["api_key"]["id"])
    );
    let read: Value = app.get(&location, Some(&org)).await.json().await.unwrap();
    assert_eq!(read, created["api_key"]);
    assert!(!read.to_string().contains(created["key"].as_str().unwrap()));
    let (_, other) = app.user("someone.else").await;
    problem(app.get(&location, Some(&other)).await, 404).await;
}
