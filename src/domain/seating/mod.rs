//! The seating (draw) engine: who sits where in a round.
//!
//! Pure rules, no IO. The HTTP layer loads the players, the standings after the previous round
//! and the history of who met whom, calls [`draw_round`] with the tournament's [`DrawRng`], stores
//! the returned [`Draw`] and shows its [`DrawReport`] to the organiser.
//!
//! Methods ([`SeatingMethod`]) and where their rules come from:
//! - 4-player tables, seed 000 "Bordsammensetning" (1)-(9), digested in domain.md section 4:
//!   `random`, `random_seeded`, `fixed_seeded`, `placement_even`, `swiss`, `danish`,
//!   `clarification`, `clarification_bonus`, `final_groups`.
//! - Bridge-Agricola, seed 001 (domain.md section 6): `bridge`.
//! - Team duplicate 2v2, seed 002 (domain.md section 7): `team_duplicate`.
//! - 2-player formats, seeds 003 and 004 (domain.md sections 4, 8, 9): `swiss_2p`,
//!   `round_robin`, `knockout`.
//!
//! Reproducibility: every random choice is taken from the one [`DrawRng`] passed in, in a fixed
//! order, and no hash map is ever iterated in a way that affects the result, so the same input
//! and seed give the same draw on any machine (golden tests pin this).

use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use utoipa::ToSchema;

pub mod bridge;
mod error;
mod fewest;
pub mod fit;
pub mod four_player;
pub mod remap;
mod round_options;
pub mod schedule;
pub mod team;
pub mod two_player;

pub use bridge::{plan_bridge_schedule, BRIDGE16_GROUPS, BRIDGE16_TABLES};
pub use error::SeatingError;
pub use round_options::RoundOptions;
pub use schedule::{plan_random_schedule, schedule_repeats};
pub use two_player::{ashes_round_range, check_ashes_rounds, knockout_bracket};

/// The seating method of a round. Serialized in snake_case (e.g. `"random_seeded"`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SeatingMethod {
    /// Random tables planned so players meet as many different opponents as possible over the
    /// event (seed 000, Bordsammensetning 1; domain.md 4.1). Option `rounds_remaining`.
    Random,
    /// Seeding groups of Y (Y = number of tables) by rating, spread one per table by lot
    /// (seed 000, Bordsammensetning 2; domain.md 4.2). Option `min_rated_games` (default 5).
    RandomSeeded,
    /// A predetermined rotation of the seeding groups that keeps one player per group per table
    /// and avoids repeat meetings (seed 000, Bordsammensetning 3; domain.md 4.3).
    FixedSeeded,
    /// Equal sums of placements on every table, fewest repeats among those
    /// (seed 000, Bordsammensetning 4; domain.md 4.4).
    PlacementEven,
    /// Swiss for 4-player tables (seed 000, Bordsammensetning 5; domain.md 4.5).
    Swiss,
    /// Places 1-4 on table 1, 5-8 on table 2, ... (seed 000, Bordsammensetning 6; domain.md 4.6).
    Danish,
    /// Places 1, 2, second-to-last and last on table 1, then 3-6, 7-10, ...
    /// (seed 000, Bordsammensetning 7; domain.md 4.7).
    Clarification,
    /// As `clarification`, with the fixed seats of the bonus/malus variant: places 1 and 2
    /// opposite, the two lowest draw lots for the seat to the top player's left
    /// (seed 000, Bordsammensetning 8 and Spesielle regler 1; domain.md 4.8).
    ClarificationBonus,
    /// Final placement groups of 4 by the standings (seed 000, Bordsammensetning 9; domain.md 4.9).
    FinalGroups,
    /// Bridge-Agricola: tables plus bridge groups with a shared deal (seed 001; domain.md 6).
    /// Options `rounds_remaining`, `final`.
    Bridge,
    /// Team duplicate 2v2 on tables A and B (seed 002; domain.md 7). Options `format`, `game`.
    TeamDuplicate,
    /// 2-player Swiss with score groups, floaters and byes (seeds 003/004; domain.md 4, 9).
    #[serde(rename = "swiss_2p")]
    Swiss2p,
    /// 2-player round robin by the circle method (seed 003; domain.md 8).
    RoundRobin,
    /// 2-player knockout (cup) bracket seeded by rating (seed 003; domain.md 4, 8).
    Knockout,
}

impl SeatingMethod {
    /// The option names this method accepts (anything else is rejected).
    pub fn accepted_options(self) -> &'static [&'static str] {
        use SeatingMethod::*;
        match self {
            Random => &["rounds_remaining"],
            RandomSeeded | FixedSeeded => &["min_rated_games"],
            Bridge => &["rounds_remaining", "final"],
            TeamDuplicate => &["format", "game"],
            Knockout => &["games_per_match"],
            _ => &[],
        }
    }

    /// The method of a stored or sent name (`"random_seeded"`).
    pub fn parse(name: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }

    /// The name a method is stored and sent under (`"random_seeded"`).
    pub fn as_str(self) -> &'static str {
        use SeatingMethod::*;
        match self {
            Random => "random",
            RandomSeeded => "random_seeded",
            FixedSeeded => "fixed_seeded",
            PlacementEven => "placement_even",
            Swiss => "swiss",
            Danish => "danish",
            Clarification => "clarification",
            ClarificationBonus => "clarification_bonus",
            FinalGroups => "final_groups",
            Bridge => "bridge",
            TeamDuplicate => "team_duplicate",
            Swiss2p => "swiss_2p",
            RoundRobin => "round_robin",
            Knockout => "knockout",
        }
    }
}

impl fmt::Display for SeatingMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A player who takes part in the round (withdrawn players are simply left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlayerEntry {
    /// The player.
    pub id: PlayerId,
    /// Rating on the tournament's list, if any: a double (shortest round-trip decimal) that
    /// anyone recomputing a draw must read with a correctly rounded parser, never rounded.
    #[serde(default)]
    pub rating: Option<f64>,
    /// Number of rated games behind the rating (seed 000: a rating score needs at least 5).
    #[serde(default)]
    pub rated_games: u32,
    /// A seeding group fixed earlier (1 = strongest). When any player has one, `random_seeded`
    /// and `fixed_seeded` use these groups instead of computing them from ratings.
    #[serde(default)]
    pub seeding_group: Option<u32>,
    /// Knockout seed (1 = top seed) from the first round's draw ([`Draw::seeds`]); pass it back in
    /// later knockout rounds so survivors meet in bracket order.
    #[serde(default)]
    pub seed: Option<u32>,
}

impl PlayerEntry {
    /// A player with no rating.
    pub fn new(id: i64) -> Self {
        Self {
            id: PlayerId(id),
            rating: None,
            rated_games: 0,
            seeding_group: None,
            seed: None,
        }
    }
}

/// One line of the standings after the previous round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Standing {
    /// The player.
    pub player: PlayerId,
    /// Place, 1 = best; equal places are allowed.
    pub place: u32,
    /// Points (TP or match points); used for 2-player Swiss score groups. When absent the score
    /// groups are the groups of equal place.
    #[serde(default)]
    pub score: Option<f64>,
}

/// Everything that happened before this round (all rounds of the tournament so far).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct History {
    /// Past tables, each the list of its players in seat order (seat 1 first).
    #[serde(default)]
    pub tables: Vec<Vec<PlayerId>>,
    /// Past bridge groups, each the list of its players.
    #[serde(default)]
    pub bridge_groups: Vec<Vec<PlayerId>>,
    /// Past 2-player pairings.
    #[serde(default)]
    pub pairings: Vec<[PlayerId; 2]>,
    /// Players who had a bye (2-player formats), once per bye.
    #[serde(default)]
    pub byes: Vec<PlayerId>,
}

/// A team of the duplicate 2v2 format (seed 002; domain.md 7): pair A and pair B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Team {
    /// The team's number within the tournament (its seed in a knockout).
    pub number: u32,
    /// Pair A (players A1, A2).
    pub pair_a: [PlayerId; 2],
    /// Pair B (players B1, B2).
    pub pair_b: [PlayerId; 2],
}

/// One planned round of a schedule: its tables (unordered seats) and, for bridge, its groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlannedRound {
    /// The tables, each a list of players (seat order is drawn when the round is drawn).
    pub tables: Vec<Vec<PlayerId>>,
    /// Bridge groups (empty for non-bridge plans); group `g` holds one player from each table.
    #[serde(default)]
    pub bridge_groups: Vec<Vec<PlayerId>>,
}

/// A plan for the remaining rounds, made by [`plan_random_schedule`] or
/// [`plan_bridge_schedule`]. The HTTP layer stores [`Draw::plan`] and passes it back as
/// [`DrawInput::plan`] for the next round; a plan that no longer matches the field is re-planned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Schedule {
    /// The planned rounds, next round first.
    pub rounds: Vec<PlannedRound>,
}

/// The seating algorithm new draws use (see [`DrawInput::algorithm`]).
///
/// - 1: the engine up to issue 44 (seeded draws: lots plus swap repair; random single rounds:
///   the tabu search alone).
/// - 2 (issue 44): the methods that promise fewest repeat meetings (`random` planning one round,
///   `random_seeded`, `fixed_seeded`, `bridge` planning one round) improve their tables by an
///   exact search (see `fewest.rs`) and report `repeats_lower_bound` and
///   `repeats_proven_minimal`. A draw that version 1 already made best is kept as it was.
pub const SEATING_ALGORITHM: u32 = 2;

fn first_algorithm() -> u32 {
    1
}

/// Everything a draw needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DrawInput {
    /// The version of the seating algorithm (1, 2, ...). Inputs stored before versions existed
    /// are version 1, so every published draw is recomputed by the algorithm that drew it; new
    /// draws use the current version (2).
    #[serde(default = "first_algorithm")]
    #[schema(default = 1, minimum = 1)]
    pub algorithm: u32,
    /// The round being drawn (1-based).
    pub round: u32,
    /// The seating method.
    pub method: SeatingMethod,
    /// The active players (withdrawn players left out).
    pub players: Vec<PlayerEntry>,
    /// The standings after the previous round, best first (not needed for round 1 or `random`).
    #[serde(default)]
    pub standings: Vec<Standing>,
    /// Who met whom so far.
    #[serde(default)]
    pub history: History,
    /// Method options (see [`SeatingMethod::accepted_options`]); unknown names are rejected.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub options: BTreeMap<String, serde_json::Value>,
    /// A stored plan from an earlier draw (`random`, `bridge`); its first round is used when it
    /// seats exactly the active players.
    #[serde(default)]
    pub plan: Option<Schedule>,
    /// Teams, for `team_duplicate` (in seed order).
    #[serde(default)]
    pub teams: Vec<Team>,
}

/// One table of the draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Table {
    /// Table number, 1-based.
    pub number: u32,
    /// The players in seat order: `seats[0]` sits on seat 1, play goes clockwise.
    pub seats: Vec<PlayerId>,
    /// The starting player, where the rules draw one by lot (seed 000, Spesielle regler 1). The
    /// rules announce it after the draft; the service may keep it hidden until then.
    pub starting_player: Option<PlayerId>,
    /// A label where the format names tables (team duplicate: `"A"`/`"B"`).
    #[serde(default)]
    pub label: Option<String>,
}

/// A bridge group (seed 001): one player from each table, all on the same seat position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BridgeGroup {
    /// Group number, 1-based.
    pub number: u32,
    /// The seat (1-based) all members take at their tables.
    pub seat: u32,
    /// The members, in table order.
    pub players: Vec<PlayerId>,
}

/// The shared deal of a bridge round (seed 001): one seat-position draw and one starting-position
/// draw for all tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SharedDeal {
    /// The seat drawn for each bridge group, by group number order.
    pub group_seats: Vec<u32>,
    /// The starting seat position (1-based), the same at every table.
    pub starting_seat: u32,
}

/// A team match of the duplicate format: two tables A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TeamMatch {
    /// Match number, 1-based.
    pub number: u32,
    /// The team whose pair A sits on seats 1 and 3 of table A.
    pub home_team: u32,
    /// The other team.
    pub away_team: u32,
    /// Number of table A in [`Draw::tables`].
    pub table_a: u32,
    /// Number of table B in [`Draw::tables`].
    pub table_b: u32,
}

/// A pair that meets again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RepeatMeeting {
    /// The two players (lower id first).
    pub players: [PlayerId; 2],
    /// How many times they will have met, this round included (2 or more).
    pub meetings: u32,
}

/// The rating spread of one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TableRatingSpread {
    /// Table number.
    pub table: u32,
    /// Lowest rating at the table (rated players only).
    pub min: Option<f64>,
    /// Highest rating at the table.
    pub max: Option<f64>,
    /// `max - min` (0 with fewer than two rated players), in doubles.
    pub spread: f64,
}

/// How one seeding group is spread over the tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeedingGroupSpread {
    /// Group number (1 = strongest; the rest group has the highest number).
    pub group: u32,
    /// Players in the group.
    pub size: u32,
    /// Number of tables the group is spread over.
    pub tables: u32,
    /// Most players of the group at any one table (1 = perfectly spread).
    pub max_at_one_table: u32,
}

/// What the draw did (seed 000: every method must say what it did).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DrawReport {
    /// Pairs at a table this round who met before (at a table or in a 2-player pairing).
    pub repeat_meetings: Vec<RepeatMeeting>,
    /// Extra meetings created this round (one per pair in `repeat_meetings`).
    pub repeat_count: u32,
    /// Pairs in a bridge group this round who were in a bridge group together before.
    pub bridge_repeat_meetings: Vec<RepeatMeeting>,
    /// Rating spread per table.
    pub table_rating_spread: Vec<TableRatingSpread>,
    /// Seeding group spread (seeded methods only).
    pub seeding_groups: Vec<SeedingGroupSpread>,
    /// Players with a bye this round.
    pub byes: Vec<PlayerId>,
    /// What the method could not satisfy, in words for the organiser.
    pub unsatisfied: Vec<String>,
    /// Methods that promise fewest repeat meetings, from algorithm 2 on: no arrangement the rule
    /// allows has fewer repeated pairs than this (absent for other methods and older draws).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats_lower_bound: Option<u32>,
    /// Methods that promise fewest repeat meetings, from algorithm 2 on: true when
    /// `repeat_count` is proven the fewest the rule allows (it equals `repeats_lower_bound`);
    /// false when the search stopped at its work budget first (large fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats_proven_minimal: Option<bool>,
}

impl DrawReport {
    /// Records what the fewest-repeats search proved (algorithm 2).
    pub(crate) fn record_fewest(&mut self, lower_bound: u32, proven: bool) {
        self.repeats_lower_bound = Some(lower_bound);
        self.repeats_proven_minimal = Some(proven);
    }
}

/// The result of a draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Draw {
    /// The round drawn.
    pub round: u32,
    /// The method used.
    pub method: SeatingMethod,
    /// The tables in number order.
    pub tables: Vec<Table>,
    /// Bridge groups (bridge rounds only).
    pub bridge_groups: Vec<BridgeGroup>,
    /// The shared deal (bridge rounds only).
    pub shared_deal: Option<SharedDeal>,
    /// Players with a bye (2-player formats; in Ashes a bye counts as a win, seed 004).
    pub byes: Vec<PlayerId>,
    /// Placement groups (final groups, best first), seeded groups (seeded methods).
    pub groups: Vec<Vec<PlayerId>>,
    /// Team matches (team duplicate only).
    pub team_matches: Vec<TeamMatch>,
    /// Seeds fixed in round 1 (knockout bracket, round-robin circle): `(player, seed)`; pass them back as
    /// [`PlayerEntry::seed`] in later rounds.
    #[schema(value_type = Vec<Vec<i64>>)]
    pub seeds: Vec<(PlayerId, u32)>,
    /// The plan for the rounds after this one (`random`, `bridge`), to store and pass back.
    pub plan: Option<Schedule>,
    /// What the draw did.
    pub report: DrawReport,
}

/// Draws one round. The entry point the HTTP layer calls.
///
/// Validates the input (duplicate players, unknown or invalid options), dispatches on
/// [`DrawInput::method`], and fills in the [`DrawReport`]. All randomness comes from `rng`.
pub fn draw_round(input: &DrawInput, rng: &mut DrawRng) -> Result<Draw, SeatingError> {
    let mut seen = BTreeSet::new();
    for p in &input.players {
        if !seen.insert(p.id) {
            return Err(SeatingError::DuplicatePlayer(p.id));
        }
    }
    let accepted = input.method.accepted_options();
    for key in input.options.keys() {
        if !accepted.contains(&key.as_str()) {
            return Err(SeatingError::UnknownOption {
                option: key.clone(),
                method: input.method,
            });
        }
    }
    let mut draw = match input.method {
        SeatingMethod::Random
        | SeatingMethod::RandomSeeded
        | SeatingMethod::FixedSeeded
        | SeatingMethod::PlacementEven
        | SeatingMethod::Swiss
        | SeatingMethod::Danish
        | SeatingMethod::Clarification
        | SeatingMethod::ClarificationBonus
        | SeatingMethod::FinalGroups => four_player::draw(input, rng)?,
        SeatingMethod::Bridge => bridge::draw(input, rng)?,
        SeatingMethod::TeamDuplicate => team::draw(input, rng)?,
        SeatingMethod::Swiss2p | SeatingMethod::RoundRobin | SeatingMethod::Knockout => {
            two_player::draw(input, rng)?
        }
    };
    fill_report(input, &mut draw);
    Ok(draw)
}

/// Fills the common parts of the report: repeats, rating spread, byes.
fn fill_report(input: &DrawInput, draw: &mut Draw) {
    let meetings = Meetings::from_history(&input.history);
    let mut repeats = Vec::new();
    for t in &draw.tables {
        for (i, &a) in t.seats.iter().enumerate() {
            for &b in &t.seats[i + 1..] {
                let m = meetings.count(a, b);
                if m > 0 {
                    repeats.push(RepeatMeeting {
                        players: ordered(a, b),
                        meetings: m + 1,
                    });
                }
            }
        }
    }
    repeats.sort_by_key(|r| r.players);
    draw.report.repeat_count = repeats.len() as u32;
    draw.report.repeat_meetings = repeats;

    let group_meetings = Meetings::from_groups(&input.history.bridge_groups);
    let mut brep = Vec::new();
    for g in &draw.bridge_groups {
        for (i, &a) in g.players.iter().enumerate() {
            for &b in &g.players[i + 1..] {
                let m = group_meetings.count(a, b);
                if m > 0 {
                    brep.push(RepeatMeeting {
                        players: ordered(a, b),
                        meetings: m + 1,
                    });
                }
            }
        }
    }
    brep.sort_by_key(|r| r.players);
    draw.report.bridge_repeat_meetings = brep;

    let ratings: HashMap<PlayerId, Option<f64>> =
        input.players.iter().map(|p| (p.id, p.rating)).collect();
    draw.report.table_rating_spread = draw
        .tables
        .iter()
        .map(|t| {
            let rs: Vec<f64> = t
                .seats
                .iter()
                .filter_map(|p| ratings.get(p).copied().flatten())
                .collect();
            let min = rs.iter().copied().reduce(f64::min);
            let max = rs.iter().copied().reduce(f64::max);
            TableRatingSpread {
                table: t.number,
                min,
                max,
                spread: match (min, max) {
                    (Some(a), Some(b)) => b - a,
                    _ => 0.0,
                },
            }
        })
        .collect();
    draw.report.byes = draw.byes.clone();
    let avoids_repeats = matches!(
        input.method,
        SeatingMethod::Random
            | SeatingMethod::RandomSeeded
            | SeatingMethod::FixedSeeded
            | SeatingMethod::PlacementEven
            | SeatingMethod::Bridge
    );
    if avoids_repeats && draw.report.repeat_count > 0 {
        match (
            draw.report.repeats_proven_minimal,
            draw.report.repeats_lower_bound,
        ) {
            (Some(false), Some(bound)) => draw.report.unsatisfied.push(format!(
                "{} repeat meeting(s) at the tables; at least {bound} cannot be avoided, and \
                 the search stopped at its work budget before proving that fewer than {} are \
                 impossible",
                draw.report.repeat_count, draw.report.repeat_count
            )),
            _ => draw.report.unsatisfied.push(format!(
                "{} repeat meeting(s) at the tables could not be avoided",
                draw.report.repeat_count
            )),
        }
    }
    if input.method == SeatingMethod::Bridge && !draw.report.bridge_repeat_meetings.is_empty() {
        draw.report.unsatisfied.push(format!(
            "{} repeat meeting(s) in bridge groups could not be avoided",
            draw.report.bridge_repeat_meetings.len()
        ));
    }
}

/// `(a, b)` with the lower id first.
pub(crate) fn ordered(a: PlayerId, b: PlayerId) -> [PlayerId; 2] {
    if a <= b {
        [a, b]
    } else {
        [b, a]
    }
}

/// How often each pair of players met (lookups only; never iterated for output).
#[derive(Debug, Default, Clone)]
pub struct Meetings {
    counts: HashMap<(PlayerId, PlayerId), u32>,
}

impl Meetings {
    /// Meetings at tables and in 2-player pairings.
    pub fn from_history(h: &History) -> Self {
        let mut m = Self::from_groups(&h.tables);
        for [a, b] in &h.pairings {
            m.add(*a, *b);
        }
        m
    }

    /// Meetings within the given groups (tables or bridge groups).
    pub fn from_groups(groups: &[Vec<PlayerId>]) -> Self {
        let mut m = Self::default();
        for g in groups {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    m.add(a, b);
                }
            }
        }
        m
    }

    /// Records one meeting of `a` and `b`.
    pub fn add(&mut self, a: PlayerId, b: PlayerId) {
        if a != b {
            let [x, y] = ordered(a, b);
            *self.counts.entry((x, y)).or_insert(0) += 1;
        }
    }

    /// How often `a` and `b` met.
    pub fn count(&self, a: PlayerId, b: PlayerId) -> u32 {
        let [x, y] = ordered(a, b);
        self.counts.get(&(x, y)).copied().unwrap_or(0)
    }
}

/// Reads an unsigned integer option.
pub(crate) fn opt_u32(input: &DrawInput, name: &str) -> Result<Option<u32>, SeatingError> {
    match input.options.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .map(Some)
            .ok_or_else(|| SeatingError::InvalidOption {
                option: name.to_string(),
                reason: format!("expected a non-negative integer, got {v}"),
            }),
    }
}

/// Reads a boolean option.
pub(crate) fn opt_bool(input: &DrawInput, name: &str) -> Result<Option<bool>, SeatingError> {
    match input.options.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| SeatingError::InvalidOption {
                option: name.to_string(),
                reason: format!("expected true or false, got {v}"),
            }),
    }
}

/// Reads a string option.
pub(crate) fn opt_str<'a>(
    input: &'a DrawInput,
    name: &str,
) -> Result<Option<&'a str>, SeatingError> {
    match input.options.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(Some)
            .ok_or_else(|| SeatingError::InvalidOption {
                option: name.to_string(),
                reason: format!("expected a string, got {v}"),
            }),
    }
}

/// The active players ranked best first: by place in the standings (ties keep the standings'
/// order); players missing from the standings are an error when `required`, else they follow,
/// highest rating first, then by id.
pub(crate) fn ranked_players(
    input: &DrawInput,
    required: bool,
) -> Result<Vec<PlayerId>, SeatingError> {
    let pos: HashMap<PlayerId, (u32, usize)> = input
        .standings
        .iter()
        .enumerate()
        .map(|(i, s)| (s.player, (s.place, i)))
        .collect();
    let mut listed = Vec::new();
    let mut rest = Vec::new();
    for p in &input.players {
        match pos.get(&p.id) {
            Some(&k) => listed.push((k, p.id)),
            None if required => return Err(SeatingError::MissingStanding(p.id)),
            None => rest.push(p),
        }
    }
    listed.sort();
    rest.sort_by(|a, b| {
        b.rating
            .unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&a.rating.unwrap_or(f64::NEG_INFINITY))
            .then(a.id.cmp(&b.id))
    });
    Ok(listed
        .into_iter()
        .map(|(_, p)| p)
        .chain(rest.into_iter().map(|p| p.id))
        .collect())
}

/// [`ranked_players`] with players level on every key of the standings (a shared place) put in
/// order by lot, drawn from the round's seed before anything else (seed 000, tie-breaks:
/// "Dersom også dette er likt, avgjøres den foreløpige plasseringen ved loddtrekning"). The lot
/// is as verifiable as the draw: the same input and seed give the same order.
pub(crate) fn ranked_players_by_lot(
    input: &DrawInput,
    required: bool,
    rng: &mut DrawRng,
) -> Result<Vec<PlayerId>, SeatingError> {
    let mut ranked = ranked_players(input, required)?;
    let place: HashMap<PlayerId, u32> = input
        .standings
        .iter()
        .map(|s| (s.player, s.place))
        .collect();
    let mut start = 0;
    while start < ranked.len() {
        let here = place.get(&ranked[start]).copied();
        let mut end = start + 1;
        while here.is_some() && end < ranked.len() && place.get(&ranked[end]).copied() == here {
            end += 1;
        }
        if end - start > 1 {
            rng.shuffle(&mut ranked[start..end]);
        }
        start = end;
    }
    Ok(ranked)
}

/// Table sizes for `n` players at tables of 4, with 3-player tables where the count requires
/// (domain.md section 3): `Y = ceil(n/4)` tables, `4Y - n` of them with 3 players. The returned
/// vector has the 3-player tables last; methods move them where their rule says.
pub(crate) fn table_sizes(n: usize) -> Result<Vec<usize>, SeatingError> {
    if n < 3 {
        return Err(SeatingError::NotEnoughPlayers { needed: 3, got: n });
    }
    let y = n.div_ceil(4);
    let short = 4 * y - n;
    if short > y {
        return Err(SeatingError::UnseatableCount { players: n });
    }
    let mut v = vec![4; y - short];
    v.extend(std::iter::repeat_n(3, short));
    Ok(v)
}

/// Builds tables from seat lists: numbers 1.., seat order and starting player by lot
/// (seed 000, Spesielle regler 1).
pub(crate) fn tables_with_lots(groups: Vec<Vec<PlayerId>>, rng: &mut DrawRng) -> Vec<Table> {
    groups
        .into_iter()
        .enumerate()
        .map(|(i, mut seats)| {
            rng.shuffle(&mut seats);
            let starting_player = if seats.is_empty() {
                None
            } else {
                Some(seats[rng.index(seats.len())])
            };
            Table {
                number: i as u32 + 1,
                seats,
                starting_player,
                label: None,
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod test_util;

#[cfg(test)]
mod tests;
