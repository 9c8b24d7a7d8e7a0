//! Issue 41, item 3: `tourney verify FILE` checks a real exported archive and a round's draw
//! records offline (no configuration, no database), reports a tampered seat, seed or commitment
//! and exits non-zero, and refuses a file that is not an archive.

use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::case_fixtures::ok;
use crate::event_fixtures::{event, new_round, play_round};
use crate::helpers::{spawn_app, TestApp};

/// Runs `tourney verify` on `body` written to a file, with an empty environment (no database,
/// no configuration).
fn verify(body: &str) -> (i32, String, String) {
    let dir = crate::helpers::temp_data_dir();
    let file = dir.join("checked.json");
    std::fs::write(&file, body).unwrap();
    let out: Output = Command::new(env!("CARGO_BIN_EXE_tourney"))
        .arg("verify")
        .arg(&file)
        .env_clear()
        .output()
        .expect("run tourney");
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An 8-player Agricola event: round 1 (`random`) played, round 2 (`danish`) drawn, redrawn
/// and published. Returns (tournament, organiser).
async fn event_with_draws(a: &TestApp) -> (i64, String) {
    let (tid, org, referee, _) = event(a, "agricola_norway", 8).await;
    let r1 = new_round(a, tid, &org, json!({"method": "random"})).await;
    play_round(a, tid, &referee, &r1, |p| 20 + p % 17).await;
    let base = format!("/api/v1/tournaments/{tid}");
    let r = a
        .post(
            &format!("{base}/rounds"),
            Some(&org),
            json!({"method": "danish"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = a
        .post(&format!("{base}/rounds/2/redraw"), Some(&org), json!({}))
        .await;
    assert_eq!(r.status(), 200);
    let r = a
        .post(&format!("{base}/rounds/2/publish"), Some(&org), json!({}))
        .await;
    assert_eq!(r.status(), 200);
    (tid, org)
}

fn redigest(archive: &mut Value) {
    let content = serde_json::from_value(archive["content"].clone()).unwrap();
    archive["digest"] = tourney::services::archives::digest_of(&content)
        .unwrap()
        .into();
}

fn mismatches(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("MISMATCH")).collect()
}

#[actix_web::test]
async fn an_exported_archive_and_a_rounds_draw_records_verify_offline() {
    let a = spawn_app().await;
    let (tid, org) = event_with_draws(&a).await;
    let archive = ok(
        a.get(&format!("/api/v1/tournaments/{tid}/archive"), Some(&org))
            .await,
        200,
    )
    .await;
    let (code, out, err) = verify(&archive.to_string());
    assert_eq!(code, 0, "{out}{err}");
    for line in [
        "ok        digest: ",
        "ok        signature: valid ed25519 signature",
        "ok        round 1 attempt 1: seed: ",
        "ok        round 1 attempt 1: draw: recomputed with method random",
        "ok        round 2 attempt 1: draw: recomputed with method danish",
        "ok        round 2 attempt 2: draw: recomputed with method danish",
        "ok        rounds: ",
    ] {
        assert!(out.contains(line), "{line} missing from\n{out}");
    }
    assert!(
        out.ends_with("0 mismatching, 0 unchecked: every check matches\n"),
        "{out}"
    );

    // The public draw records of round 2, as anyone reads them.
    let draws = ok(
        a.get(&format!("/api/v1/tournaments/{tid}/rounds/2/draws"), None)
            .await,
        200,
    )
    .await;
    let (code, out, err) = verify(&draws.to_string());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("draw records (2 attempt(s))"), "{out}");
    assert!(out.contains("ok        attempt 2: draw: "), "{out}");
}

#[actix_web::test]
async fn a_tampered_seat_seed_or_commitment_is_reported_and_fails() {
    let a = spawn_app().await;
    let (tid, org) = event_with_draws(&a).await;
    let archive = ok(
        a.get(&format!("/api/v1/tournaments/{tid}/archive"), Some(&org))
            .await,
        200,
    )
    .await;
    let draws = archive["content"]["round_draws"].as_array().unwrap();
    let first = draws
        .iter()
        .position(|d| d["attempt"] == 1 && d["draw"]["round"] == 1)
        .unwrap();

    // Two seats swapped in round 1's draw, the digest written again to match: only the
    // recomputation catches it (and the round's draw is no longer its last attempt's).
    let mut seat = archive.clone();
    let seats = seat["content"]["round_draws"][first]["draw"]["tables"][0]["seats"]
        .as_array_mut()
        .unwrap();
    seats.swap(0, 1);
    redigest(&mut seat);
    let (code, out, _) = verify(&seat.to_string());
    assert_eq!(code, 1, "{out}");
    let bad = mismatches(&out);
    assert!(
        bad.iter()
            .any(|l| l.contains("round 1 attempt 1: draw: recomputing gives other tables")),
        "{out}"
    );
    assert!(
        out.contains("MISMATCH  signature: "),
        "the signature no longer holds: {out}"
    );
    assert!(out.contains("MISMATCH  rounds: round 1"), "{out}");

    // The same swap without touching the digest: the digest says so too.
    let mut unsealed = archive.clone();
    let seats = unsealed["content"]["round_draws"][first]["draw"]["tables"][0]["seats"]
        .as_array_mut()
        .unwrap();
    seats.swap(0, 1);
    let (code, out, _) = verify(&unsealed.to_string());
    assert_eq!(code, 1);
    assert!(out.contains("MISMATCH  digest: "), "{out}");

    // Another seed, or another commitment: the seed no longer matches its commitment.
    for key in ["seed", "seed_commitment"] {
        let mut changed = archive.clone();
        changed["content"]["round_draws"][first][key] = "ab".repeat(32).into();
        redigest(&mut changed);
        let (code, out, _) = verify(&changed.to_string());
        assert_eq!(code, 1, "{key}: {out}");
        assert!(
            out.contains("MISMATCH  round 1 attempt 1: seed: the seed does not match its published commitment"),
            "{key}: {out}"
        );
    }

    // A tampered draw record read from `.../draws`.
    let mut records = ok(
        a.get(&format!("/api/v1/tournaments/{tid}/rounds/1/draws"), None)
            .await,
        200,
    )
    .await;
    let table = &mut records["items"][0]["draw"]["tables"][1];
    let other = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| **p != table["starting_player"])
        .cloned()
        .unwrap();
    table["starting_player"] = other;
    let (code, out, _) = verify(&records.to_string());
    assert_eq!(code, 1, "{out}");
    assert_eq!(mismatches(&out).len(), 1, "{out}");
}

#[actix_web::test]
async fn a_file_that_is_not_an_archive_is_refused() {
    let a = spawn_app().await;
    let (tid, _) = event_with_draws(&a).await;
    let tournament = ok(
        a.get(&format!("/api/v1/tournaments/{tid}"), None).await,
        200,
    )
    .await;
    for body in [
        tournament.to_string(),
        "PK\u{3}\u{4} not json".into(),
        "[]".into(),
    ] {
        let (code, out, err) = verify(&body);
        assert_eq!(code, 2, "{out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(": not a tournament archive"), "{err}");
    }
    let (code, _, err) =
        verify(r#"{"format": "tourney.tournament-archive", "version": 1, "digest": "x"}"#);
    assert_eq!(code, 2);
    assert!(err.contains("not a readable tournament archive"), "{err}");
}
