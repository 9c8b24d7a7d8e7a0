//! Complaints, decisions and appeals: `/tournaments/{id}/cases`.
//!
//! A player, referee or organiser opens a case; the service computes the deciding panel from
//! the tournament's referees, its appeals committee and the case's parties
//! (`crate::domain::cases`), shows it, and recomputes it when parties are added. A referee
//! panel decides with one ruling (`/decision`); a committee panel votes (`/votes`) and the
//! majority decides. A party may appeal a referee's ruling within the tournament's appeal
//! window; the appeal's decision is final. Remedies (a corrected result, an annulled or added
//! penalty, a replayed table) are applied in the decision's transaction through the same
//! functions a referee uses, linked to the case. Every step is kept with its author and time.

use std::collections::{BTreeSet, HashSet};

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::extract::Json;
use crate::api::support::{cached_json, Check, Visibility};
use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::cases::{
    CaseEventRow, CaseRow, NewCase, NewCaseEvent, NewParty, NewVote, PanelRow, PartyRow, VoteRow,
};
use crate::db::models::Tournament;
use crate::db::schema::{
    case_events, case_panel, case_parties, cases, penalties, players, registrations, rounds,
    tournament_staff, users, votes,
};
use crate::domain::cases::{self as rules, CaseKind, PanelMode, Seat, Tally};
use crate::error::{ApiError, ApiResult, Problem};
use crate::services::access::load_visible;
use crate::services::conduct::{annul_penalty, record_penalty, PenaltyKind, RecordPenalty};
use crate::services::results::{store_result, EnterResult, Precondition, SeatIn};
use crate::state::AppState;

const STATEMENT_MAX: usize = 4000;
const REASON_MAX: usize = 500;
const LINK_MAX: usize = 500;

/// What a case is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseSubject {
    /// Something at a table of a round (names `round` and `table`).
    Table,
    /// A table's result (names `round` and `table`).
    Result,
    /// A penalty (names `penalty_id`).
    Penalty,
    /// A person's conduct.
    Conduct,
}

impl CaseSubject {
    fn as_str(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::Result => "result",
            Self::Penalty => "penalty",
            Self::Conduct => "conduct",
        }
    }
}

/// A remedy a decision orders. Applied atomically with the decision, through the same paths
/// as a referee's correction.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
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
        seats: Vec<SeatIn>,
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

/// A person the case concerns: an account or a player (exactly one of the two).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PartyIn {
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
}

/// Open a complaint.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenCase {
    pub subject: CaseSubject,
    /// The round and table concerned (required for `table` and `result`): the players seated
    /// there become parties.
    #[schema(minimum = 1, maximum = 1000)]
    pub round: Option<i32>,
    #[schema(minimum = 1, maximum = 10000)]
    pub table: Option<i32>,
    /// The penalty concerned (required for `penalty`): the penalised player becomes a party.
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

/// Add a party to an open case (the panel is recomputed).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddParty {
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
    pub role: AddedPartyRole,
}

/// A ruling or a vote: uphold the case (apply the remedies asked for), dismiss it, or order
/// other remedies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Uphold,
    Dismiss,
    Remedy,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Self::Uphold => "uphold",
            Self::Dismiss => "dismiss",
            Self::Remedy => "remedy",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "uphold" => Some(Self::Uphold),
            "dismiss" => Some(Self::Dismiss),
            "remedy" => Some(Self::Remedy),
            _ => None,
        }
    }

    fn outcome(self) -> &'static str {
        match self {
            Self::Uphold => "upheld",
            Self::Dismiss => "dismissed",
            Self::Remedy => "remedied",
        }
    }
}

/// A referee's ruling on a case with a referee panel.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
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

/// A party of a case.
#[derive(Debug, Serialize, ToSchema)]
pub struct PartyOut {
    pub user_id: Option<i64>,
    pub player_id: Option<i64>,
    /// `complainant`, `respondent`, `player_at_table` or `official_appealed`.
    #[schema(example = "respondent")]
    pub role: String,
    pub added_by: i64,
    pub added_at: DateTime<Utc>,
}

/// A member of the deciding panel.
#[derive(Debug, Serialize, ToSchema)]
pub struct PanelMember {
    pub user_id: i64,
    /// `referee` or `committee`.
    #[schema(example = "committee")]
    pub seat: String,
}

/// The deciding panel as computed from the officials and the parties.
#[derive(Debug, Serialize, ToSchema)]
pub struct PanelOut {
    /// `referee`: one referee on the panel rules; `vote`: the members vote, majority decides.
    #[schema(example = "vote")]
    pub mode: String,
    /// Which conflict-of-interest rule made this panel.
    pub rule: String,
    pub members: Vec<PanelMember>,
}

/// A panel member's vote.
#[derive(Debug, Serialize, ToSchema)]
pub struct VoteOut {
    pub member_id: i64,
    #[schema(example = "uphold")]
    pub vote: String,
    #[schema(value_type = Option<Vec<Object>>)]
    pub remedies: Option<serde_json::Value>,
    pub reason: String,
    pub at: DateTime<Utc>,
}

/// A step in a case's history.
#[derive(Debug, Serialize, ToSchema)]
pub struct CaseEventOut {
    pub author: i64,
    pub at: DateTime<Utc>,
    /// `opened`, `party_added`, `panel_computed`, `voted`, `decided`, `remedy_applied`,
    /// `appealed`.
    #[schema(example = "opened")]
    pub what: String,
    #[schema(value_type = Object)]
    pub detail: serde_json::Value,
}

/// A case. The public sees decided cases only, and only their outcome and remedies; the
/// statement, evidence, parties, panel, votes and history (`null` for the public) are shown
/// to the parties, the referees, the organisers and the panel.
#[derive(Debug, Serialize, ToSchema)]
pub struct CaseOut {
    pub id: i64,
    pub tournament_id: i64,
    /// `complaint` or `appeal`.
    #[schema(example = "complaint")]
    pub kind: String,
    #[schema(example = "result")]
    pub subject: String,
    pub round: Option<i32>,
    pub table: Option<i32>,
    pub penalty_id: Option<i64>,
    /// `open`, `decided` or `appealed` (decided, and an appeal was lodged: see `appealed_by`).
    #[schema(example = "open")]
    pub status: String,
    pub opened_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
    /// `upheld`, `dismissed` or `remedied`.
    #[schema(example = "upheld")]
    pub outcome: Option<String>,
    /// The remedies applied with the decision: each `order` and its `effect`.
    #[schema(value_type = Option<Vec<Object>>)]
    pub remedies: Option<serde_json::Value>,
    /// The case this appeal is against.
    pub appeal_of: Option<i64>,
    /// The appeal lodged against this decision.
    pub appealed_by: Option<i64>,
    /// Until when a party may appeal this decision (referee rulings within the window).
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

fn check_evidence(check: &mut Check, field: &str, e: &Evidence) -> Evidence {
    let text = check.optional_text(&format!("{field}.text"), e.text.as_deref(), STATEMENT_MAX);
    let links = e.links.as_ref().map(|links| {
        check.ensure(
            links.len() <= 10,
            &format!("{field}.links"),
            "at most 10 links",
        );
        for (i, l) in links.iter().enumerate() {
            let rest = l
                .strip_prefix("https://")
                .or_else(|| l.strip_prefix("http://"));
            let ok = rest
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| (b'!'..=b'~').contains(&b)));
            if !ok {
                check.fail(
                    &format!("{field}.links[{i}]"),
                    "must be an http(s) URL without spaces",
                );
            } else if l.chars().count() > LINK_MAX {
                check.fail(
                    &format!("{field}.links[{i}]"),
                    format!("must be at most {LINK_MAX} characters"),
                );
            }
        }
        links.clone()
    });
    Evidence { text, links }
}

fn check_round_table(check: &mut Check, field: &str, round: Option<i32>, table: Option<i32>) {
    if let Some(r) = round {
        check.range(&format!("{field}round"), r.into(), 1, 1000);
    }
    if let Some(t) = table {
        check.range(&format!("{field}table"), t.into(), 1, 10_000);
    }
}

fn check_remedies(check: &mut Check, field: &str, remedies: &[Remedy]) {
    check.ensure(remedies.len() <= 5, field, "at most 5 remedies");
    for (i, r) in remedies.iter().enumerate() {
        let f = format!("{field}[{i}].");
        match r {
            Remedy::CorrectResult {
                round,
                table,
                seats,
                ..
            } => {
                check_round_table(check, &f, Some(*round), Some(*table));
                check.ensure(
                    (1..=8).contains(&seats.len()),
                    &format!("{f}seats"),
                    "1 to 8 seats",
                );
                for (j, s) in seats.iter().enumerate() {
                    let g = |name: &str| format!("{f}seats[{j}].{name}");
                    check.range(&g("score"), s.score, -1000, 10_000);
                    if let Some(b) = s.bonus {
                        check.range(&g("bonus"), b, 0, 1000);
                    }
                    if let Some(p) = s.penalty {
                        check.range(&g("penalty"), p, 0, 1000);
                    }
                    if let Some(t) = s.time_used_secs {
                        check.range(&g("time_used_secs"), t, 0, 86_400);
                    }
                }
            }
            Remedy::AnnulPenalty { .. } => {}
            Remedy::AddPenalty {
                round,
                table,
                points,
                ..
            } => {
                check_round_table(check, &f, *round, *table);
                if let Some(p) = points {
                    check.range(&format!("{f}points"), (*p).into(), 1, 1000);
                }
            }
            Remedy::ReplayTable { round, table } => {
                check_round_table(check, &f, Some(*round), Some(*table));
            }
        }
    }
}

fn to_json<T: Serialize>(v: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::Internal(e.to_string()))
}

fn remedies_of(v: &serde_json::Value) -> Result<Vec<Remedy>, ApiError> {
    serde_json::from_value(v.clone())
        .map_err(|e| ApiError::Internal(format!("stored remedies: {e}")))
}

// ---------------------------------------------------------------------------------------
// Loading

fn load_case(conn: &mut PgConnection, tid: i64, cid: i64, lock: bool) -> Result<CaseRow, ApiError> {
    let q = cases::table
        .filter(cases::tournament_id.eq(tid))
        .filter(cases::id.eq(cid))
        .select(CaseRow::as_select());
    let row = if lock {
        q.for_update().first(conn).optional()?
    } else {
        q.first(conn).optional()?
    };
    row.ok_or_else(|| ApiError::NotFound(format!("no case {cid} in tournament {tid}")))
}

fn parties_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<PartyRow>, ApiError> {
    Ok(case_parties::table
        .filter(case_parties::case_id.eq(cid))
        .order(case_parties::id)
        .select(PartyRow::as_select())
        .load(conn)?)
}

fn panel_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<PanelRow>, ApiError> {
    Ok(case_panel::table
        .filter(case_panel::case_id.eq(cid))
        .order((case_panel::seat.desc(), case_panel::user_id))
        .select(PanelRow::as_select())
        .load(conn)?)
}

fn votes_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<VoteRow>, ApiError> {
    Ok(votes::table
        .filter(votes::case_id.eq(cid))
        .order(votes::at)
        .select(VoteRow::as_select())
        .load(conn)?)
}

/// The user accounts behind the parties: a party's account, or the account linked to a party
/// player.
fn party_users(conn: &mut PgConnection, parties: &[PartyRow]) -> Result<Vec<i64>, ApiError> {
    let mut out: BTreeSet<i64> = parties.iter().filter_map(|p| p.user_id).collect();
    let player_ids: Vec<i64> = parties.iter().filter_map(|p| p.player_id).collect();
    if !player_ids.is_empty() {
        let linked: Vec<Option<i64>> = players::table
            .filter(players::id.eq_any(&player_ids))
            .select(players::user_id)
            .load(conn)?;
        out.extend(linked.into_iter().flatten());
    }
    Ok(out.into_iter().collect())
}

/// The tournament's referees and appeals committee members.
fn officials(conn: &mut PgConnection, tid: i64) -> Result<(Vec<i64>, Vec<i64>), ApiError> {
    let rows: Vec<(i64, String)> = tournament_staff::table
        .filter(tournament_staff::tournament_id.eq(tid))
        .filter(tournament_staff::role.eq_any([
            StaffRole::Referee.as_str(),
            StaffRole::AppealsCommittee.as_str(),
        ]))
        .order(tournament_staff::appointed_at)
        .select((tournament_staff::user_id, tournament_staff::role))
        .load(conn)?;
    let pick = |role: StaffRole| -> Vec<i64> {
        rows.iter()
            .filter(|(_, r)| r == role.as_str())
            .map(|(u, _)| *u)
            .collect()
    };
    Ok((pick(StaffRole::Referee), pick(StaffRole::AppealsCommittee)))
}

fn kind_of(case: &CaseRow) -> CaseKind {
    if case.kind == "appeal" {
        CaseKind::Appeal
    } else {
        CaseKind::Complaint
    }
}

/// Computes the panel for the case's current parties and stores it; 409 when nobody is
/// eligible. Returns the panel's mode and rule.
fn recompute_panel(
    conn: &mut PgConnection,
    tid: i64,
    cid: i64,
    kind: CaseKind,
    author: i64,
) -> Result<rules::Panel, ApiError> {
    let parties = parties_of(conn, cid)?;
    let party_ids = party_users(conn, &parties)?;
    let (referees, committee) = officials(conn, tid)?;
    let panel = rules::deciding_panel(kind, &referees, &committee, &party_ids)
        .map_err(|e| ApiError::Conflict(e.to_string()))?;
    diesel::delete(case_panel::table.filter(case_panel::case_id.eq(cid))).execute(conn)?;
    let rows: Vec<PanelRow> = panel
        .members
        .iter()
        .map(|(u, seat)| PanelRow {
            case_id: cid,
            user_id: *u,
            seat: seat_name(*seat).into(),
        })
        .collect();
    diesel::insert_into(case_panel::table)
        .values(&rows)
        .execute(conn)?;
    diesel::update(cases::table.find(cid))
        .set((
            cases::panel_mode.eq(mode_name(panel.mode)),
            cases::panel_rule.eq(panel.rule.explain(kind)),
        ))
        .execute(conn)?;
    log(
        conn,
        cid,
        author,
        "panel_computed",
        serde_json::json!({
            "mode": mode_name(panel.mode),
            "rule": panel.rule.explain(kind),
            "members": panel.members.iter().map(|(u, s)| serde_json::json!({"user_id": u, "seat": seat_name(*s)})).collect::<Vec<_>>(),
        }),
    )?;
    Ok(panel)
}

fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::Referee => "referee",
        Seat::Committee => "committee",
    }
}

fn mode_name(mode: PanelMode) -> &'static str {
    match mode {
        PanelMode::Referee => "referee",
        PanelMode::Vote => "vote",
    }
}

fn log(
    conn: &mut PgConnection,
    cid: i64,
    author: i64,
    what: &str,
    detail: serde_json::Value,
) -> Result<(), ApiError> {
    diesel::insert_into(case_events::table)
        .values(NewCaseEvent {
            case_id: cid,
            author,
            what: what.into(),
            detail,
        })
        .execute(conn)?;
    Ok(())
}

/// The player of the caller's account registered in the tournament, if any.
fn registered_player_of(
    conn: &mut PgConnection,
    tid: i64,
    user_id: i64,
) -> Result<Option<i64>, ApiError> {
    Ok(players::table
        .inner_join(registrations::table.on(registrations::player_id.eq(players::id)))
        .filter(players::user_id.eq(user_id))
        .filter(registrations::tournament_id.eq(tid))
        .filter(registrations::status.ne("cancelled"))
        .select(players::id)
        .first(conn)
        .optional()?)
}

fn is_registered(conn: &mut PgConnection, tid: i64, player_id: i64) -> Result<bool, ApiError> {
    Ok(diesel::select(diesel::dsl::exists(
        registrations::table
            .filter(registrations::tournament_id.eq(tid))
            .filter(registrations::player_id.eq(player_id))
            .filter(registrations::status.ne("cancelled")),
    ))
    .get_result(conn)?)
}

/// Checks a party reference (exactly one of an existing account or player).
fn check_party_ref(
    conn: &mut PgConnection,
    field: &str,
    user_id: Option<i64>,
    player_id: Option<i64>,
) -> Result<(), ApiError> {
    match (user_id, player_id) {
        (Some(u), None) => {
            let ok: bool =
                diesel::select(diesel::dsl::exists(users::table.find(u))).get_result(conn)?;
            if !ok {
                return Err(ApiError::field(
                    format!("{field}.user_id"),
                    format!("there is no user {u}"),
                ));
            }
        }
        (None, Some(p)) => {
            let ok: bool =
                diesel::select(diesel::dsl::exists(players::table.find(p))).get_result(conn)?;
            if !ok {
                return Err(ApiError::field(
                    format!("{field}.player_id"),
                    format!("there is no player {p}"),
                ));
            }
        }
        _ => {
            return Err(ApiError::field(
                field,
                "name exactly one of user_id and player_id",
            ))
        }
    }
    Ok(())
}

/// Adds a party unless the same account or player is already one; whether it was added.
fn add_party(
    conn: &mut PgConnection,
    cid: i64,
    user_id: Option<i64>,
    player_id: Option<i64>,
    role: &str,
    by: i64,
) -> Result<bool, ApiError> {
    let existing = parties_of(conn, cid)?;
    let dup = existing.iter().any(|p| {
        (user_id.is_some() && p.user_id == user_id)
            || (player_id.is_some() && p.player_id == player_id)
    });
    if dup {
        return Ok(false);
    }
    diesel::insert_into(case_parties::table)
        .values(NewParty {
            case_id: cid,
            user_id,
            player_id,
            role: role.into(),
            added_by: by,
        })
        .execute(conn)?;
    log(
        conn,
        cid,
        by,
        "party_added",
        serde_json::json!({"user_id": user_id, "player_id": player_id, "role": role}),
    )?;
    Ok(true)
}

fn seated_at(
    conn: &mut PgConnection,
    tid: i64,
    round: i32,
    table: i32,
    field: &str,
) -> Result<Vec<i64>, ApiError> {
    let draw: Option<(serde_json::Value, String)> = rounds::table
        .filter(rounds::tournament_id.eq(tid))
        .filter(rounds::number.eq(round))
        .select((rounds::draw, rounds::status))
        .first(conn)
        .optional()?;
    let (draw, status) = draw.ok_or_else(|| ApiError::field(field, format!("no round {round}")))?;
    if status == "draft" {
        return Err(ApiError::field(
            field,
            format!("round {round} is not published"),
        ));
    }
    draw["tables"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["number"].as_i64() == Some(table.into()))
        .map(|t| {
            t["seats"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p.as_i64())
                .collect()
        })
        .ok_or_else(|| ApiError::field(field, format!("round {round} has no table {table}")))
}

// ---------------------------------------------------------------------------------------
// Rendering

/// Whether the caller sees everything about the case: admins, the tournament's referees and
/// organisers, the parties and the panel.
fn is_insider(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    case: &CaseRow,
) -> Result<bool, ApiError> {
    let Some(c) = &caller.0 else {
        return Ok(false);
    };
    if c.has_any_role(
        conn,
        case.tournament_id,
        &[StaffRole::Referee, StaffRole::Organiser],
    )? {
        return Ok(true);
    }
    let on_panel: bool = diesel::select(diesel::dsl::exists(
        case_panel::table
            .filter(case_panel::case_id.eq(case.id))
            .filter(case_panel::user_id.eq(c.user_id)),
    ))
    .get_result(conn)?;
    if on_panel {
        return Ok(true);
    }
    let parties = parties_of(conn, case.id)?;
    Ok(party_users(conn, &parties)?.contains(&c.user_id))
}

fn render(
    conn: &mut PgConnection,
    t: &Tournament,
    case: CaseRow,
    insider: bool,
) -> Result<CaseOut, ApiError> {
    let appealed_by: Option<i64> = cases::table
        .filter(cases::appeal_of.eq(case.id))
        .select(cases::id)
        .first(conn)
        .optional()?;
    let decided = rules::Decided {
        kind: kind_of(&case),
        mode: if case.panel_mode == "referee" {
            PanelMode::Referee
        } else {
            PanelMode::Vote
        },
        decided_at: case.decided_at,
        appealed: appealed_by.is_some(),
    };
    let window = i64::from(t.appeal_window_minutes);
    let appealable = rules::may_appeal(&decided, Utc::now(), window).is_ok();
    let appeal_until = case
        .decided_at
        .filter(|_| appealable)
        .map(|d| d + Duration::minutes(window));
    let is_final = case.status == "decided" && !appealable;
    let mut out = CaseOut {
        id: case.id,
        tournament_id: case.tournament_id,
        kind: case.kind.clone(),
        subject: case.subject.clone(),
        round: case.round_number,
        table: case.table_number,
        penalty_id: case.penalty_id,
        status: case.status.clone(),
        opened_at: case.opened_at,
        decided_at: case.decided_at,
        outcome: case.outcome.clone(),
        remedies: case.remedy.clone(),
        appeal_of: case.appeal_of,
        appealed_by,
        appeal_until,
        is_final,
        statement: None,
        evidence: None,
        requested_remedies: None,
        opened_by: None,
        decided_by: None,
        decision_reason: None,
        parties: None,
        panel: None,
        votes: None,
        history: None,
    };
    if !insider {
        return Ok(out);
    }
    let links: Vec<String> =
        serde_json::from_value(case.evidence_links.clone()).unwrap_or_default();
    out.statement = Some(case.statement.clone());
    out.evidence = Some(Evidence {
        text: case.evidence_text.clone(),
        links: Some(links),
    });
    out.requested_remedies = Some(case.requested_remedies.clone());
    out.opened_by = Some(case.opened_by);
    out.decided_by = case.decided_by;
    out.decision_reason = case.decision_reason.clone();
    out.parties = Some(
        parties_of(conn, case.id)?
            .into_iter()
            .map(|p| PartyOut {
                user_id: p.user_id,
                player_id: p.player_id,
                role: p.role,
                added_by: p.added_by,
                added_at: p.added_at,
            })
            .collect(),
    );
    out.panel = Some(PanelOut {
        mode: case.panel_mode.clone(),
        rule: case.panel_rule.clone(),
        members: panel_of(conn, case.id)?
            .into_iter()
            .map(|m| PanelMember {
                user_id: m.user_id,
                seat: m.seat,
            })
            .collect(),
    });
    out.votes = Some(
        votes_of(conn, case.id)?
            .into_iter()
            .map(|v| VoteOut {
                member_id: v.member_id,
                vote: v.vote,
                remedies: v.remedy,
                reason: v.reason,
                at: v.at,
            })
            .collect(),
    );
    let events: Vec<CaseEventRow> = case_events::table
        .filter(case_events::case_id.eq(case.id))
        .order(case_events::id)
        .select(CaseEventRow::as_select())
        .load(conn)?;
    out.history = Some(
        events
            .into_iter()
            .map(|e| CaseEventOut {
                author: e.author,
                at: e.at,
                what: e.what,
                detail: e.detail,
            })
            .collect(),
    );
    Ok(out)
}

fn render_for(
    conn: &mut PgConnection,
    t: &Tournament,
    caller: &MaybeCaller,
    cid: i64,
) -> Result<CaseOut, ApiError> {
    let case = load_case(conn, t.id, cid, false)?;
    let insider = is_insider(conn, caller, &case)?;
    render(conn, t, case, insider)
}

// ---------------------------------------------------------------------------------------
// Decisions and remedies

fn reason_for_records(cid: i64, reason: &str) -> String {
    format!("case {cid}: {reason}")
        .chars()
        .take(REASON_MAX)
        .collect()
}

/// Applies one remedy inside the decision's transaction; returns what it did.
fn apply_remedy(
    conn: &mut PgConnection,
    t: &Tournament,
    cid: i64,
    i: usize,
    remedy: &Remedy,
    reason: &str,
    by: i64,
) -> Result<serde_json::Value, ApiError> {
    let field = format!("remedies[{i}]");
    let as_field = |e: ApiError| match e {
        ApiError::NotFound(m) => ApiError::field(field.clone(), m),
        other => other,
    };
    let reason = reason_for_records(cid, reason);
    Ok(match remedy {
        Remedy::CorrectResult {
            round,
            table,
            seats,
            double_crash,
        } => {
            let input = EnterResult {
                seats: seats.clone(),
                double_crash: *double_crash,
                reason: Some(reason),
            };
            let out = store_result(
                conn,
                t.clone(),
                *round,
                *table,
                &input,
                Precondition::Case(cid),
                by,
            )
            .map_err(as_field)?;
            serde_json::json!({"result_version": out.current.version, "round_status": out.round_status})
        }
        Remedy::AnnulPenalty { penalty_id } => {
            let p = annul_penalty(conn, t.id, *penalty_id, by, reason).map_err(as_field)?;
            serde_json::json!({"penalty_annulled": p.id})
        }
        Remedy::AddPenalty {
            player_id,
            penalty,
            round,
            table,
            points,
        } => {
            let input = RecordPenalty {
                player_id: *player_id,
                kind: *penalty,
                round: *round,
                table: *table,
                points: *points,
                reason: reason.clone(),
            };
            let p = record_penalty(conn, t.id, &t.ruleset, &input, reason, Some(cid), by)
                .map_err(as_field)?;
            serde_json::json!({"penalty_recorded": p.id, "penalty_kind": p.kind})
        }
        Remedy::ReplayTable { round, table } => {
            seated_at(conn, t.id, *round, *table, &field)?;
            crate::db::events::record(
                conn,
                t.id,
                "replay_ordered",
                serde_json::json!({"round": round, "table": table, "case_id": cid}),
            )?;
            serde_json::json!({"replay_ordered": {"round": round, "table": table}})
        }
    })
}

/// Decides a case: applies the remedies, stores the outcome, logs it and tells the live feed.
fn decide(
    conn: &mut PgConnection,
    t: &Tournament,
    case: &CaseRow,
    verdict: Verdict,
    ordered: Vec<Remedy>,
    reason: String,
    by: i64,
) -> Result<(), ApiError> {
    let remedies = match verdict {
        Verdict::Uphold => remedies_of(&case.requested_remedies)?,
        Verdict::Dismiss => Vec::new(),
        Verdict::Remedy => ordered,
    };
    let mut applied = Vec::new();
    for (i, r) in remedies.iter().enumerate() {
        let effect = apply_remedy(conn, t, case.id, i, r, &reason, by)?;
        let entry = serde_json::json!({"order": to_json(r)?, "effect": effect});
        log(conn, case.id, by, "remedy_applied", entry.clone())?;
        applied.push(entry);
    }
    diesel::update(cases::table.find(case.id))
        .set((
            cases::status.eq("decided"),
            cases::decided_by.eq(Some(by)),
            cases::decided_at.eq(Some(Utc::now())),
            cases::outcome.eq(Some(verdict.outcome())),
            cases::decision_reason.eq(Some(&reason)),
            cases::remedy.eq(Some(serde_json::Value::Array(applied.clone()))),
            cases::version.eq(cases::version + 1),
        ))
        .execute(conn)?;
    log(
        conn,
        case.id,
        by,
        "decided",
        serde_json::json!({"outcome": verdict.outcome(), "reason": reason, "remedies": applied.len()}),
    )?;
    crate::db::events::record(
        conn,
        t.id,
        "case_decided",
        serde_json::json!({"case_id": case.id, "kind": case.kind, "outcome": verdict.outcome(), "remedies": applied}),
    )?;
    Ok(())
}

/// Checks a verdict's remedies: only `remedy` carries them, and it needs at least one.
fn verdict_remedies(
    check: &mut Check,
    verdict: Verdict,
    remedies: Option<Vec<Remedy>>,
) -> Vec<Remedy> {
    let remedies = remedies.unwrap_or_default();
    check_remedies(check, "remedies", &remedies);
    match verdict {
        Verdict::Remedy => check.ensure(
            !remedies.is_empty(),
            "remedies",
            "a remedy verdict names at least one remedy",
        ),
        _ => check.ensure(
            remedies.is_empty(),
            "remedies",
            "only a `remedy` verdict orders remedies (`uphold` applies the remedies asked for)",
        ),
    }
    remedies
}

/// The caller's standing on an open case that is about to be decided: 403 for a party, 403
/// for someone not on the panel.
fn require_panel_member(
    conn: &mut PgConnection,
    case: &CaseRow,
    caller: &Caller,
) -> Result<(), ApiError> {
    let parties = parties_of(conn, case.id)?;
    if party_users(conn, &parties)?.contains(&caller.user_id) {
        return Err(ApiError::Forbidden(format!(
            "you are a party to case {}: nobody decides a case they are a party to",
            case.id
        )));
    }
    let on_panel = panel_of(conn, case.id)?
        .iter()
        .any(|m| m.user_id == caller.user_id);
    if !on_panel {
        return Err(ApiError::Forbidden(format!(
            "you are not on the deciding panel of case {}",
            case.id
        )));
    }
    Ok(())
}

/// The tournament and the case (locked) for a member of its deciding panel about to act on
/// it: an open case stays hidden (404) from anyone outside it; 403 for a party or someone not
/// on the panel.
fn case_for_panel(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    cid: i64,
) -> Result<(Tournament, CaseRow, MaybeCaller), ApiError> {
    let t = load_tournament(conn, caller, tid)?;
    let case = load_case(conn, tid, cid, true)?;
    let me = MaybeCaller(Some(caller.clone()));
    if case.status == "open" && !is_insider(conn, &me, &case)? {
        return Err(ApiError::NotFound(format!(
            "no case {cid} in tournament {tid}"
        )));
    }
    require_panel_member(conn, &case, caller)?;
    Ok((t, case, me))
}

fn require_open(case: &CaseRow) -> Result<(), ApiError> {
    if case.status != "open" {
        return Err(ApiError::Conflict(format!(
            "case {} is already decided ({})",
            case.id,
            case.outcome.as_deref().unwrap_or(&case.status)
        )));
    }
    Ok(())
}

fn load_tournament(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
) -> Result<Tournament, ApiError> {
    load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)
}

// ---------------------------------------------------------------------------------------
// Handlers

/// Open a complaint (a player registered in the tournament, a referee or an organiser). The
/// complainant, the people named as respondents and, for a table or a result, the players
/// seated there become parties; the deciding panel is computed and shown.
#[utoipa::path(
    tag = "cases",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = OpenCase,
    responses(
        (status = 201, description = "Opened; the case with its parties and panel", body = CaseOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither a registered player nor a referee or organiser", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Nobody who is not a party can decide the case", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases")]
pub async fn open(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<OpenCase>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let input = body.0;
    let mut check = Check::new();
    let statement = check.text("statement", &input.statement, STATEMENT_MAX);
    let evidence = input
        .evidence
        .as_ref()
        .map(|e| check_evidence(&mut check, "evidence", e))
        .unwrap_or_default();
    check_round_table(&mut check, "", input.round, input.table);
    let respondents = input.respondents.clone().unwrap_or_default();
    check.ensure(
        respondents.len() <= 10,
        "respondents",
        "at most 10 respondents",
    );
    let requested = input.remedies.clone().unwrap_or_default();
    check_remedies(&mut check, "remedies", &requested);
    match input.subject {
        CaseSubject::Table | CaseSubject::Result => {
            check.ensure(
                input.round.is_some() && input.table.is_some(),
                "round",
                "a case about a table or a result names the round and the table",
            );
        }
        CaseSubject::Penalty => {
            check.ensure(
                input.penalty_id.is_some(),
                "penalty_id",
                "a case about a penalty names the penalty",
            );
        }
        CaseSubject::Conduct => {}
    }
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let t = load_tournament(conn, &caller, tid)?;
                let staff = caller.has_any_role(
                    conn,
                    tid,
                    &[StaffRole::Referee, StaffRole::Organiser],
                )?;
                let own_player = registered_player_of(conn, tid, caller.user_id)?;
                if !staff && own_player.is_none() {
                    return Err(ApiError::Forbidden(
                        "only a player registered in this tournament, a referee or an organiser may open a case".into(),
                    ));
                }
                let (complainant_user, complainant_player) = match input.complainant_player_id {
                    Some(p) if !staff => {
                        if Some(p) != own_player {
                            return Err(ApiError::Forbidden(
                                "only a referee or an organiser may open a case on behalf of another player".into(),
                            ));
                        }
                        (Some(caller.user_id), Some(p))
                    }
                    Some(p) => {
                        if !is_registered(conn, tid, p)? {
                            return Err(ApiError::field(
                                "complainant_player_id",
                                format!("player {p} is not registered in this tournament"),
                            ));
                        }
                        (None, Some(p))
                    }
                    None => (Some(caller.user_id), own_player),
                };
                for (i, r) in respondents.iter().enumerate() {
                    check_party_ref(conn, &format!("respondents[{i}]"), r.user_id, r.player_id)?;
                }
                let mut seated = Vec::new();
                if let (Some(r), Some(tb)) = (input.round, input.table) {
                    if matches!(input.subject, CaseSubject::Table | CaseSubject::Result) {
                        seated = seated_at(conn, tid, r, tb, "table")?;
                    }
                }
                let mut penalised = None;
                if let Some(pid) = input.penalty_id {
                    let p: Option<i64> = penalties::table
                        .filter(penalties::tournament_id.eq(tid))
                        .filter(penalties::id.eq(pid))
                        .select(penalties::player_id)
                        .first(conn)
                        .optional()?;
                    penalised = Some(p.ok_or_else(|| {
                        ApiError::field("penalty_id", format!("no penalty {pid} in this tournament"))
                    })?);
                }
                let row: CaseRow = diesel::insert_into(cases::table)
                    .values(NewCase {
                        tournament_id: tid,
                        kind: "complaint".into(),
                        subject: input.subject.as_str().into(),
                        round_number: input.round,
                        table_number: input.table,
                        penalty_id: input.penalty_id,
                        statement,
                        evidence_text: evidence.text.clone(),
                        evidence_links: to_json(&evidence.links.clone().unwrap_or_default())?,
                        requested_remedies: to_json(&requested)?,
                        panel_mode: "referee".into(),
                        panel_rule: String::new(),
                        opened_by: caller.user_id,
                        appeal_of: None,
                    })
                    .returning(CaseRow::as_returning())
                    .get_result(conn)?;
                let cid = row.id;
                log(
                    conn,
                    cid,
                    caller.user_id,
                    "opened",
                    serde_json::json!({"subject": row.subject, "round": row.round_number, "table": row.table_number, "penalty_id": row.penalty_id}),
                )?;
                add_party(conn, cid, complainant_user, complainant_player, "complainant", caller.user_id)?;
                for r in &respondents {
                    add_party(conn, cid, r.user_id, r.player_id, "respondent", caller.user_id)?;
                }
                if let Some(p) = penalised {
                    add_party(conn, cid, None, Some(p), "respondent", caller.user_id)?;
                }
                for p in seated {
                    add_party(conn, cid, None, Some(p), "player_at_table", caller.user_id)?;
                }
                recompute_panel(conn, tid, cid, CaseKind::Complaint, caller.user_id)?;
                let row = load_case(conn, tid, cid, false)?;
                render(conn, &t, row, true)
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// The tournament's cases the caller may see: open cases only for their parties, the
/// referees, the organisers and the panel; decided cases for everyone (outcome and remedies
/// only, unless the caller is one of those).
#[utoipa::path(
    tag = "cases",
    params(("id" = i64, Path, description = "Tournament id")),
    responses(
        (status = 200, description = "Cases, oldest first", body = Vec<CaseOut>),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/cases")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let out = state
        .run(move |conn| {
            let t = load_visible(conn, &caller, tid)?;
            let rows: Vec<CaseRow> = cases::table
                .filter(cases::tournament_id.eq(tid))
                .order(cases::id)
                .select(CaseRow::as_select())
                .load(conn)?;
            let mut out = Vec::new();
            for row in rows {
                let insider = is_insider(conn, &caller, &row)?;
                if insider || row.status != "open" {
                    out.push(render(conn, &t, row, insider)?);
                }
            }
            Ok(out)
        })
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// One case (an open case is 404 for anyone but its parties, the referees, the organisers
/// and the panel).
#[utoipa::path(
    tag = "cases",
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("cid" = i64, Path, description = "Case id"),
    ),
    responses(
        (status = 200, description = "The case", body = CaseOut),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or case", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/cases/{cid}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (tid, cid) = path.into_inner();
    let out = state
        .run(move |conn| {
            let t = load_visible(conn, &caller, tid)?;
            let case = load_case(conn, tid, cid, false)?;
            let insider = is_insider(conn, &caller, &case)?;
            if !insider && case.status == "open" {
                return Err(ApiError::NotFound(format!(
                    "no case {cid} in tournament {tid}"
                )));
            }
            render(conn, &t, case, insider)
        })
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Add a party to an open case (a referee, an organiser or the complainant) before any vote
/// is cast; the deciding panel is recomputed (409 if nobody would be left to decide).
#[utoipa::path(
    tag = "cases",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("cid" = i64, Path, description = "Case id"),
    ),
    request_body = AddParty,
    responses(
        (status = 200, description = "Added; the case with its new panel", body = CaseOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a referee, an organiser or the complainant", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or case", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Decided, votes cast, already a party, or nobody left to decide", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/parties")]
pub async fn add_parties(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<AddParty>,
) -> ApiResult<HttpResponse> {
    let (tid, cid) = path.into_inner();
    let input = body.0;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let t = load_tournament(conn, &caller, tid)?;
                let case = load_case(conn, tid, cid, true)?;
                let staff =
                    caller.has_any_role(conn, tid, &[StaffRole::Referee, StaffRole::Organiser])?;
                let parties = parties_of(conn, cid)?;
                let complainants: Vec<PartyRow> = parties
                    .iter()
                    .filter(|p| p.role == "complainant")
                    .cloned()
                    .collect();
                let is_complainant = party_users(conn, &complainants)?.contains(&caller.user_id);
                if !staff && !is_complainant {
                    if is_insider(conn, &MaybeCaller(Some(caller.clone())), &case)? {
                        return Err(ApiError::Forbidden(
                            "only a referee, an organiser or the complainant may add parties"
                                .into(),
                        ));
                    }
                    return Err(ApiError::NotFound(format!(
                        "no case {cid} in tournament {tid}"
                    )));
                }
                require_open(&case)?;
                if !votes_of(conn, cid)?.is_empty() {
                    return Err(ApiError::Conflict(
                        "votes have been cast on this case; its parties can no longer change"
                            .into(),
                    ));
                }
                check_party_ref(conn, "party", input.user_id, input.player_id)?;
                let role = match input.role {
                    AddedPartyRole::Respondent => "respondent",
                    AddedPartyRole::PlayerAtTable => "player_at_table",
                };
                if !add_party(
                    conn,
                    cid,
                    input.user_id,
                    input.player_id,
                    role,
                    caller.user_id,
                )? {
                    return Err(ApiError::Conflict("already a party to this case".into()));
                }
                recompute_panel(conn, tid, cid, kind_of(&case), caller.user_id)?;
                diesel::update(cases::table.find(cid))
                    .set(cases::version.eq(cases::version + 1))
                    .execute(conn)?;
                render_for(conn, &t, &MaybeCaller(Some(caller.clone())), cid)
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// A referee's ruling on a case with a referee panel (any referee on the panel): uphold
/// (apply the remedies asked for), dismiss, or order remedies. The remedies are applied in
/// the same transaction.
#[utoipa::path(
    tag = "cases",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("cid" = i64, Path, description = "Case id"),
    ),
    request_body = Decide,
    responses(
        (status = 200, description = "Decided; the case", body = CaseOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A party to the case, or not on its panel", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or case", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already decided, or a committee panel that votes", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields or a remedy that cannot be applied", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/decision")]
pub async fn decision(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<Decide>,
) -> ApiResult<HttpResponse> {
    let (tid, cid) = path.into_inner();
    let input = body.0;
    let mut check = Check::new();
    let reason = check.text("reason", &input.reason, REASON_MAX);
    let remedies = verdict_remedies(&mut check, input.verdict, input.remedies);
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let (t, case, me) = case_for_panel(conn, &caller, tid, cid)?;
                require_open(&case)?;
                if case.panel_mode != "referee" {
                    return Err(ApiError::Conflict(format!(
                        "case {cid} is decided by the votes of its panel: POST /tournaments/{tid}/cases/{cid}/votes"
                    )));
                }
                decide(conn, &t, &case, input.verdict, remedies, reason, caller.user_id)?;
                render_for(conn, &t, &me, cid)
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// A committee panel member's vote (each member once, with a reason). When a choice has a
/// majority of the panel the case is decided and its remedies applied in the same
/// transaction; when every member has voted without a majority the case is dismissed.
#[utoipa::path(
    tag = "cases",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("cid" = i64, Path, description = "Case id"),
    ),
    request_body = CastVote,
    responses(
        (status = 201, description = "Vote recorded; the case (decided if this vote made a majority)", body = CaseOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A party to the case, or not on its panel", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or case", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already voted, already decided, or a case the referee rules on alone", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields or a remedy that cannot be applied", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/votes")]
pub async fn vote(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<CastVote>,
) -> ApiResult<HttpResponse> {
    let (tid, cid) = path.into_inner();
    let input = body.0;
    let mut check = Check::new();
    let reason = check.text("reason", &input.reason, REASON_MAX);
    let remedies = verdict_remedies(&mut check, input.vote, input.remedies);
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let (t, case, me) = case_for_panel(conn, &caller, tid, cid)?;
                let cast = votes_of(conn, cid)?;
                if cast.iter().any(|v| v.member_id == caller.user_id) {
                    return Err(ApiError::Conflict(format!(
                        "you have already voted on case {cid}; each member votes once"
                    )));
                }
                require_open(&case)?;
                if case.panel_mode != "vote" {
                    return Err(ApiError::Conflict(format!(
                        "case {cid} is ruled on by a referee alone: POST /tournaments/{tid}/cases/{cid}/decision"
                    )));
                }
                let remedy_json = match input.vote {
                    Verdict::Remedy => Some(to_json(&remedies)?),
                    _ => None,
                };
                diesel::insert_into(votes::table)
                    .values(NewVote {
                        case_id: cid,
                        member_id: caller.user_id,
                        vote: input.vote.as_str().into(),
                        remedy: remedy_json.clone(),
                        reason: reason.clone(),
                    })
                    .execute(conn)
                    .map_err(|e| match e {
                        diesel::result::Error::DatabaseError(
                            diesel::result::DatabaseErrorKind::UniqueViolation,
                            _,
                        ) => ApiError::Conflict(format!("you have already voted on case {cid}")),
                        other => other.into(),
                    })?;
                log(
                    conn,
                    cid,
                    caller.user_id,
                    "voted",
                    serde_json::json!({"vote": input.vote.as_str(), "remedies": remedy_json, "reason": reason}),
                )?;
                // Tally: a choice is the verdict together with the remedies it orders.
                let all = votes_of(conn, cid)?;
                let keys: Vec<String> = all
                    .iter()
                    .map(|v| match &v.remedy {
                        Some(r) => format!("{}:{r}", v.vote),
                        None => v.vote.clone(),
                    })
                    .collect();
                let size = panel_of(conn, cid)?.len();
                match rules::tally(size, &keys) {
                    Tally::Pending => {}
                    Tally::Majority(key) => {
                        let winner = all
                            .iter()
                            .zip(&keys)
                            .find(|(_, k)| **k == key)
                            .map(|(v, _)| v)
                            .ok_or_else(|| ApiError::Internal("majority without a vote".into()))?;
                        let verdict = Verdict::parse(&winner.vote)
                            .ok_or_else(|| ApiError::Internal("stored vote".into()))?;
                        let ordered = match &winner.remedy {
                            Some(r) => remedies_of(r)?,
                            None => Vec::new(),
                        };
                        let count = keys.iter().filter(|k| **k == key).count();
                        let why = format!(
                            "{count} of {size} panel members voted to {} ({} votes cast)",
                            winner.vote,
                            all.len()
                        );
                        decide(conn, &t, &case, verdict, ordered, why, caller.user_id)?;
                    }
                    Tally::Deadlock => {
                        let why = format!(
                            "no majority among the {size} panel members: nothing changes, the case is dismissed"
                        );
                        decide(conn, &t, &case, Verdict::Dismiss, Vec::new(), why, caller.user_id)?;
                    }
                }
                render_for(conn, &t, &me, cid)
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// Appeal a referee's ruling to the appeals committee (a party of the case, within the
/// tournament's `appeal_window_minutes` after the decision). The parties carry over, the
/// referee who ruled becomes a party (`official_appealed`), and the appeal's panel is
/// computed; its decision is final.
#[utoipa::path(
    tag = "cases",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("cid" = i64, Path, description = "The decided case"),
    ),
    request_body = Appeal,
    responses(
        (status = 201, description = "The appeal, a new case", body = CaseOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a party to the case", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or case", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not appealable: not decided, an appeal itself, decided by a committee panel, already appealed, or the appeal window has closed", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/appeal")]
pub async fn appeal(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<Appeal>,
) -> ApiResult<HttpResponse> {
    let (tid, cid) = path.into_inner();
    let input = body.0;
    let mut check = Check::new();
    let statement = check.text("statement", &input.statement, STATEMENT_MAX);
    let evidence = input
        .evidence
        .as_ref()
        .map(|e| check_evidence(&mut check, "evidence", e))
        .unwrap_or_default();
    let requested = input.remedies.clone().unwrap_or_default();
    check_remedies(&mut check, "remedies", &requested);
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let t = load_tournament(conn, &caller, tid)?;
                let case = load_case(conn, tid, cid, true)?;
                let parties = parties_of(conn, cid)?;
                if !party_users(conn, &parties)?.contains(&caller.user_id) {
                    let me = MaybeCaller(Some(caller.clone()));
                    if case.status == "open" && !is_insider(conn, &me, &case)? {
                        return Err(ApiError::NotFound(format!(
                            "no case {cid} in tournament {tid}"
                        )));
                    }
                    return Err(ApiError::Forbidden(format!(
                        "only a party to case {cid} may appeal its decision"
                    )));
                }
                let appealed: bool = diesel::select(diesel::dsl::exists(
                    cases::table.filter(cases::appeal_of.eq(cid)),
                ))
                .get_result(conn)?;
                let decided = rules::Decided {
                    kind: kind_of(&case),
                    mode: if case.panel_mode == "referee" {
                        PanelMode::Referee
                    } else {
                        PanelMode::Vote
                    },
                    decided_at: case.decided_at,
                    appealed,
                };
                rules::may_appeal(&decided, Utc::now(), t.appeal_window_minutes.into())
                    .map_err(|e| ApiError::Conflict(e.to_string()))?;
                let row: CaseRow = diesel::insert_into(cases::table)
                    .values(NewCase {
                        tournament_id: tid,
                        kind: "appeal".into(),
                        subject: case.subject.clone(),
                        round_number: case.round_number,
                        table_number: case.table_number,
                        penalty_id: case.penalty_id,
                        statement,
                        evidence_text: evidence.text.clone(),
                        evidence_links: to_json(&evidence.links.clone().unwrap_or_default())?,
                        requested_remedies: to_json(&requested)?,
                        panel_mode: "vote".into(),
                        panel_rule: String::new(),
                        opened_by: caller.user_id,
                        appeal_of: Some(cid),
                    })
                    .returning(CaseRow::as_returning())
                    .get_result(conn)
                    .map_err(|e| match e {
                        diesel::result::Error::DatabaseError(
                            diesel::result::DatabaseErrorKind::UniqueViolation,
                            _,
                        ) => ApiError::Conflict("this decision has already been appealed".into()),
                        other => other.into(),
                    })?;
                let aid = row.id;
                log(
                    conn,
                    aid,
                    caller.user_id,
                    "opened",
                    serde_json::json!({"appeal_of": cid}),
                )?;
                // The appellant first, then the other parties, then the referee who ruled.
                let mine: HashSet<i64> = parties
                    .iter()
                    .filter(|p| p.user_id == Some(caller.user_id))
                    .map(|p| p.id)
                    .collect();
                let own_player = registered_player_of(conn, tid, caller.user_id)?;
                add_party(
                    conn,
                    aid,
                    Some(caller.user_id),
                    own_player,
                    "complainant",
                    caller.user_id,
                )?;
                for p in parties.iter().filter(|p| !mine.contains(&p.id)) {
                    add_party(conn, aid, p.user_id, p.player_id, &p.role, caller.user_id)?;
                }
                if let Some(referee) = case.decided_by {
                    add_party(
                        conn,
                        aid,
                        Some(referee),
                        None,
                        "official_appealed",
                        caller.user_id,
                    )?;
                }
                recompute_panel(conn, tid, aid, CaseKind::Appeal, caller.user_id)?;
                diesel::update(cases::table.find(cid))
                    .set((
                        cases::status.eq("appealed"),
                        cases::version.eq(cases::version + 1),
                    ))
                    .execute(conn)?;
                log(
                    conn,
                    cid,
                    caller.user_id,
                    "appealed",
                    serde_json::json!({"appeal": aid}),
                )?;
                crate::db::events::record(
                    conn,
                    tid,
                    "case_appealed",
                    serde_json::json!({"case_id": cid, "appeal_id": aid}),
                )?;
                render_for(conn, &t, &MaybeCaller(Some(caller.clone())), aid)
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(out))
}
