use super::*;
use chrono::TimeZone;
use proptest::prelude::*;

fn t(n: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_500_000_000 + n * 3600, 0).unwrap()
}

fn duel(id: i64, first: u32, second: u32, outcome: DuelOutcome) -> RatedGame {
    RatedGame {
        id,
        at: t(id),
        exclusion: None,
        result: GameResult::Duel {
            first,
            second,
            outcome,
        },
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[test]
fn ashes_vectors_through_replay() {
    let p = RatingPoolParams::ashes_poland();
    let start = RatingState {
        ratings: vec![
            1000.0, 1000.0, 1200.0, 1400.0, 1400.0, 1000.0, 1000.0, 1000.0,
        ],
        games: vec![0; 8],
    };
    let games = [
        duel(1, 0, 1, DuelOutcome::FirstWins),
        duel(2, 2, 5, DuelOutcome::FirstWins),
        duel(3, 3, 6, DuelOutcome::FirstWins),
        duel(4, 7, 4, DuelOutcome::FirstWins), // 1400 loses to 1000
    ];
    let (state, changes) = replay(&p, start, &games).unwrap();
    let firsts: Vec<f64> = changes.iter().step_by(2).map(|c| round1(c.delta)).collect();
    assert_eq!(firsts, [12.5, 6.0, 2.3, 22.7]);
    assert_eq!(round1(changes[7].delta), -22.7);
    assert_eq!(changes[7].player, 4);
    for pair in changes.chunks(2) {
        assert_eq!(pair[0].delta, -pair[1].delta, "zero-sum");
        assert_eq!(pair[0].game_id, pair[1].game_id);
    }
    assert_eq!(round1(state.ratings[0]), 1012.5);
    assert_eq!(round1(state.ratings[1]), 987.5);
    assert_eq!(state.games, vec![1; 8]);
}

#[test]
fn ashes_draws_change_nothing_but_tantrix_draws_do() {
    let games = [duel(1, 0, 1, DuelOutcome::Draw)];
    let ashes = RatingPoolParams::ashes_poland();
    let start = RatingState {
        ratings: vec![1200.0, 1000.0],
        games: vec![3, 3],
    };
    let (state, changes) = replay(&ashes, start.clone(), &games).unwrap();
    assert!(changes.is_empty());
    assert_eq!(state, start, "an ignored draw is not a rated game");

    let tantrix = RatingPoolParams::tantrix();
    let (state, changes) = replay(&tantrix, start, &games).unwrap();
    assert_eq!(changes.len(), 2);
    assert!(
        changes[0].delta < 0.0,
        "the favourite loses points on a draw"
    );
    assert_eq!(state.games, vec![4, 4]);
}

#[test]
fn forfeits_byes_and_voided_results_are_not_rated() {
    let p = RatingPoolParams::tantrix();
    let mut games = vec![
        duel(1, 0, 1, DuelOutcome::FirstWins),
        duel(2, 0, 2, DuelOutcome::FirstWins),
        duel(3, 1, 2, DuelOutcome::SecondWins),
        duel(4, 0, 1, DuelOutcome::FirstWins),
    ];
    games[1].exclusion = Some(Exclusion::Forfeit);
    games[2].exclusion = Some(Exclusion::Voided);
    let (state, changes) = replay(&p, RatingState::new(&p, 3), &games).unwrap();
    let ids: Vec<i64> = changes.iter().map(|c| c.game_id).collect();
    assert_eq!(ids, [1, 1, 4, 4]);
    assert_eq!(state.games, vec![2, 2, 0]);
    assert_eq!(state.ratings[2], p.initial_rating);
    // A pool that rates forfeits would rate game 2.
    let mut lenient = p.clone();
    lenient.excluded = vec![Exclusion::Voided];
    let (_, changes) = replay(&lenient, RatingState::new(&p, 3), &games).unwrap();
    assert_eq!(changes.len(), 6);
}

#[test]
fn tables_teams_and_bonus() {
    let p = RatingPoolParams::agricola_norway();
    let table = RatedGame {
        id: 10,
        at: t(1),
        exclusion: None,
        result: GameResult::Table {
            seats: vec![
                Seat {
                    player: 3,
                    score: 55.0,
                },
                Seat {
                    player: 1,
                    score: 48.0,
                },
                Seat {
                    player: 0,
                    score: 31.0,
                },
                Seat {
                    player: 2,
                    score: 12.0,
                },
            ],
        },
    };
    let (state, changes) = replay(&p, RatingState::new(&p, 4), &[table]).unwrap();
    let deltas: Vec<f64> = changes
        .iter()
        .map(|c| (c.delta * 100.0).round() / 100.0)
        .collect();
    assert_eq!(deltas, [16.0, 5.33, -5.33, -16.0]);
    assert!((state.ratings.iter().sum::<f64>() - 4.0 * 1500.0).abs() < 1e-9);

    // Team 2v2: members rated against the opposing average (1500 and 1300 avg 1400 vs 1400).
    let mut ashes = RatingPoolParams::ashes_poland();
    ashes.draws = DrawPolicy::CountHalf;
    let start = RatingState {
        ratings: vec![1500.0, 1300.0, 1400.0, 1400.0],
        games: vec![0; 4],
    };
    let team = RatedGame {
        id: 11,
        at: t(2),
        exclusion: None,
        result: GameResult::Teams {
            first: vec![0, 1],
            second: vec![2, 3],
            outcome: DuelOutcome::FirstWins,
        },
    };
    let bonus = RatedGame {
        id: 12,
        at: t(3),
        exclusion: None,
        result: GameResult::EventBonus {
            participants: vec![0, 2],
        },
    };
    let (state, changes) = replay(&ashes, start, &[team, bonus]).unwrap();
    assert_eq!(changes.len(), 6);
    assert_eq!(changes[0].delta, duel_change(&ashes, 1500.0, 1400.0, 1.0));
    assert_eq!(changes[1].delta, duel_change(&ashes, 1300.0, 1400.0, 1.0));
    assert_eq!(changes[2].delta, duel_change(&ashes, 1400.0, 1400.0, 0.0));
    assert!(
        changes[1].delta > changes[0].delta,
        "the weaker member gains more"
    );
    assert_eq!(changes[4].kind, ChangeKind::Bonus);
    assert_eq!(changes[4].delta, 10.0);
    assert_eq!(state.games, vec![1; 4], "a bonus is not a game");
}

#[test]
fn bad_input_is_an_error_and_leaves_state_before_the_bad_game() {
    let p = RatingPoolParams::tantrix();
    let games = [
        duel(1, 0, 1, DuelOutcome::FirstWins),
        duel(2, 0, 7, DuelOutcome::FirstWins),
    ];
    let mut state = RatingState::new(&p, 2);
    let mut out = Vec::new();
    let err = replay_into(&p, &mut state, &games, &mut out).unwrap_err();
    assert_eq!(
        err,
        ReplayError::UnknownPlayer {
            game_id: 2,
            player: 7,
            players: 2
        }
    );
    assert_eq!(out.len(), 2);
    assert_eq!(state.games, vec![1, 1]);
    let twice = [duel(3, 1, 1, DuelOutcome::Draw)];
    assert!(matches!(
        replay(&p, RatingState::new(&p, 2), &twice),
        Err(ReplayError::PlayerTwice { .. })
    ));
    let mut bad = p.clone();
    bad.k = -1.0;
    assert!(matches!(
        replay(&bad, RatingState::new(&p, 2), &games),
        Err(ReplayError::InvalidParams(_))
    ));
}

/// Issue 14, item 15: a pool that starts from an existing list. From the import on, a listed
/// player's rating is the list's (whatever the pool said before), the credited games count,
/// and the next game is rated from the imported rating; the history replays to the same state.
#[test]
fn an_imported_list_sets_ratings_and_credits_games() {
    let p = RatingPoolParams::ashes_poland();
    let games = [
        duel(1, 0, 1, DuelOutcome::FirstWins),
        RatedGame {
            id: 2,
            at: t(2),
            exclusion: None,
            result: GameResult::Imported {
                entries: vec![
                    ImportedRating {
                        player: 0,
                        rating: 1400.0,
                        games: 30,
                    },
                    ImportedRating {
                        player: 2,
                        rating: 1000.0,
                        games: 0,
                    },
                ],
            },
        },
        duel(3, 1, 0, DuelOutcome::FirstWins), // 987.5 beats 1400
    ];
    let (state, changes) = replay(&p, RatingState::new(&p, 3), &games).unwrap();
    assert_eq!(changes[2].kind, ChangeKind::Import);
    assert_eq!((changes[2].before, changes[2].after), (1012.5, 1400.0));
    assert_eq!(changes[2].games, 30);
    // 987.5 beats 1400: 25 x (1 - E), E = 1 / (1 + 10^(412.5/400)).
    let gain = 25.0 * (1.0 - 1.0 / (1.0 + 10f64.powf(412.5 / 400.0)));
    assert!((state.ratings[1] - (987.5 + gain)).abs() < 1e-9);
    assert!((state.ratings[0] - (1400.0 - gain)).abs() < 1e-9);
    assert_eq!(state.games, vec![32, 2, 0]);
    assert_eq!(RatingState::from_history(&p, 3, &changes).unwrap(), state);
}

#[test]
fn directory_maps_both_ways() {
    let mut dir = PlayerDirectory::new();
    assert_eq!(dir.intern(PlayerId(42)), 0);
    assert_eq!(dir.intern(PlayerId(7)), 1);
    assert_eq!(dir.intern(PlayerId(42)), 0);
    assert_eq!(dir.index_of(PlayerId(7)), Some(1));
    assert_eq!(dir.id(1), Some(PlayerId(7)));
    assert_eq!(dir.len(), 2);
}

#[test]
fn games_serialize_as_tagged_json() {
    let g = duel(5, 0, 1, DuelOutcome::SecondWins);
    let json = serde_json::to_string(&g).unwrap();
    assert!(json.contains("\"kind\":\"duel\""), "{json}");
    assert!(json.contains("\"outcome\":\"second_wins\""), "{json}");
    let back: RatedGame = serde_json::from_str(&json).unwrap();
    assert_eq!(back, g);
}

// --- incremental == full rebuild -------------------------------------------------------

fn arb_game(n_players: u32) -> impl Strategy<Value = GameResult> {
    let duel =
        (0..n_players, 0..n_players, 0u8..3).prop_filter_map("distinct players", |(a, b, o)| {
            (a != b).then(|| GameResult::Duel {
                first: a,
                second: b,
                outcome: [
                    DuelOutcome::FirstWins,
                    DuelOutcome::SecondWins,
                    DuelOutcome::Draw,
                ][o as usize],
            })
        });
    let table = (
        prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 4).prop_shuffle(),
        prop::collection::vec(0u8..4, 4),
    )
        .prop_map(|(ids, scores)| GameResult::Table {
            seats: ids
                .into_iter()
                .zip(scores)
                .map(|(player, s)| Seat {
                    player,
                    score: s as f64,
                })
                .collect(),
        });
    let teams = (
        prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 4).prop_shuffle(),
        0u8..3,
    )
        .prop_map(|(ids, o)| GameResult::Teams {
            first: ids[..2].to_vec(),
            second: ids[2..].to_vec(),
            outcome: [
                DuelOutcome::FirstWins,
                DuelOutcome::SecondWins,
                DuelOutcome::Draw,
            ][o as usize],
        });
    let bonus = prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 3)
        .prop_map(|participants| GameResult::EventBonus { participants });
    let import = (
        prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 2),
        800u32..2000,
        0u32..50,
    )
        .prop_map(|(players, rating, games)| GameResult::Imported {
            entries: players
                .into_iter()
                .map(|player| ImportedRating {
                    player,
                    rating: f64::from(rating) + 0.5,
                    games,
                })
                .collect(),
        });
    prop_oneof![6 => duel, 2 => table, 1 => teams, 1 => bonus, 1 => import]
}

fn arb_games(n_players: u32) -> impl Strategy<Value = Vec<RatedGame>> {
    prop::collection::vec((arb_game(n_players), 0u8..10), 1..60).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (result, x))| RatedGame {
                id: i as i64,
                at: t(i as i64),
                exclusion: (x == 0).then_some(Exclusion::Forfeit),
                result,
            })
            .collect()
    })
}

fn correct(game: &mut RatedGame, how: u8) {
    match how % 3 {
        0 => {
            // flip the result
            match &mut game.result {
                GameResult::Duel { outcome, .. } => {
                    *outcome = match outcome {
                        DuelOutcome::FirstWins => DuelOutcome::SecondWins,
                        DuelOutcome::SecondWins => DuelOutcome::Draw,
                        DuelOutcome::Draw => DuelOutcome::FirstWins,
                    }
                }
                GameResult::Table { seats } => {
                    for s in seats.iter_mut() {
                        s.score = -s.score;
                    }
                }
                GameResult::Teams { first, second, .. } => std::mem::swap(first, second),
                GameResult::EventBonus { participants } => {
                    participants.pop();
                }
                GameResult::Imported { entries } => {
                    for e in entries.iter_mut() {
                        e.rating += 100.0;
                        e.games += 1;
                    }
                }
            }
        }
        1 => game.exclusion = Some(Exclusion::Voided),
        _ => game.exclusion = None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn incremental_recompute_equals_full_rebuild(
        games in arb_games(8),
        at in any::<prop::sample::Index>(),
        how in 0u8..3,
        ashes in any::<bool>(),
    ) {
        let p = if ashes { RatingPoolParams::ashes_poland() } else { RatingPoolParams::agricola_norway() };
        let n = 8;
        let c = at.index(games.len());
        // What the service stored before the correction.
        let (_, stored) = replay(&p, RatingState::new(&p, n), &games).unwrap();
        let mut corrected = games.clone();
        correct(&mut corrected[c], how);
        // Incremental: state from the stored history of the games before c, then the
        // corrected suffix.
        let prefix_len = stored.iter().take_while(|ch| ch.game_id < c as i64).count();
        let start = RatingState::from_history(&p, n, &stored[..prefix_len]).unwrap();
        let (inc_state, suffix) = replay(&p, start, &corrected[c..]).unwrap();
        let mut inc_changes = stored[..prefix_len].to_vec();
        inc_changes.extend(suffix);
        // Full rebuild of the corrected sequence.
        let (full_state, full_changes) = replay(&p, RatingState::new(&p, n), &corrected).unwrap();
        prop_assert_eq!(inc_state, full_state);
        prop_assert_eq!(inc_changes, full_changes);
    }

    #[test]
    fn replay_is_splittable(games in arb_games(6), at in any::<prop::sample::Index>()) {
        // Replaying a prefix then the rest from the resulting state equals one replay.
        let p = RatingPoolParams::tantrix();
        let c = at.index(games.len() + 1);
        let (mid, mut a) = replay(&p, RatingState::new(&p, 6), &games[..c]).unwrap();
        let (end, b) = replay(&p, mid, &games[c..]).unwrap();
        a.extend(b);
        let (full_end, full) = replay(&p, RatingState::new(&p, 6), &games).unwrap();
        prop_assert_eq!(end, full_end);
        prop_assert_eq!(a, full);
    }
}
