//! The Elo formulas: one 2-player game, a multi-player table, a team match.
//!
//! These are the arithmetic of seed 004, section 9 ("System rankingowy - szczegółowe
//! założenia", points 2-3) and domain.md section 10, on plain numbers. The replay engine
//! (`replay.rs`) applies them to a rating state in time order.

use super::pool::{DrawPolicy, RatingPoolParams};

/// Expected score of a player rated `r_a` against one rated `r_b`:
/// `E_A = 1 / (1 + 10^((R_B - R_A) / scale))` (seed 004, section 9, point 2; the scale is 400
/// in every preset). Always strictly between 0 and 1 for finite ratings;
/// `expected_score(a, b) + expected_score(b, a) == 1` up to rounding.
///
/// `10^x` is computed as `exp(x · ln 10)` (faster than `powf`; identical to a few ulp, far below
/// the one decimal ratings are shown with).
#[inline]
pub fn expected_score(r_a: f64, r_b: f64, scale: f64) -> f64 {
    1.0 / (1.0 + ((r_b - r_a) / scale * std::f64::consts::LN_10).exp())
}

/// Caps a change at the pool's `max_change_per_game`, if any (seed 004, section 9, point 4).
#[inline]
pub fn cap_change(params: &RatingPoolParams, delta: f64) -> f64 {
    match params.max_change_per_game {
        Some(cap) => delta.clamp(-cap, cap),
        None => delta,
    }
}

/// The change of the first player's rating in a 2-player game: `K (W_A - E_A)`, capped.
/// `w_a` is 1 for a win, 0 for a loss, 0.5 for a draw. The second player's change is exactly the
/// negative ("the loser loses what the winner gains", seed 004 section 9, point 3).
///
/// Worked examples (Ashes, K = 25, seed 004 "Tabela 3"): 1000 beats 1000: +12.5; 1200 beats
/// 1000: +6.0; 1400 beats 1000: +2.3; 1400 loses to 1000: -22.7.
#[inline]
pub fn duel_change(params: &RatingPoolParams, r_a: f64, r_b: f64, w_a: f64) -> f64 {
    cap_change(
        params,
        params.k * (w_a - expected_score(r_a, r_b, params.scale)),
    )
}

/// The pairwise result of a score comparison at a table: 1 if `a > b`, 0 if `a < b`, and for a
/// tie 0.5 (draws counted) or `None` (draws ignored: the pair is not rated).
#[inline]
pub fn pair_result(score_a: f64, score_b: f64, draws: DrawPolicy) -> Option<f64> {
    if score_a > score_b {
        Some(1.0)
    } else if score_a < score_b {
        Some(0.0)
    } else {
        match draws {
            DrawPolicy::CountHalf => Some(0.5),
            DrawPolicy::Ignore => None,
        }
    }
}

/// Changes for every player at a multi-player table, rated pairwise (domain.md section 10):
/// every pair is one game decided by score (higher is better; equal is a draw), all pairs use
/// the ratings from before the table, and each player's summed `W - E` is multiplied by
/// K / (n - 1), then capped. Writes one change per seat into `out` (same order as `ratings`).
///
/// Zero-sum (before any cap): each pair adds `+x` to one player and `-x` to the other.
/// Worked example: K = 32, four players rated equally, placed 1-2-3-4: +16, +5.33, -5.33, -16.
///
/// `ratings`, `scores` and `out` must have the same length, at least 2 (checked by the caller;
/// a mismatch is an internal bug and panics).
pub fn table_changes(params: &RatingPoolParams, ratings: &[f64], scores: &[f64], out: &mut [f64]) {
    let n = ratings.len();
    assert!(
        n >= 2 && scores.len() == n && out.len() == n,
        "table_changes: bad lengths"
    );
    out.fill(0.0);
    for i in 0..n {
        for j in (i + 1)..n {
            if let Some(w) = pair_result(scores[i], scores[j], params.draws) {
                let x = w - expected_score(ratings[i], ratings[j], params.scale);
                out[i] += x;
                out[j] -= x;
            }
        }
    }
    let k_per_opponent = params.k / (n - 1) as f64;
    for d in out.iter_mut() {
        *d = cap_change(params, *d * k_per_opponent);
    }
}

/// The change of one team member: their own rating against the opposing team's average rating,
/// with the team's result `w` (1 win, 0.5 draw, 0 loss), capped. See
/// `docs/decisions/rating-team.md` for why (not zero-sum when teammates' ratings differ).
#[inline]
pub fn team_member_change(
    params: &RatingPoolParams,
    own: f64,
    opponents_average: f64,
    w: f64,
) -> f64 {
    duel_change(params, own, opponents_average, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round1(x: f64) -> f64 {
        (x * 10.0).round() / 10.0
    }

    #[test]
    fn ashes_table_3_vectors() {
        // seed 004, section 9, "Tabela 3. Przykłady zmiany rankingu".
        let p = RatingPoolParams::ashes_poland();
        assert_eq!(round1(duel_change(&p, 1000.0, 1000.0, 1.0)), 12.5);
        assert_eq!(round1(duel_change(&p, 1200.0, 1000.0, 1.0)), 6.0);
        assert_eq!(round1(duel_change(&p, 1400.0, 1000.0, 1.0)), 2.3);
        assert_eq!(round1(duel_change(&p, 1400.0, 1000.0, 0.0)), -22.7);
        // The text's worked example: 1200 vs 1000 -> 76 % expected; an upset costs 19.
        assert_eq!(
            (expected_score(1200.0, 1000.0, 400.0) * 100.0).round(),
            76.0
        );
        assert_eq!(duel_change(&p, 1000.0, 1200.0, 1.0).round(), 19.0);
    }

    #[test]
    fn four_equal_players_placed_1_2_3_4() {
        let mut p = RatingPoolParams::agricola_norway();
        p.k = 32.0;
        let ratings = [1500.0; 4];
        let scores = [40.0, 30.0, 20.0, 10.0];
        let mut out = [0.0; 4];
        table_changes(&p, &ratings, &scores, &mut out);
        let expected = [16.0, 16.0 / 3.0, -16.0 / 3.0, -16.0];
        for (got, want) in out.iter().zip(expected) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert_eq!(round1(out[1]), 5.3);
        assert!(out.iter().sum::<f64>().abs() < 1e-9);
    }

    #[test]
    fn shared_place_is_half_a_win_or_skipped() {
        let ratings = [1500.0; 4];
        let scores = [40.0, 40.0, 20.0, 10.0];
        let mut out = [0.0; 4];
        let half = RatingPoolParams::agricola_norway();
        table_changes(&half, &ratings, &scores, &mut out);
        // Tied pair is a draw between equals: W - E = 0, so both get (0.5 + 0.5) * 32/3.
        assert!((out[0] - out[1]).abs() < 1e-12);
        assert!((out[0] - 32.0 / 3.0).abs() < 1e-9);
        let mut ignore = half.clone();
        ignore.draws = DrawPolicy::Ignore;
        let mut out2 = [0.0; 4];
        table_changes(&ignore, &ratings, &scores, &mut out2);
        // Between equals an ignored draw and a half-point draw both contribute 0.
        assert_eq!(out, out2);
        // Between unequal players they differ.
        let ratings = [1700.0, 1500.0, 1500.0, 1500.0];
        table_changes(&half, &ratings, &scores, &mut out);
        table_changes(&ignore, &ratings, &scores, &mut out2);
        assert!(
            out[0] < out2[0],
            "a draw against a weaker player costs points"
        );
    }

    #[test]
    fn two_seat_table_equals_a_duel() {
        let p = RatingPoolParams::tantrix();
        let mut out = [0.0; 2];
        table_changes(&p, &[1612.0, 1488.0], &[1.0, 0.0], &mut out);
        assert_eq!(out[0], duel_change(&p, 1612.0, 1488.0, 1.0));
        assert_eq!(out[1], -out[0]);
    }

    #[test]
    fn cap_limits_changes() {
        let mut p = RatingPoolParams::ashes_poland();
        p.k = 100.0;
        assert_eq!(duel_change(&p, 1000.0, 1400.0, 1.0), 25.0);
        assert_eq!(duel_change(&p, 1400.0, 1000.0, 0.0), -25.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn tables_are_zero_sum_without_cap(
            ratings in prop::collection::vec(500.0f64..2500.0, 2..7),
            seed in any::<u64>(),
        ) {
            let n = ratings.len();
            let scores: Vec<f64> = (0..n).map(|i| ((seed >> (i * 3)) & 3) as f64).collect();
            let mut out = vec![0.0; n];
            for draws in [DrawPolicy::CountHalf, DrawPolicy::Ignore] {
                let mut p = RatingPoolParams::agricola_norway();
                p.draws = draws;
                table_changes(&p, &ratings, &scores, &mut out);
                prop_assert!(out.iter().sum::<f64>().abs() < 1e-9);
                for d in &out { prop_assert!(d.abs() <= p.k + 1e-9); }
            }
        }

        #[test]
        fn expected_scores_are_complementary(a in 0.0f64..3000.0, b in 0.0f64..3000.0) {
            let e = expected_score(a, b, 400.0) + expected_score(b, a, 400.0);
            prop_assert!((e - 1.0).abs() < 1e-12);
        }
    }
}
