use super::test_util::*;
use super::*;

#[test]
fn unknown_option_is_named() {
    let mut inp = input(SeatingMethod::Danish, 8);
    inp.options.insert("colour".into(), serde_json::json!(1));
    let err = draw_round(&inp, &mut rng(1)).unwrap_err();
    assert_eq!(
        err,
        SeatingError::UnknownOption {
            option: "colour".into(),
            method: SeatingMethod::Danish
        }
    );
    assert!(err.to_string().contains("colour"));
}

#[test]
fn invalid_option_value_is_named() {
    let mut inp = input(SeatingMethod::Random, 8);
    inp.options
        .insert("rounds_remaining".into(), serde_json::json!("many"));
    let err = draw_round(&inp, &mut rng(1)).unwrap_err();
    assert!(
        matches!(err, SeatingError::InvalidOption { ref option, .. } if option == "rounds_remaining")
    );
}

#[test]
fn duplicate_player_rejected() {
    let mut inp = input(SeatingMethod::Danish, 8);
    inp.players[3].id = PlayerId(1);
    assert_eq!(
        draw_round(&inp, &mut rng(1)).unwrap_err(),
        SeatingError::DuplicatePlayer(PlayerId(1))
    );
}

#[test]
fn table_sizes_follow_the_count() {
    assert_eq!(table_sizes(16).unwrap(), vec![4, 4, 4, 4]);
    assert_eq!(table_sizes(15).unwrap(), vec![4, 4, 4, 3]);
    assert_eq!(table_sizes(9).unwrap(), vec![3, 3, 3]);
    assert_eq!(table_sizes(3).unwrap(), vec![3]);
    assert!(matches!(
        table_sizes(5),
        Err(SeatingError::UnseatableCount { players: 5 })
    ));
    assert!(table_sizes(2).is_err());
}

#[test]
fn method_names_are_snake_case() {
    let m: SeatingMethod = serde_json::from_str("\"swiss_2p\"").unwrap();
    assert_eq!(m, SeatingMethod::Swiss2p);
    let m: SeatingMethod = serde_json::from_str("\"clarification_bonus\"").unwrap();
    assert_eq!(m, SeatingMethod::ClarificationBonus);
    assert_eq!(
        serde_json::to_string(&SeatingMethod::RandomSeeded).unwrap(),
        "\"random_seeded\""
    );
    assert_eq!(SeatingMethod::Swiss2p.to_string(), "swiss_2p");
}

#[test]
fn input_from_json_with_defaults() {
    let json = r#"{
        "round": 2,
        "method": "swiss",
        "players": [{"id": 1}, {"id": 2, "rating": 1500.0, "rated_games": 7},
                    {"id": 3}, {"id": 4}],
        "standings": [{"player": 2, "place": 1}, {"player": 1, "place": 2},
                      {"player": 4, "place": 3}, {"player": 3, "place": 4}]
    }"#;
    let inp: DrawInput = serde_json::from_str(json).unwrap();
    let d = draw_round(&inp, &mut rng(1)).unwrap();
    assert_eq!(sorted_tables(&d), vec![vec![1, 2, 3, 4]]);
    let out = serde_json::to_value(&d).unwrap();
    assert_eq!(out["method"], "swiss");
    assert_eq!(out["tables"][0]["number"], 1);
}

#[test]
fn report_counts_repeats() {
    let mut inp = input(SeatingMethod::Danish, 8);
    inp.history.tables = vec![ids(&[1, 2, 3, 4]), ids(&[1, 2, 7, 8])];
    let d = draw_round(&inp, &mut rng(3)).unwrap();
    // Danish: 1-4 and 5-8. Pairs 1-2 (3rd meeting), 1-3, 1-4, 2-3, 2-4, 3-4, 7-8.
    assert_eq!(d.report.repeat_count, 7);
    let r12 = d
        .report
        .repeat_meetings
        .iter()
        .find(|r| r.players == [PlayerId(1), PlayerId(2)])
        .unwrap();
    assert_eq!(r12.meetings, 3);
}
