//! The typed steps of a case's history: what each `log` call records, so a writer cannot
//! drift from the OpenAPI document. Fields are declared in alphabetical order, the order
//! in which the stored (jsonb) details have always been rendered.

use super::{PanelMember, Remedy};
use crate::domain::case_sets::CaseStep;
use crate::error::ApiError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

/// A step in a case's history: `what` happened and the `detail` that step recorded.
///
/// Its schema is written out below rather than derived: derived, it would be the `allOf` of
/// [`CaseEvent`]'s `oneOf` and an object, which some client generators cannot take
/// (openapi-python-client dropped the type). The wire shape is the same either way.
#[derive(Debug, Serialize)]
pub struct CaseEventOut {
    pub author: i64,
    pub at: DateTime<Utc>,
    #[serde(flatten)]
    pub event: CaseEvent,
}

impl utoipa::PartialSchema for CaseEventOut {
    /// [`CaseEvent`]'s `oneOf`, each of its objects carrying `author` and `at` beside `what`
    /// and `detail`.
    fn schema() -> RefOr<Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        let mut schema = <CaseEvent as utoipa::PartialSchema>::schema();
        if let RefOr::T(Schema::OneOf(one_of)) = &mut schema {
            one_of.description =
                Some("A step in a case's history: `what` happened, by whom and when, and the `detail` that step recorded.".into());
            for step in &mut one_of.items {
                if let RefOr::T(Schema::Object(step)) = step {
                    let author = ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                        .description(Some("The account that took the step."));
                    let at = ObjectBuilder::new()
                        .schema_type(Type::String)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                        .description(Some("When the step was taken."));
                    step.properties.insert("author".into(), author.into());
                    step.properties.insert("at".into(), at.into());
                    step.required
                        .extend(["author".to_string(), "at".to_string()]);
                }
            }
        }
        schema
    }
}

impl ToSchema for CaseEventOut {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        <CaseEvent as ToSchema>::schemas(schemas);
    }
}

/// What a step recorded, by `what`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(tag = "what", content = "detail", rename_all = "snake_case")]
pub enum CaseEvent {
    /// The case was opened.
    Opened(OpenedDetail),
    /// A party was added.
    PartyAdded(PartyAddedDetail),
    /// The deciding panel was (re)computed.
    PanelComputed(PanelComputedDetail),
    /// A panel member voted.
    Voted(VotedDetail),
    /// The case was decided.
    Decided(DecidedDetail),
    /// A remedy of the decision was applied.
    RemedyApplied(RemedyAppliedDetail),
    /// The decision was appealed.
    Appealed(AppealedDetail),
}

impl CaseEvent {
    /// The stored `what`.
    pub fn what(&self) -> CaseStep {
        match self {
            Self::Opened(_) => CaseStep::Opened,
            Self::PartyAdded(_) => CaseStep::PartyAdded,
            Self::PanelComputed(_) => CaseStep::PanelComputed,
            Self::Voted(_) => CaseStep::Voted,
            Self::Decided(_) => CaseStep::Decided,
            Self::RemedyApplied(_) => CaseStep::RemedyApplied,
            Self::Appealed(_) => CaseStep::Appealed,
        }
    }

    /// The stored `detail`.
    pub fn detail(&self) -> Result<serde_json::Value, ApiError> {
        let mut v = serde_json::to_value(self)
            .map_err(|e| ApiError::Internal(format!("case event: {e}")))?;
        Ok(v["detail"].take())
    }

    /// Reads a stored step; a detail that does not match its `what` is our fault.
    pub fn read(what: CaseStep, detail: serde_json::Value) -> Result<Self, ApiError> {
        let what = what.as_str();
        serde_json::from_value(serde_json::json!({"what": what, "detail": detail}))
            .map_err(|e| ApiError::Internal(format!("case event {what}: {e}")))
    }
}

/// `opened`: a complaint's subject and place, or the case an appeal is against.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum OpenedDetail {
    Appeal(OpenedAppeal),
    Complaint(OpenedComplaint),
}

/// A complaint was opened.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenedComplaint {
    pub penalty_id: Option<i64>,
    pub round: Option<i32>,
    #[schema(value_type = super::CaseSubject, example = "result")]
    pub subject: String,
    pub table: Option<i32>,
}

/// An appeal was opened.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenedAppeal {
    /// The case appealed against.
    pub appeal_of: i64,
}

/// `party_added`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PartyAddedDetail {
    pub player_id: Option<i64>,
    #[schema(value_type = super::PartyRole, example = "respondent")]
    pub role: String,
    pub user_id: Option<i64>,
}

/// `panel_computed`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PanelComputedDetail {
    pub members: Vec<PanelMember>,
    #[schema(value_type = super::PanelModeName, example = "vote")]
    pub mode: String,
    /// Which conflict-of-interest rule made this panel.
    pub rule: String,
}

/// `voted`: the vote, the remedies it orders (`remedy` votes only) and the reason.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VotedDetail {
    pub reason: String,
    pub remedies: Option<Vec<Remedy>>,
    #[schema(value_type = super::Verdict, example = "uphold")]
    pub vote: String,
}

/// `decided`: the outcome, the reason and how many remedies were applied.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecidedDetail {
    #[schema(value_type = super::CaseOutcome, example = "upheld")]
    pub outcome: String,
    pub reason: String,
    /// How many remedies were applied.
    pub remedies: usize,
}

/// `remedy_applied`: the remedy ordered and its effect.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RemedyAppliedDetail {
    /// What applying it did, by remedy: `{result_version, round_status}`,
    /// `{penalty_annulled}`, `{penalty_recorded, penalty_kind}` or
    /// `{replay_ordered: {round, table}}`.
    #[schema(value_type = Object)]
    pub effect: serde_json::Value,
    pub order: Remedy,
}

/// `appealed`: the appeal lodged against this decision.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AppealedDetail {
    /// The appeal, a new case.
    pub appeal: i64,
}
