//! What officials and players enter, in the shape they enter it: a table's seats as entered
//! (a result, a player's report), the kinds of penalty, and the remedies a case decision orders
//! and what applying them did. The API reads and shows them as they are; the store keeps them
//! as JSON (`src/db/json.rs`), decoded into these types as a row is read.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Win, draw or loss, where the score does not decide it (Ashes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatOutcome {
    Win,
    Draw,
    Loss,
}

/// One seated player's result, the same shape in and out: a result read can be edited and sent
/// back as a correction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultSeat {
    pub player_id: i64,
    /// Agricola VP without bonus points; Tantrix tiles; Ashes wounds dealt.
    #[schema(minimum = -1000, maximum = 10000)]
    pub score: i64,
    /// Agricola bonus points.
    #[schema(minimum = 0, maximum = 1000)]
    pub bonus: Option<i64>,
    /// Points deducted at the table (penalties recorded through `/penalties` are added).
    #[schema(minimum = 0, maximum = 1000)]
    pub penalty: Option<i64>,
    /// Thinking time used in seconds (Tantrix).
    #[schema(minimum = 0, maximum = 86400)]
    pub time_used_secs: Option<i64>,
    /// Forfeit or no-show.
    pub forfeit: Option<bool>,
    /// Where the score does not decide the game (Ashes).
    pub outcome: Option<SeatOutcome>,
}

/// The kind of a penalty. `sanction` lets the service pick the next step of the Ashes
/// escalation: the first sanction of a player is a warning, the second a game loss, the third
/// removal from the tournament.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PenaltyKind {
    PointPenalty,
    Warning,
    GameLoss,
    Removal,
    Sanction,
}

/// A remedy a decision orders. Applied atomically with the decision, through the same paths
/// as a referee's correction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Remedy {
    /// Store a new version of a table's result (linked to the case): standings and ratings
    /// follow.
    CorrectResult {
        #[schema(minimum = 1, maximum = 1000)]
        round: i32,
        #[schema(minimum = 1, maximum = 10000)]
        table: i32,
        /// Every seated player exactly once.
        #[schema(min_items = 1, max_items = 8)]
        seats: Vec<ResultSeat>,
        double_crash: Option<bool>,
    },
    /// Annul a penalty (kept, marked annulled with the case's reason).
    AnnulPenalty { penalty_id: i64 },
    /// Record a penalty or sanction, linked to the case.
    AddPenalty {
        player_id: i64,
        penalty: PenaltyKind,
        #[schema(minimum = 1, maximum = 1000)]
        round: Option<i32>,
        #[schema(minimum = 1, maximum = 10000)]
        table: Option<i32>,
        #[schema(minimum = 1, maximum = 1000)]
        points: Option<i32>,
    },
    /// Order a replay of a table: recorded on the case and announced on the live feed; the
    /// replayed game's result is then entered as a correction of the table's result.
    ReplayTable {
        #[schema(minimum = 1, maximum = 1000)]
        round: i32,
        #[schema(minimum = 1, maximum = 10000)]
        table: i32,
    },
}

/// A remedy of a decision as applied: the remedy ordered and what applying it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliedRemedy {
    /// The remedy ordered.
    pub order: Remedy,
    /// What applying it did, by remedy: `{result_version, round_status}`,
    /// `{penalty_annulled}`, `{penalty_recorded, penalty_kind}` or
    /// `{replay_ordered: {round, table}}` (shown as recorded).
    pub effect: serde_json::Value,
}

/// A table's result as a player reported it (a report's `body`): the shape a result is entered
/// in, without the correction's reason. Compared as a whole, so a repeated report is recognised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportedResult {
    /// Every seated player exactly once.
    pub seats: Vec<ResultSeat>,
    /// Tantrix: both players crashed and the game vanished.
    pub double_crash: Option<bool>,
}
