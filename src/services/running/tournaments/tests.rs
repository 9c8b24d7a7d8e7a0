//! `is_cup`: a stored ruleset is read once (as the row is read, `db::models::TournamentRules`;
//! one that does not parse is an error there, see `typed_columns` in the HTTP tests).

use super::*;
use crate::db::models::TournamentRules;

fn tournament(ruleset: Preset, overrides: RulesetOverride) -> Tournament {
    let day = NaiveDate::from_ymd_opt(2027, 3, 6).expect("a date");
    Tournament {
        id: TournamentId(41),
        name: "Cup".into(),
        game: "Tantrix".into(),
        ruleset,
        rules: TournamentRules::new(ruleset, overrides).expect("overrides that fit"),
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

/// Overrides that do not fit the preset are refused when the rules are decoded, never read as
/// "no cup".
#[test]
fn rules_refuse_overrides_that_do_not_fit() {
    let bad = RulesetOverride {
        players_per_table: Some(0),
        ..RulesetOverride::default()
    };
    assert!(TournamentRules::new(Preset::Tantrix, bad).is_err());
}

/// A cup is read from its overrides; a preset without them is no cup; the overrides are shown
/// as stored (`{}` without any).
#[test]
fn is_cup_reads_the_stored_overrides() {
    let mut check = Check::new();
    let overrides = cup_overrides(&mut check, Preset::Tantrix, Some(true));
    let cup = tournament(Preset::Tantrix, overrides);
    assert!(is_cup(&cup));
    let shown = TournamentOut::try_from(cup)
        .expect("renders")
        .ruleset_overrides;
    assert_eq!(shown["tantrix"]["cup"], serde_json::json!(true));
    let plain = tournament(Preset::Tantrix, RulesetOverride::default());
    assert!(!is_cup(&plain));
    let shown = TournamentOut::try_from(plain)
        .expect("renders")
        .ruleset_overrides;
    assert_eq!(shown, serde_json::json!({}));
}
