use super::*;
use crate::domain::rating::replay::{replay, DuelOutcome, GameResult, RatedGame, RatingState};

fn d(m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2017, m, day).unwrap()
}

fn warsaw(m: u32, day: u32, h: u32) -> DateTime<FixedOffset> {
    let off = FixedOffset::east_opt(3600).unwrap();
    off.from_local_datetime(&d(m, day).and_hms_opt(h, 0, 0).unwrap())
        .unwrap()
}

#[test]
fn calendar_2017() {
    let seasons = ashes_2017_seasons();
    assert_eq!(validate_seasons(&seasons), Ok(()));
    let months: Vec<u32> = seasons[0].months().iter().map(|m| m.month).collect();
    assert_eq!(months, [1, 2, 3, 4]);
    // 22:00 CEST on 30 April = 20:00 UTC; 22:00 CET on 31 December = 21:00 UTC.
    assert_eq!(
        seasons[0].cutoff().unwrap().to_rfc3339(),
        "2017-04-30T20:00:00+00:00"
    );
    assert_eq!(
        seasons[2].cutoff().unwrap().to_rfc3339(),
        "2017-12-31T21:00:00+00:00"
    );
    let mut bad = seasons.clone();
    bad[1].first_day = d(4, 30);
    assert!(matches!(
        validate_seasons(&bad),
        Err(SeasonError::Overlap { .. })
    ));
    bad[1].first_day = d(9, 1);
    assert!(matches!(
        validate_seasons(&bad),
        Err(SeasonError::EndsBeforeStart { .. })
    ));
    let mut off = seasons;
    off[0].cutoff_utc_offset_seconds = 90_000;
    assert!(matches!(
        validate_seasons(&off),
        Err(SeasonError::BadOffset { .. })
    ));
}

#[test]
fn league_tournament_requirements_and_national_bonus() {
    let p = RatingPoolParams::ashes_poland();
    let seasons = ashes_2017_seasons();
    let t = |id, organiser, announced, played, players, national| LeagueTournament {
        id,
        organiser,
        announced_at: announced,
        played_on: played,
        players,
        national_rank: national,
    };
    let list = vec![
        t(1, 100, warsaw(1, 13, 23), d(1, 20), 6, false), // exactly 7 days: counts
        t(2, 100, warsaw(1, 14, 9), d(1, 20), 6, false),  // 6 days: too late
        t(3, 100, warsaw(1, 1, 9), d(1, 20), 3, false),   // 3 players
        t(4, 100, warsaw(5, 1, 9), d(5, 3), 2, false),    // outside, late, 2 players
        t(5, 200, warsaw(2, 1, 9), d(3, 4), 12, true),    // national, later
        t(6, 200, warsaw(1, 1, 9), d(2, 11), 9, true),    // national, first: bonus
        t(7, 200, warsaw(5, 1, 9), d(6, 10), 8, true),    // next season: bonus again
        t(8, 300, warsaw(1, 1, 9), d(2, 11), 3, true),    // national but not counted
    ];
    let dec = league_tournaments(&p, &seasons, LeagueRules::ashes_2017(), &list);
    let counts: Vec<bool> = dec.iter().map(|x| x.counts).collect();
    assert_eq!(counts, [true, false, false, false, true, true, true, false]);
    assert!(matches!(
        dec[1].refusals[..],
        [LeagueRefusal::AnnouncedTooLate { deadline, .. }] if deadline == d(1, 13)
    ));
    assert_eq!(
        dec[2].refusals,
        [LeagueRefusal::TooFewPlayers {
            players: 3,
            needed: 4
        }]
    );
    assert_eq!(dec[3].refusals.len(), 3);
    assert_eq!(dec[3].season, None);
    assert_eq!(dec[5].bonus, p.event_bonus);
    assert_eq!(dec[4].bonus, 0.0);
    assert_eq!(
        dec[4].bonus_refusal,
        Some(BonusRefusal::AlreadyUsed {
            season: 0,
            organiser: 200,
            held_by: vec![6]
        })
    );
    assert_eq!(dec[6].bonus, p.event_bonus);
    assert_eq!(dec[6].season, Some(1));
    assert_eq!(dec[7].bonus_refusal, Some(BonusRefusal::NotCounted));
    assert_eq!(dec[0].bonus_refusal, None);
}

/// A small league: 4 players (0-3), three seasons.
/// - Player 0 plays one tournament in every month of every season: classified by months.
/// - Player 1 plays five tournaments in each season, all in its first month: classified by
///   count.
/// - Player 2 plays four tournaments in season 1, missing April: not classified there.
/// - Player 3 plays only in season 3, every month.
// layout: long: one worked example (a whole league of seasons) kept in one piece.
#[test]
fn seasons_with_classified_and_unclassified_players_and_league_winner() {
    let p = RatingPoolParams::ashes_poland();
    let seasons = ashes_2017_seasons();
    let mut att = Vec::new();
    let mut tid = 0;
    let mut add = |player, day: NaiveDate, att: &mut Vec<Attendance>| {
        tid += 1;
        att.push(Attendance {
            player,
            tournament_id: tid,
            played_on: day,
        });
    };
    for s in &seasons {
        for m in s.months() {
            let day = NaiveDate::from_ymd_opt(m.year, m.month, 15).unwrap();
            add(0, day, &mut att);
        }
        for k in 0..5 {
            add(1, s.first_day + chrono::Days::new(k), &mut att);
        }
    }
    for m in [1, 2, 3] {
        add(2, d(m, 20), &mut att);
    }
    add(2, d(3, 21), &mut att);
    add(2, d(5, 1), &mut att); // between seasons: ignored
    for m in 9..=12 {
        add(3, d(m, 10), &mut att);
    }

    // Ratings: a few duels in each season; the last one of season 1 is after its cutoff
    // (30 April 23:00 local) and must not count for season 1.
    let at = |m: u32, day: u32, h: u32| warsaw(m, day, h).with_timezone(&Utc);
    let duel = |id, at, first, second| RatedGame {
        id,
        at,
        exclusion: None,
        result: GameResult::Duel {
            first,
            second,
            outcome: DuelOutcome::FirstWins,
        },
    };
    let games = vec![
        duel(1, at(1, 15, 12), 0, 1),
        duel(2, at(2, 15, 12), 2, 1),
        duel(3, at(3, 20, 12), 2, 0),
        duel(4, at(4, 30, 23), 1, 0), // after 22:00 CEST (= 21:00 UTC+1)
        duel(5, at(6, 15, 12), 1, 0),
        duel(6, at(7, 15, 12), 1, 2),
        duel(7, at(9, 15, 12), 0, 3),
        duel(8, at(10, 15, 12), 0, 1),
        duel(9, at(11, 15, 12), 0, 3),
    ];
    let (_, history) = replay(&p, RatingState::new(&p, 4), &games).unwrap();
    let standings: Vec<SeasonStandings> = seasons
        .iter()
        .map(|s| season_standings(&p, s, 4, &history, &att).unwrap())
        .collect();

    // Season 1.
    let s1 = &standings[0];
    let row =
        |s: &SeasonStandings, player| s.rows.iter().find(|r| r.player == player).unwrap().clone();
    assert_eq!(
        row(s1, 0).classification.classified_by,
        Some(ClassifiedBy::EveryMonth)
    );
    assert_eq!(
        row(s1, 1).classification.classified_by,
        Some(ClassifiedBy::FiveTournaments)
    );
    let p2 = row(s1, 2);
    assert_eq!(p2.classification.classified_by, None);
    assert_eq!(p2.classification.tournaments, 4);
    assert_eq!(
        p2.classification.months_missing,
        [YearMonth {
            year: 2017,
            month: 4
        }]
    );
    assert_eq!(p2.rank, None);
    assert!(s1.rows.iter().all(|r| r.player != 3));
    // Player 2 has the best rating (two wins) but is not classified; game 4 is after the
    // cutoff, so player 0 (1 win, 1 loss) stays ahead of player 1 (2 losses).
    let h = |id: i64, player| {
        history
            .iter()
            .find(|c| c.game_id == id && c.player == player)
            .unwrap()
            .after
    };
    assert_eq!(p2.rating, h(3, 2));
    assert!(p2.rating > row(s1, 0).rating);
    assert_eq!(row(s1, 0).rating, h(3, 0));
    assert_eq!(row(s1, 1).rating, h(2, 1));
    assert_eq!(s1.winners, [0]);
    assert_eq!(s1.rows[0].player, 0);
    assert_eq!(s1.rows[2].player, 2, "unclassified players come last");

    // Season 2: player 1 won twice after the cutoff-excluded game 4.
    let s2 = &standings[1];
    assert_eq!(s2.winners, [1]);
    // Season 3: player 3 classified by months; player 0 wins.
    let s3 = &standings[2];
    assert_eq!(
        row(s3, 3).classification.classified_by,
        Some(ClassifiedBy::EveryMonth)
    );
    assert_eq!(s3.winners, [0]);

    // League: only players 0 and 1 are classified in all three seasons.
    let league = league_standings(&standings);
    let classified: Vec<u32> = league
        .rows
        .iter()
        .filter(|r| r.average.is_some())
        .map(|r| r.player)
        .collect();
    assert_eq!(classified.len(), 2);
    let avg = |player| {
        let v: Vec<f64> = standings.iter().map(|s| row(s, player).rating).collect();
        v.iter().sum::<f64>() / 3.0
    };
    let (a0, a1) = (avg(0), avg(1));
    let expected_winner = if a0 > a1 { 0 } else { 1 };
    assert_eq!(league.winners, [expected_winner]);
    // Player 0 won seasons 1 and 3, but player 1 has the better average (997.05 against
    // 995.74): the league goes by the average, not by season wins.
    assert_eq!(s1.winners, [0]);
    assert_eq!(league.winners, [1]);
    assert_eq!(league.rows[0].player, expected_winner);
    assert_eq!(league.rows[0].rank, Some(1));
    let r2 = league.rows.iter().find(|r| r.player == 2).unwrap();
    assert_eq!(r2.average, None);
    assert_eq!(r2.classified, [false, false, false]);
    assert_eq!(r2.season_ratings[1], None);
    assert_eq!(r2.season_ratings[2], None);
}

#[test]
fn attendances_keep_only_counting_tournaments() {
    let p = RatingPoolParams::ashes_poland();
    let seasons = ashes_2017_seasons();
    let list = vec![
        LeagueTournament {
            id: 1,
            organiser: 1,
            announced_at: warsaw(1, 1, 9),
            played_on: d(2, 1),
            players: 4,
            national_rank: false,
        },
        LeagueTournament {
            id: 2,
            organiser: 1,
            announced_at: warsaw(1, 31, 9),
            played_on: d(2, 1),
            players: 4,
            national_rank: false,
        },
    ];
    let dec = league_tournaments(&p, &seasons, LeagueRules::ashes_2017(), &list);
    let parts = HashMap::from([(1, vec![0, 1, 2, 3]), (2, vec![4, 5, 6, 7])]);
    let att = attendances_of_counting(&dec, &list, &parts);
    assert_eq!(att.len(), 4);
    assert!(att.iter().all(|a| a.tournament_id == 1));
}
