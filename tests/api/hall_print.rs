//! The hall's printed pages (issue 41, item 1): pairings by table and by name and the standings
//! for the wall are as public as the tournament; the result slips, which carry the table codes,
//! only for the organiser and referees (a token, or a link one of them took, for a while).

use chrono::Duration;
use serde_json::{json, Value};

use crate::event_fixtures::{event, linked_player, new_round, play_round};
use crate::helpers::{problem, spawn_app, TestApp};

/// The slips of a round as (table number, table code), from the page's sections.
pub(crate) fn slips_of(html: &str) -> Vec<(i64, String)> {
    html.split("<section class=\"slip\">")
        .skip(1)
        .map(|s| {
            let heading = s.split("</h1>").next().unwrap();
            let table: i64 = heading
                .rsplit("Table ")
                .next()
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            let code = s
                .split("<span class=\"code\">")
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .to_string();
            (table, code)
        })
        .collect()
}

/// The codes of round `n`'s tables, as the organiser prints them.
pub(crate) async fn codes(app: &TestApp, tid: i64, n: i64, token: &str) -> Vec<(i64, String)> {
    let r = app
        .get(
            &format!("/print/tournaments/{tid}/rounds/{n}/slips?lang=en"),
            Some(token),
        )
        .await;
    assert_eq!(r.status(), 200);
    slips_of(&r.text().await.unwrap())
}

async fn page(r: reqwest::Response, status: u16) -> String {
    assert_eq!(r.status(), status);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"));
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    let html = r.text().await.unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(!html.contains("<script"), "no script");
    html
}

#[actix_web::test]
async fn pairings_and_standings_are_public_and_slips_are_for_the_staff() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 8).await;
    let (_, player) = linked_player(&app, tid, "kari").await;
    let (_, stranger) = app.user("stranger").await;
    let r = app
        .patch(
            &format!("/api/v1/players/{}", ids[0]),
            Some(&admin),
            json!({"name": "<b>Bold</b> & Co"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
    let tables = round["draw"]["tables"].as_array().unwrap().clone();
    // The pairings: by table, then by name, every player in both, names escaped.
    let html = page(
        app.get(&format!("/print/tournaments/{tid}/rounds/1/pairings"), None)
            .await,
        200,
    )
    .await;
    assert!(html.contains("<h2>By table</h2>") && html.contains("By name</h2>"));
    assert!(html.contains("&lt;b&gt;Bold&lt;/b&gt; &amp; Co") && !html.contains("<b>Bold"));
    let by_name = html.split("class=\"byname\"").nth(1).unwrap();
    for i in 2..=8 {
        let name = format!("Player {i:02}");
        assert_eq!(
            html.matches(&name).count(),
            2,
            "{name} by table and by name"
        );
        assert!(by_name.contains(&name));
    }
    // In Norwegian by Accept-Language, in Polish by ?lang.
    let r = app
        .req(
            reqwest::Method::GET,
            &format!("/print/tournaments/{tid}/rounds/1/pairings"),
            None,
        )
        .header("accept-language", "nb-NO, en;q=0.5")
        .send()
        .await
        .unwrap();
    assert!(page(r, 200).await.contains("Etter navn"));
    let html = page(
        app.get(
            &format!("/print/tournaments/{tid}/rounds/1/pairings?lang=pl"),
            None,
        )
        .await,
        200,
    )
    .await;
    assert!(html.contains("<html lang=\"pl\">") && html.contains("Według nazwisk"));
    page(
        app.get(
            &format!("/print/tournaments/{tid}/rounds/1/pairings?lang=xx"),
            None,
        )
        .await,
        422,
    )
    .await;
    page(
        app.get(&format!("/print/tournaments/{tid}/rounds/9/pairings"), None)
            .await,
        404,
    )
    .await;
    // The slips: nobody 401, a stranger and a player 403, as pages, with no code shown.
    let slips = format!("/print/tournaments/{tid}/rounds/1/slips");
    for (token, status) in [(None, 401), (Some(&stranger), 403), (Some(&player), 403)] {
        let html = page(app.get(&slips, token.map(String::as_str)).await, status).await;
        assert!(!html.contains("class=\"code\""));
    }
    // The referee and the organiser see one slip per table, each with its own code and QR.
    let r = app.get(&slips, Some(&referee)).await;
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.headers()["referrer-policy"], "no-referrer");
    let html = page(r, 200).await;
    let shown = slips_of(&html);
    assert_eq!(shown.len(), tables.len());
    for (i, (table, code)) in shown.iter().enumerate() {
        assert_eq!(*table, tables[i]["number"].as_i64().unwrap());
        assert_eq!(code.len(), 11, "{code}");
    }
    assert_ne!(shown[0].1, shown[1].1, "every table its own code");
    assert_eq!(html.matches("<svg").count(), tables.len());
    assert!(html.contains("<th scope=\"col\">Bonus</th>") && html.contains("Signature"));
    assert!(html.contains(&format!("/hall/tournaments/{tid}/rounds/1/tables/1")));
    assert_eq!(
        codes(&app, tid, 1, &org).await,
        shown,
        "the same codes every print"
    );
    // A link opens them without a token, for 30 minutes, for that round only.
    problem(
        app.get(
            &format!("/api/v1/tournaments/{tid}/rounds/1/slips-link"),
            Some(&player),
        )
        .await,
        403,
    )
    .await;
    let link: Value = app
        .get(
            &format!("/api/v1/tournaments/{tid}/rounds/1/slips-link"),
            Some(&org),
        )
        .await
        .json()
        .await
        .unwrap();
    let path = link["path"].as_str().unwrap().to_string();
    assert_eq!(
        slips_of(&page(app.get(&path, None).await, 200).await),
        shown
    );
    let forged = path.replace("until=", "until=1");
    page(app.get(&forged, None).await, 403).await;
    let other = path.replace("/rounds/1/", "/rounds/2/");
    page(app.get(&other, None).await, 404).await;
    app.clock.advance(Duration::minutes(31));
    page(app.get(&path, None).await, 403).await;
    // The standings for the wall, public.
    play_round(&app, tid, &referee, &round, |p| 40 + p).await;
    let html = page(
        app.get(&format!("/print/tournaments/{tid}/standings?lang=de"), None)
            .await,
        200,
    )
    .await;
    assert!(html.contains("Tabelle") && html.contains("nach Runde 1"));
    assert_eq!(html.matches("<tr><td class=\"n\">").count(), 8);
}

#[actix_web::test]
async fn tantrix_slips_show_colours_tiles_and_the_double_crash() {
    let app = spawn_app().await;
    let (tid, org, _, _) = event(&app, "tantrix", 4).await;
    new_round(&app, tid, &org, json!({"method": "round_robin"})).await;
    let html = page(
        app.get(
            &format!("/print/tournaments/{tid}/rounds/1/slips?lang=zh-Hant"),
            Some(&org),
        )
        .await,
        200,
    )
    .await;
    assert!(html.contains("<html lang=\"zh-Hant\">"));
    assert!(html.contains("牌數") && html.contains("雙方崩潰") && html.contains("桌號碼"));
    assert_eq!(html.matches("<section class=\"slip\">").count(), 2);
}

/// Whether a slips link opens the slips (200); else it must answer 403 with the very page a
/// wrong link gets (`wrong`), showing no code.
async fn link_opens(app: &TestApp, path: &str, wrong: &str) -> bool {
    let r = app.get(path, None).await;
    if r.status() == 200 {
        return true;
    }
    let html = page(r, 403).await;
    assert_eq!(html, wrong, "the page of a wrong link");
    false
}

/// A slips link carries the standing of the account that took it: each time it is opened that
/// account must be enabled and an organiser or referee of the tournament (or an admin), else
/// the link answers exactly as a wrong one does (403, the same page), at once and not only when
/// its 30 minutes run out; it opens again when the account is enabled or appointed again. The
/// link names its taker under the key: another account's id, or none, opens nothing.
#[actix_web::test]
async fn a_slips_link_ends_when_its_taker_is_disabled_erased_or_demoted() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    let referee_id = app.me(&referee).await["id"].as_i64().unwrap();
    let org_id = app.me(&org).await["id"].as_i64().unwrap();
    let (deputy_id, deputy) = app.user("deputy.admin").await;
    let set = |id: i64, body: Value| {
        let (app, admin) = (&app, &admin);
        async move {
            let r = app
                .patch(&format!("/api/v1/users/{id}"), Some(admin), body)
                .await;
            assert_eq!(r.status(), 200);
        }
    };
    set(deputy_id, json!({"is_admin": true})).await;
    let take = |token: String| {
        let app = &app;
        async move {
            let r = app
                .get(
                    &format!("/api/v1/tournaments/{tid}/rounds/1/slips-link"),
                    Some(&token),
                )
                .await;
            assert_eq!(r.status(), 200);
            let link: Value = r.json().await.unwrap();
            link["path"].as_str().unwrap().to_string()
        }
    };
    let by_org = take(org.clone()).await;
    let by_referee = take(referee.clone()).await;
    let by_deputy = take(deputy.clone()).await;
    assert!(by_referee.contains(&format!("&by={referee_id}&")));
    let forged = by_referee.replace("until=", "until=1");
    let wrong = page(app.get(&forged, None).await, 403).await;
    let opens = |path: String| {
        let (app, wrong) = (&app, &wrong);
        async move { link_opens(app, &path, wrong).await }
    };
    let referee_staff = format!("/api/v1/tournaments/{tid}/staff");
    let dismissal = format!("{referee_staff}/{referee_id}/referee");
    assert!(opens(by_referee.clone()).await && opens(by_deputy.clone()).await);
    // Disabled: the referee's link says no more than a wrong one; enabled again, it opens.
    set(referee_id, json!({"disabled": true})).await;
    assert!(!opens(by_referee.clone()).await);
    set(referee_id, json!({"disabled": false})).await;
    assert!(opens(by_referee.clone()).await);
    // Dismissed as referee: closed; appointed again: open.
    assert_eq!(app.delete_req(&dismissal, &org).await.status(), 204);
    assert!(!opens(by_referee.clone()).await);
    let r = app
        .post(
            &referee_staff,
            Some(&org),
            json!({"user_id": referee_id, "role": "referee"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert!(opens(by_referee.clone()).await);
    // An admin who is no staff of the tournament: open while an admin, closed once demoted.
    set(deputy_id, json!({"is_admin": false})).await;
    assert!(!opens(by_deputy).await);
    // Another taker's id, or none, under the referee's key opens nothing.
    let swapped = by_referee.replace(&format!("&by={referee_id}&"), &format!("&by={org_id}&"));
    let bare = by_referee.replace(&format!("&by={referee_id}"), "");
    assert!(!opens(swapped).await && !opens(bare).await);
    // Erased: closed for good; the organiser's own link opened throughout.
    let r = app
        .post(
            &format!("/api/v1/users/{referee_id}/erasure"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(!opens(by_referee).await);
    assert!(opens(by_org).await);
}

/// The table codes write results (a holder reports and confirms a table's result), so an API
/// key reads the slips and takes their link only if it may write results: `read` alone is 403
/// on both, as it is on `PUT .../result`; `results:write`, `tournaments:write` and a session
/// get them.
#[actix_web::test]
async fn a_key_that_only_reads_does_not_get_the_table_codes() {
    let app = spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    new_round(&app, tid, &org, json!({"method": "random"})).await;
    let shown = codes(&app, tid, 1, &org).await;
    let slips = format!("/print/tournaments/{tid}/rounds/1/slips?lang=en");
    let link = format!("/api/v1/tournaments/{tid}/rounds/1/slips-link");
    let key = |token: String, scopes: Value| {
        let app = &app;
        async move {
            let r = app
                .post(
                    "/api/v1/me/api-keys",
                    Some(&token),
                    json!({"name": "site", "scopes": scopes}),
                )
                .await;
            assert_eq!(r.status(), 201);
            r.json::<Value>().await.unwrap()["key"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    for owner in [&org, &referee] {
        let reader = key(owner.clone(), json!(["read"])).await;
        let html = page(app.get(&slips, Some(&reader)).await, 403).await;
        assert!(html.contains("results:write"), "{html}");
        for (_, code) in &shown {
            assert!(!html.contains(code.as_str()));
        }
        let p = problem(app.get(&link, Some(&reader)).await, 403).await;
        assert!(
            p["detail"].as_str().unwrap().contains("results:write"),
            "{p}"
        );
        // The rest of the round reads as before.
        let r = app
            .get(
                &format!("/api/v1/tournaments/{tid}/rounds/1/report-queue"),
                Some(&reader),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    for scopes in [
        json!(["read", "results:write"]),
        json!(["read", "tournaments:write"]),
    ] {
        let writer = key(org.clone(), scopes).await;
        let r = app.get(&slips, Some(&writer)).await;
        assert_eq!(slips_of(&page(r, 200).await), shown);
        let r = app.get(&link, Some(&writer)).await;
        assert_eq!(r.status(), 200);
    }
    // A session reads them as before.
    assert_eq!(codes(&app, tid, 1, &referee).await, shown);
}
