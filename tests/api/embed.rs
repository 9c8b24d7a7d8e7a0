//! Embeddable pages (issue 17, item 4): the HTML shows what the JSON says, in three
//! languages and themes, escaped, cacheable, and framable only there.

use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::spawn_app;

/// The text of every cell of every body row, row by row.
/// An error inside a frame: a small HTML page with the status, never JSON.
async fn error_page(r: reqwest::Response, status: u16) -> String {
    assert_eq!(r.status(), status);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(r.headers()["content-security-policy"], "frame-ancestors *");
    let html = r.text().await.unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.len() < 2_000,
        "{html}"
    );
    html
}

fn rows(html: &str) -> Vec<Vec<String>> {
    let body = html.split("<tbody>").skip(1).collect::<Vec<_>>().join("");
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let inner = cell.split_once('>').map(|x| x.1).unwrap_or("");
                    inner.split("</td>").next().unwrap_or("").to_string()
                })
                .collect()
        })
        .collect()
}

#[actix_web::test]
async fn the_standings_page_shows_the_json_standings() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 8).await;
    // A name that must not become markup.
    let r = app
        .patch(
            &format!("/api/v1/players/{}", ids[0]),
            Some(&admin),
            json!({"name": "<script>alert(1)</script> & Co"}),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &round, |p| 40 + p).await;
    let json: Value = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await
        .json()
        .await
        .unwrap();
    let url = format!("/embed/tournaments/{tid}/standings");
    let r = app.get(&url, None).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(r.headers()["content-security-policy"], "frame-ancestors *");
    assert!(r.headers().get("x-frame-options").is_none());
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let html = r.text().await.unwrap();
    assert!(html.starts_with("<!DOCTYPE html><html lang=\"en\">"));
    assert!(html.contains("<th scope=\"col\">Place</th>"));
    assert!(!html.contains("<script>alert"), "escaped");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co"));
    assert!(!html.contains("<script>"), "no script without live=1");
    let shown = rows(&html);
    let expected = json["rows"].as_array().unwrap();
    assert_eq!(shown.len(), expected.len());
    for (cells, row) in shown.iter().zip(expected) {
        assert_eq!(cells[0], row["place"].to_string());
        let name = row["player_name"].as_str().unwrap();
        let escaped = name
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert_eq!(cells[1], escaped);
        assert_eq!(
            cells[2].parse::<f64>().unwrap(),
            row["tp"].as_f64().unwrap()
        );
    }
    // Cached like the JSON: a revalidation is a 304.
    let r = app
        .req(reqwest::Method::GET, &url, None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    // Norwegian, Polish, dark, live.
    let nb = app
        .get(&format!("{url}?lang=nb&theme=dark&live=true"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(nb.contains("lang=\"nb\"") && nb.contains("Plass") && nb.contains("class=\"dark\""));
    assert!(nb.contains("EventSource"));
    // Every frame of the feed is named by its kind: the page listens to the names (a
    // listener on unnamed messages would never fire).
    assert!(!nb.contains("onmessage"));
    for kind in ["standings_changed", "result_corrected", "round_completed"] {
        assert!(nb.contains(&format!("'{kind}'")), "{kind}");
    }
    assert!(nb.contains("addEventListener"));
    let pl = app
        .get(&format!("{url}?lang=pl&theme=auto"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(pl.contains("lang=\"pl\"") && pl.contains("Miejsce") && pl.contains("class=\"auto\""));
    let html = error_page(app.get(&format!("{url}?lang=fr"), None).await, 422).await;
    assert!(html.contains("lang: unknown variant"), "{html}");
    let html = error_page(app.get(&format!("{url}?lang=nb&nope=1"), None).await, 422).await;
    assert!(
        html.contains("lang=\"nb\"") && html.contains("ikke tilgjengelig"),
        "{html}"
    );
    // Every other answer forbids framing.
    let r = app
        .get(&format!("/api/v1/tournaments/{tid}/standings"), None)
        .await;
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    assert_eq!(
        r.headers()["content-security-policy"],
        "frame-ancestors 'none'"
    );
}

#[actix_web::test]
async fn the_seating_page_shows_every_table_and_stays_small() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 100).await;
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds"),
            Some(&org),
            json!({"method": "random"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    // A draft is not shown.
    error_page(
        app.get(&format!("/embed/tournaments/{tid}/rounds/1"), None)
            .await,
        404,
    )
    .await;
    error_page(
        app.get(&format!("/embed/tournaments/{tid}/rounds/x"), None)
            .await,
        404,
    )
    .await;
    let round: Value = app
        .post(
            &format!("/api/v1/tournaments/{tid}/rounds/1/publish"),
            Some(&org),
            json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    let html = app
        .get(&format!("/embed/tournaments/{tid}/rounds/1"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.len() < 30_000, "{} bytes", html.len());
    let tables = round["draw"]["tables"].as_array().unwrap();
    assert_eq!(html.matches("<caption>").count(), tables.len());
    let players: Value = app
        .get("/api/v1/players?limit=200", None)
        .await
        .json()
        .await
        .unwrap();
    let name_of = |id: &Value| {
        players["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == *id)
            .unwrap()["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = &tables[0];
    let section = html.split("<caption>").nth(1).unwrap();
    assert!(section.starts_with(&format!("Table {}", first["number"])));
    for seat in first["seats"].as_array().unwrap() {
        assert!(section.contains(&name_of(seat)), "{seat}");
    }
}

#[actix_web::test]
async fn the_leaderboard_page_follows_the_json_leaderboard() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let pool: Value = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Norway list", "time_zone": "Europe/Oslo"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let pool = pool["id"].as_i64().unwrap();
    let mut csv = String::from("player_id,rating,games\n");
    for (i, name) in ["Ada", "Bo", "Cy"].iter().enumerate() {
        let p: Value = app
            .post("/api/v1/players", Some(&admin), json!({"name": name}))
            .await
            .json()
            .await
            .unwrap();
        csv.push_str(&format!("{},{},{}\n", p["id"], 1500 + 100 * i, 10));
    }
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool}/imports"),
            Some(&admin),
            json!({"applies_from": "2026-01-01", "source": "test", "csv": csv}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let json: Value = app
        .get(&format!("/api/v1/rating-pools/{pool}/leaderboard"), None)
        .await
        .json()
        .await
        .unwrap();
    let html = app
        .get(
            &format!("/embed/rating-pools/{pool}/leaderboard?lang=nb"),
            None,
        )
        .await
        .text()
        .await
        .unwrap();
    let shown = rows(&html);
    let items = json["items"].as_array().unwrap();
    assert_eq!(shown.len(), items.len());
    for (cells, item) in shown.iter().zip(items) {
        assert_eq!(cells[0], item["rank"].to_string());
        assert!(cells[1].starts_with(item["player_name"].as_str().unwrap()));
    }
    assert!(html.contains("Klubb"));
    for (bad, field) in [
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("offset=-1", "offset"),
    ] {
        let html = error_page(
            app.get(
                &format!("/embed/rating-pools/{pool}/leaderboard?{bad}"),
                None,
            )
            .await,
            422,
        )
        .await;
        assert!(html.contains(field), "{bad}: {html}");
    }
    error_page(
        app.get("/embed/rating-pools/999999/leaderboard", None)
            .await,
        404,
    )
    .await;
}

/// Every seed's community reads the pages in its language: `lang`, else `Accept-Language`
/// (by preference), else English; captions too; the page says it varies by the header.
#[actix_web::test]
async fn languages_follow_lang_then_accept_language() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "agricola_norway", 4).await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    app.post(
        &format!("/api/v1/tournaments/{tid}/rounds/1/publish"),
        Some(&org),
        json!({}),
    )
    .await;
    let url = format!("/embed/tournaments/{tid}/rounds/1");
    let page = |accept: Option<&'static str>, query: &'static str| {
        let mut r = app.req(reqwest::Method::GET, &format!("{url}{query}"), None);
        if let Some(a) = accept {
            r = r.header("accept-language", a);
        }
        async move {
            let r = r.send().await.unwrap();
            assert_eq!(r.status(), 200);
            assert!(r.headers()["vary"]
                .to_str()
                .unwrap()
                .contains("Accept-Language"));
            r.text().await.unwrap()
        }
    };
    let zh = page(Some("zh-TW,zh;q=0.9,en;q=0.5"), "").await;
    assert!(zh.contains("lang=\"zh-Hant\"") && zh.contains("第1輪") && zh.contains("第1桌"));
    assert!(zh.contains("選手"));
    let de = page(Some("fr-CH, fr;q=0.9, de;q=0.8, en;q=0.7"), "").await;
    assert!(de.contains("lang=\"de\"") && de.contains("Runde 1") && de.contains("Tisch 1"));
    let en = page(Some("fr, es;q=0.5"), "").await;
    assert!(en.contains("lang=\"en\"") && en.contains("Round 1"));
    let nb = page(Some("de"), "?lang=nb").await;
    assert!(nb.contains("lang=\"nb\"") && nb.contains("Runde 1") && nb.contains("Bord 1"));
    let zh = page(None, "?lang=zh-Hant").await;
    assert!(zh.contains("lang=\"zh-Hant\""));
    // The height helper only when asked for.
    assert!(!zh.contains("<script"));
    let sized = page(None, "?resize=true").await;
    assert!(sized.contains("postMessage") && sized.contains("tourney:height"));
}

/// The leaderboard page lists whom the JSON lists: by default the established players, with
/// `include_provisional` the provisional ones too, marked, on both.
#[actix_web::test]
async fn the_leaderboard_page_and_the_json_agree_on_provisional_players() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post(
            "/api/v1/rating-pools",
            Some(&admin),
            json!({"name": "Threshold list", "time_zone": "Europe/Oslo",
                   "params": {"min_games_listed": 5}}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let pool = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let mut csv = String::from("player_id,rating,games\n");
    for (name, rating, games) in [("Ada", 1700, 12), ("Bo", 1650, 2), ("Cy", 1600, 5)] {
        let p: Value = app
            .post("/api/v1/players", Some(&admin), json!({"name": name}))
            .await
            .json()
            .await
            .unwrap();
        csv.push_str(&format!("{},{rating},{games}\n", p["id"]));
    }
    let r = app
        .post(
            &format!("/api/v1/rating-pools/{pool}/imports"),
            Some(&admin),
            json!({"applies_from": "2026-01-01", "source": "test", "csv": csv}),
        )
        .await;
    assert_eq!(r.status(), 201);
    for (query, names) in [
        ("", vec!["Ada", "Cy"]),
        ("?include_provisional=true", vec!["Ada", "Bo", "Cy"]),
    ] {
        let json: Value = app
            .get(
                &format!("/api/v1/rating-pools/{pool}/leaderboard{query}"),
                None,
            )
            .await
            .json()
            .await
            .unwrap();
        let listed: Vec<&str> = json["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["player_name"].as_str().unwrap())
            .collect();
        assert_eq!(listed, names, "{query}");
        let html = app
            .get(
                &format!("/embed/rating-pools/{pool}/leaderboard{query}"),
                None,
            )
            .await
            .text()
            .await
            .unwrap();
        let shown = rows(&html);
        assert_eq!(shown.len(), names.len(), "{query}");
        for ((cells, name), item) in shown
            .iter()
            .zip(&names)
            .zip(json["items"].as_array().unwrap())
        {
            assert!(cells[1].starts_with(name));
            assert_eq!(
                cells[1].contains("(provisional)"),
                item["provisional"].as_bool().unwrap(),
                "{query}: {cells:?}"
            );
        }
    }
}
