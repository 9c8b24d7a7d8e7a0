//! Row models for cases: complaints and appeals, their parties, the deciding panel, the
//! panel's votes and the audit trail.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::schema::{case_events, case_panel, case_parties, cases, votes};
use crate::domain::cases::{CaseKind, PanelMode, Seat};
use crate::domain::status::CaseStatus;

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = cases)]
pub struct CaseRow {
    pub id: i64,
    pub tournament_id: i64,
    pub kind: CaseKind,
    pub subject: String,
    pub round_number: Option<i32>,
    pub table_number: Option<i32>,
    pub penalty_id: Option<i64>,
    pub statement: String,
    pub evidence_text: Option<String>,
    pub evidence_links: serde_json::Value,
    pub requested_remedies: serde_json::Value,
    pub panel_mode: PanelMode,
    pub panel_rule: String,
    pub status: CaseStatus,
    pub opened_by: i64,
    pub opened_at: DateTime<Utc>,
    pub decided_by: Option<i64>,
    pub decided_at: Option<DateTime<Utc>>,
    pub outcome: Option<String>,
    pub decision_reason: Option<String>,
    pub remedy: Option<serde_json::Value>,
    pub appeal_of: Option<i64>,
    pub version: i32,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = cases)]
pub struct NewCase {
    pub tournament_id: i64,
    pub kind: CaseKind,
    pub subject: String,
    pub round_number: Option<i32>,
    pub table_number: Option<i32>,
    pub penalty_id: Option<i64>,
    pub statement: String,
    pub evidence_text: Option<String>,
    pub evidence_links: serde_json::Value,
    pub requested_remedies: serde_json::Value,
    pub panel_mode: PanelMode,
    pub panel_rule: String,
    pub opened_by: i64,
    pub appeal_of: Option<i64>,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = case_parties)]
pub struct PartyRow {
    pub id: i64,
    pub case_id: i64,
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
    pub role: String,
    pub added_by: i64,
    pub added_at: DateTime<Utc>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = case_parties)]
pub struct NewParty {
    pub case_id: i64,
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
    pub role: String,
    pub added_by: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = case_panel)]
pub struct PanelRow {
    pub case_id: i64,
    pub user_id: i64,
    pub seat: Seat,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = votes)]
pub struct VoteRow {
    pub case_id: i64,
    pub member_id: i64,
    pub vote: String,
    pub remedy: Option<serde_json::Value>,
    pub reason: String,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = votes)]
pub struct NewVote {
    pub case_id: i64,
    pub member_id: i64,
    pub vote: String,
    pub remedy: Option<serde_json::Value>,
    pub reason: String,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = case_events)]
pub struct CaseEventRow {
    pub id: i64,
    pub case_id: i64,
    pub author: i64,
    pub at: DateTime<Utc>,
    pub what: String,
    pub detail: serde_json::Value,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = case_events)]
pub struct NewCaseEvent {
    pub case_id: i64,
    pub author: i64,
    pub what: String,
    pub detail: serde_json::Value,
}
