//! Results reported by the players (issue 18, item 3; seed 003 online play): a player seated
//! at a table reports its result; the opponent confirms it, and the report becomes the table's
//! result (a version entered by the reporting player, with the usual history and `If-Match`
//! rules), or disputes it, which opens a case for the referee. Organisers and referees can
//! still enter or override results, and may confirm a report themselves. A report counts for
//! nothing (standings, ratings) until it is confirmed.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::ids::ReportId;
use crate::db::models::Tournament;
use crate::db::registrations::player_of_user;
use crate::db::reports::{NewReport, ReportRow};
use crate::db::rounds::Lock;
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::entries::ReportedResult;
use crate::domain::status::{ReportStatus, RoundStatus};
use crate::domain::{CaseId, PlayerId, UserId};
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::cases::{CaseSubject, OpenCase, Remedy};
use crate::services::play::replays::{reopen_for_replay, Entered};
use crate::services::running::results::{
    check_result, history, is_replay, store_locked, EnterResult, Precondition, ResultSeat,
    ResultWithHistory, TableRef,
};
use crate::services::running::snapshot::{ruleset_of, seats_at};
use crate::services::validate::Check;

/// How long the opponent has to confirm or dispute; afterwards the report waits for the
/// referee, who may confirm it or enter the result (the players' answers are refused,
/// [`in_time`]).
pub const ANSWER_WITHIN: Duration = Duration::hours(48);

/// A reported result entered as it was reported (no correction's reason, no play-off winner).
impl From<ReportedResult> for EnterResult {
    fn from(r: ReportedResult) -> Self {
        Self {
            seats: r.seats,
            double_crash: r.double_crash,
            reason: None,
            playoff_winner: None,
        }
    }
}

/// A reported result and what became of it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportOut {
    pub id: i64,
    pub round: i32,
    pub table: i32,
    pub reported_by_player: i64,
    /// The result as reported.
    pub seats: Vec<ResultSeat>,
    pub double_crash: bool,
    /// `pending` (waiting for the opponent), `confirmed` (it is the result), `disputed` (a case
    /// is open) or `superseded` (a later report replaced it).
    #[schema(example = "pending")]
    pub status: String,
    pub created_at: DateTime<Utc>,
    /// The opponent confirms or disputes by then; afterwards the referee decides.
    pub answer_by: DateTime<Utc>,
    pub answered_at: Option<DateTime<Utc>>,
    /// The case a dispute opened.
    pub case_id: Option<i64>,
    /// Reported with the result slip's table code (no account): `reported_by_player` is the
    /// seat the reporter named.
    pub with_code: bool,
}

/// Disputing a report.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "I won 32-20, not the other way round", "seats": [{"player_id": 11, "score": 20}, {"player_id": 12, "score": 32}]}))]
pub struct DisputeReport {
    /// What is wrong with the report (the case's statement).
    #[schema(
        min_length = 1,
        max_length = 4000,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: String,
    /// The result as the disputing player sees it: the remedy the case asks for.
    #[schema(max_items = 8)]
    pub seats: Option<Vec<ResultSeat>>,
    pub double_crash: Option<bool>,
}

/// Confirming a report: which one the confirmer read. Optional; a client that leaves it out
/// (or sends no body) confirms the pending report as long as nothing came before it unsettled.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"report_id": 11}))]
pub struct ConfirmReport {
    /// The id of the report the confirmer read (`GET .../report`). Refused (409 naming
    /// `report_id`, nothing written) when another report waits now. Needed (428 naming it) when
    /// the waiting report replaced or followed an unsettled one (superseded or disputed): the
    /// confirmer may have read that one.
    pub report_id: Option<i64>,
}

/// The waiting report is the one the confirmer read: the one they name, or, when they name
/// none, the only one there has been since the table's last settled report (a confirmation
/// is never given to a report that replaced the one the confirmer saw).
pub(crate) fn is_the_one_read(
    conn: &mut PgConnection,
    round: &RoundRow,
    table: i32,
    waiting: &ReportRow,
    named: Option<i64>,
) -> Result<(), ApiError> {
    match named {
        Some(id) if id == waiting.id.0 => Ok(()),
        Some(id) => Err(ApiError::conflict_at(
            "report_id",
            format!(
                "report {id} is not the report of table {table} waiting for confirmation: \
                 another one replaced it; read the waiting report before confirming it"
            ),
        )),
        None => match crate::db::reports::before(conn, round.id, table, waiting.id)? {
            Some(earlier) if earlier.status != ReportStatus::Confirmed => {
                Err(ApiError::precondition_required_at(
                    "report_id",
                    format!(
                        "the report of table {table} waiting for confirmation replaced or \
                         followed another one: read it and confirm it by its id (`report_id`)"
                    ),
                ))
            }
            _ => Ok(()),
        },
    }
}

pub(crate) fn out(round: &RoundRow, table: i32, row: ReportRow) -> Result<ReportOut, ApiError> {
    let id = row.id;
    let input = EnterResult::from(row.body);
    Ok(ReportOut {
        id: id.0,
        round: round.number,
        table,
        reported_by_player: row.reported_by_player.0,
        seats: input.seats,
        double_crash: input.double_crash.unwrap_or(false),
        status: row.status.as_str().to_string(),
        created_at: row.created_at,
        answer_by: row.answer_by,
        answered_at: row.answered_at,
        case_id: row.case_id.map(|c| c.0),
        with_code: row.reported_by_user.is_none(),
    })
}

/// The newest report of a table (`pending_only`: only a pending one). Writers hold the
/// round's row lock, which serialises them.
fn latest(
    conn: &mut PgConnection,
    round: &RoundRow,
    table: i32,
    pending_only: bool,
) -> Result<Option<ReportRow>, ApiError> {
    Ok(crate::db::reports::latest(
        conn,
        round.id,
        table,
        pending_only,
    )?)
}

/// The caller's player, if it is seated at the table (404 for no such table).
pub fn seated_player(
    conn: &mut PgConnection,
    caller: &Caller,
    t: &Tournament,
    round: &RoundRow,
    table: i32,
) -> Result<Option<i64>, ApiError> {
    let seats = seats_at(round, table)?;
    Ok(player_of_user(conn, t.id.0, caller.user_id)?.filter(|p| seats.contains(p)))
}

fn open_round(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
) -> Result<(Tournament, RoundRow), ApiError> {
    let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), at.tournament)?;
    let round = crate::db::rounds::by_number(conn, t.id.0, at.round, Lock::ForUpdate)?;
    if round.status == RoundStatus::Draft {
        return Err(ApiError::NotFound(format!("no round {}", at.round)));
    }
    Ok((t, round))
}

/// A seated player reports the table's result; a pending report of the table is replaced.
/// 409 once the table has a result (ask the referee to correct it). The opponent answers within
/// [`ANSWER_WITHIN`] of `now`.
pub fn report(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: EnterResult,
    now: DateTime<Utc>,
) -> Result<ReportOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round) = open_round(conn, caller, at)?;
        let Some(player) = seated_player(conn, caller, &t, &round, at.table)? else {
            return Err(ApiError::Forbidden(
                "only a player seated at this table reports its result".into(),
            ));
        };
        check_result(&ruleset_of(&t)?, &round, &round.draw, at.table, &input)?;
        if !history(conn, &round, at.table)?.is_empty() {
            return Err(ApiError::Conflict(format!(
                "table {} already has a result; open a case to have it corrected",
                at.table
            )));
        }
        let body = ReportedResult {
            seats: input.seats.clone(),
            double_crash: input.double_crash,
        };
        // The same player sending the same report again (a double tap, a retry, a script in
        // a loop) is answered with the pending report: no new version, no event, no new
        // deadline for the opponent.
        if let Some(same) = latest(conn, &round, at.table, true)?
            .filter(|r| r.reported_by_player == PlayerId(player) && r.body == body)
        {
            return out(&round, at.table, same);
        }
        crate::db::reports::replace_pending(
            conn,
            NewReport {
                round: round.id,
                table: at.table,
                player: PlayerId(player),
                user: Some(UserId(caller.user_id)),
                body: &body,
                answer_by: now + ANSWER_WITHIN,
            },
        )?;
        crate::db::events::record(
            conn,
            t.id.0,
            crate::domain::events::TournamentEvent::ResultReported(
                crate::domain::events::TablePlayerPayload {
                    round: at.round,
                    table: at.table,
                    player_id: player,
                },
            ),
        )?;
        let row = latest(conn, &round, at.table, true)?
            .ok_or_else(|| ApiError::Internal("report vanished".into()))?;
        out(&round, at.table, row)
    })
}

/// Whether the caller is one of the tournament's referees or organisers, who answer any report
/// at any time.
fn is_staff(conn: &mut PgConnection, caller: &Caller, t: &Tournament) -> Result<bool, ApiError> {
    caller.has_any_role(conn, t.id.0, &[StaffRole::Referee, StaffRole::Organiser])
}

/// Whether two players are partners in a round with team matches (2v2 duplicate, seed 002): a
/// player does not answer the report of their own team.
pub(crate) fn teammates(
    conn: &mut PgConnection,
    t: &Tournament,
    round: &RoundRow,
    a: i64,
    b: i64,
) -> Result<bool, ApiError> {
    if round.draw.team_matches.is_empty() {
        return Ok(false);
    }
    let teams = crate::db::registrations::teams_of(conn, t.id)?;
    Ok(teams.iter().any(|team| {
        let members = team.members();
        members.contains(&a) && members.contains(&b)
    }))
}

/// Whether seated player `me` is an opponent of `reporter`: another player, and in a round
/// with team matches one of the other team.
fn opposes(
    conn: &mut PgConnection,
    t: &Tournament,
    round: &RoundRow,
    me: i64,
    reporter: i64,
) -> Result<bool, ApiError> {
    Ok(me != reporter && !teammates(conn, t, round, me, reporter)?)
}

/// The players answer a report by its `answer_by` ([`ANSWER_WITHIN`]); afterwards the referee
/// decides (409 naming `answer_by`).
pub(crate) fn in_time(row: &ReportRow, now: DateTime<Utc>) -> Result<(), ApiError> {
    if now > row.answer_by {
        return Err(ApiError::conflict_at(
            "answer_by",
            format!(
                "the time to answer this report ran out at {}: a referee or an organiser \
                 decides now",
                row.answer_by
            ),
        ));
    }
    Ok(())
}

/// The opponent (or a referee or organiser) confirms the pending report: it becomes the
/// table's result, entered by the reporting player's account. The opponent is a seated player
/// other than the reporter, of the other team in a round with team matches, answering by the
/// report's `answer_by`. The report must be the one the confirmer read ([`is_the_one_read`]). A confirmed double crash in a
/// self-scheduled round stores no result: the game is reopened for a replay (seed 003 rule
/// 3.3, `services::play::replays`) and the report is `confirmed`. `now` is the scheduling clock.
pub fn confirm(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: ConfirmReport,
    now: DateTime<Utc>,
) -> Result<Entered, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round) = open_round(conn, caller, at)?;
        let refused = || {
            ApiError::Forbidden("the opponent, a referee or an organiser confirms a report".into())
        };
        let staff = is_staff(conn, caller, &t)?;
        let seated = seated_player(conn, caller, &t, &round, at.table)?;
        // Who is asking first: only those who may answer learn whether a report is pending.
        if !staff && seated.is_none() {
            return Err(refused());
        }
        let row = latest(conn, &round, at.table, true)?.ok_or_else(|| {
            ApiError::NotFound(format!("no pending report for table {}", at.table))
        })?;
        let (id, reporter, body, reporter_user) = (
            row.id,
            row.reported_by_player.0,
            row.body.clone(),
            row.reported_by_user,
        );
        if let Some(me) = seated.filter(|_| !staff) {
            if !opposes(conn, &t, &round, me, reporter)? {
                return Err(refused());
            }
            in_time(&row, now)?;
        }
        is_the_one_read(conn, &round, at.table, &row, input.report_id)?;
        let input = EnterResult::from(body);
        settle(
            conn,
            t,
            &round,
            at,
            &input,
            Settle {
                report: id,
                // Reported with the table code: entered by whoever confirms it.
                entered_by: reporter_user.unwrap_or(UserId(caller.user_id)),
                answered_by: Some(UserId(caller.user_id)),
            },
            now,
        )
    })
}

/// Who a confirmed report is settled by.
pub(crate) struct Settle {
    pub report: ReportId,
    /// The result's `entered_by`.
    pub entered_by: UserId,
    /// Who confirmed it (none: a second holder of the table code).
    pub answered_by: Option<UserId>,
}

/// A confirmed report becomes the table's result (or, a double crash in a self-scheduled round,
/// reopens the game for a replay) and is marked confirmed. Runs inside the caller's
/// transaction, with the round locked.
pub(crate) fn settle(
    conn: &mut PgConnection,
    t: Tournament,
    round: &RoundRow,
    at: TableRef,
    input: &EnterResult,
    s: Settle,
    now: DateTime<Utc>,
) -> Result<Entered, ApiError> {
    let stored = if is_replay(round, input) {
        let by = s.answered_by.unwrap_or(s.entered_by);
        Entered::Replay(reopen_for_replay(conn, &t, round, at.table, by.0, now)?)
    } else {
        Entered::Stored(confirmed_result(
            conn,
            t,
            round,
            at,
            input,
            s.entered_by,
            now,
        )?)
    };
    crate::db::reports::confirm(conn, s.report, s.answered_by, now)?;
    Ok(stored)
}

/// The confirmed report stored as the table's result, stamped `now`. Runs inside the caller's
/// transaction, with the round locked (the double crash of a self-scheduled round told apart).
fn confirmed_result(
    conn: &mut PgConnection,
    t: Tournament,
    round: &RoundRow,
    at: TableRef,
    input: &EnterResult,
    reporter_user: UserId,
    now: DateTime<Utc>,
) -> Result<ResultWithHistory, ApiError> {
    store_locked(
        conn,
        t,
        round,
        at.table,
        input,
        Precondition::IfMatch(None),
        reporter_user,
        now,
    )
    .map_err(|e| match e {
        ApiError::PreconditionRequired(_) => ApiError::Conflict(format!(
            "table {} already has a result; the report is no longer needed",
            at.table
        )),
        other => other,
    })
}

/// The opponent disputes the pending report: a case about the table's result is opened for the
/// referee, asking for the disputing player's version of the result when one is given. The
/// opponent is as for [`confirm`]; a report made with the table code may be disputed by any
/// seated player, the seat it names included. By the report's `answer_by`. `now`
/// is when it was answered.
pub fn dispute(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: DisputeReport,
    now: DateTime<Utc>,
) -> Result<ReportOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round) = open_round(conn, caller, at)?;
        let opponent = seated_player(conn, caller, &t, &round, at.table)?;
        // Who is asking first: only a seated player learns whether a report is pending.
        if opponent.is_none() {
            return Err(ApiError::Forbidden(
                "only the opponent disputes a report (a referee enters the result instead)".into(),
            ));
        }
        let row = latest(conn, &round, at.table, true)?.ok_or_else(|| {
            ApiError::NotFound(format!("no pending report for table {}", at.table))
        })?;
        let reporter = row.reported_by_player.0;
        // A report made with the table code names a seat, not who made it: any seated player
        // may dispute it, the named one too. A signed-in report: its reporter's opponents.
        let with_code = row.reported_by_user.is_none();
        match opponent {
            Some(me) if with_code || opposes(conn, &t, &round, me, reporter)? => {}
            _ => {
                return Err(ApiError::Forbidden(
                    "only the opponent disputes a report (a referee enters the result instead)"
                        .into(),
                ))
            }
        }
        if !is_staff(conn, caller, &t)? {
            in_time(&row, now)?;
        }
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        check.text("reason", &input.reason, 4000);
        check.finish()?;
        if let Some(seats) = &input.seats {
            let theirs = EnterResult {
                seats: seats.clone(),
                double_crash: input.double_crash,
                reason: None,
                playoff_winner: None,
            };
            check_result(&ruleset_of(&t)?, &round, &round.draw, at.table, &theirs)?;
        }
        let case = crate::services::cases::open_case(
            conn,
            caller,
            t.id,
            OpenCase {
                subject: CaseSubject::Result,
                round: Some(at.round),
                table: Some(at.table),
                penalty_id: None,
                statement: format!(
                    "Disputes the result reported by player {}: {}",
                    reporter,
                    input.reason.trim()
                ),
                evidence: None,
                respondents: None,
                remedies: input.seats.map(|seats| {
                    vec![Remedy::CorrectResult {
                        round: at.round,
                        table: at.table,
                        seats,
                        double_crash: input.double_crash,
                    }]
                }),
                complainant_player_id: None,
            },
            // The dispute's own clock once it takes one (st-rounds passes `now` here).
            now,
        )?;
        crate::db::reports::dispute(conn, row.id, UserId(caller.user_id), now, CaseId(case.id))?;
        let row = latest(conn, &round, at.table, false)?
            .ok_or_else(|| ApiError::Internal("report vanished".into()))?;
        out(&round, at.table, row)
    })
}

/// The newest report of a table, for its seated players and the tournament's staff.
pub fn read(conn: &mut PgConnection, caller: &Caller, at: TableRef) -> Result<ReportOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), at.tournament)?;
        let round = crate::db::rounds::by_number(conn, t.id.0, at.round, Lock::None)?;
        let staff = caller.has_any_role(
            conn,
            t.id.0,
            &[
                StaffRole::Referee,
                StaffRole::Organiser,
                StaffRole::AppealsCommittee,
            ],
        )?;
        let none = || ApiError::NotFound(format!("no report for table {}", at.table));
        if round.status == RoundStatus::Draft
            || (!staff && seated_player(conn, caller, &t, &round, at.table)?.is_none())
        {
            return Err(none());
        }
        let row = latest(conn, &round, at.table, false)?.ok_or_else(none)?;
        out(&round, at.table, row)
    })
}
