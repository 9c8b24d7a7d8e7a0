//! Rulesets as data: how a tournament scores and breaks ties.
//!
//! Source: domain.md introduction ("the five documents are presets, not five programs") and
//! sections 3 and 5-9. A tournament picks a [`Preset`] and may override any part with a
//! [`RulesetOverride`]; [`Ruleset::with_override`] validates the result and answers field-level
//! [`FieldError`]s the HTTP layer can turn into problem+json.

use super::points::Points;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which scoring engine a ruleset uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Multi-player tables scored by place (Agricola Norway, seed 000).
    MultiPlayer,
    /// Multi-player tables plus bridge groups (Bridge-Agricola, seed 001).
    BridgeAgricola,
    /// Two teams of four on two tables, product scoring (seed 002). Matches, not standings.
    TeamDuplicate,
    /// Two-player Tantrix games, TP from the winning margin (seed 003).
    Tantrix,
    /// Two-player Ashes games, 3-1-0 with small points (seed 004).
    Ashes,
}

/// The rule documents a tournament can follow; each is a preset of scoring, tie-breaks,
/// table size and seating methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = RulesetPreset)]
pub enum Preset {
    /// Agricola Norway general rules (seed 000).
    AgricolaNorway,
    /// Bridge-Agricola cabin tournament 2025 (seed 001).
    BridgeAgricola,
    /// 2v2 team duplicate Agricola (seed 002).
    #[serde(rename = "team_duplicate_2v2")]
    TeamDuplicate2v2,
    /// Tantrix online tournaments, round robin / Swiss (seed 003).
    Tantrix,
    /// Ashes league 2017 (seed 004).
    AshesLeague,
}

impl Preset {
    /// Every preset, in the order of the seeds.
    pub const ALL: [Preset; 5] = [
        Preset::AgricolaNorway,
        Preset::BridgeAgricola,
        Preset::TeamDuplicate2v2,
        Preset::Tantrix,
        Preset::AshesLeague,
    ];

    /// The name a preset is stored and sent under (a tournament's `ruleset`). This is the one
    /// mapping between names and presets; everything else goes through it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AgricolaNorway => "agricola_norway",
            Self::BridgeAgricola => "bridge_agricola",
            Self::TeamDuplicate2v2 => "team_duplicate_2v2",
            Self::Tantrix => "tantrix",
            Self::AshesLeague => "ashes_league",
        }
    }

    /// The preset a stored name names.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Players per table under these rules (a team match seats 2 v 2 per table).
    pub fn default_table_size(self) -> i32 {
        match self {
            Self::Tantrix | Self::AshesLeague => 2,
            Self::AgricolaNorway | Self::BridgeAgricola | Self::TeamDuplicate2v2 => 4,
        }
    }
}

/// The kind of a round (domain.md section 3).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RoundKind {
    /// An ordinary (mandatory) game.
    Preliminary,
    /// A final round, played in fixed placement groups (seed 000, Bordsammensetning 9).
    Final,
    /// A voluntary game: players may stop before it (domain.md section 3).
    Voluntary,
    /// A tie-break / play-off game. Does not count towards TP totals.
    Playoff,
}

impl RoundKind {
    /// The kind of a stored or sent name (`"preliminary"`).
    pub fn parse(name: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }

    /// The name a kind is stored and sent under.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Preliminary => "preliminary",
            Self::Final => "final",
            Self::Voluntary => "voluntary",
            Self::Playoff => "playoff",
        }
    }
}

/// What a ranking is for; each purpose has its own tie-break order (seed 000, "Turneringspoeng
/// og tie breakers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// Ranking used to seat the next round (tie-break (c), then lot).
    Seeding,
    /// Ranking for qualification to the final (tie-break (b): most high placements).
    Qualification,
    /// The final standings (tie-break (b): placement in the final round(s)).
    Final,
}

/// A tie-break metric, identified by a stable key (Tabbycat-style). Every metric is computed in
/// memory from the rounds; the tie-break order is a list of these keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieBreakKey {
    /// Total tournament points (the primary ranking value; higher first).
    Tp,
    /// Total relative score over all games (seed 000 tie-break (a); seed 001 tie-breaker).
    RelativeScore,
    /// Most high placements: firsts, shared firsts, seconds, shared seconds, ... (seed 000 (b),
    /// qualification).
    HighPlacements,
    /// Places in the final rounds, last final round first; lower first (seed 000 (b), final).
    FinalRoundPlaces,
    /// VP plus bonus points in the previous game (seed 000 (c)).
    PrevGameTotal,
    /// VP in the previous game (seed 000 (c)).
    PrevGameVp,
    /// TP scored in games among the tied players (seed 003, Tie-Breaks 2).
    HeadToHead,
    /// Games won, draws count half (seed 003, Tie-Breaks 1 and 4).
    Wins,
    /// Sum of the actual winning margins, losses negative (seed 003, Tie-Breaks 4).
    Margins,
    /// Sum of the player's own game points / tiles (seed 003, Tie-Breaks 1 and 4).
    GamePoints,
    /// Ashes small points: wound tokens dealt (seed 004, Standard format).
    SmallPoints,
    /// Average match-win percentage of the opponents, each floored at 1/3, byes excluded
    /// (the usual Swiss tie-break; see docs/decisions/scoring-ashes-tiebreaks.md).
    OpponentsMatchWinPct,
    /// Average of the opponents' [`TieBreakKey::OpponentsMatchWinPct`].
    OpponentsOpponentsMatchWinPct,
}

impl TieBreakKey {
    /// The stable key used in JSON and in the standings' `tie_breaks` map.
    pub fn key(self) -> &'static str {
        match self {
            TieBreakKey::Tp => "tp",
            TieBreakKey::RelativeScore => "relative_score",
            TieBreakKey::HighPlacements => "high_placements",
            TieBreakKey::FinalRoundPlaces => "final_round_places",
            TieBreakKey::PrevGameTotal => "prev_game_total",
            TieBreakKey::PrevGameVp => "prev_game_vp",
            TieBreakKey::HeadToHead => "head_to_head",
            TieBreakKey::Wins => "wins",
            TieBreakKey::Margins => "margins",
            TieBreakKey::GamePoints => "game_points",
            TieBreakKey::SmallPoints => "small_points",
            TieBreakKey::OpponentsMatchWinPct => "opponents_match_win_pct",
            TieBreakKey::OpponentsOpponentsMatchWinPct => "opponents_opponents_match_win_pct",
        }
    }

    /// True when a lower value ranks higher.
    pub fn ascending(self) -> bool {
        matches!(self, TieBreakKey::FinalRoundPlaces)
    }

    /// Whether this metric means something for a format.
    pub fn applies_to(self, format: Format) -> bool {
        use TieBreakKey::*;
        match format {
            Format::MultiPlayer | Format::BridgeAgricola => matches!(
                self,
                Tp | RelativeScore
                    | HighPlacements
                    | FinalRoundPlaces
                    | PrevGameTotal
                    | PrevGameVp
                    | GamePoints
            ),
            Format::Tantrix => matches!(self, Tp | HeadToHead | Wins | Margins | GamePoints),
            Format::Ashes => matches!(
                self,
                Tp | HeadToHead
                    | Wins
                    | SmallPoints
                    | OpponentsMatchWinPct
                    | OpponentsOpponentsMatchWinPct
            ),
            Format::TeamDuplicate => false,
        }
    }
}

/// What the standings say about players still tied after every configured tie-break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unresolved {
    /// They are placed equal (seed 000: "anses de for likeplasserte").
    Equal,
    /// A lot decides (seed 000 (c)); drawn with the caller's random source or a recorded order.
    Lot,
    /// A play-off game decides (seed 003, Tie-Breaks 1 and 3); the standings flag it.
    Playoff,
}

/// The tie-break order for one purpose: keys in priority order (the first is normally `tp`),
/// then what to do with players still tied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieBreakOrder {
    /// Metrics compared in order.
    pub keys: Vec<TieBreakKey>,
    /// What happens to a tie none of the keys separates.
    pub unresolved: Unresolved,
    /// A play-off decides ties that the first this-many keys leave for a decisive place (first
    /// place, a prize or a qualification place); lesser ties go on to the remaining keys (seed
    /// 003, 10.3). None: every tie goes through every key.
    #[serde(default)]
    pub playoff_after: Option<usize>,
}

/// Tie-break orders per purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieBreaks {
    /// Seeding the next round.
    pub seeding: TieBreakOrder,
    /// Qualification for the final.
    pub qualification: TieBreakOrder,
    /// The final standings.
    pub final_standings: TieBreakOrder,
}

impl TieBreaks {
    /// The order for a purpose.
    pub fn for_purpose(&self, p: Purpose) -> &TieBreakOrder {
        match p {
            Purpose::Seeding => &self.seeding,
            Purpose::Qualification => &self.qualification,
            Purpose::Final => &self.final_standings,
        }
    }
}

/// Default weights by round kind (domain.md section 3: default 1, the final 1.25). A round may
/// carry its own weight, which wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundWeights {
    /// Preliminary rounds (default 1).
    pub preliminary: Points,
    /// Final rounds (Agricola Norway default 1.25; seed 000, last paragraph of TP section).
    #[serde(rename = "final")]
    pub final_round: Points,
    /// Voluntary rounds (default 1).
    pub voluntary: Points,
    /// Play-off games (default 1; they add no TP to totals anyway).
    pub playoff: Points,
}

impl RoundWeights {
    /// The default weight of a round kind.
    pub fn for_kind(&self, k: RoundKind) -> Points {
        match k {
            RoundKind::Preliminary => self.preliminary,
            RoundKind::Final => self.final_round,
            RoundKind::Voluntary => self.voluntary,
            RoundKind::Playoff => self.playoff,
        }
    }
}

/// Bridge-group scoring (seed 001, "Poengberegning"; domain.md section 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeRules {
    /// TP by rank within the bridge group, once for the placement criterion and once for the
    /// relative-score criterion: 5-3-1.5-0.5.
    pub group_tp_by_place: Vec<Points>,
}

/// Tantrix specifics (seed 003, rules 2, 7 and 9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TantrixRules {
    /// Cup (knockout) event: forfeits score 50-14 / 20-0 instead of 35-15 / 18-2.
    pub cup: bool,
    /// A player who forfeits more than this many games has all results voided (seed: 2).
    pub max_forfeits: u32,
    /// Minutes a player may use before losing 1 TP per further full minute (seed: 14).
    pub free_minutes: u32,
}

/// Ashes points (seed 004, Regulamin 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AshesRules {
    /// A win (3).
    pub win: Points,
    /// A bye (3).
    pub bye: Points,
    /// A draw, including "no win in time" (1).
    pub draw: Points,
    /// A loss (0).
    pub loss: Points,
}

/// A tournament's complete scoring description. Start from [`Ruleset::preset`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruleset {
    /// The scoring engine.
    pub format: Format,
    /// Seats per table (4 for Agricola, 2 for Tantrix/Ashes/team tables).
    pub players_per_table: u32,
    /// TP by place at a table, best first (10-6-3-1). Unused by Tantrix and Ashes.
    pub tp_by_place: Vec<Points>,
    /// Default weights per round kind.
    pub round_weights: RoundWeights,
    /// Tie-break orders per purpose.
    pub tie_breaks: TieBreaks,
    /// Bonus/malus per top player beaten in a clarification game (seed 000, Bordsammensetning
    /// 8: 3 TP).
    pub clarification_bonus: Points,
    /// Bridge-group scoring, for [`Format::BridgeAgricola`].
    #[serde(default)]
    pub bridge: Option<BridgeRules>,
    /// Tantrix specifics, for [`Format::Tantrix`].
    #[serde(default)]
    pub tantrix: Option<TantrixRules>,
    /// Ashes points, for [`Format::Ashes`].
    #[serde(default)]
    pub ashes: Option<AshesRules>,
    /// Who hears what after a referee's ruling (seed 000: a committee; seed 003: nobody).
    #[serde(default)]
    pub appeals: crate::domain::cases::Appeals,
}

/// Parts of a ruleset a tournament overrides; absent fields keep the preset's value (and are
/// left out when it is written, so no override writes `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesetOverride {
    /// Seats per table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players_per_table: Option<u32>,
    /// TP by place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tp_by_place: Option<Vec<Points>>,
    /// Default weights per round kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_weights: Option<RoundWeights>,
    /// Tie-break orders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tie_breaks: Option<TieBreaks>,
    /// Clarification bonus/malus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clarification_bonus: Option<Points>,
    /// Bridge rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge: Option<BridgeRules>,
    /// Tantrix rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tantrix: Option<TantrixRules>,
    /// Ashes rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ashes: Option<AshesRules>,
}

/// One thing wrong with a ruleset: which field (a JSON path like `tp_by_place[2]`) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    /// The field at fault, as a JSON path.
    pub field: String,
    /// What is wrong, in words for the organiser.
    pub problem: String,
}

/// A ruleset that failed validation; lists every field at fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesetError {
    /// The problems found.
    pub errors: Vec<FieldError>,
}

impl fmt::Display for RulesetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid ruleset:")?;
        for e in &self.errors {
            write!(f, " {}: {};", e.field, e.problem)?;
        }
        Ok(())
    }
}

impl std::error::Error for RulesetError {}

fn p(n: i64, d: i64) -> Points {
    Points::new(n, d).expect("constant")
}

fn order(keys: &[TieBreakKey], unresolved: Unresolved) -> TieBreakOrder {
    TieBreakOrder {
        keys: keys.to_vec(),
        unresolved,
        playoff_after: None,
    }
}

impl Ruleset {
    /// A tournament's ruleset: the preset its stored `ruleset` names, with its stored
    /// `ruleset_overrides` applied (validated against the preset).
    pub fn for_tournament(
        preset: Preset,
        overrides: &serde_json::Value,
    ) -> Result<Ruleset, String> {
        let base = Ruleset::preset(preset);
        if overrides.as_object().is_some_and(|o| o.is_empty()) || overrides.is_null() {
            return Ok(base);
        }
        let o: RulesetOverride = serde_json::from_value(overrides.clone())
            .map_err(|e| format!("bad ruleset overrides: {e}"))?;
        base.with_override(&o).map_err(|e| e.to_string())
    }

    /// The ruleset of a rule document.
    // layout: long: a table of data, one entry per rule document, each read against its seed.
    pub fn preset(preset: Preset) -> Ruleset {
        use crate::domain::cases::Appeals;
        use TieBreakKey::*;
        let unit = RoundWeights {
            preliminary: Points::ONE,
            final_round: Points::ONE,
            voluntary: Points::ONE,
            playoff: Points::ONE,
        };
        match preset {
            // Seed 000, "Turneringspoeng og tie breakers".
            Preset::AgricolaNorway => Ruleset {
                format: Format::MultiPlayer,
                players_per_table: 4,
                tp_by_place: vec![p(10, 1), p(6, 1), p(3, 1), p(1, 1)],
                round_weights: RoundWeights {
                    final_round: p(5, 4),
                    ..unit
                },
                tie_breaks: TieBreaks {
                    seeding: order(
                        &[Tp, RelativeScore, PrevGameTotal, PrevGameVp],
                        Unresolved::Lot,
                    ),
                    qualification: order(&[Tp, RelativeScore, HighPlacements], Unresolved::Equal),
                    final_standings: order(
                        &[Tp, RelativeScore, FinalRoundPlaces],
                        Unresolved::Equal,
                    ),
                },
                clarification_bonus: p(3, 1),
                bridge: None,
                tantrix: None,
                ashes: None,
                appeals: Appeals::Committee,
            },
            // Seed 001, "Poengberegning": tie-breaker relative score. The final weight is not
            // stated there; we keep seed 000's default 1.25 (docs/decisions/scoring-rules.md).
            Preset::BridgeAgricola => Ruleset {
                format: Format::BridgeAgricola,
                players_per_table: 4,
                tp_by_place: vec![p(10, 1), p(6, 1), p(3, 1), p(1, 1)],
                round_weights: RoundWeights {
                    final_round: p(5, 4),
                    ..unit
                },
                tie_breaks: TieBreaks {
                    seeding: order(&[Tp, RelativeScore], Unresolved::Lot),
                    qualification: order(&[Tp, RelativeScore], Unresolved::Equal),
                    final_standings: order(&[Tp, RelativeScore], Unresolved::Equal),
                },
                clarification_bonus: p(3, 1),
                bridge: Some(BridgeRules {
                    group_tp_by_place: vec![p(5, 1), p(3, 1), p(3, 2), p(1, 2)],
                }),
                tantrix: None,
                ashes: None,
                appeals: Appeals::Committee,
            },
            // Seed 002: matches are decided by the six-step comparison (see team.rs).
            Preset::TeamDuplicate2v2 => Ruleset {
                format: Format::TeamDuplicate,
                players_per_table: 4,
                tp_by_place: vec![],
                round_weights: unit,
                tie_breaks: TieBreaks {
                    seeding: order(&[], Unresolved::Lot),
                    qualification: order(&[], Unresolved::Lot),
                    final_standings: order(&[], Unresolved::Lot),
                },
                clarification_bonus: Points::ZERO,
                bridge: None,
                tantrix: None,
                ashes: None,
                appeals: Appeals::Committee,
            },
            // Seed 003, rule 10: head-to-head, then a play-off for qualification places; lesser
            // ties by wins, margins, points.
            Preset::Tantrix => Ruleset {
                format: Format::Tantrix,
                players_per_table: 2,
                tp_by_place: vec![],
                round_weights: unit,
                tie_breaks: TieBreaks {
                    seeding: order(
                        &[Tp, HeadToHead, Wins, Margins, GamePoints],
                        Unresolved::Lot,
                    ),
                    // Rule 10.3: "Sind danach noch Spieler gleich und geht es um einen
                    // Qualifikationsplatz, den ersten Platz eines Finales oder einen Preis, so
                    // entscheidet ein Stichkampf"; lesser ties: wins, margins, points.
                    qualification: TieBreakOrder {
                        playoff_after: Some(2),
                        ..order(
                            &[Tp, HeadToHead, Wins, Margins, GamePoints],
                            Unresolved::Equal,
                        )
                    },
                    final_standings: TieBreakOrder {
                        playoff_after: Some(2),
                        ..order(
                            &[Tp, HeadToHead, Wins, Margins, GamePoints],
                            Unresolved::Equal,
                        )
                    },
                },
                clarification_bonus: Points::ZERO,
                bridge: None,
                tantrix: Some(TantrixRules {
                    cup: false,
                    max_forfeits: 2,
                    free_minutes: 14,
                }),
                ashes: None,
                // Rule 15: "Die Entscheidung des Turnierleiters ist in allen Angelegenheiten
                // maßgebend" - no appeal.
                appeals: Appeals::LeaderFinal,
            },
            // Seed 004, Standard format and Regulamin 6; Swiss tie-breaks after small points
            // are our choice (docs/decisions/scoring-ashes-tiebreaks.md).
            Preset::AshesLeague => {
                let keys = [
                    Tp,
                    SmallPoints,
                    OpponentsMatchWinPct,
                    OpponentsOpponentsMatchWinPct,
                ];
                Ruleset {
                    format: Format::Ashes,
                    players_per_table: 2,
                    tp_by_place: vec![],
                    round_weights: unit,
                    tie_breaks: TieBreaks {
                        seeding: order(&keys, Unresolved::Lot),
                        qualification: order(&keys, Unresolved::Equal),
                        final_standings: order(&keys, Unresolved::Equal),
                    },
                    clarification_bonus: Points::ZERO,
                    bridge: None,
                    tantrix: None,
                    ashes: Some(AshesRules {
                        win: p(3, 1),
                        bye: p(3, 1),
                        draw: p(1, 1),
                        loss: p(0, 1),
                    }),
                    appeals: Appeals::Committee,
                }
            }
        }
    }

    /// How many seats a table's result may have under these rules: a place-scored table of
    /// `players_per_table` or one fewer after a withdrawal (seed 000, opening paragraph); a game
    /// of two (seeds 003, 004; an Ashes bye is a table of one, seed 004 point 6); a team table
    /// of 2 v 2 (seed 002).
    pub fn scored_table_seats(&self) -> std::ops::RangeInclusive<u32> {
        let n = self.players_per_table;
        match self.format {
            Format::MultiPlayer | Format::BridgeAgricola => n.saturating_sub(1).max(1)..=n,
            Format::Tantrix => 2..=2,
            Format::Ashes => 1..=2,
            Format::TeamDuplicate => 4..=4,
        }
    }

    /// How many players a drawn table may seat: what [`Ruleset::scored_table_seats`] accepts,
    /// without the one-seat table of an Ashes bye (a bye is drawn as a bye, not as a table).
    pub fn drawn_table_seats(&self) -> std::ops::RangeInclusive<u32> {
        let scored = self.scored_table_seats();
        match self.format {
            Format::Ashes => 2..=*scored.end(),
            _ => scored,
        }
    }

    /// This ruleset with a tournament's overrides applied, validated.
    pub fn with_override(&self, o: &RulesetOverride) -> Result<Ruleset, RulesetError> {
        let mut r = self.clone();
        if let Some(v) = o.players_per_table {
            r.players_per_table = v;
        }
        if let Some(v) = &o.tp_by_place {
            r.tp_by_place = v.clone();
        }
        if let Some(v) = &o.round_weights {
            r.round_weights = v.clone();
        }
        if let Some(v) = &o.tie_breaks {
            r.tie_breaks = v.clone();
        }
        if let Some(v) = o.clarification_bonus {
            r.clarification_bonus = v;
        }
        if o.bridge.is_some() {
            r.bridge = o.bridge.clone();
        }
        if o.tantrix.is_some() {
            r.tantrix = o.tantrix.clone();
        }
        if o.ashes.is_some() {
            r.ashes = o.ashes.clone();
        }
        r.validate()?;
        Ok(r)
    }

    /// Checks the ruleset; lists every field at fault.
    pub fn validate(&self) -> Result<(), RulesetError> {
        let mut errors = Vec::new();
        let mut err = |field: String, problem: &str| {
            errors.push(FieldError {
                field,
                problem: problem.to_string(),
            })
        };
        let placed = matches!(self.format, Format::MultiPlayer | Format::BridgeAgricola);
        match self.format {
            Format::MultiPlayer | Format::BridgeAgricola => {
                if !(2..=8).contains(&self.players_per_table) {
                    err(
                        "players_per_table".into(),
                        "must be between 2 and 8 for place-scored tables",
                    );
                }
            }
            Format::Tantrix | Format::Ashes => {
                if self.players_per_table != 2 {
                    err("players_per_table".into(), "must be 2 for this format");
                }
            }
            Format::TeamDuplicate => {
                if self.players_per_table != 4 {
                    err(
                        "players_per_table".into(),
                        "must be 4 (2 vs 2) for team duplicate",
                    );
                }
            }
        }
        if placed {
            if self.tp_by_place.len() != self.players_per_table as usize {
                err(
                    "tp_by_place".into(),
                    "must list one value per place (as many as players_per_table)",
                );
            }
            check_table(&self.tp_by_place, "tp_by_place", &mut err);
        }
        for (name, w) in [
            ("preliminary", self.round_weights.preliminary),
            ("final", self.round_weights.final_round),
            ("voluntary", self.round_weights.voluntary),
            ("playoff", self.round_weights.playoff),
        ] {
            if w <= Points::ZERO || w > Points::int(100) {
                err(
                    format!("round_weights.{name}"),
                    "must be greater than 0 and at most 100",
                );
            }
        }
        if self.clarification_bonus.is_negative() {
            err("clarification_bonus".into(), "must not be negative");
        }
        for (pname, o) in [
            ("seeding", &self.tie_breaks.seeding),
            ("qualification", &self.tie_breaks.qualification),
            ("final_standings", &self.tie_breaks.final_standings),
        ] {
            for (i, k) in o.keys.iter().enumerate() {
                if !k.applies_to(self.format) {
                    err(
                        format!("tie_breaks.{pname}.keys[{i}]"),
                        "this tie-break does not apply to the ruleset's format",
                    );
                }
                if o.keys[..i].contains(k) {
                    err(format!("tie_breaks.{pname}.keys[{i}]"), "listed twice");
                }
            }
        }
        self.validate_sections(&mut err);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(RulesetError { errors })
        }
    }

    /// The format-specific sections: each is required by its format and refused by others.
    fn validate_sections(&self, err: &mut impl FnMut(String, &str)) {
        match (self.format, &self.bridge) {
            (Format::BridgeAgricola, None) => {
                err("bridge".into(), "required for the bridge_agricola format")
            }
            (Format::BridgeAgricola, Some(b)) => {
                if b.group_tp_by_place.is_empty() {
                    err("bridge.group_tp_by_place".into(), "must not be empty");
                }
                check_table(&b.group_tp_by_place, "bridge.group_tp_by_place", err);
            }
            (_, Some(_)) => err(
                "bridge".into(),
                "only allowed for the bridge_agricola format",
            ),
            _ => {}
        }
        match (self.format, &self.tantrix) {
            (Format::Tantrix, None) => err("tantrix".into(), "required for the tantrix format"),
            (Format::Tantrix, Some(t)) if t.free_minutes > 120 => {
                err("tantrix.free_minutes".into(), "must be at most 120")
            }
            (Format::Tantrix, Some(_)) => {}
            (_, Some(_)) => err("tantrix".into(), "only allowed for the tantrix format"),
            _ => {}
        }
        match (self.format, &self.ashes) {
            (Format::Ashes, None) => err("ashes".into(), "required for the ashes format"),
            (Format::Ashes, Some(a)) => {
                if a.loss.is_negative() {
                    err("ashes.loss".into(), "must not be negative");
                }
                if a.draw < a.loss {
                    err(
                        "ashes.draw".into(),
                        "must be at least the points for a loss",
                    );
                }
                if a.win < a.draw {
                    err("ashes.win".into(), "must be at least the points for a draw");
                }
                if a.bye < a.loss || a.bye > a.win {
                    err("ashes.bye".into(), "must lie between a loss and a win");
                }
            }
            (_, Some(_)) => err("ashes".into(), "only allowed for the ashes format"),
            _ => {}
        }
    }
}

fn check_table(table: &[Points], name: &str, err: &mut impl FnMut(String, &str)) {
    for (i, v) in table.iter().enumerate() {
        if v.is_negative() {
            err(format!("{name}[{i}]"), "must not be negative");
        }
        if i > 0 && *v > table[i - 1] {
            err(
                format!("{name}[{i}]"),
                "must not be more than the place before it",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_validate() {
        for p in [
            Preset::AgricolaNorway,
            Preset::BridgeAgricola,
            Preset::TeamDuplicate2v2,
            Preset::Tantrix,
            Preset::AshesLeague,
        ] {
            Ruleset::preset(p).validate().unwrap();
        }
    }

    #[test]
    fn agricola_final_weight_gives_12_5() {
        let r = Ruleset::preset(Preset::AgricolaNorway);
        let w = r.round_weights.for_kind(RoundKind::Final);
        let tps: Vec<String> = r.tp_by_place.iter().map(|t| (*t * w).to_string()).collect();
        assert_eq!(tps, ["12.50", "7.50", "3.75", "1.25"]);
    }

    #[test]
    fn override_reports_fields() {
        let r = Ruleset::preset(Preset::AgricolaNorway);
        let ok = r
            .with_override(&RulesetOverride {
                tp_by_place: Some(vec![4.into(), 2.into(), 1.into(), 0.into()]),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(ok.tp_by_place[0], Points::int(4));
        let bad = r
            .with_override(&RulesetOverride {
                tp_by_place: Some(vec![4.into(), 6.into(), Points::int(-1)]),
                round_weights: Some(RoundWeights {
                    preliminary: Points::ZERO,
                    ..r.round_weights.clone()
                }),
                tie_breaks: Some(TieBreaks {
                    seeding: order(&[TieBreakKey::SmallPoints], Unresolved::Lot),
                    ..r.tie_breaks.clone()
                }),
                ..Default::default()
            })
            .unwrap_err();
        let fields: Vec<&str> = bad.errors.iter().map(|e| e.field.as_str()).collect();
        assert!(fields.contains(&"tp_by_place"));
        assert!(fields.contains(&"tp_by_place[1]"));
        assert!(fields.contains(&"tp_by_place[2]"));
        assert!(fields.contains(&"round_weights.preliminary"));
        assert!(fields.contains(&"tie_breaks.seeding.keys[0]"));
    }

    #[test]
    fn override_json_rejects_unknown_fields() {
        let e = serde_json::from_str::<RulesetOverride>(r#"{"tp_table": [1]}"#);
        assert!(e.is_err());
        let o: RulesetOverride = serde_json::from_str(r#"{"tp_by_place": [3, 1, 0, 0]}"#).unwrap();
        assert_eq!(o.tp_by_place.unwrap()[0], Points::int(3));
    }
}
