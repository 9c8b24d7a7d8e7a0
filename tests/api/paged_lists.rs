//! Per-tournament lists read a page in SQL (`LIMIT`/`OFFSET` and a `count(*)`): paging
//! through each with a small limit gives the whole list in order, without gaps or repeats,
//! with the same total on every page, and an offset past the end is an empty page.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};

#[allow(unused_imports)]
use crate::event_fixtures::*;

async fn json_of(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

/// Pages through `path` `limit` items at a time and checks the pages join to the whole list
/// (read in one page) in order, with the total on every page; returns the whole list.
async fn paged(app: &TestApp, path: &str, token: Option<&str>, limit: i64) -> Vec<Value> {
    let whole = json_of(app, &format!("{path}?limit=200"), token).await;
    let all = whole["items"].as_array().unwrap().clone();
    let total = whole["total"].as_i64().unwrap();
    assert_eq!(total, all.len() as i64, "{path}: total of the whole list");
    let mut joined = Vec::new();
    let mut offset = 0;
    loop {
        let page = json_of(app, &format!("{path}?limit={limit}&offset={offset}"), token).await;
        assert_eq!(page["total"], total, "{path}: total at offset {offset}");
        assert_eq!(page["limit"], limit);
        assert_eq!(page["offset"], offset);
        let items = page["items"].as_array().unwrap();
        let expected = (total - offset).clamp(0, limit);
        assert_eq!(items.len() as i64, expected, "{path}: page at {offset}");
        if items.is_empty() {
            break;
        }
        joined.extend(items.iter().cloned());
        offset += limit;
    }
    assert_eq!(
        joined, all,
        "{path}: pages joined differ from the whole list"
    );
    // Past the end: an empty page with the same total.
    let past = json_of(
        app,
        &format!("{path}?limit={limit}&offset={}", total + 5),
        token,
    )
    .await;
    assert_eq!(past["items"], json!([]));
    assert_eq!(past["total"], total);
    all
}

#[actix_web::test]
async fn per_tournament_lists_page_in_sql_without_gaps_or_repeats() {
    let app = spawn_app().await;
    let (tid, org, referee, ids) = event(&app, "agricola_norway", 10).await;
    let base = format!("/api/v1/tournaments/{tid}");

    // Registrations: positions count from the whole list, not from the page.
    let regs = paged(&app, &format!("{base}/registrations"), None, 3).await;
    assert_eq!(regs.len(), 10);
    let positions: Vec<i64> = regs
        .iter()
        .map(|r| r["position"].as_i64().unwrap())
        .collect();
    assert_eq!(positions, (1..=10).collect::<Vec<_>>());
    let players: Vec<i64> = regs
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(players, ids);
    // One registration read alone has the position the list gives it.
    let one = json_of(&app, &format!("{base}/registrations/{}", ids[6]), None).await;
    assert_eq!(one, regs[6]);
    // A cancelled registration leaves the list and the later positions move up.
    let r = app
        .req(
            reqwest::Method::DELETE,
            &format!("{base}/registrations/{}", ids[2]),
            Some(&org),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let regs = paged(&app, &format!("{base}/registrations"), None, 4).await;
    assert_eq!(regs.len(), 9);
    assert!(regs.iter().all(|r| r["player_id"] != ids[2]));
    let one = json_of(&app, &format!("{base}/registrations/{}", ids[6]), None).await;
    assert_eq!(one["position"], 6);

    // Rounds: a published round for everyone, a draft only for staff. Round 1 is redrawn
    // twice while a draft, so it has three draw records.
    let r = app
        .post(
            &format!("{base}/rounds"),
            Some(&org),
            json!({"method": "random_seeded"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    for _ in 0..2 {
        let r = app
            .post(&format!("{base}/rounds/1/redraw"), Some(&org), json!({}))
            .await;
        assert_eq!(r.status(), 200);
    }
    let r = app
        .post(&format!("{base}/rounds/1/publish"), Some(&org), json!({}))
        .await;
    assert_eq!(r.status(), 200);
    let r1: Value = r.json().await.unwrap();
    let draws = paged(&app, &format!("{base}/rounds/1/draws"), None, 2).await;
    let attempts: Vec<i64> = draws
        .iter()
        .map(|d| d["attempt"].as_i64().unwrap())
        .collect();
    assert_eq!(attempts, vec![1, 2, 3]);
    assert!(draws.iter().all(|d| d["seed"].is_string()), "revealed");
    play_round(&app, tid, &referee, &r1, |p| 40 + p).await;
    let r = app
        .post(
            &format!("{base}/rounds"),
            Some(&org),
            json!({"method": "swiss"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let staff_rounds = paged(&app, &format!("{base}/rounds"), Some(&org), 1).await;
    let numbers: Vec<i64> = staff_rounds
        .iter()
        .map(|r| r["number"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, vec![1, 2]);
    assert_eq!(staff_rounds[1]["status"], "draft");
    let public_rounds = paged(&app, &format!("{base}/rounds"), None, 1).await;
    assert_eq!(public_rounds.len(), 1, "no draft for the public");
    assert_eq!(public_rounds[0]["number"], 1);
    // The draft round's draw records are hidden seeds, paged all the same.
    let draft_draws = paged(&app, &format!("{base}/rounds/2/draws"), Some(&org), 1).await;
    assert_eq!(draft_draws.len(), 1);
    assert!(draft_draws[0]["seed"].is_null());

    // Penalties and withdrawals, in the order recorded.
    for (i, p) in ids[3..8].iter().enumerate() {
        let r = app
            .post(
                &format!("{base}/penalties"),
                Some(&referee),
                json!({"player_id": p, "kind": "warning", "reason": format!("warning {i}")}),
            )
            .await;
        let status = r.status();
        assert_eq!(status, 201, "{}", r.text().await.unwrap());
    }
    let pens = paged(&app, &format!("{base}/penalties"), None, 2).await;
    let reasons: Vec<&str> = pens.iter().map(|p| p["reason"].as_str().unwrap()).collect();
    assert_eq!(
        reasons,
        (0..5).map(|i| format!("warning {i}")).collect::<Vec<_>>()
    );
    for p in &ids[3..6] {
        let r = app
            .post(
                &format!("{base}/withdrawals"),
                Some(&referee),
                json!({"player_id": p, "from_round": 3, "reason": "ill"}),
            )
            .await;
        let status = r.status();
        assert_eq!(status, 201, "{}", r.text().await.unwrap());
    }
    let wds = paged(&app, &format!("{base}/withdrawals"), None, 2).await;
    let who: Vec<i64> = wds
        .iter()
        .map(|w| w["player_id"].as_i64().unwrap())
        .collect();
    assert_eq!(who, ids[3..6].to_vec());

    // The page is still checked after the tournament is found: a bad limit is a 422 naming
    // it, an unknown tournament a 404.
    for list in [
        "registrations",
        "rounds",
        "penalties",
        "withdrawals",
        "rounds/1/draws",
    ] {
        let p = problem(app.get(&format!("{base}/{list}?limit=0"), None).await, 422).await;
        assert_eq!(fields(&p), vec!["limit"], "{list}");
        problem(
            app.get(&format!("/api/v1/tournaments/999999/{list}?limit=0"), None)
                .await,
            404,
        )
        .await;
    }
}

#[actix_web::test]
async fn staff_and_teams_page_in_sql_in_their_order() {
    let app = spawn_app().await;
    let (tid, org, _, teams) = team_event(&app, 5).await;
    let base = format!("/api/v1/tournaments/{tid}");
    // Teams by number.
    let listed = paged(&app, &format!("{base}/teams"), Some(&org), 2).await;
    let numbers: Vec<i64> = listed
        .iter()
        .map(|t| t["number"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, vec![1, 2, 3, 4, 5]);
    let first: Vec<i64> = listed
        .iter()
        .map(|t| t["pair_a"][0].as_i64().unwrap())
        .collect();
    assert_eq!(first, teams.iter().map(|m| m[0]).collect::<Vec<_>>());
    // Staff by role, then user: the organiser, two referees, a committee member.
    let (extra_id, _) = app.user("second_referee").await;
    let (judge_id, _) = app.user("judge").await;
    for (user, role) in [(extra_id, "referee"), (judge_id, "appeals_committee")] {
        let r = app
            .post(
                &format!("{base}/staff"),
                Some(&org),
                json!({"user_id": user, "role": role}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    let staff = paged(&app, &format!("{base}/staff"), None, 1).await;
    let roles: Vec<&str> = staff.iter().map(|s| s["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        vec!["appeals_committee", "organiser", "referee", "referee"]
    );
    assert!(staff[2]["user_id"].as_i64() < staff[3]["user_id"].as_i64());
    assert_eq!(staff[3]["user_id"], extra_id);
}

#[actix_web::test]
async fn cases_page_in_sql_for_staff_and_the_public_and_whole_for_parties() {
    use crate::case_fixtures::{ok, open_case, setup};
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let complaint = |respondent: i64| {
        json!({
            "subject": "conduct",
            "statement": "My opponent kept rushing me.",
            "respondents": [{"player_id": respondent}],
            "remedies": [{"kind": "add_penalty", "player_id": respondent, "penalty": "warning"}]
        })
    };
    let (_, w0, l0) = e.tables[0];
    let (_, w1, l1) = e.tables[1];
    let mut ids = Vec::new();
    for (by, against) in [(l0, w0), (l1, w1), (w0, l0)] {
        let case = open_case(&app, &e, e.token_of_player(by), complaint(against)).await;
        ids.push(case["id"].as_i64().unwrap());
    }
    // The second case is decided: the public sees only it.
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{}/decision", e.tid, ids[1]),
            Some(&e.referee),
            json!({"verdict": "uphold", "reason": "seen by the next table"}),
        )
        .await,
        200,
    )
    .await;
    let path = format!("/api/v1/tournaments/{}/cases", e.tid);
    let of =
        |list: &[Value]| -> Vec<i64> { list.iter().map(|c| c["id"].as_i64().unwrap()).collect() };
    let staff = paged(&app, &path, Some(&e.referee), 1).await;
    assert_eq!(of(&staff), ids);
    let public = paged(&app, &path, None, 1).await;
    assert_eq!(of(&public), vec![ids[1]]);
    // A party of the first and third cases sees them (open) and the decided one.
    let party = paged(&app, &path, Some(e.token_of_player(w0)), 2).await;
    assert_eq!(of(&party), ids);
    // A party of the second case only: the decided one alone.
    let other = paged(&app, &path, Some(e.token_of_player(w1)), 1).await;
    assert_eq!(of(&other), vec![ids[1]]);
    // The decided case sits between the open ones for staff, alone for the public.
    assert_eq!(public[0]["id"], staff[1]["id"]);
}
