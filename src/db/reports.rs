//! Results reported by the players (`result_reports`): the newest report of a table, and its
//! answer. Writers hold the round's row lock, which serialises them.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{CaseId, PlayerId, ReportId, RoundId, UserId};
use crate::db::json::{stored_row, Json};
use crate::db::schema::result_reports;
use crate::domain::entries::ReportedResult;
use crate::domain::status::ReportStatus;

stored_row! {
    /// A report, its body decoded as the row is read (see [`StoredReport`]).
    #[derive(Debug, Clone)]
    pub struct ReportRow {
        pub id: ReportId,
        pub reported_by_player: PlayerId,
        /// The result as reported (the shape a result is entered in); compared as a whole, so a
        /// repeated report is recognised.
        pub body: ReportedResult as json,
        pub status: ReportStatus,
        pub created_at: DateTime<Utc>,
        pub answer_by: DateTime<Utc>,
        pub answered_at: Option<DateTime<Utc>>,
        pub case_id: Option<CaseId>,
        /// The reporting player's account; none for a report made with the slip's table code.
        pub reported_by_user: Option<UserId>,
    }
    read through StoredReport from result_reports, named "result_reports" row |s| s.id;
}

/// The newest report of a table (`pending_only`: only a pending one).
pub fn latest(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
    pending_only: bool,
) -> QueryResult<Option<ReportRow>> {
    let mut q = result_reports::table
        .filter(result_reports::round_id.eq(round))
        .filter(result_reports::table_number.eq(table))
        .order(result_reports::id.desc())
        .select(ReportRow::as_select())
        .into_boxed();
    if pending_only {
        q = q.filter(result_reports::status.eq(ReportStatus::Pending));
    }
    q.first(conn).optional()
}

/// The report of a table made just before report `id` (none: `id` is the table's first).
pub fn before(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
    id: ReportId,
) -> QueryResult<Option<ReportRow>> {
    result_reports::table
        .filter(result_reports::round_id.eq(round))
        .filter(result_reports::table_number.eq(table))
        .filter(result_reports::id.lt(id))
        .order(result_reports::id.desc())
        .select(ReportRow::as_select())
        .first(conn)
        .optional()
}

/// The tables of a round that players reported results of, in table order.
pub fn tables_reported(conn: &mut PgConnection, round: RoundId) -> QueryResult<Vec<i32>> {
    result_reports::table
        .filter(result_reports::round_id.eq(round))
        .select(result_reports::table_number)
        .distinct()
        .order(result_reports::table_number)
        .load(conn)
}

/// A new report of a table, pending until `answer_by`.
#[derive(Debug)]
pub struct NewReport<'a> {
    pub round: RoundId,
    pub table: i32,
    pub player: PlayerId,
    /// None: reported with the table code.
    pub user: Option<UserId>,
    pub body: &'a ReportedResult,
    pub answer_by: DateTime<Utc>,
}

/// Stores a new pending report of a table; the table's pending report, if any, is superseded.
pub fn replace_pending(conn: &mut PgConnection, new: NewReport<'_>) -> QueryResult<()> {
    diesel::update(
        result_reports::table
            .filter(result_reports::round_id.eq(new.round))
            .filter(result_reports::table_number.eq(new.table))
            .filter(result_reports::status.eq(ReportStatus::Pending)),
    )
    .set(result_reports::status.eq(ReportStatus::Superseded))
    .execute(conn)?;
    diesel::insert_into(result_reports::table)
        .values((
            result_reports::round_id.eq(new.round),
            result_reports::table_number.eq(new.table),
            result_reports::reported_by_player.eq(new.player),
            result_reports::reported_by_user.eq(new.user),
            result_reports::body.eq(Json(new.body)),
            result_reports::status.eq(ReportStatus::Pending),
            result_reports::answer_by.eq(new.answer_by),
        ))
        .execute(conn)?;
    Ok(())
}

/// A report confirmed by `by` at `now` (none: with the table code).
pub fn confirm(
    conn: &mut PgConnection,
    id: ReportId,
    by: Option<UserId>,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(result_reports::table.find(id))
        .set((
            result_reports::status.eq(ReportStatus::Confirmed),
            result_reports::answered_at.eq(now),
            result_reports::answered_by_user.eq(by),
        ))
        .execute(conn)?;
    Ok(())
}

/// A report disputed by `by` at `now`, with the case the dispute opened.
pub fn dispute(
    conn: &mut PgConnection,
    id: ReportId,
    by: UserId,
    now: DateTime<Utc>,
    case: CaseId,
) -> QueryResult<()> {
    diesel::update(result_reports::table.find(id))
        .set((
            result_reports::status.eq(ReportStatus::Disputed),
            result_reports::answered_at.eq(now),
            result_reports::answered_by_user.eq(by),
            result_reports::case_id.eq(case),
        ))
        .execute(conn)?;
    Ok(())
}

/// Every report of a round as (table, report), by table and then oldest first (the newest of a
/// table last).
pub fn of_round(conn: &mut PgConnection, round: RoundId) -> QueryResult<Vec<(i32, ReportRow)>> {
    result_reports::table
        .filter(result_reports::round_id.eq(round))
        .order((result_reports::table_number, result_reports::id))
        .select((result_reports::table_number, ReportRow::as_select()))
        .load(conn)
}
