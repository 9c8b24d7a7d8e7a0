//! Players: who may create and change them; public reads with ETags.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app};

#[actix_web::test]
async fn organisers_create_players_and_the_public_reads_them() {
    let app = spawn_app().await;
    let (_, plain) = app.user("plain").await;
    problem(
        app.post("/api/v1/players", Some(&plain), json!({"name": "Kari"}))
            .await,
        403,
    )
    .await;

    let (_, org) = app.user("org").await;
    app.tournament(&org, "agricola_norway").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&org),
            json!({"name": "  Kari Nordmann ", "club": "Oslo BK", "country": "no"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["name"], "Kari Nordmann");
    assert_eq!(p["country"], "NO");
    let id = p["id"].as_i64().unwrap();

    let r = app.get(&format!("/api/v1/players/{id}"), None).await;
    assert_eq!(r.status(), 200);
    let etag = r
        .headers()
        .get("etag")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(r
        .headers()
        .get("cache-control")
        .unwrap()
        .to_str()
        .unwrap()
        .contains("public"));
    let again = app
        .req(reqwest::Method::GET, &format!("/api/v1/players/{id}"), None)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    let list: Value = app
        .get("/api/v1/players?q=nord", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);
    let list: Value = app
        .get("/api/v1/players?q=zzz", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 0);
}

#[actix_web::test]
async fn player_updates_are_validated_and_limited_to_the_creator() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let r = app
        .post("/api/v1/players", Some(&admin), json!({"name": "Ola"}))
        .await;
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let p = problem(
        app.patch(
            &format!("/api/v1/players/{id}"),
            Some(&admin),
            json!({"country": "Norway"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&p), vec!["country"]);

    let (_, org) = app.user("other-org").await;
    app.tournament(&org, "tantrix").await;
    problem(
        app.patch(
            &format!("/api/v1/players/{id}"),
            Some(&org),
            json!({"name": "Hacked"}),
        )
        .await,
        403,
    )
    .await;
    let r = app
        .patch(
            &format!("/api/v1/players/{id}"),
            Some(&admin),
            json!({"club": "Bergen", "country": null}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["name"], "Ola");
    assert_eq!(p["club"], "Bergen");
    assert_eq!(p["country"], Value::Null);
}

/// Name search ignores case in every alphabet, not only ASCII (Norwegian and Polish names).
#[actix_web::test]
async fn name_search_ignores_case_for_every_alphabet() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for name in ["Øyvind Ås", "Łukasz Żółć", "Kari Nordmann"] {
        let r = app
            .post(
                "/api/v1/players",
                Some(&admin),
                serde_json::json!({"name": name}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    for (q, want) in [
        ("øyvind", &["Øyvind Ås"][..]),
        ("ØYVIND", &["Øyvind Ås"]),
        // diacritics are ignored (issue 31): "ås" is also the "as" of "Łukasz", ranked after
        // the whole word
        ("ås", &["Øyvind Ås", "Łukasz Żółć"]),
        ("łukasz", &["Łukasz Żółć"]),
        ("ŻÓŁĆ", &["Łukasz Żółć"]),
        ("KARI", &["Kari Nordmann"]),
    ] {
        let page: serde_json::Value = app
            .get(&format!("/api/v1/players?q={q}"), None)
            .await
            .json()
            .await
            .unwrap();
        let names: Vec<&str> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, want, "q={q}");
    }
}
