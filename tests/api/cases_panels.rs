//! A decision ordering a penalty never deadlocks with a staff change: the tournament's lock is
//! taken before the case's.

use futures_util::future::join_all;
use serde_json::json;

use crate::helpers::spawn_app;

#[allow(unused_imports)]
use crate::case_fixtures::*;

/// A decision ordering a penalty takes the tournament's lock (to count a sanction's step) and
/// a staff change takes it and then the open cases' rows: both take the tournament first, so
/// many at once all answer (a deadlock would be a 500).
#[actix_web::test]
async fn decisions_with_penalties_and_staff_changes_at_once_do_not_deadlock() {
    let app = spawn_app().await;
    let e = setup(&app, false).await;
    let (_, winner, loser) = e.tables[0];
    for trial in 0..4 {
        let mut cases = Vec::new();
        for _ in 0..6 {
            let c = open_case(
                &app,
                &e,
                e.token_of_player(loser),
                json!({"subject": "conduct", "statement": "Mocked my moves.",
                       "respondents": [{"player_id": winner}]}),
            )
            .await;
            cases.push(c["id"].as_i64().unwrap());
        }
        let mut users = Vec::new();
        for i in 0..6 {
            users.push(app.user(&format!("extra{trial}_{i}")).await.0);
        }
        let (app, e) = (&app, &e);
        let decisions = cases.iter().map(|cid| {
            let path = format!("/api/v1/tournaments/{}/cases/{cid}/decision", e.tid);
            async move {
                app.post(
                    &path,
                    Some(&e.referee),
                    json!({"verdict": "remedy", "reason": "unsporting",
                           "remedies": [{"kind": "add_penalty", "player_id": winner, "penalty": "warning"}]}),
                )
                .await
            }
        });
        let appointments = users.iter().map(|u| {
            let path = format!("/api/v1/tournaments/{}/staff", e.tid);
            async move {
                app.post(
                    &path,
                    Some(&e.org),
                    json!({"user_id": u, "role": "referee"}),
                )
                .await
            }
        });
        let (decided, appointed) =
            futures_util::future::join(join_all(decisions), join_all(appointments)).await;
        for r in decided {
            let status = r.status().as_u16();
            assert_eq!(status, 200, "{}", r.text().await.unwrap());
        }
        for r in appointed {
            let status = r.status().as_u16();
            assert_eq!(status, 201, "{}", r.text().await.unwrap());
        }
        let dismissals = users.iter().map(|u| {
            let path = format!("/api/v1/tournaments/{}/staff/{u}/referee", e.tid);
            async move { app.delete_req(&path, &e.org).await.status().as_u16() }
        });
        assert!(join_all(dismissals).await.iter().all(|s| *s == 204));
    }
}
