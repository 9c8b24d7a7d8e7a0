//! Cases: complaints and appeals, their parties, the deciding panel, the panel's votes and
//! the audit trail; the rows (their closed sets typed) and the queries on them.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use super::schema::{case_events, case_panel, case_parties, cases, votes};
use crate::db::ids::{CaseEventId, CaseId, PartyId, PenaltyId, PlayerId, TournamentId, UserId};
use crate::db::json::{stored_row, Json};
use crate::db::models::{Tournament, TournamentRules};
use crate::db::rounds::Lock;
use crate::domain::case_sets::{
    CaseOutcome, CaseStep, CaseSubject, PanelReason, PartyRole, Verdict,
};
use crate::domain::cases::{Appeals, CaseKind, PanelMode, Seat};
use crate::domain::entries::{AppliedRemedy, Remedy};
use crate::domain::status::CaseStatus;
use crate::error::ApiError;

stored_row! {
    /// A case, its JSON columns decoded as the row is read (see [`StoredCase`]).
    #[derive(Debug, Clone)]
    pub struct CaseRow {
        pub id: CaseId,
        pub tournament_id: TournamentId,
        pub kind: CaseKind,
        pub subject: CaseSubject,
        pub round_number: Option<i32>,
        pub table_number: Option<i32>,
        pub penalty_id: Option<PenaltyId>,
        pub statement: String,
        pub evidence_text: Option<String>,
        /// Links to evidence.
        pub evidence_links: Vec<String> as json,
        /// What the complainant (or appellant) asks for.
        pub requested_remedies: Vec<Remedy> as json,
        pub panel_mode: PanelMode,
        pub panel_rule: PanelReason,
        pub status: CaseStatus,
        pub opened_by: UserId,
        pub opened_at: DateTime<Utc>,
        pub decided_by: Option<UserId>,
        pub decided_at: Option<DateTime<Utc>>,
        pub outcome: Option<CaseOutcome>,
        pub decision_reason: Option<String>,
        /// The remedies the decision applied, each with its effect.
        pub remedy: Option<Vec<AppliedRemedy>> as json_or_null,
        /// The case this appeal is against.
        pub appeal_of: Option<CaseId>,
        pub version: i32,
        /// Until when the decision may be appealed, fixed with the decision from the
        /// tournament's appeal window then (whether it may be appealed at all is the rules').
        pub appeal_until: Option<DateTime<Utc>>,
    }
    read through StoredCase from cases, named "cases" row |s| s.id;
}

#[derive(Debug, Insertable)]
#[diesel(table_name = cases)]
pub struct NewCase {
    pub tournament_id: TournamentId,
    pub kind: CaseKind,
    pub subject: CaseSubject,
    pub round_number: Option<i32>,
    pub table_number: Option<i32>,
    pub penalty_id: Option<PenaltyId>,
    pub statement: String,
    pub evidence_text: Option<String>,
    pub evidence_links: Json<Vec<String>>,
    pub requested_remedies: Json<Vec<Remedy>>,
    pub panel_mode: PanelMode,
    pub panel_rule: PanelReason,
    pub opened_by: UserId,
    pub appeal_of: Option<CaseId>,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = case_parties)]
pub struct PartyRow {
    pub id: PartyId,
    pub case_id: CaseId,
    pub user_id: Option<UserId>,
    pub player_id: Option<PlayerId>,
    pub role: PartyRole,
    pub added_by: UserId,
    pub added_at: DateTime<Utc>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = case_parties)]
pub struct NewParty {
    pub case_id: CaseId,
    pub user_id: Option<UserId>,
    pub player_id: Option<PlayerId>,
    pub role: PartyRole,
    pub added_by: UserId,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = case_panel)]
pub struct PanelRow {
    pub case_id: CaseId,
    pub user_id: UserId,
    pub seat: Seat,
}

stored_row! {
    /// A panel member's vote, its remedies decoded as the row is read (see [`StoredVote`]).
    #[derive(Debug, Clone)]
    pub struct VoteRow {
        pub case_id: CaseId,
        pub member_id: UserId,
        pub vote: Verdict,
        /// The remedies a `remedy` vote orders.
        pub remedy: Option<Vec<Remedy>> as json_or_null,
        pub reason: String,
        pub at: DateTime<Utc>,
    }
    read through StoredVote from votes,
        named "votes" row |s| format!("(case {}, member {})", s.case_id, s.member_id);
}

#[derive(Debug, Insertable)]
#[diesel(table_name = votes)]
pub struct NewVote {
    pub case_id: CaseId,
    pub member_id: UserId,
    pub vote: Verdict,
    pub remedy: Option<Json<Vec<Remedy>>>,
    pub reason: String,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = case_events)]
pub struct CaseEventRow {
    pub id: CaseEventId,
    pub case_id: CaseId,
    pub author: UserId,
    pub at: DateTime<Utc>,
    pub what: CaseStep,
    /// free-form: the step's audit detail, shown as recorded.
    pub detail: serde_json::Value,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = case_events)]
pub struct NewCaseEvent {
    pub case_id: CaseId,
    pub author: UserId,
    pub what: CaseStep,
    /// free-form: the step's audit detail, shown as recorded.
    pub detail: serde_json::Value,
}

/// `Ok(None)` for an insert refused by a unique index, the row otherwise.
fn unless_taken<T>(r: QueryResult<T>) -> QueryResult<Option<T>> {
    match r {
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(None),
        other => other.map(Some),
    }
}

/// Case `case` of tournament `t`, its row locked with [`Lock::ForUpdate`].
pub fn in_tournament(
    conn: &mut PgConnection,
    t: TournamentId,
    case: CaseId,
    lock: Lock,
) -> QueryResult<Option<CaseRow>> {
    let q = cases::table
        .filter(cases::tournament_id.eq(t))
        .filter(cases::id.eq(case))
        .select(CaseRow::as_select());
    match lock {
        Lock::None => q.first(conn).optional(),
        Lock::ForUpdate => q.for_update().first(conn).optional(),
    }
}

/// Stores a new case.
pub fn insert(conn: &mut PgConnection, new: &NewCase) -> QueryResult<CaseRow> {
    diesel::insert_into(cases::table)
        .values(new)
        .returning(CaseRow::as_returning())
        .get_result(conn)
}

/// Stores a new appeal; `None` when the decision already has one (one appeal per case).
pub fn insert_appeal(conn: &mut PgConnection, new: &NewCase) -> QueryResult<Option<CaseRow>> {
    unless_taken(insert(conn, new))
}

/// The cases of a tournament a list shows: every case with `open_too`, else the decided ones.
fn listed(t: TournamentId, open_too: bool) -> cases::BoxedQuery<'static, diesel::pg::Pg> {
    let q = cases::table.filter(cases::tournament_id.eq(t)).into_boxed();
    if open_too {
        q
    } else {
        q.filter(cases::status.ne(CaseStatus::Open))
    }
}

/// How many cases of the tournament a list shows (see [`page_listed`]).
pub fn count_listed(conn: &mut PgConnection, t: TournamentId, open_too: bool) -> QueryResult<i64> {
    listed(t, open_too).count().get_result(conn)
}

/// A page of the tournament's cases, oldest first: every case with `open_too`, else the
/// decided ones.
pub fn page_listed(
    conn: &mut PgConnection,
    t: TournamentId,
    open_too: bool,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<CaseRow>> {
    listed(t, open_too)
        .order(cases::id)
        .select(CaseRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// Every case of the tournament, oldest first.
pub fn of_tournament(conn: &mut PgConnection, t: TournamentId) -> QueryResult<Vec<CaseRow>> {
    cases::table
        .filter(cases::tournament_id.eq(t))
        .order(cases::id)
        .select(CaseRow::as_select())
        .load(conn)
}

/// The open cases of the tournament, oldest first, their rows locked (`FOR UPDATE`; the
/// caller holds the tournament's lock first).
pub fn open_in(conn: &mut PgConnection, t: TournamentId) -> QueryResult<Vec<CaseRow>> {
    cases::table
        .filter(cases::tournament_id.eq(t))
        .filter(cases::status.eq(CaseStatus::Open))
        .order(cases::id)
        .select(CaseRow::as_select())
        .for_update()
        .load(conn)
}

/// The appeal lodged against case `case`, if any.
pub fn appeal_against(conn: &mut PgConnection, case: CaseId) -> QueryResult<Option<CaseId>> {
    cases::table
        .filter(cases::appeal_of.eq(case))
        .select(cases::id)
        .first(conn)
        .optional()
}

/// The parties of a case, in the order they were added.
pub fn parties_of(conn: &mut PgConnection, case: CaseId) -> QueryResult<Vec<PartyRow>> {
    case_parties::table
        .filter(case_parties::case_id.eq(case))
        .order(case_parties::id)
        .select(PartyRow::as_select())
        .load(conn)
}

/// The deciding panel of a case, referees first.
pub fn panel_of(conn: &mut PgConnection, case: CaseId) -> QueryResult<Vec<PanelRow>> {
    case_panel::table
        .filter(case_panel::case_id.eq(case))
        .order((case_panel::seat.desc(), case_panel::user_id))
        .select(PanelRow::as_select())
        .load(conn)
}

/// The votes cast on a case, in the order they were cast.
pub fn votes_of(conn: &mut PgConnection, case: CaseId) -> QueryResult<Vec<VoteRow>> {
    votes::table
        .filter(votes::case_id.eq(case))
        .order(votes::at)
        .select(VoteRow::as_select())
        .load(conn)
}

/// The steps of a case's history, oldest first.
pub fn history_of(conn: &mut PgConnection, case: CaseId) -> QueryResult<Vec<CaseEventRow>> {
    case_events::table
        .filter(case_events::case_id.eq(case))
        .order(case_events::id)
        .select(CaseEventRow::as_select())
        .load(conn)
}

/// Whether `user` sits on the case's panel.
pub fn on_panel(conn: &mut PgConnection, case: CaseId, user: UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        case_panel::table
            .filter(case_panel::case_id.eq(case))
            .filter(case_panel::user_id.eq(user)),
    ))
    .get_result(conn)
}

/// Replaces the case's panel with `members`, and its mode and the reason for it.
pub fn seat_panel(
    conn: &mut PgConnection,
    case: CaseId,
    members: &[PanelRow],
    mode: PanelMode,
    reason: PanelReason,
) -> QueryResult<()> {
    diesel::delete(case_panel::table.filter(case_panel::case_id.eq(case))).execute(conn)?;
    diesel::insert_into(case_panel::table)
        .values(members)
        .execute(conn)?;
    diesel::update(cases::table.find(case.0))
        .set((cases::panel_mode.eq(mode), cases::panel_rule.eq(reason)))
        .execute(conn)?;
    Ok(())
}

/// Appends a step to the case's history.
pub fn record(conn: &mut PgConnection, step: &NewCaseEvent) -> QueryResult<()> {
    diesel::insert_into(case_events::table)
        .values(step)
        .execute(conn)?;
    Ok(())
}

/// Stores a party of a case.
pub fn add_party(conn: &mut PgConnection, party: &NewParty) -> QueryResult<()> {
    diesel::insert_into(case_parties::table)
        .values(party)
        .execute(conn)?;
    Ok(())
}

/// Stores a member's vote; `false` when the member has voted on the case already.
pub fn cast_vote(conn: &mut PgConnection, vote: &NewVote) -> QueryResult<bool> {
    let stored = diesel::insert_into(votes::table).values(vote).execute(conn);
    Ok(unless_taken(stored)?.is_some())
}

/// What a decision stores on its case.
#[derive(Debug)]
pub struct Decision<'a> {
    pub by: UserId,
    pub at: DateTime<Utc>,
    pub outcome: CaseOutcome,
    pub reason: &'a str,
    /// The remedies applied: each `order` and its `effect`.
    pub remedies: &'a [AppliedRemedy],
    /// The decision's appeal deadline: its time plus the tournament's appeal window.
    pub appeal_until: DateTime<Utc>,
}

/// Marks the case decided (a new version of it).
pub fn set_decided(conn: &mut PgConnection, case: CaseId, d: &Decision<'_>) -> QueryResult<()> {
    diesel::update(cases::table.find(case.0))
        .set((
            cases::status.eq(CaseStatus::Decided),
            cases::decided_by.eq(Some(d.by)),
            cases::decided_at.eq(Some(d.at)),
            cases::outcome.eq(Some(d.outcome)),
            cases::decision_reason.eq(Some(d.reason)),
            cases::remedy.eq(Some(Json(d.remedies))),
            cases::appeal_until.eq(Some(d.appeal_until)),
            cases::version.eq(cases::version + 1),
        ))
        .execute(conn)?;
    Ok(())
}

/// Marks the decided case appealed (a new version of it).
pub fn set_appealed(conn: &mut PgConnection, case: CaseId) -> QueryResult<()> {
    diesel::update(cases::table.find(case.0))
        .set((
            cases::status.eq(CaseStatus::Appealed),
            cases::version.eq(cases::version + 1),
        ))
        .execute(conn)?;
    Ok(())
}

/// A new version of the case (its parties changed).
pub fn touch(conn: &mut PgConnection, case: CaseId) -> QueryResult<()> {
    diesel::update(cases::table.find(case.0))
        .set(cases::version.eq(cases::version + 1))
        .execute(conn)?;
    Ok(())
}

/// The player a penalty of tournament `t` was given to and the account that gave it.
pub fn penalty_parties(
    conn: &mut PgConnection,
    t: TournamentId,
    penalty: PenaltyId,
) -> QueryResult<Option<(PlayerId, UserId)>> {
    use super::schema::penalties;
    penalties::table
        .filter(penalties::tournament_id.eq(t))
        .filter(penalties::id.eq(penalty))
        .select((penalties::player_id, penalties::issued_by))
        .first(conn)
        .optional()
}

/// Whether account `user` is (as an account) a party to a case of tournament `t`.
pub fn is_party_in(conn: &mut PgConnection, t: TournamentId, user: UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        case_parties::table
            .inner_join(cases::table)
            .filter(cases::tournament_id.eq(t))
            .filter(case_parties::user_id.eq(user)),
    ))
    .get_result(conn)
}

/// Who hears what after a ruling in tournament `t` (its ruleset's appeals; its stored rules
/// were decoded as its row was read).
pub fn appeals_of(t: &Tournament) -> Result<Appeals, ApiError> {
    Ok(t.rules.ruleset.appeals)
}

/// Who hears what after a ruling in tournament `t`, read from its row; stored rules that do
/// not parse are an error naming the row.
pub fn appeals_in(conn: &mut PgConnection, t: TournamentId) -> Result<Appeals, ApiError> {
    use super::schema::tournaments;
    let rules: TournamentRules = tournaments::table
        .find(t.0)
        .select(TournamentRules::as_select())
        .first(conn)?;
    Ok(rules.ruleset.appeals)
}
