//! Bridge-group TP for Bridge-Agricola (seed 001, "Poengberegning"; domain.md section 6).
//!
//! A bridge group holds the players of different tables who had the same hand. It hands out
//! 20 TP: 10 by the members' places at their own tables and 10 by their relative scores at their
//! own tables, each ranked within the group with 5-3-1.5-0.5, ties sharing.

use super::{share_places, Points, Ruleset, ScoringError, TableScore};
use crate::domain::ids::PlayerId;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// A bridge-group member's table result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeMember {
    /// The player.
    pub player: PlayerId,
    /// Place at their own table (1 = best; shared places use the best shared place).
    pub table_place: u32,
    /// Relative score at their own table.
    pub relative_score: Points,
}

/// A player's bridge TP for one round (weight applied).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeScore {
    /// The player.
    pub player: PlayerId,
    /// Index of the bridge group in the round.
    pub group: usize,
    /// TP from the placement criterion.
    pub placement_tp: Points,
    /// TP from the relative-score criterion.
    pub relative_tp: Points,
}

/// Scores one bridge group (unweighted): per member, (placement TP, relative-score TP), in input
/// order. `group_tp` is the ruleset's `bridge.group_tp_by_place` (5-3-1.5-0.5).
pub fn score_group(group_tp: &[Points], members: &[BridgeMember]) -> Vec<(Points, Points)> {
    let by_place: Vec<Points> = members
        .iter()
        .map(|m| -Points::int(m.table_place as i64))
        .collect();
    let by_rel: Vec<Points> = members.iter().map(|m| m.relative_score).collect();
    let a = share_places(&by_place, group_tp);
    let b = share_places(&by_rel, group_tp);
    a.iter().zip(&b).map(|(x, y)| (x.2, y.2)).collect()
}

/// Scores all bridge groups of a round from the already scored tables.
pub fn score_groups(
    ruleset: &Ruleset,
    tables: &[TableScore],
    groups: &[Vec<PlayerId>],
    weight: Points,
) -> Result<Vec<BridgeScore>, ScoringError> {
    let group_tp = ruleset
        .bridge
        .as_ref()
        .map(|b| b.group_tp_by_place.clone())
        .unwrap_or_default();
    let mut at: HashMap<PlayerId, BridgeMember> = HashMap::new();
    for t in tables {
        for s in &t.seats {
            at.insert(
                s.player,
                BridgeMember {
                    player: s.player,
                    table_place: s.place,
                    relative_score: s.relative_score,
                },
            );
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        if g.len() > group_tp.len() {
            return Err(ScoringError::BridgeGroupTooLarge {
                group: gi + 1,
                size: g.len(),
            });
        }
        let mut members = Vec::with_capacity(g.len());
        for p in g {
            let m = at.get(p).ok_or(ScoringError::NotSeated { player: *p })?;
            if !seen.insert(*p) {
                return Err(ScoringError::DuplicatePlayer {
                    player: *p,
                    round: 0,
                });
            }
            members.push(m.clone());
        }
        for (m, (a, b)) in members.iter().zip(score_group(&group_tp, &members)) {
            out.push(BridgeScore {
                player: m.player,
                group: gi,
                placement_tp: a * weight,
                relative_tp: b * weight,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{score_round, Preset, RoundInput, RoundKind, SeatResult, TableResult};
    use super::*;
    use proptest::prelude::*;

    fn gt() -> Vec<Points> {
        Ruleset::preset(Preset::BridgeAgricola)
            .bridge
            .unwrap()
            .group_tp_by_place
    }

    fn m(p: i64, place: u32, rel: &str) -> BridgeMember {
        BridgeMember {
            player: PlayerId(p),
            table_place: place,
            relative_score: rel.parse().unwrap(),
        }
    }

    #[test]
    fn domain_md_section_6_worked_example() {
        // A, B, C, D placed 1, 2, 1, 2; relative scores 3.50, 4.25, 7.50, 0.75.
        let members = [
            m(1, 1, "3.50"),
            m(2, 2, "4.25"),
            m(3, 1, "7.50"),
            m(4, 2, "0.75"),
        ];
        let s = score_group(&gt(), &members);
        let placement: Vec<String> = s.iter().map(|x| x.0.to_string()).collect();
        let relative: Vec<String> = s.iter().map(|x| x.1.to_string()).collect();
        let total: Vec<String> = s.iter().map(|x| (x.0 + x.1).to_string()).collect();
        assert_eq!(placement, ["4.00", "1.00", "4.00", "1.00"]);
        assert_eq!(relative, ["1.50", "3.00", "5.00", "0.50"]);
        assert_eq!(total, ["5.50", "4.00", "9.00", "1.50"]);
    }

    #[test]
    fn round_adds_table_and_bridge_tp_and_hands_out_40_per_table_and_group() {
        let r = Ruleset::preset(Preset::BridgeAgricola);
        let t = |ids: [i64; 4], sc: [i64; 4]| TableResult {
            seats: ids
                .iter()
                .zip(sc)
                .map(|(&p, s)| SeatResult::new(PlayerId(p), s))
                .collect(),
            clarification: None,
            double_crash: false,
        };
        let round = RoundInput {
            number: 1,
            kind: RoundKind::Preliminary,
            weight: None,
            tables: vec![
                t([1, 2, 3, 4], [50, 40, 30, 20]),
                t([5, 6, 7, 8], [45, 45, 30, 10]),
                t([9, 10, 11, 12], [60, 20, 20, 20]),
                t([13, 14, 15, 16], [33, 34, 35, 36]),
            ],
            bridge_groups: (0..4)
                .map(|s| (0..4).map(|t| PlayerId(t * 4 + s + 1)).collect())
                .collect(),
            games_per_player: 1,
        };
        let s = score_round(&r, &round).unwrap();
        let total: Points = s.tp.iter().map(|x| x.1).sum();
        assert_eq!(total, Points::int(20 * 4 + 20 * 4));
        assert_eq!(s.bridge.len(), 16);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn group_hands_out_20(places in prop::collection::vec(1u32..5, 4), rels in prop::collection::vec(-20i64..20, 4)) {
            let members: Vec<BridgeMember> = (0..4).map(|i| BridgeMember {
                player: PlayerId(i as i64),
                table_place: places[i],
                relative_score: Points::int(rels[i]),
            }).collect();
            let s = score_group(&gt(), &members);
            let total: Points = s.iter().map(|x| x.0 + x.1).sum();
            prop_assert_eq!(total, Points::int(20));
            for i in 0..4 { for j in 0..4 {
                if rels[i] == rels[j] { prop_assert_eq!(s[i].1, s[j].1); }
                if places[i] == places[j] { prop_assert_eq!(s[i].0, s[j].0); }
            }}
        }
    }
}
