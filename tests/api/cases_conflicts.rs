//! Who may shape a case's panel: only the officials add parties, a player at the table must
//! sit there, a panel that votes has three members, a dismissed official no longer decides, and
//! the referee who gave a penalty does not rule on the complaint against it.

use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, TestApp};

#[allow(unused_imports)]
use crate::case_fixtures::*;

fn parties_url(e: &Event, cid: i64) -> String {
    format!("/api/v1/tournaments/{}/cases/{cid}/parties", e.tid)
}

async fn case_as(app: &TestApp, e: &Event, cid: i64, token: &str) -> Value {
    ok(
        app.get(
            &format!("/api/v1/tournaments/{}/cases/{cid}", e.tid),
            Some(token),
        )
        .await,
        200,
    )
    .await
}

/// The appeal of a result complaint the referee dismissed, lodged by the table's loser.
async fn appealed(app: &TestApp, e: &Event) -> i64 {
    let (table, _, loser) = e.tables[0];
    let case = open_case(
        app,
        e,
        e.token_of_player(loser),
        json!({"subject": "result", "round": 1, "table": table,
               "statement": "The result was entered the wrong way round."}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    referee_decides(
        app,
        e,
        cid,
        json!({"verdict": "dismiss", "reason": "the score sheet says otherwise"}),
    )
    .await;
    let appeal = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/appeal", e.tid),
            Some(e.token_of_player(loser)),
            json!({"statement": "The score sheet was filled in by my opponent."}),
        )
        .await,
        201,
    )
    .await;
    appeal["id"].as_i64().unwrap()
}

#[actix_web::test]
async fn an_appellant_cannot_choose_who_decides_the_appeal() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, _, loser) = e.tables[0];
    let aid = appealed(&app, &e).await;
    let committee: Vec<i64> = e.committee.iter().map(|c| c.0).collect();
    let url = parties_url(&e, aid);
    // The appellant names two committee members to leave the third deciding alone: refused.
    for (member, role) in [
        (committee[0], "respondent"),
        (committee[1], "player_at_table"),
    ] {
        let body = problem(
            app.post(
                &url,
                Some(e.token_of_player(loser)),
                json!({"user_id": member, "role": role}),
            )
            .await,
            403,
        )
        .await;
        assert!(body["detail"]
            .as_str()
            .unwrap()
            .contains("referee or an organiser"));
    }
    // A player outside the case does not see it.
    let outsider = e.tables[1].1;
    problem(
        app.post(
            &url,
            Some(e.token_of_player(outsider)),
            json!({"user_id": committee[0], "role": "respondent"}),
        )
        .await,
        404,
    )
    .await;
    // The referee whose ruling is appealed is a party: they do not shape the panel either.
    let body = problem(
        app.post(
            &url,
            Some(&e.referee),
            json!({"user_id": committee[0], "role": "respondent"}),
        )
        .await,
        403,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("party"));
    // The organiser may name a member, but two members left are not a panel: 409 saying what
    // is missing, and nothing is stored.
    let body = problem(
        app.post(
            &url,
            Some(&e.org),
            json!({"user_id": committee[0], "role": "respondent"}),
        )
        .await,
        409,
    )
    .await;
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("only 2"), "{detail}");
    assert!(detail.contains("appoint 1 more referees"), "{detail}");
    // A committee member is not seated at the table.
    let body = problem(
        app.post(
            &url,
            Some(&e.org),
            json!({"user_id": committee[1], "role": "player_at_table"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&body), vec!["user_id"]);
    let appeal = case_as(&app, &e, aid, &e.org).await;
    assert_eq!(
        panel(&appeal).iter().map(|m| m.0).collect::<Vec<_>>(),
        committee
    );
    assert_eq!(appeal["parties"].as_array().unwrap().len(), 3);
    // With a second referee appointed, the member is named and the free referee sits in.
    let (second, _) = app.user("referee2").await;
    ok(
        app.post(
            &format!("/api/v1/tournaments/{}/staff", e.tid),
            Some(&e.org),
            json!({"user_id": second, "role": "referee"}),
        )
        .await,
        201,
    )
    .await;
    let appeal = ok(
        app.post(
            &url,
            Some(&e.org),
            json!({"user_id": committee[0], "role": "respondent"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(
        panel(&appeal),
        vec![
            (second, "referee".to_string()),
            (committee[1], "committee".to_string()),
            (committee[2], "committee".to_string()),
        ]
    );
}

#[actix_web::test]
async fn a_complainant_cannot_open_a_case_for_fewer_than_three_voters() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, _, loser) = e.tables[0];
    // The referee and two members named: one member would decide alone.
    let body = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases", e.tid),
            Some(e.token_of_player(loser)),
            json!({"subject": "conduct", "statement": "They all conspired.",
                   "respondents": [{"user_id": e.referee_id}, {"user_id": e.committee[0].0},
                                   {"user_id": e.committee[1].0}]}),
        )
        .await,
        409,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("only 1"));
    let listed = ok(
        app.get(
            &format!("/api/v1/tournaments/{}/cases", e.tid),
            Some(&e.org),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 0);
}

#[actix_web::test]
async fn a_player_at_the_table_must_sit_at_the_table() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (table, winner, loser) = e.tables[0];
    let other_table = e.tables[1].1;
    // A conduct case names the round and the table; nobody is added as seated there.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "conduct", "round": 1, "table": table,
               "statement": "Loud comments at the table."}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    let url = parties_url(&e, cid);
    let body = problem(
        app.post(
            &url,
            Some(&e.referee),
            json!({"player_id": other_table, "role": "player_at_table"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&body), vec!["player_id"]);
    let added = ok(
        app.post(
            &url,
            Some(&e.referee),
            json!({"player_id": winner, "role": "player_at_table"}),
        )
        .await,
        200,
    )
    .await;
    assert!(added["parties"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["player_id"] == winner && p["role"] == "player_at_table"));
    // A case about no table has nobody at the table.
    let case = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "conduct", "statement": "Rude in the hall."}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    let body = problem(
        app.post(
            &parties_url(&e, cid),
            Some(&e.org),
            json!({"player_id": winner, "role": "player_at_table"}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(fields(&body), vec!["role"]);
    // A respondent may be anyone.
    ok(
        app.post(
            &parties_url(&e, cid),
            Some(&e.org),
            json!({"player_id": other_table, "role": "respondent"}),
        )
        .await,
        200,
    )
    .await;
}

#[actix_web::test]
async fn a_dismissed_official_no_longer_decides() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, loser) = e.tables[0];
    let staff = format!("/api/v1/tournaments/{}/staff", e.tid);
    let (second_id, second) = app.user("referee2").await;
    ok(
        app.post(
            &staff,
            Some(&e.org),
            json!({"user_id": second_id, "role": "referee"}),
        )
        .await,
        201,
    )
    .await;
    let ruled = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        json!({"subject": "conduct", "statement": "Mocked my moves.",
               "respondents": [{"player_id": winner}]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let path = format!("{staff}/{}/referee", e.referee_id);
    assert_eq!(app.delete_req(&path, &e.org).await.status(), 204);
    // The dismissed referee left the panel (and no longer sees the open case): refused,
    // nothing stored.
    let decision = format!("/api/v1/tournaments/{}/cases/{ruled}/decision", e.tid);
    let remedy = json!({"verdict": "remedy", "reason": "as asked",
                        "remedies": [{"kind": "add_penalty", "player_id": winner, "penalty": "warning"}]});
    problem(
        app.post(&decision, Some(&e.referee), remedy.clone()).await,
        404,
    )
    .await;
    let case = case_as(&app, &e, ruled, &e.org).await;
    assert_eq!(case["status"], "open");
    assert_eq!(panel(&case), vec![(second_id, "referee".to_string())]);
    // The referee still appointed decides.
    let decided = ok(app.post(&decision, Some(&second), remedy).await, 200).await;
    assert_eq!(decided["decided_by"], second_id);
}

#[actix_web::test]
async fn the_referee_who_gave_a_penalty_does_not_rule_on_the_complaint_against_it() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, _) = e.tables[0];
    let penalty = ok(
        app.post(
            &format!("/api/v1/tournaments/{}/penalties", e.tid),
            Some(&e.referee),
            json!({"player_id": winner, "kind": "warning", "reason": "Slow play."}),
        )
        .await,
        201,
    )
    .await;
    let case = open_case(
        &app,
        &e,
        e.token_of_player(winner),
        json!({"subject": "penalty", "penalty_id": penalty["id"],
               "statement": "I was not slow."}),
    )
    .await;
    let cid = case["id"].as_i64().unwrap();
    assert!(case["parties"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["user_id"] == e.referee_id && p["role"] == "respondent"));
    assert_eq!(case["panel"]["mode"], "vote");
    assert_eq!(
        panel(&case).iter().map(|m| m.0).collect::<Vec<_>>(),
        e.committee.iter().map(|c| c.0).collect::<Vec<_>>()
    );
    let body = problem(
        app.post(
            &format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid),
            Some(&e.referee),
            json!({"verdict": "dismiss", "reason": "you were slow"}),
        )
        .await,
        403,
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("party"));
}

/// A party belongs to the tournament: a respondent or a party added is a player registered in
/// it, or an account of its staff or of such a player. A player of another tournament or an
/// account with no part in this one is refused (422 naming the field, nothing stored): as a
/// party it would read the case and could appeal its decision.
#[actix_web::test]
async fn a_party_from_outside_the_tournament_is_refused() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let admin = app.admin_token().await;
    let (_, winner, loser) = e.tables[0];
    let winner_user = e.players.iter().find(|p| p.0 == winner).unwrap().1;
    // A player (with an account) registered in another tournament only, and a bare account.
    let other = app.tournament(&e.org, "ashes_league").await;
    patch_tournament(&app, other, &e.org, json!({"status": "registration_open"})).await;
    let (outsider_user, outsider) = app.user("elsewhere").await;
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Elsewhere", "user_id": outsider_user}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let outsider_player = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let r = app
        .post(
            &format!("/api/v1/tournaments/{other}/registrations"),
            Some(&e.org),
            json!({"player_id": outsider_player}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let (stranger_user, stranger) = app.user("stranger").await;
    let cases = format!("/api/v1/tournaments/{}/cases", e.tid);
    let complaint = |respondents: Value| {
        json!({"subject": "conduct", "statement": "They coached my opponent.",
               "respondents": respondents})
    };
    for (respondents, field) in [
        (
            json!([{"player_id": outsider_player}]),
            "respondents[0].player_id",
        ),
        (
            json!([{"user_id": outsider_user}]),
            "respondents[0].user_id",
        ),
        (
            json!([{"user_id": stranger_user}]),
            "respondents[0].user_id",
        ),
        (
            json!([{"player_id": winner}, {"user_id": stranger_user}]),
            "respondents[1].user_id",
        ),
    ] {
        for token in [e.token_of_player(loser), e.org.as_str()] {
            let body = problem(
                app.post(&cases, Some(token), complaint(respondents.clone()))
                    .await,
                422,
            )
            .await;
            assert_eq!(fields(&body), vec![field], "{body}");
        }
    }
    let listed: Value = app.get(&cases, Some(&e.org)).await.json().await.unwrap();
    assert_eq!(listed["total"], 0, "nothing stored: {listed}");
    // The tournament's own people are named as before: a registered player, the account of
    // one, an official.
    let cid = open_case(
        &app,
        &e,
        e.token_of_player(loser),
        complaint(json!([{"player_id": winner}])),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    for respondents in [
        json!([{"user_id": winner_user}]),
        json!([{"user_id": e.committee[0].0}]),
    ] {
        open_case(&app, &e, e.token_of_player(loser), complaint(respondents)).await;
    }
    // Added by an official: the same rule, nothing stored, the outsiders still outside.
    let url = parties_url(&e, cid);
    for (party, field) in [
        (
            json!({"player_id": outsider_player, "role": "respondent"}),
            "party.player_id",
        ),
        (
            json!({"user_id": stranger_user, "role": "respondent"}),
            "party.user_id",
        ),
    ] {
        let body = problem(app.post(&url, Some(&e.org), party).await, 422).await;
        assert_eq!(fields(&body), vec![field], "{body}");
    }
    let case = case_as(&app, &e, cid, &e.org).await;
    assert_eq!(case["parties"].as_array().unwrap().len(), 2, "{case}");
    for token in [&outsider, &stranger] {
        let r = app.get(&format!("{cases}/{cid}"), Some(token)).await;
        assert_eq!(r.status(), 404);
    }
}

async fn annul(app: &TestApp, e: &Event, pid: i64, token: &str) -> reqwest::Response {
    app.post(
        &format!("/api/v1/tournaments/{}/penalties/{pid}/annul", e.tid),
        Some(token),
        json!({"reason": "Not slow at all."}),
    )
    .await
}

/// Nobody annuls a penalty given to their own player (domain.md section 1; seed 003 rule 15):
/// a referee or organiser who also plays is refused (403, the penalty stays), annuls other
/// players' penalties as before, and their own is annulled by another official.
#[actix_web::test]
async fn an_official_who_plays_does_not_annul_their_own_penalty() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, loser) = e.tables[0];
    let account = |p: i64| e.players.iter().find(|x| x.0 == p).unwrap().1;
    // The winner's account is appointed referee, the loser's organiser.
    for (user, role) in [(account(winner), "referee"), (account(loser), "organiser")] {
        ok(
            app.post(
                &format!("/api/v1/tournaments/{}/staff", e.tid),
                Some(&e.org),
                json!({"user_id": user, "role": role}),
            )
            .await,
            201,
        )
        .await;
    }
    let penalties = format!("/api/v1/tournaments/{}/penalties", e.tid);
    let give = |player: i64| {
        let (app, penalties, referee) = (&app, &penalties, &e.referee);
        async move {
            ok(
                app.post(
                    penalties,
                    Some(referee),
                    json!({"player_id": player, "kind": "warning", "reason": "Slow play."}),
                )
                .await,
                201,
            )
            .await["id"]
                .as_i64()
                .unwrap()
        }
    };
    let (to_winner, to_loser) = (give(winner).await, give(loser).await);
    for (pid, own) in [(to_winner, winner), (to_loser, loser)] {
        let body = problem(annul(&app, &e, pid, e.token_of_player(own)).await, 403).await;
        assert!(
            body["detail"].as_str().unwrap().contains("your own player"),
            "{body}"
        );
    }
    let listed: Value = app
        .get(&penalties, Some(&e.org))
        .await
        .json()
        .await
        .unwrap();
    for p in listed["items"].as_array().unwrap() {
        assert!(p["annulled_at"].is_null(), "nothing annulled: {p}");
    }
    // Each annuls the other's penalty; the event's referee annuls the rest.
    ok(
        annul(&app, &e, to_loser, e.token_of_player(winner)).await,
        200,
    )
    .await;
    ok(
        annul(&app, &e, to_winner, e.token_of_player(loser)).await,
        200,
    )
    .await;
    let again = give(winner).await;
    ok(annul(&app, &e, again, &e.referee).await, 200).await;
}

/// An official who played a game does not penalise it (domain.md section 1: nobody decides as
/// "a player at the table concerned"): a penalty naming a round and table their own player
/// sits at is refused (403, nothing recorded), for their opponent and for themselves; a game
/// they did not play, or a penalty naming no game, is theirs as before; another official
/// penalises their game.
#[actix_web::test]
async fn an_official_who_plays_does_not_penalise_their_own_game() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (table, winner, loser) = e.tables[0];
    let (other_table, other_winner, _) = e.tables[1];
    let account = |p: i64| e.players.iter().find(|x| x.0 == p).unwrap().1;
    for (user, role) in [(account(winner), "referee"), (account(loser), "organiser")] {
        ok(
            app.post(
                &format!("/api/v1/tournaments/{}/staff", e.tid),
                Some(&e.org),
                json!({"user_id": user, "role": role}),
            )
            .await,
            201,
        )
        .await;
    }
    let penalties = format!("/api/v1/tournaments/{}/penalties", e.tid);
    let body = |player: i64, kind: &str, table: Option<i64>| {
        let mut b = json!({"player_id": player, "kind": kind, "reason": "Slow play."});
        if kind == "point_penalty" {
            b["points"] = json!(2);
        }
        if let Some(t) = table {
            b["round"] = json!(1);
            b["table"] = json!(t);
        }
        b
    };
    for (by, player, kind) in [
        (winner, loser, "game_loss"),
        (winner, winner, "point_penalty"),
        (loser, winner, "game_loss"),
    ] {
        let p = problem(
            app.post(
                &penalties,
                Some(e.token_of_player(by)),
                body(player, kind, Some(table)),
            )
            .await,
            403,
        )
        .await;
        assert!(
            p["detail"]
                .as_str()
                .unwrap()
                .contains("you play at round 1"),
            "{p}"
        );
    }
    let listed: Value = app
        .get(&penalties, Some(&e.org))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["total"], 0, "nothing recorded: {listed}");
    // Another game, a penalty naming no game, and the event's referee on their game.
    for (by, b) in [
        (
            e.token_of_player(winner),
            body(other_winner, "point_penalty", Some(other_table)),
        ),
        (e.token_of_player(winner), body(loser, "warning", None)),
        (e.referee.as_str(), body(loser, "game_loss", Some(table))),
    ] {
        ok(app.post(&penalties, Some(by), b).await, 201).await;
    }
}
