//! The scoring engine: results in, tournament points (TP) and standings out. Pure: no IO.
//!
//! Entry points for the HTTP layer:
//! - [`score_table`]: one table's raw results -> TP and place per player (show a table's TP as
//!   soon as its result is entered).
//! - [`score_round`]: a whole round, including Bridge-Agricola bridge groups.
//! - [`standings::compute_standings`]: standings after any round, for a [`Purpose`].
//! - [`team::compare_match`]: the 2v2 team duplicate six-step comparison.
//! - [`tantrix::cup_match`]: a Tantrix cup match between two players.
//!
//! Sources: domain.md sections 3 and 5-9, and the seeds each function names.

pub mod agricola;
pub mod ashes;
pub mod bridge;
pub mod penalty;
pub mod points;
pub mod ruleset;
pub mod standings;
pub mod tantrix;
pub mod team;
pub mod team_standings;

pub use points::Points;
pub use ruleset::{
    FieldError, Format, Preset, Purpose, RoundKind, Ruleset, RulesetError, RulesetOverride,
    TieBreakKey, TieBreakOrder, TieBreaks, Unresolved,
};
pub use standings::{compute_standings, StandingRow, Standings, StandingsInput, TieStatus};

use crate::domain::ids::PlayerId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// The result of a two-player game for formats where the score does not decide the winner
/// (Ashes: the Phoenixborn destroyed wins, a time-out is a draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// This player won.
    Win,
    /// A draw (Ashes: no win in time, 1:1).
    Draw,
    /// This player lost.
    Loss,
}

/// One seated player's raw result, as the referee enters it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The player.
    pub player: PlayerId,
    /// The game score: Agricola VP without bonus points, Tantrix tiles, Ashes wounds dealt.
    #[serde(default)]
    pub score: i64,
    /// Agricola bonus points; the game total is `score + bonus - penalty`.
    #[serde(default)]
    pub bonus: i64,
    /// Penalty points deducted from the game total (team duplicate: 5 per violation).
    #[serde(default)]
    pub penalty: i64,
    /// Thinking time used in seconds (Tantrix time penalty).
    #[serde(default)]
    pub time_used_secs: Option<u32>,
    /// The player did not show up / forfeited (Tantrix forfeits).
    #[serde(default)]
    pub forfeit: bool,
    /// Win/draw/loss where the score does not decide it (Ashes).
    #[serde(default)]
    pub outcome: Option<Outcome>,
}

impl SeatResult {
    /// A seat with just a player and a score.
    pub fn new(player: PlayerId, score: i64) -> SeatResult {
        SeatResult {
            player,
            score,
            bonus: 0,
            penalty: 0,
            time_used_secs: None,
            forfeit: false,
            outcome: None,
        }
    }

    /// The game total that decides places: `score + bonus - penalty`.
    pub fn total(&self) -> i64 {
        self.score + self.bonus - self.penalty
    }
}

/// A clarification game with bonus/malus (seed 000, Bordsammensetning 8): the two top-placed
/// and the two lowest-placed players of the standings before the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clarification {
    /// Places 1 and 2 before the game.
    pub top: [PlayerId; 2],
    /// The second-to-last and last before the game.
    pub bottom: [PlayerId; 2],
}

/// One table's raw results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableResult {
    /// The seated players. A 4-player table after a withdrawal has 3 seats.
    pub seats: Vec<SeatResult>,
    /// Set on the bonus/malus table of a clarification game.
    #[serde(default)]
    pub clarification: Option<Clarification>,
    /// Tantrix: both players crashed and the game vanished (weekend event): 23-23 draw.
    #[serde(default)]
    pub double_crash: bool,
}

/// One player's outcome at a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatScore {
    /// The player.
    pub player: PlayerId,
    /// Place at the table, 1 = best; players sharing a place get the best shared place.
    pub place: u32,
    /// How many players share this place (1 = alone).
    pub shared: u32,
    /// TP for this table, weight applied, bonus/malus included.
    pub tp: Points,
    /// Bonus (+) or malus (-) of a clarification game, included in `tp`.
    pub bonus_malus: Points,
    /// Relative score: own total minus the table's average (Agricola); own score minus the
    /// opponent's (two-player formats).
    pub relative_score: Points,
    /// The game total as scored (Tantrix forfeits: the recorded 50-14 / 35-15 tiles).
    pub game_total: i64,
    /// The result counted as a win (1), draw (1/2) or loss (0) for two-player formats.
    pub win_share: Points,
    /// The player forfeited this game.
    pub forfeit: bool,
    /// A bye (Ashes): no opponent.
    pub bye: bool,
}

/// A table's scores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableScore {
    /// One entry per seat, in seat order of the input.
    pub seats: Vec<SeatScore>,
    /// The TP the table handed out in total.
    pub tp_total: Points,
}

/// A user-fixable problem in the results given to the scoring engine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ScoringError {
    /// A table has more or fewer seats than the format allows.
    WrongSeatCount {
        /// The table's number in its round, as people count (from 1).
        table: usize,
        /// Seats given.
        got: usize,
        /// Allowed seats, e.g. "3 to 4".
        allowed: String,
    },
    /// A player appears twice in one round.
    DuplicatePlayer {
        /// The player.
        player: PlayerId,
        /// The round number.
        round: u32,
    },
    /// A player in a bridge group or clarification is not seated at the round's tables.
    NotSeated {
        /// The player.
        player: PlayerId,
    },
    /// A bridge group is larger than the TP table has places.
    BridgeGroupTooLarge {
        /// The group's number, as people count (from 1).
        group: usize,
        /// Its size.
        size: usize,
    },
    /// A two-player result is missing or inconsistent (e.g. both players won).
    InvalidOutcome {
        /// The table's number in its round, as people count (from 1).
        table: usize,
        /// What is wrong.
        problem: String,
    },
    /// A round is given twice to the standings.
    DuplicateRound {
        /// The round number.
        round: u32,
    },
    /// A round weight is zero or negative.
    InvalidWeight {
        /// The round number.
        round: u32,
    },
    /// The format has no such operation (team duplicate has matches, not tables).
    UnsupportedFormat {
        /// The format.
        format: Format,
    },
    /// The ruleset itself is invalid.
    InvalidRuleset(RulesetError),
}

impl fmt::Display for ScoringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScoringError::WrongSeatCount {
                table,
                got,
                allowed,
            } => write!(f, "table {table} has {got} seats, allowed {allowed}"),
            ScoringError::DuplicatePlayer { player, round } => {
                write!(f, "player {player} is seated twice in round {round}")
            }
            ScoringError::NotSeated { player } => {
                write!(f, "player {player} is not seated in this round")
            }
            ScoringError::BridgeGroupTooLarge { group, size } => {
                write!(f, "bridge group {group} has {size} players, too many")
            }
            ScoringError::InvalidOutcome { table, problem } => {
                write!(f, "table {table}: {problem}")
            }
            ScoringError::DuplicateRound { round } => write!(f, "round {round} is given twice"),
            ScoringError::InvalidWeight { round } => {
                write!(f, "round {round} has a weight that is not positive")
            }
            ScoringError::UnsupportedFormat { format } => {
                write!(f, "the {format:?} format does not support this operation")
            }
            ScoringError::InvalidRuleset(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ScoringError {}

/// Scores one table: TP (weight applied) and place per player. `table_number` (from 1, as
/// people count tables) is only used in error messages. Dispatches on the ruleset's format (see [`agricola::score_table`],
/// [`tantrix::score_game`], [`ashes::score_game`]). Bridge-group TP need the whole round: use
/// [`score_round`].
pub fn score_table(
    ruleset: &Ruleset,
    table: &TableResult,
    weight: Points,
    table_number: usize,
) -> Result<TableScore, ScoringError> {
    match ruleset.format {
        Format::MultiPlayer | Format::BridgeAgricola => {
            agricola::score_table(ruleset, table, weight, table_number)
        }
        Format::Tantrix => tantrix::score_game(ruleset, table, weight, table_number),
        Format::Ashes => ashes::score_game(ruleset, table, weight, table_number),
        Format::TeamDuplicate => Err(ScoringError::UnsupportedFormat {
            format: ruleset.format,
        }),
    }
}

/// A round as the HTTP layer stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundInput {
    /// The round number, 1-based.
    pub number: u32,
    /// Preliminary, final, voluntary or playoff.
    pub kind: RoundKind,
    /// The round's weight; `None` uses the ruleset's default for the kind.
    #[serde(default)]
    pub weight: Option<Points>,
    /// The tables with raw results. In a final round, list the tables in placement-group order
    /// (group 1 first).
    pub tables: Vec<TableResult>,
    /// Bridge groups (Bridge-Agricola): players holding the same hand, one per table.
    #[serde(default)]
    pub bridge_groups: Vec<Vec<PlayerId>>,
    /// Games each player plays in the round: a Tantrix cup match of several games (seed 003,
    /// Tie-Breaks 1) seats its two players at that many tables, and their TP add up. 1 (the
    /// default) everywhere else: a player at two tables is an error.
    #[serde(default = "one_game")]
    pub games_per_player: u32,
}

fn one_game() -> u32 {
    1
}

impl RoundInput {
    /// The weight in force: the round's own or the ruleset's default for its kind.
    pub fn effective_weight(&self, ruleset: &Ruleset) -> Points {
        self.weight
            .unwrap_or_else(|| ruleset.round_weights.for_kind(self.kind))
    }
}

/// A round's scores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundScore {
    /// The round number.
    pub number: u32,
    /// The weight applied.
    pub weight: Points,
    /// Per table, in input order.
    pub tables: Vec<TableScore>,
    /// Bridge-group TP per player (Bridge-Agricola only), group order.
    pub bridge: Vec<bridge::BridgeScore>,
    /// Total TP per player this round (table + bridge), sorted by player id.
    pub tp: Vec<(PlayerId, Points)>,
}

/// Scores a whole round: every table and, for Bridge-Agricola, every bridge group (seed 001:
/// "Table TP and bridge TP are added per game").
pub fn score_round(ruleset: &Ruleset, round: &RoundInput) -> Result<RoundScore, ScoringError> {
    let weight = round.effective_weight(ruleset);
    if weight <= Points::ZERO {
        return Err(ScoringError::InvalidWeight {
            round: round.number,
        });
    }
    let mut tables = Vec::with_capacity(round.tables.len());
    let mut tp: HashMap<PlayerId, Points> = HashMap::new();
    let mut games: HashMap<PlayerId, u32> = HashMap::new();
    for (i, t) in round.tables.iter().enumerate() {
        // Tables are given in number order (domain `RoundInput::tables`): table i is number i + 1.
        let s = score_table(ruleset, t, weight, i + 1).map_err(|e| match e {
            ScoringError::DuplicatePlayer { player, .. } => ScoringError::DuplicatePlayer {
                player,
                round: round.number,
            },
            e => e,
        })?;
        for seat in &s.seats {
            let played = games.entry(seat.player).or_default();
            *played += 1;
            if *played > round.games_per_player.max(1) {
                return Err(ScoringError::DuplicatePlayer {
                    player: seat.player,
                    round: round.number,
                });
            }
            *tp.entry(seat.player).or_default() += seat.tp;
        }
        tables.push(s);
    }
    let mut bridge_scores = Vec::new();
    if ruleset.format == Format::BridgeAgricola && !round.bridge_groups.is_empty() {
        bridge_scores = bridge::score_groups(ruleset, &tables, &round.bridge_groups, weight)
            .map_err(|e| match e {
                ScoringError::DuplicatePlayer { player, .. } => ScoringError::DuplicatePlayer {
                    player,
                    round: round.number,
                },
                e => e,
            })?;
        for b in &bridge_scores {
            *tp.entry(b.player).or_default() += b.placement_tp + b.relative_tp;
        }
    }
    let mut tp: Vec<(PlayerId, Points)> = tp.into_iter().collect();
    tp.sort_by_key(|(p, _)| *p);
    Ok(RoundScore {
        number: round.number,
        weight,
        tables,
        bridge: bridge_scores,
        tp,
    })
}

/// Shares `table` values among groups of equal players (seed 000: tied players share the TP of
/// the places they occupy). `ranks` are sort keys (higher better); returns per input index
/// (place, shared count, share of the table).
pub(crate) fn share_places(keys: &[Points], table: &[Points]) -> Vec<(u32, u32, Points)> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
    let mut out = vec![(0u32, 0u32, Points::ZERO); keys.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len() && keys[idx[j]] == keys[idx[i]] {
            j += 1;
        }
        let sum: Points = (i..j)
            .map(|k| table.get(k).copied().unwrap_or(Points::ZERO))
            .sum();
        let share = sum.div_int((j - i) as i64);
        for &m in &idx[i..j] {
            out[m] = ((i + 1) as u32, (j - i) as u32, share);
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod numbering_tests {
    use super::*;

    fn table(players: &[i64]) -> TableResult {
        TableResult {
            seats: players
                .iter()
                .map(|p| SeatResult::new(PlayerId(*p), 10 + p))
                .collect(),
            clarification: None,
            double_crash: false,
        }
    }

    fn round(tables: Vec<TableResult>) -> RoundInput {
        RoundInput {
            number: 1,
            kind: RoundKind::Preliminary,
            weight: None,
            tables,
            bridge_groups: vec![],
            games_per_player: 1,
        }
    }

    /// Issue 37, item 5: errors number tables as people do, from 1.
    #[test]
    fn errors_number_tables_from_one() {
        let tantrix = Ruleset::preset(Preset::Tantrix);
        let e =
            score_round(&tantrix, &round(vec![table(&[1, 2]), table(&[3, 4, 5, 6])])).unwrap_err();
        assert_eq!(e.to_string(), "table 2 has 4 seats, allowed 2");
        let ashes = Ruleset::preset(Preset::AshesLeague);
        let e = score_round(&ashes, &round(vec![table(&[1, 2])])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "table 1: each game needs a win, draw or loss"
        );
        let agricola = Ruleset::preset(Preset::AgricolaNorway);
        let e = score_table(&agricola, &table(&[1, 2]), Points::ONE, 3).unwrap_err();
        assert_eq!(e.to_string(), "table 3 has 2 seats, allowed 3 to 4");
    }
}
