//! Tantrix two-player games (seed 003; domain.md section 8).

use super::{Points, Ruleset, ScoringError, SeatScore, TableResult, TableScore, TieBreakKey};
use crate::domain::ids::PlayerId;
use serde::{Deserialize, Serialize};

/// TP per game (seed 003, rule 9.1: "Verteilung von 20 TPs pro Spiel").
pub const TP_PER_GAME: i64 = 20;

/// The winner's TP in tenths for a winning margin: 12 + 4/3 x sqrt(margin), rounded to one
/// decimal, at most 20; a margin of 0 is a 10-10 draw (seed 003, rule 9.1 and its table).
///
/// Computed exactly with integers: the tenths above 12 are the largest `n` with
/// `9 (2n - 1)^2 <= 6400 margin` (i.e. `n - 1/2 <= 40 sqrt(margin) / 3`). A half-way case cannot
/// occur (40 sqrt(m) / 3 is either irrational or a multiple of 1/3).
pub fn winner_tenths(margin: u32) -> i64 {
    if margin == 0 {
        return 100;
    }
    let m = margin as i128;
    let mut n: i128 = 0;
    while n < 80 && 9 * (2 * (n + 1) - 1) * (2 * (n + 1) - 1) <= 6400 * m {
        n += 1;
    }
    (120 + n as i64).min(200)
}

/// The winner's TP for a margin, as [`Points`] (e.g. margin 1 -> 13.3).
pub fn winner_tp(margin: u32) -> Points {
    Points::new(winner_tenths(margin), 10).expect("constant denominator")
}

fn penalty_minutes(rules_free: u32, secs: Option<u32>) -> i64 {
    secs.map(|s| (s / 60) as i64 - rules_free as i64)
        .unwrap_or(0)
        .max(0)
}

/// Scores one Tantrix game (two seats; `score` = tiles).
///
/// - TP from the margin ([`winner_tp`]), draw 10-10 (seed 003, rule 9.1).
/// - Time: 1 TP per full minute over `free_minutes` (14) moves from that player to the
///   opponent, within 20:0 (seed 003, rules 2 and 9.2).
/// - Forfeit (no-show, `forfeit` on one seat): cup events 50-14 tiles and 20-0 TP, other events
///   35-15 and 18-2 (seed 003, rule 7). Both forfeiting: 0-0 TP, 0-0 tiles (our reading).
/// - Both crashed and the game vanished (`double_crash`): 23-23 draw, 10-10 TP (seed 003, rule
///   3.3).
///
/// The weight multiplies the TP. `relative_score` is the signed margin.
pub fn score_game(
    ruleset: &Ruleset,
    table: &TableResult,
    weight: Points,
    table_number: usize,
) -> Result<TableScore, ScoringError> {
    if table.seats.len() != 2 {
        return Err(ScoringError::WrongSeatCount {
            table: table_number,
            got: table.seats.len(),
            allowed: "2".into(),
        });
    }
    if table.seats[0].player == table.seats[1].player {
        return Err(ScoringError::DuplicatePlayer {
            player: table.seats[0].player,
            round: 0,
        });
    }
    let rules = ruleset
        .tantrix
        .clone()
        .unwrap_or(super::ruleset::TantrixRules {
            cup: false,
            max_forfeits: 2,
            free_minutes: 14,
        });
    let (a, b) = (&table.seats[0], &table.seats[1]);
    // (tenths a, tiles a, tiles b)
    let (ta, sa, sb) = if table.double_crash {
        (100, 23, 23)
    } else {
        match (a.forfeit, b.forfeit) {
            (true, true) => (0, 0, 0),
            (true, false) | (false, true) => {
                let (win, tw, tl) = if rules.cup {
                    (200, 50, 14)
                } else {
                    (180, 35, 15)
                };
                if b.forfeit {
                    (win, tw, tl)
                } else {
                    (200 - win, tl, tw)
                }
            }
            (false, false) => {
                let (sa, sb) = (a.total(), b.total());
                let w = winner_tenths(sa.abs_diff(sb).min(u32::MAX as u64) as u32);
                let base = if sa >= sb { w } else { 200 - w };
                let pa = penalty_minutes(rules.free_minutes, a.time_used_secs);
                let pb = penalty_minutes(rules.free_minutes, b.time_used_secs);
                ((base - 10 * pa + 10 * pb).clamp(0, 200), sa, sb)
            }
        }
    };
    let tb = if a.forfeit && b.forfeit { 0 } else { 200 - ta };
    let (place_a, place_b, share_a) = match sa.cmp(&sb) {
        std::cmp::Ordering::Greater => (1, 2, Points::ONE),
        std::cmp::Ordering::Less => (2, 1, Points::ZERO),
        std::cmp::Ordering::Equal => (1, 1, Points::new(1, 2).expect("constant")),
    };
    let both_forfeit = a.forfeit && b.forfeit;
    let seat = |s: &super::SeatResult, place, tenths, own, opp, share: Points| SeatScore {
        player: s.player,
        place,
        shared: if place_a == place_b { 2 } else { 1 },
        tp: Points::new(tenths, 10).expect("constant") * weight,
        bonus_malus: Points::ZERO,
        relative_score: Points::int(own - opp),
        game_total: own,
        win_share: if both_forfeit { Points::ZERO } else { share },
        forfeit: s.forfeit,
        bye: false,
    };
    let seats = vec![
        seat(a, place_a, ta, sa, sb, share_a),
        seat(b, place_b, tb, sb, sa, Points::ONE - share_a),
    ];
    let tp_total = seats.iter().map(|s| s.tp).sum();
    Ok(TableScore { seats, tp_total })
}

/// The outcome of a Tantrix cup match between two players over several games.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CupMatch {
    /// The two players, as given.
    pub players: [PlayerId; 2],
    /// Total TP per player.
    pub tp: [Points; 2],
    /// Games won per player (draws half).
    pub wins: [Points; 2],
    /// Total tiles per player.
    pub game_points: [i64; 2],
    /// The winner, or `None` when a play-off is needed.
    pub winner: Option<PlayerId>,
    /// What decided it (`tp`, `wins`, `game_points`), or `None` when a play-off is needed.
    pub decided_by: Option<TieBreakKey>,
    /// True when TP, wins and tiles are all equal and no play-off winner is known yet:
    /// further 5-minute games until one wins (seed 003, Tie-Breaks 1).
    pub playoff_needed: bool,
    /// The winner of those 5-minute games, when they decided the match.
    pub playoff_winner: Option<PlayerId>,
}

/// Decides a cup match from its scored games: TP, then games won, then total tiles, then the
/// 5-minute play-off games ("Bei Punktgleichheit entscheidet die größere Zahl gewonnener
/// Spiele, dann die höhere Gesamtpunktzahl, dann weitere 5-Minuten-Spiele", seed 003,
/// Tie-Breaks 1). `playoff` is the player who won the play-off, if one was played; it counts
/// only when everything before it is level. Games not involving exactly these two players are
/// ignored.
pub fn cup_match(
    players: [PlayerId; 2],
    games: &[TableScore],
    playoff: Option<PlayerId>,
) -> CupMatch {
    let mut tp = [Points::ZERO; 2];
    let mut wins = [Points::ZERO; 2];
    let mut pts = [0i64; 2];
    for g in games {
        if g.seats.len() != 2 {
            continue;
        }
        for s in &g.seats {
            if let Some(i) = players.iter().position(|p| *p == s.player) {
                tp[i] += s.tp;
                wins[i] += s.win_share;
                pts[i] += s.game_total;
            }
        }
    }
    let steps = [
        (TieBreakKey::Tp, tp[0].cmp(&tp[1])),
        (TieBreakKey::Wins, wins[0].cmp(&wins[1])),
        (TieBreakKey::GamePoints, pts[0].cmp(&pts[1])),
    ];
    let decided = steps.iter().find(|(_, o)| o.is_ne());
    let playoff_winner = playoff.filter(|p| decided.is_none() && players.contains(p));
    CupMatch {
        players,
        tp,
        wins,
        game_points: pts,
        winner: decided
            .map(|(_, o)| if o.is_gt() { players[0] } else { players[1] })
            .or(playoff_winner),
        decided_by: decided.map(|(k, _)| *k),
        playoff_needed: decided.is_none() && playoff_winner.is_none(),
        playoff_winner,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Preset, SeatResult};
    use super::*;
    use proptest::prelude::*;

    fn game(a: i64, b: i64) -> TableResult {
        TableResult {
            seats: vec![
                SeatResult::new(PlayerId(1), a),
                SeatResult::new(PlayerId(2), b),
            ],
            clarification: None,
            double_crash: false,
        }
    }

    fn tps(r: &Ruleset, t: &TableResult) -> (String, String) {
        let s = score_game(r, t, Points::ONE, 0).unwrap();
        (s.seats[0].tp.to_string(), s.seats[1].tp.to_string())
    }

    #[test]
    fn domain_md_section_8_table() {
        let expect = [
            (1, "13.30", "6.70"),
            (2, "13.90", "6.10"),
            (5, "15.00", "5.00"),
            (10, "16.20", "3.80"),
            (20, "18.00", "2.00"),
            (30, "19.30", "0.70"),
            (36, "20.00", "0.00"),
            (80, "20.00", "0.00"),
        ];
        let r = Ruleset::preset(Preset::Tantrix);
        for (m, w, l) in expect {
            assert_eq!(
                tps(&r, &game(40 + m, 40)),
                (w.to_string(), l.to_string()),
                "m={m}"
            );
            assert_eq!(tps(&r, &game(40, 40 + m)), (l.to_string(), w.to_string()));
        }
        assert_eq!(tps(&r, &game(30, 30)), ("10.00".into(), "10.00".into()));
    }

    #[test]
    fn time_penalty_moves_tp_within_20_0() {
        let r = Ruleset::preset(Preset::Tantrix);
        let mut g = game(45, 40); // 15.0 - 5.0
        g.seats[0].time_used_secs = Some(16 * 60 + 59); // 2 full minutes over 14
        assert_eq!(tps(&r, &g), ("13.00".into(), "7.00".into()));
        g.seats[0].time_used_secs = Some(14 * 60 + 59);
        assert_eq!(tps(&r, &g), ("15.00".into(), "5.00".into()));
        g.seats[0].time_used_secs = None;
        g.seats[1].time_used_secs = Some(30 * 60); // 16 minutes -> capped at 20:0
        assert_eq!(tps(&r, &g), ("20.00".into(), "0.00".into()));
    }

    #[test]
    fn forfeits_and_double_crash() {
        let mut r = Ruleset::preset(Preset::Tantrix);
        let mut g = game(0, 0);
        g.seats[1].forfeit = true;
        let s = score_game(&r, &g, Points::ONE, 0).unwrap();
        assert_eq!(
            (s.seats[0].tp, s.seats[1].tp),
            (Points::int(18), Points::int(2))
        );
        assert_eq!((s.seats[0].game_total, s.seats[1].game_total), (35, 15));
        r.tantrix.as_mut().unwrap().cup = true;
        let s = score_game(&r, &g, Points::ONE, 0).unwrap();
        assert_eq!(
            (s.seats[0].tp, s.seats[1].tp),
            (Points::int(20), Points::int(0))
        );
        assert_eq!((s.seats[0].game_total, s.seats[1].game_total), (50, 14));
        let mut c = game(0, 0);
        c.double_crash = true;
        let s = score_game(&r, &c, Points::ONE, 0).unwrap();
        assert_eq!(
            (s.seats[0].tp, s.seats[1].game_total),
            (Points::int(10), 23)
        );
    }

    #[test]
    fn cup_match_tie_breaks() {
        let r = Ruleset::preset(Preset::Tantrix);
        let g1 = score_game(&r, &game(45, 40), Points::ONE, 0).unwrap(); // 15-5
        let g2 = score_game(&r, &game(40, 45), Points::ONE, 0).unwrap(); // 5-15
        let m = cup_match([PlayerId(1), PlayerId(2)], &[g1.clone(), g2.clone()], None);
        assert!(m.playoff_needed);
        assert_eq!(m.winner, None);
        // The 5-minute games decide a level match, and only a level one.
        let m = cup_match(
            [PlayerId(1), PlayerId(2)],
            &[g1.clone(), g2.clone()],
            Some(PlayerId(2)),
        );
        assert_eq!(
            (m.winner, m.playoff_winner, m.playoff_needed),
            (Some(PlayerId(2)), Some(PlayerId(2)), false)
        );
        let g3 = score_game(&r, &game(41, 40), Points::ONE, 0).unwrap();
        let m = cup_match([PlayerId(1), PlayerId(2)], &[g1, g2, g3], Some(PlayerId(2)));
        assert_eq!(m.winner, Some(PlayerId(1)));
        assert_eq!(m.decided_by, Some(TieBreakKey::Tp));
        assert_eq!(m.playoff_winner, None);
    }

    /// Seed 003, Tie-Breaks 1, every step: TP equal, more games won decides (even with fewer
    /// tiles); TP and wins equal, more tiles decide.
    #[test]
    fn cup_match_goes_to_games_won_then_tiles() {
        let r = Ruleset::preset(Preset::Tantrix);
        let s = |a, b| score_game(&r, &game(a, b), Points::ONE, 0).unwrap();
        // 13.3 + 13.3 + 3.4 = 30.0 against 6.7 + 6.7 + 16.6 = 30.0; wins 2-1; tiles 62-72.
        let m = cup_match(
            [PlayerId(1), PlayerId(2)],
            &[s(21, 20), s(21, 20), s(20, 32)],
            None,
        );
        assert_eq!(m.tp, [Points::int(30), Points::int(30)]);
        assert_eq!(
            (m.winner, m.decided_by),
            (Some(PlayerId(1)), Some(TieBreakKey::Wins))
        );
        // Wins by 40 and by 36 are both 20-0 TP (36 or more); one win each; tiles 60-56.
        let m = cup_match([PlayerId(1), PlayerId(2)], &[s(50, 10), s(10, 46)], None);
        assert_eq!(m.tp, [Points::int(20), Points::int(20)]);
        assert_eq!(m.wins, [Points::ONE, Points::ONE]);
        assert_eq!(
            (m.winner, m.decided_by),
            (Some(PlayerId(1)), Some(TieBreakKey::GamePoints))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn game_hands_out_20_and_is_monotone(a in 0i64..90, b in 0i64..90, ta in 0u32..1500, tb in 0u32..1500) {
            let r = Ruleset::preset(Preset::Tantrix);
            let mut g = game(a, b);
            g.seats[0].time_used_secs = Some(ta);
            g.seats[1].time_used_secs = Some(tb);
            let s = score_game(&r, &g, Points::ONE, 0).unwrap();
            prop_assert_eq!(s.tp_total, Points::int(20));
            g.seats[0].score += 1;
            let s2 = score_game(&r, &g, Points::ONE, 0).unwrap();
            prop_assert!(s2.seats[0].tp >= s.seats[0].tp);
            prop_assert!(winner_tenths(a as u32 + 1) >= winner_tenths(a as u32));
        }
    }
}
