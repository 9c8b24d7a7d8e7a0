//! 2v2 team duplicate Agricola (seed 002; domain.md section 7).
//!
//! Each team has pair A (plays table A) and pair B (plays table B). At each table a team's score
//! is the product of its two players' scores; the higher product is the team's H, the lower its
//! L. The winner is found by comparing, higher wins, in order: (1) L, (2) H, (3) the lowest
//! individual score of the four members, (4) the highest, (5) the second lowest, (6) the second
//! highest. All six equal: a draw, settled by lot ([`settle_draw_by_lot`]).

use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use serde::{Deserialize, Serialize};

/// Points deducted per rule violation (seed 002: the referee gives -5 per violation, no limit).
pub const PENALTY_PER_VIOLATION: i64 = 5;

/// One team member's result at their table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberResult {
    /// The player.
    pub player: PlayerId,
    /// The player's game score.
    pub score: i64,
    /// Rule violations the referee recorded (-5 points each, applied before products).
    #[serde(default)]
    pub violations: u32,
}

impl MemberResult {
    /// The individual score after penalties.
    pub fn individual(&self) -> i64 {
        self.score - PENALTY_PER_VIOLATION * self.violations as i64
    }
}

/// A team's results in one match: its A pair on table A and its B pair on table B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamResult {
    /// The A pair's results (table A).
    pub table_a: [MemberResult; 2],
    /// The B pair's results (table B).
    pub table_b: [MemberResult; 2],
}

/// The six compared values of a team, in comparison order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TeamValues {
    /// (1) The lower product.
    pub l: i128,
    /// (2) The higher product.
    pub h: i128,
    /// (3) The lowest individual score.
    pub lowest: i64,
    /// (4) The highest individual score.
    pub highest: i64,
    /// (5) The second-lowest individual score.
    pub second_lowest: i64,
    /// (6) The second-highest individual score.
    pub second_highest: i64,
    /// The product on table A.
    pub product_a: i128,
    /// The product on table B.
    pub product_b: i128,
}

impl TeamValues {
    /// Computes the values of a team (penalties applied to the individual scores first).
    pub fn of(t: &TeamResult) -> TeamValues {
        let a = t.table_a[0].individual() as i128 * t.table_a[1].individual() as i128;
        let b = t.table_b[0].individual() as i128 * t.table_b[1].individual() as i128;
        let mut s = [
            t.table_a[0].individual(),
            t.table_a[1].individual(),
            t.table_b[0].individual(),
            t.table_b[1].individual(),
        ];
        s.sort();
        TeamValues {
            l: a.min(b),
            h: a.max(b),
            lowest: s[0],
            highest: s[3],
            second_lowest: s[1],
            second_highest: s[2],
            product_a: a,
            product_b: b,
        }
    }

    fn steps(&self) -> [i128; 6] {
        [
            self.l,
            self.h,
            self.lowest as i128,
            self.highest as i128,
            self.second_lowest as i128,
            self.second_highest as i128,
        ]
    }
}

/// Who won a team match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchOutcome {
    /// The first team given won.
    FirstWins,
    /// The second team given won.
    SecondWins,
    /// All six values equal: a draw, to be settled by lot.
    Draw,
}

/// The comparison of two teams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchComparison {
    /// Winner or draw.
    pub outcome: MatchOutcome,
    /// The step (1-6) that decided it; `None` for a draw.
    pub decided_at_step: Option<u8>,
    /// The first team's values.
    pub first: TeamValues,
    /// The second team's values.
    pub second: TeamValues,
}

/// Compares two teams' results in one match with the six-step rule (seed 002; domain.md
/// section 7).
pub fn compare_match(first: &TeamResult, second: &TeamResult) -> MatchComparison {
    let (x, y) = (TeamValues::of(first), TeamValues::of(second));
    let (sx, sy) = (x.steps(), y.steps());
    let step = (0..6).find(|&i| sx[i] != sy[i]);
    let outcome = match step {
        Some(i) if sx[i] > sy[i] => MatchOutcome::FirstWins,
        Some(_) => MatchOutcome::SecondWins,
        None => MatchOutcome::Draw,
    };
    MatchComparison {
        outcome,
        decided_at_step: step.map(|i| i as u8 + 1),
        first: x,
        second: y,
    }
}

/// Settles a drawn match by lot with the tournament's random source: returns
/// [`MatchOutcome::FirstWins`] or [`MatchOutcome::SecondWins`] (one `below(2)` draw; record the
/// result).
pub fn settle_draw_by_lot(rng: &mut DrawRng) -> MatchOutcome {
    if rng.below(2) == 0 {
        MatchOutcome::FirstWins
    } else {
        MatchOutcome::SecondWins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(p: i64, s: i64) -> MemberResult {
        MemberResult {
            player: PlayerId(p),
            score: s,
            violations: 0,
        }
    }

    fn team(base: i64, s: [i64; 4]) -> TeamResult {
        TeamResult {
            table_a: [m(base, s[0]), m(base + 1, s[1])],
            table_b: [m(base + 2, s[2]), m(base + 3, s[3])],
        }
    }

    #[test]
    fn l_decides_first() {
        // Team 1: 40*30 = 1200, 35*35 = 1225 -> L 1200, H 1225.
        // Team 2: 50*20 = 1000, 60*40 = 2400 -> L 1000: team 1 wins on L despite lower H.
        let c = compare_match(&team(1, [40, 30, 35, 35]), &team(5, [50, 20, 60, 40]));
        assert_eq!(c.outcome, MatchOutcome::FirstWins);
        assert_eq!(c.decided_at_step, Some(1));
        assert_eq!((c.first.l, c.first.h), (1200, 1225));
    }

    #[test]
    fn later_steps_and_draw() {
        // Same L and H (1200, 1200) but different individual spreads: 40*30 vs 60*20.
        let c = compare_match(&team(1, [40, 30, 40, 30]), &team(5, [60, 20, 40, 30]));
        assert_eq!(c.decided_at_step, Some(3));
        assert_eq!(c.outcome, MatchOutcome::FirstWins);
        let c = compare_match(&team(1, [40, 30, 40, 30]), &team(5, [30, 40, 30, 40]));
        assert_eq!(c.outcome, MatchOutcome::Draw);
        assert_eq!(c.decided_at_step, None);
    }

    #[test]
    fn penalties_apply_before_products() {
        let mut t = team(1, [40, 30, 35, 35]);
        t.table_a[0].violations = 2; // 40 - 10 = 30 -> 900
        let v = TeamValues::of(&t);
        assert_eq!(v.product_a, 900);
        assert_eq!(v.l, 900);
    }

    #[test]
    fn lot_is_reproducible() {
        let a = settle_draw_by_lot(&mut DrawRng::from_seed([3; 32]));
        let b = settle_draw_by_lot(&mut DrawRng::from_seed([3; 32]));
        assert_eq!(a, b);
        assert_ne!(a, MatchOutcome::Draw);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn comparison_is_antisymmetric(a in prop::array::uniform4(0i64..60), b in prop::array::uniform4(0i64..60)) {
            let (x, y) = (team(1, a), team(5, b));
            let c1 = compare_match(&x, &y).outcome;
            let c2 = compare_match(&y, &x).outcome;
            let flipped = match c2 {
                MatchOutcome::FirstWins => MatchOutcome::SecondWins,
                MatchOutcome::SecondWins => MatchOutcome::FirstWins,
                MatchOutcome::Draw => MatchOutcome::Draw,
            };
            prop_assert_eq!(c1, flipped);
        }
    }
}
