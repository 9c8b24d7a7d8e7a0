//! Cases: complaints, referee rulings, committee votes and appeals, with the
//! conflict-of-interest rules computing the deciding panel (`crate::domain::cases`) and the
//! remedies applied through the same result and penalty paths as everything else.

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::cases::{CaseRow, NewCase, NewCaseEvent, NewParty, NewVote, PanelRow, PartyRow};
use crate::db::ids::{CaseId, TournamentId};
use crate::db::json::Json;
use crate::db::models::Tournament;
use crate::db::rounds::Lock;
use crate::db::PgConnection;
use crate::domain::case_sets::PanelReason;
pub use crate::domain::case_sets::{CaseOutcome, CaseSubject, PartyRole, Verdict};
use crate::domain::cases::{self as rules, CaseKind, PanelMode, Tally};
pub use crate::domain::entries::Remedy;
use crate::domain::status::RoundStatus;
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::running::conduct::{annul_penalty, record_penalty, RecordPenalty};
use crate::services::running::results::{store_result, EnterResult, Precondition};
use crate::services::validate::Check;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use utoipa::ToSchema;

const STATEMENT_MAX: usize = 4000;
const REASON_MAX: usize = 500;
const LINK_MAX: usize = 500;

/// A link to evidence (a screenshot, a game record): an `http(s)` URL without spaces.
pub struct EvidenceLink;

/// The JSON Schema pattern of an [`EvidenceLink`].
pub const LINK_PATTERN: &str = "^https?://[!-~]+$";

impl utoipa::PartialSchema for EvidenceLink {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .description(Some("An http(s) URL of a screenshot or game record"))
            .max_length(Some(LINK_MAX))
            .pattern(Some(LINK_PATTERN))
            .examples(["https://example.org/screenshots/round2-table3.jpg"])
            .into()
    }
}

impl ToSchema for EvidenceLink {}

/// Evidence: a text (what was seen, the game chat) and links to screenshots.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    #[schema(
        max_length = 4000,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub text: Option<String>,
    #[schema(value_type = Option<Vec<EvidenceLink>>, max_items = 10)]
    pub links: Option<Vec<String>>,
}

/// A person the case concerns: an account or a player (exactly one of the two), of this
/// tournament: a player registered in it, or an account holding one of its staff roles or
/// playing as a player registered in it (422 naming the field otherwise).
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PartyIn {
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
}

/// Open a complaint.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"subject": "result", "round": 2, "table": 3, "statement": "Table 3 was scored with the wrong bonus points."}))]
pub struct OpenCase {
    pub subject: CaseSubject,
    /// The round and table concerned (required for `table` and `result`): the players seated
    /// there become parties.
    #[schema(minimum = 1, maximum = 1000)]
    pub round: Option<i32>,
    #[schema(minimum = 1, maximum = 10000)]
    pub table: Option<i32>,
    /// The penalty concerned (required for `penalty`): the penalised player and the official
    /// who gave it become respondents (a complaint against a referee's penalty goes to the
    /// committee).
    pub penalty_id: Option<i64>,
    /// What happened and what the complainant asks for.
    #[schema(
        min_length = 1,
        max_length = 4000,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub statement: String,
    pub evidence: Option<Evidence>,
    /// The people complained about (players or officials: a complaint against the referee
    /// names the referee's account here).
    #[schema(max_items = 10)]
    pub respondents: Option<Vec<PartyIn>>,
    /// What the complainant asks for: applied if the case is upheld.
    #[schema(max_items = 5)]
    pub remedies: Option<Vec<Remedy>>,
    /// Referees and organisers may open a case on behalf of a registered player, who is then
    /// the complainant; otherwise the caller is.
    pub complainant_player_id: Option<i64>,
}

/// Who a party is to the case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AddedPartyRole {
    Respondent,
    PlayerAtTable,
}

/// Add a party to an open case (the panel is recomputed): a person of this tournament, as a
/// respondent is (`PartyIn`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"role": "player_at_table", "player_id": 17}))]
pub struct AddParty {
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
    pub role: AddedPartyRole,
}

/// A referee's ruling on a case with a referee panel.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"verdict": "dismiss", "reason": "The score sheet was signed by all four players."}))]
pub struct Decide {
    pub verdict: Verdict,
    /// The remedies ordered (with `remedy` only).
    #[schema(max_items = 5)]
    pub remedies: Option<Vec<Remedy>>,
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: String,
}

/// A committee panel member's vote. Two `remedy` votes count together only when they order
/// the same remedies.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"vote": "uphold", "reason": "The referee applied the rule as written."}))]
pub struct CastVote {
    pub vote: Verdict,
    /// The remedies voted for (with `remedy` only).
    #[schema(max_items = 5)]
    pub remedies: Option<Vec<Remedy>>,
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: String,
}

/// Appeal a referee's ruling to the appeals committee (a party of the case, within the
/// tournament's appeal window).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"statement": "The referee did not hear the player at table 3."}))]
pub struct Appeal {
    #[schema(
        min_length = 1,
        max_length = 4000,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub statement: String,
    pub evidence: Option<Evidence>,
    /// What the appellant asks for: applied if the appeal is upheld.
    #[schema(max_items = 5)]
    pub remedies: Option<Vec<Remedy>>,
}

/// The seat a member holds on a panel.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PanelSeat {
    Referee,
    Committee,
}

/// How a panel decides.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PanelModeName {
    /// One referee on the panel rules.
    Referee,
    /// The members vote; the majority decides.
    Vote,
}

/// A complaint (first instance) or an appeal against a decided complaint.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseKindName {
    Complaint,
    Appeal,
}

/// A party of a case.
#[derive(Debug, Serialize, ToSchema)]
pub struct PartyOut {
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
    #[schema(value_type = PartyRole, example = "respondent")]
    pub role: String,
    pub added_by: i64,
    pub added_at: DateTime<Utc>,
}

/// A member of the deciding panel.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PanelMember {
    pub user_id: i64,
    #[schema(value_type = PanelSeat, example = "committee")]
    pub seat: String,
}

/// The deciding panel as computed from the officials and the parties.
#[derive(Debug, Serialize, ToSchema)]
pub struct PanelOut {
    #[schema(value_type = PanelModeName, example = "vote")]
    pub mode: String,
    /// Which conflict-of-interest rule made this panel.
    pub rule: String,
    pub members: Vec<PanelMember>,
}

/// A panel member's vote.
#[derive(Debug, Serialize, ToSchema)]
pub struct VoteOut {
    pub member_id: i64,
    #[schema(value_type = Verdict, example = "uphold")]
    pub vote: String,
    #[schema(value_type = Option<Vec<Object>>)]
    pub remedies: Option<serde_json::Value>,
    pub reason: String,
    pub at: DateTime<Utc>,
}

/// A case. The public sees decided cases only, and only their outcome and remedies; the
/// statement, evidence, parties, panel, votes and history (`null` for the public) are shown
/// to the parties, the referees, the organisers and the panel.
#[derive(Debug, Serialize, ToSchema)]
pub struct CaseOut {
    pub id: i64,
    pub tournament_id: i64,
    #[schema(value_type = CaseKindName, example = "complaint")]
    pub kind: String,
    #[schema(value_type = CaseSubject, example = "result")]
    pub subject: String,
    pub round: Option<i32>,
    pub table: Option<i32>,
    pub penalty_id: Option<i64>,
    /// `appealed`: decided, and an appeal was lodged (see `appealed_by`).
    #[schema(value_type = crate::domain::status::CaseStatus, example = "open")]
    pub status: String,
    pub opened_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
    #[schema(value_type = Option<CaseOutcome>, example = "upheld")]
    pub outcome: Option<String>,
    /// The remedies applied with the decision: each `order` and its `effect`.
    #[schema(value_type = Option<Vec<Object>>)]
    pub remedies: Option<serde_json::Value>,
    /// The case this appeal is against.
    pub appeal_of: Option<i64>,
    /// The appeal lodged against this decision.
    pub appealed_by: Option<i64>,
    /// Until when a party may appeal this decision (referee rulings within the window): fixed
    /// when the decision is given, a later change of the tournament's window does not move it.
    pub appeal_until: Option<DateTime<Utc>>,
    /// Decided and beyond appeal.
    pub is_final: bool,
    pub statement: Option<String>,
    pub evidence: Option<Evidence>,
    #[schema(value_type = Option<Vec<Object>>)]
    pub requested_remedies: Option<serde_json::Value>,
    pub opened_by: Option<i64>,
    pub decided_by: Option<i64>,
    pub decision_reason: Option<String>,
    pub parties: Option<Vec<PartyOut>>,
    pub panel: Option<PanelOut>,
    pub votes: Option<Vec<VoteOut>>,
    pub history: Option<Vec<CaseEventOut>>,
}

// ---------------------------------------------------------------------------------------
// Checks of the input (exactly what the schema states)

mod checks;
mod history;
use checks::*;
pub use history::*;
mod panel;
pub use panel::after_staff_change;
use panel::*;
mod view;
use view::*;
mod remedies;
use remedies::*;
mod complaints;
pub use complaints::*;
mod rulings;
pub use rulings::*;
