//! Issue 14, Agricola (seed 000) and Bridge-Agricola (seed 001): the branches of the rules that
//! whole events found wrong, each played over HTTP.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{problem, TestApp};

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect()
}

fn count_pairs(members: &[i64], into: &mut HashMap<(i64, i64), u32>) {
    for (i, a) in members.iter().enumerate() {
        for b in &members[i + 1..] {
            *into.entry((*a.min(b), *a.max(b))).or_default() += 1;
        }
    }
}

async fn standings(app: &TestApp, tid: i64, query: &str) -> Value {
    app.get(
        &format!("/api/v1/tournaments/{tid}/standings?{query}"),
        None,
    )
    .await
    .json()
    .await
    .unwrap()
}

/// Seed 000, Bordsammensetning (8): "De to topplasserte får +3 poeng for hver av de to nederste
/// de slår, de to nederste får +3 poeng for hver av de to topplasserte de slår", and a beaten
/// top player loses 3 for each: a second-to-last player who wins table 1 gets 10 + 2 x 3 = 16.
#[actix_web::test]
async fn a_clarification_game_with_bonus_scores_the_bonus_and_the_malus() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &r1, |p| 100 - p).await;
    let r2 = new_round(&app, tid, &org, json!({"method": "clarification_bonus"})).await;
    let groups = &r2["draw"]["groups"];
    let (top, bottom) = (ids(&groups[0]), ids(&groups[1]));
    assert_eq!((top.len(), bottom.len()), (2, 2), "{groups}");
    // Table 1: the second-to-last (bottom[0]) wins, then the top two, the last player last.
    let vp: HashMap<i64, i64> = [(bottom[0], 50), (top[0], 30), (top[1], 20), (bottom[1], 10)]
        .into_iter()
        .collect();
    play_round(&app, tid, &referee, &r2, |p| *vp.get(&p).unwrap_or(&25)).await;
    let s = standings(&app, tid, "after_round=2").await;
    let tp2 = |p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .unwrap()["tp_by_round"][1]
            .as_f64()
            .unwrap()
    };
    // 10 + 3 + 3; 6 - 3; 3 - 3; 1 (beat nobody above them).
    assert_eq!(tp2(bottom[0]), 16.0, "{s}");
    assert_eq!(tp2(top[0]), 3.0);
    assert_eq!(tp2(top[1]), 0.0);
    assert_eq!(tp2(bottom[1]), 1.0);
}

/// Seed 000, Bordsammensetning (1): over the event players meet as many different opponents as
/// possible; 16 players over 5 games meet everyone exactly once. The plan covers the tournament's
/// planned rounds by default (no option needed).
#[actix_web::test]
async fn random_without_repeat_meetings_plans_the_whole_event_by_default() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 16).await;
    let mut pairs = HashMap::new();
    for n in 1..=5 {
        let round = new_round(&app, tid, &org, json!({"method": "random"})).await;
        assert_eq!(round["draw"]["report"]["repeat_count"], 0, "round {n}");
        for t in round["draw"]["tables"].as_array().unwrap() {
            count_pairs(&ids(&t["seats"]), &mut pairs);
        }
        play_round(&app, tid, &referee, &round, |p| 30 + (p * 7) % 11).await;
    }
    assert_eq!(pairs.len(), 120, "every pair met");
    assert!(pairs.values().all(|c| *c == 1), "and only once");
}

/// A withdrawal breaks the plan; what is left is planned again without a repeat where none is
/// needed (seed 000 (1)).
#[actix_web::test]
async fn the_random_plan_is_made_again_after_a_withdrawal() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, players) = event(&app, "agricola_norway", 16).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &r1, |p| p % 9).await;
    let w = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&org),
            json!({"player_id": players[0], "from_round": 2}),
        )
        .await;
    assert_eq!(w.status(), 201);
    let r2 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    assert_eq!(r2["options"]["rounds_remaining"], 4, "{}", r2["options"]);
    assert_eq!(
        r2["draw"]["report"]["repeat_count"], 0,
        "{}",
        r2["draw"]["report"]
    );
    let seated: usize = r2["draw"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["seats"].as_array().unwrap().len())
        .sum();
    assert_eq!(seated, 15);
}

async fn planned_rounds(app: &TestApp, tid: i64, org: &str, n: i64) {
    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{tid}"),
            Some(org),
            json!({"planned_rounds": n}),
        )
        .await;
    assert_eq!(r.status(), 200);
}

/// Seed 001: 16 players, 5 preliminary games and a final; every player meets every other once
/// at a table and once in a bridge group, by default (the final is the last planned round).
#[actix_web::test]
async fn bridge_agricola_is_balanced_by_default_and_the_final_kind_draws_the_final() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, _) = event(&app, "bridge_agricola", 16).await;
    planned_rounds(&app, tid, &org, 6).await;
    let (mut tables, mut groups) = (HashMap::new(), HashMap::new());
    for n in 1..=5 {
        let round = new_round(&app, tid, &org, json!({"method": "bridge"})).await;
        for t in round["draw"]["tables"].as_array().unwrap() {
            count_pairs(&ids(&t["seats"]), &mut tables);
        }
        for g in round["draw"]["bridge_groups"].as_array().unwrap() {
            count_pairs(&ids(&g["players"]), &mut groups);
        }
        play_round(&app, tid, &referee, &round, |p| 30 + (p * 7) % 13).await;
        assert!(
            tables.values().all(|c| *c == 1),
            "table repeat by round {n}"
        );
        assert!(
            groups.values().all(|c| *c == 1),
            "bridge repeat by round {n}"
        );
    }
    assert_eq!((tables.len(), groups.len()), (120, 120));

    // `final: false` on the final, or `final: true` on another kind, is refused.
    let url = format!("/api/v1/tournaments/{tid}/rounds");
    let bad = |body: Value| {
        let (app, url, org) = (&app, url.clone(), org.clone());
        async move { problem(app.post(&url, Some(&org), body).await, 422).await }
    };
    let p = bad(json!({"method": "bridge", "kind": "final", "options": {"final": false}})).await;
    assert_eq!(p["errors"][0]["field"], "options.final", "{p}");
    let p = bad(json!({"method": "bridge", "options": {"final": true}})).await;
    assert_eq!(p["errors"][0]["field"], "options.final", "{p}");

    // The final kind alone draws the final: placement groups by the qualification standings,
    // each bridge group holding one player of each placement group.
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "bridge", "kind": "final"}),
    )
    .await;
    assert_eq!(fin["options"]["final"], true);
    let placement: Vec<Vec<i64>> = fin["draw"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(ids)
        .collect();
    assert_eq!(placement.len(), 4, "{}", fin["draw"]);
    let q = standings(&app, tid, "purpose=qualification&after_round=5").await;
    let order: Vec<i64> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect();
    for (g, members) in placement.iter().enumerate() {
        let mut want = order[4 * g..4 * g + 4].to_vec();
        let mut got = members.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "placement group {g}");
    }
    for bg in fin["draw"]["bridge_groups"].as_array().unwrap() {
        let members = ids(&bg["players"]);
        let mut from: Vec<usize> = members
            .iter()
            .map(|p| placement.iter().position(|g| g.contains(p)).unwrap())
            .collect();
        from.sort();
        assert_eq!(from, vec![0, 1, 2, 3], "bridge group {members:?}");
    }
}

/// Seed 000, tie-breaks of the final standings: "(b) plassering i finalerunden(e)". A player who
/// withdrew before the final has no place in it: shown as `null`, ranked after every place.
#[actix_web::test]
async fn a_player_withdrawn_before_the_final_has_no_final_place() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, players) = event(&app, "agricola_norway", 8).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "random"})).await;
    play_round(&app, tid, &referee, &r1, |p| 100 - p).await;
    let w = app
        .post(
            &format!("/api/v1/tournaments/{tid}/withdrawals"),
            Some(&org),
            json!({"player_id": players[7], "from_round": 2}),
        )
        .await;
    assert_eq!(w.status(), 201);
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "final_groups", "kind": "final"}),
    )
    .await;
    play_round(&app, tid, &referee, &fin, |p| 100 - p).await;
    let s = standings(&app, tid, "purpose=final").await;
    for row in s["rows"].as_array().unwrap() {
        let places = &row["tie_breaks"]["final_round_places"];
        if row["player_id"] == players[7] {
            assert_eq!(places, &json!([null]), "{row}");
            assert_eq!(row["withdrawn"], true);
        } else {
            let p = places[0].as_f64().unwrap();
            assert!((1.0..=4.0).contains(&p), "{row}");
        }
    }
    let csv = app
        .get(
            &format!("/api/v1/tournaments/{tid}/standings?purpose=final&format=csv"),
            None,
        )
        .await
        .text()
        .await
        .unwrap();
    let line = csv
        .lines()
        .find(|l| l.split(',').nth(1) == Some(&players[7].to_string()))
        .unwrap();
    assert!(line.contains(",-,"), "{line}");
}

/// Seed 000, Bordsammensetning (3): "Spillerne plasseres etter en forhåndsbestemt plan der
/// seedinggruppene beholdes". The groups of the first seeded round hold for the event: a rating
/// that changes afterwards (a new rated game, an organiser's correction) moves nobody.
#[actix_web::test]
async fn seeding_groups_are_fixed_at_the_first_seeded_round() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, players) = event(&app, "agricola_norway", 12).await;
    let r1 = new_round(&app, tid, &org, json!({"method": "fixed_seeded"})).await;
    let groups1 = r1["draw"]["groups"].clone();
    assert_eq!(groups1.as_array().unwrap().len(), 4, "{groups1}");
    play_round(&app, tid, &referee, &r1, |p| p % 7).await;
    // The weakest player's rating jumps above everyone's.
    let r = app
        .patch(
            &format!("/api/v1/tournaments/{tid}/registrations/{}", players[0]),
            Some(&org),
            json!({"seeding_rating": 2400.0, "seeding_rated_games": 40}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r2 = new_round(&app, tid, &org, json!({"method": "fixed_seeded"})).await;
    let as_sets = |g: &Value| -> Vec<Vec<i64>> {
        g.as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let mut v = ids(x);
                v.sort();
                v
            })
            .collect()
    };
    assert_eq!(as_sets(&r2["draw"]["groups"]), as_sets(&groups1));
    // One player of each group per table, in round 2 as in round 1.
    for t in r2["draw"]["tables"].as_array().unwrap() {
        let mut from: Vec<usize> = ids(&t["seats"])
            .iter()
            .map(|p| {
                groups1
                    .as_array()
                    .unwrap()
                    .iter()
                    .position(|g| ids(g).contains(p))
                    .unwrap()
            })
            .collect();
        from.sort();
        assert_eq!(from, vec![0, 1, 2, 3], "{t}");
    }
}

async fn enter(
    app: &TestApp,
    tid: i64,
    referee: &str,
    n: i64,
    table: &Value,
    vp: &HashMap<i64, i64>,
) {
    let seats: Vec<Value> = ids(&table["seats"])
        .iter()
        .map(|p| json!({"player_id": p, "score": vp[p]}))
        .collect();
    let r = app
        .put(
            &format!(
                "/api/v1/tournaments/{tid}/rounds/{n}/tables/{}/result",
                table["number"]
            ),
            Some(referee),
            json!({ "seats": seats }),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

/// Seed 000, tie-breaks: qualification for the final ranks by "(b) flest høye plasseringer";
/// "(c) poeng i forrige parti" is for seating a round. X and Y end level on TP and relative
/// score at places 4 and 5: X has a shared first place (more high placements), Y the better
/// last game. The final's placement groups follow the qualification order: X plays in group 1.
#[actix_web::test]
async fn the_finals_placement_groups_follow_the_qualification_order() {
    let app = crate::helpers::spawn_app().await;
    let (tid, org, referee, _) = event(&app, "agricola_norway", 8).await;
    // A one-round plan, so that round 2 is planned afresh (and differently) at every redraw.
    let r1 = new_round(
        &app,
        tid,
        &org,
        json!({"method": "random", "options": {"rounds_remaining": 1}}),
    )
    .await;
    let t1 = ids(&r1["draw"]["tables"][0]["seats"]);
    let t2 = ids(&r1["draw"]["tables"][1]["seats"]);
    let (x, a, a3, a4) = (t1[0], t1[1], t1[2], t1[3]);
    let (b1, y, b3, b4) = (t2[0], t2[1], t2[2], t2[3]);
    // Round 1: X and A share first (8 TP each), Y is second (6 TP) at the other table.
    let vp1: HashMap<i64, i64> = [
        (x, 50),
        (a, 50),
        (a3, 30),
        (a4, 10),
        (b1, 60),
        (y, 40),
        (b3, 30),
        (b4, 10),
    ]
    .into_iter()
    .collect();
    for t in r1["draw"]["tables"].as_array().unwrap() {
        enter(&app, tid, &referee, 1, t, &vp1).await;
    }
    // Round 2: X fourth, Y third (9 TP each, equal relative scores); A, a3 and b1 end above 9,
    // the others below. The places each player may take; redrawn until the tables allow it.
    let allowed: HashMap<i64, Vec<usize>> = [
        (x, vec![4]),
        (y, vec![3]),
        (a3, vec![1]),
        (a, vec![1, 2, 3]),
        (b3, vec![3, 4]),
        (a4, vec![2, 3, 4]),
        (b4, vec![2, 3, 4]),
        (b1, vec![1, 2, 3, 4]),
    ]
    .into_iter()
    .collect();
    let placing = |table: &[i64]| -> Option<Vec<i64>> {
        // The players of `table` in place order, if the constraints allow one.
        let mut order: Vec<i64> = Vec::new();
        for place in 1..=4 {
            let p = table
                .iter()
                .filter(|p| !order.contains(p))
                .filter(|p| allowed[p].contains(&place))
                .min_by_key(|p| allowed[p].len())?;
            order.push(*p);
        }
        Some(order)
    };
    let url = format!("/api/v1/tournaments/{tid}/rounds");
    let r = app
        .post(&url, Some(&org), json!({"method": "random"}))
        .await;
    let mut r2: Value = r.json().await.unwrap();
    let tables = |r: &Value| -> Vec<Vec<i64>> {
        r["draw"]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| ids(&t["seats"]))
            .collect()
    };
    let mut tries = 0;
    while tables(&r2).iter().any(|t| placing(t).is_none()) {
        tries += 1;
        assert!(tries < 50, "no draw allowed the scenario");
        let r = app
            .post(&format!("{url}/2/redraw"), Some(&org), json!({}))
            .await;
        r2 = r.json().await.unwrap();
    }
    let r = app
        .post(&format!("{url}/2/publish"), Some(&org), json!({}))
        .await;
    assert_eq!(r.status(), 200);
    // Game totals by place: X's table [60, 40, 30, 20], Y's [60, 50, 30, 10], one table with
    // both [60, 50, 30, 20]: relative scores end at -2.5 (apart) or -5 (together) for both.
    let mut vp2: HashMap<i64, i64> = HashMap::new();
    for t in tables(&r2) {
        let order = placing(&t).unwrap();
        let totals = match (t.contains(&x), t.contains(&y)) {
            (true, true) => [60, 50, 30, 20],
            (true, false) => [60, 40, 30, 20],
            (false, true) => [60, 50, 30, 10],
            (false, false) => [60, 50, 40, 30],
        };
        for (p, v) in order.iter().zip(totals) {
            vp2.insert(*p, v);
        }
    }
    for t in r2["draw"]["tables"].as_array().unwrap() {
        enter(&app, tid, &referee, 2, t, &vp2).await;
    }
    let place_of = |s: &Value, p: i64| {
        s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player_id"] == p)
            .unwrap()["place"]
            .as_u64()
            .unwrap()
    };
    let q = standings(&app, tid, "purpose=qualification").await;
    assert_eq!((place_of(&q, x), place_of(&q, y)), (4, 5), "{q}");
    let s = standings(&app, tid, "purpose=seeding").await;
    assert_eq!((place_of(&s, y), place_of(&s, x)), (4, 5), "{s}");
    let fin = new_round(
        &app,
        tid,
        &org,
        json!({"method": "final_groups", "kind": "final"}),
    )
    .await;
    let groups = &fin["draw"]["groups"];
    assert!(ids(&groups[0]).contains(&x), "{groups}");
    assert!(ids(&groups[1]).contains(&y), "{groups}");
}
