//! `is_cup`: a stored ruleset is read once, and one that does not parse is an error.

use super::*;

fn tournament(ruleset: Preset, overrides: serde_json::Value) -> Tournament {
    let day = NaiveDate::from_ymd_opt(2027, 3, 6).expect("a date");
    Tournament {
        id: TournamentId(41),
        name: "Cup".into(),
        game: "Tantrix".into(),
        ruleset,
        ruleset_overrides: overrides,
        table_size: 2,
        planned_rounds: 5,
        starts_on: day,
        ends_on: day,
        time_zone: "Europe/Oslo".into(),
        venue: None,
        status: TournamentStatus::Draft,
        registration_deadline: None,
        appeal_window_minutes: 30,
        created_by: UserId(1),
        created_at: DateTime::<Utc>::UNIX_EPOCH,
        updated_at: DateTime::<Utc>::UNIX_EPOCH,
        version: 1,
        rating_pool_id: None,
        national_rank: false,
        announced_at: None,
        prize_places: 1,
        qualification_places: 0,
        rating_status: None,
        rating_reason: None,
        rating_decided_by: None,
        rating_decided_at: None,
        checked_out_to: None,
        checked_out_at: None,
        country: None,
    }
}

/// Stored overrides that do not parse are an error naming the tournament, never "no cup".
#[test]
fn is_cup_refuses_overrides_that_do_not_parse() {
    let bad = tournament(Preset::Tantrix, serde_json::json!({"tantrix": "cup"}));
    let err = is_cup(&bad).expect_err("overrides that do not parse");
    assert!(
        matches!(&err, ApiError::Internal(m) if m.contains("tournament 41")),
        "{err:?}"
    );
    assert!(TournamentOut::try_from(bad).is_err());
}

/// A cup is read from its overrides; a preset without them is no cup.
#[test]
fn is_cup_reads_the_stored_overrides() {
    let mut check = Check::new();
    let overrides = cup_overrides(&mut check, Preset::Tantrix, Some(true));
    assert!(is_cup(&tournament(Preset::Tantrix, overrides)).expect("parses"));
    let plain = tournament(Preset::Tantrix, serde_json::json!({}));
    assert!(!is_cup(&plain).expect("parses"));
}
