//! Results from the tables of a hall event without an account (issue 41, item 2). Every result
//! slip carries its table's code (`auth::table_codes`): whoever holds the slip reports the
//! table's result with it, naming the seat they hold; the report waits, as a signed-in
//! player's report does (`services::play::reports`, the same rows and the same confirmation),
//! until the organiser or a referee confirms it, or a second holder of the code confirms it
//! naming another seat. A second report while one waits is refused (a rival at the table
//! cannot replace it; they tell the organiser, who sees it in the round's queue). The rules
//! and their reasons: `docs/decisions/table-codes.md`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::table_codes::HallKeys;
use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::models::Tournament;
use crate::db::reports::{NewReport, ReportRow};
use crate::db::rounds::Lock;
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::entries::ReportedResult;
use crate::domain::status::{ReportStatus, RoundStatus};
use crate::domain::PlayerId;
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::play::replays::Entered;
use crate::services::play::reports::{
    in_time, is_the_one_read, out, settle, teammates, ReportOut, Settle, ANSWER_WITHIN,
};
use crate::services::running::results::{check_result, history, EnterResult, ResultSeat, TableRef};
use crate::services::running::snapshot::{ruleset_of, seats_at};

/// A table's result reported with its code.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"code": "7KQ2M-XW4TB", "reporter": 11, "seats": [{"player_id": 11, "score": 42, "bonus": 3}, {"player_id": 12, "score": 38}, {"player_id": 13, "score": 35}, {"player_id": 14, "score": 29}]}))]
pub struct CodeReport {
    /// The table code printed on the result slip (case, spaces and the hyphen do not matter).
    #[schema(min_length = 10, max_length = 40)]
    pub code: String,
    /// The player whose seat the reporter holds (one of the table's players).
    pub reporter: i64,
    /// Every seated player exactly once.
    #[schema(min_items = 1, max_items = 8)]
    pub seats: Vec<ResultSeat>,
    /// Tantrix: both players crashed and the game vanished.
    pub double_crash: Option<bool>,
}

/// A second holder of the table code confirms the waiting report.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"code": "7KQ2M-XW4TB", "confirmer": 12, "report_id": 10}))]
pub struct CodeConfirm {
    /// The table code printed on the result slip.
    #[schema(min_length = 10, max_length = 40)]
    pub code: String,
    /// The player whose seat the confirmer holds: another than the reporter's.
    pub confirmer: i64,
    /// The id of the report the confirmer read (the table's page sends it). Refused (409
    /// naming `report_id`) when another report waits now; needed (428 naming it) when the
    /// waiting report replaced or followed an unsettled one.
    pub report_id: Option<i64>,
}

/// What the table's page shows: its players and the report waiting, if any.
pub struct TableView {
    pub tournament: String,
    pub round: i32,
    pub table: i32,
    /// (player id, name) in seat order.
    pub seats: Vec<(i64, String)>,
    pub ruleset: crate::domain::scoring::Ruleset,
    pub pending: Option<ReportOut>,
    /// The table has a result.
    pub done: bool,
    /// The round is completed: no report is taken.
    pub closed: bool,
}

/// The throttle's name for a table's failed codes.
pub fn throttle_key(at: TableRef) -> String {
    format!("table-code:{}:{}:{}", at.tournament, at.round, at.table)
}

/// Whether an error is a refused code (counted as a failure by the throttle).
pub fn is_wrong_code(e: &ApiError) -> bool {
    matches!(e, ApiError::Validation(f) if f.iter().any(|f| f.field == "code"))
}

/// The round (locked for a write) of a public tournament's published table, and the code checked
/// against it: a code of another round, table or draw is refused as a wrong one.
fn open_table(
    conn: &mut PgConnection,
    keys: &HallKeys,
    at: TableRef,
    code: &str,
    lock: Lock,
) -> Result<(Tournament, RoundRow), ApiError> {
    let t = load_visible(conn, &MaybeCaller(None), at.tournament)?;
    let round = crate::db::rounds::by_number(conn, t.id.0, at.round, lock)?;
    if round.status == RoundStatus::Draft {
        return Err(ApiError::NotFound(format!("no round {}", at.round)));
    }
    seats_at(&round, at.table)?;
    if !keys.is_table_code(round.id.0, round.draw_count, at.table, code) {
        return Err(ApiError::field(
            "code",
            format!(
                "this is not the code of table {} in round {}: type it as the table's slip shows it",
                at.table, at.round
            ),
        ));
    }
    Ok((t, round))
}

/// The round takes no more reports once it is completed.
fn still_open(round: &RoundRow) -> Result<(), ApiError> {
    if round.status == RoundStatus::Completed {
        return Err(ApiError::conflict_at(
            "round",
            format!(
                "round {} is completed: ask the organiser to correct a result",
                round.number
            ),
        ));
    }
    Ok(())
}

fn no_result_yet(conn: &mut PgConnection, round: &RoundRow, table: i32) -> Result<(), ApiError> {
    if !history(conn, round, table)?.is_empty() {
        return Err(ApiError::conflict_at(
            "table",
            format!("table {table} already has a result: ask the organiser to correct it"),
        ));
    }
    Ok(())
}

fn seated(round: &RoundRow, table: i32, field: &str, player: i64) -> Result<(), ApiError> {
    if !seats_at(round, table)?.contains(&player) {
        return Err(ApiError::field(
            field,
            format!("player {player} is not seated at table {table}"),
        ));
    }
    Ok(())
}

/// The table as its page shows it, for a holder of its code.
pub fn view(
    conn: &mut PgConnection,
    keys: &HallKeys,
    at: TableRef,
    code: &str,
) -> Result<TableView, ApiError> {
    let (t, round) = open_table(conn, keys, at, code, Lock::None)?;
    let ids: Vec<PlayerId> = seats_at(&round, at.table)?
        .into_iter()
        .map(PlayerId)
        .collect();
    let names = crate::db::players::names_of(conn, &ids)?;
    let pending = crate::db::reports::latest(conn, round.id, at.table, true)?
        .map(|row| out(&round, at.table, row))
        .transpose()?;
    Ok(TableView {
        tournament: t.name.clone(),
        round: round.number,
        table: at.table,
        seats: ids
            .iter()
            .map(|p| (p.0, names.get(p).cloned().unwrap_or_default()))
            .collect(),
        ruleset: ruleset_of(&t)?,
        pending,
        done: !history(conn, &round, at.table)?.is_empty(),
        closed: round.status == RoundStatus::Completed,
    })
}

/// A holder of the table code reports the table's result, naming the seat they hold. Refused
/// (nothing written) for a wrong code, a completed round, a table with a result, a report
/// already waiting, or a result the ruleset does not take.
pub fn report(
    conn: &mut PgConnection,
    keys: &HallKeys,
    at: TableRef,
    input: CodeReport,
    now: DateTime<Utc>,
) -> Result<ReportOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round) = open_table(conn, keys, at, &input.code, Lock::ForUpdate)?;
        still_open(&round)?;
        seated(&round, at.table, "reporter", input.reporter)?;
        let result = EnterResult {
            seats: input.seats,
            double_crash: input.double_crash,
            reason: None,
            playoff_winner: None,
        };
        check_result(&ruleset_of(&t)?, &round, &round.draw, at.table, &result)?;
        no_result_yet(conn, &round, at.table)?;
        if let Some(waiting) = crate::db::reports::latest(conn, round.id, at.table, true)? {
            return Err(ApiError::conflict_at(
                "code",
                format!(
                    "a report of table {} (as player {}'s seat) waits for confirmation: confirm it, \
                     or ask the organiser if it is wrong",
                    at.table, waiting.reported_by_player.0
                ),
            ));
        }
        let body = ReportedResult {
            seats: result.seats.clone(),
            double_crash: result.double_crash,
        };
        crate::db::reports::replace_pending(
            conn,
            NewReport {
                round: round.id,
                table: at.table,
                player: PlayerId(input.reporter),
                user: None,
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
                    player_id: input.reporter,
                },
            ),
        )?;
        let row = crate::db::reports::latest(conn, round.id, at.table, true)?
            .ok_or_else(|| ApiError::Internal("report vanished".into()))?;
        out(&round, at.table, row)
    })
}

/// A second holder of the table code confirms the waiting report, naming a seat other than the
/// reporter's: it becomes the table's result, entered in the name of the tournament's
/// organiser (who issued the codes), its reason saying which seats reported and confirmed. The
/// report must be the one the confirmer read (`reports::is_the_one_read`): a seated player
/// signed in may have replaced it meanwhile.
pub fn confirm(
    conn: &mut PgConnection,
    keys: &HallKeys,
    at: TableRef,
    input: CodeConfirm,
    now: DateTime<Utc>,
) -> Result<Entered, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round) = open_table(conn, keys, at, &input.code, Lock::ForUpdate)?;
        still_open(&round)?;
        seated(&round, at.table, "confirmer", input.confirmer)?;
        no_result_yet(conn, &round, at.table)?;
        let row: ReportRow = crate::db::reports::latest(conn, round.id, at.table, true)?
            .ok_or_else(|| ApiError::NotFound(format!("no report of table {} waits", at.table)))?;
        let reporter = row.reported_by_player.0;
        if reporter == input.confirmer {
            return Err(ApiError::conflict_at(
                "confirmer",
                format!(
                    "the report was made as player {reporter}'s seat: another player at the \
                     table confirms it"
                ),
            ));
        }
        if teammates(conn, &t, &round, reporter, input.confirmer)? {
            return Err(ApiError::conflict_at(
                "confirmer",
                format!(
                    "the report was made as player {reporter}'s seat, of player {}'s team: a \
                     player of the other team confirms it",
                    input.confirmer
                ),
            ));
        }
        in_time(&row, now)?;
        is_the_one_read(conn, &round, at.table, &row, input.report_id)?;
        let mut result = EnterResult::from(row.body);
        result.reason = Some(format!(
            "reported with the table code as player {reporter}, confirmed with it as player {}",
            input.confirmer
        ));
        settle(
            conn,
            t.clone(),
            &round,
            at,
            &result,
            Settle {
                report: row.id,
                entered_by: t.created_by,
                answered_by: None,
            },
            now,
        )
    })
}

/// The organiser's queue of a round: what the tables reported and what is still missing.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportQueue {
    pub round: i32,
    /// `published` or `completed`.
    #[schema(example = "published")]
    pub round_status: String,
    /// Tables in the draw.
    pub tables: u32,
    /// Tables with a result.
    pub done: Vec<i32>,
    /// Reports waiting for confirmation, by table.
    pub pending: Vec<ReportOut>,
    /// Reports disputed (each names its case), by table.
    pub disputed: Vec<ReportOut>,
    /// Tables with neither a result nor a report waiting or disputed: to chase.
    pub missing: Vec<i32>,
}

/// A round's queue, for its organisers and referees.
pub fn queue(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
) -> Result<ReportQueue, ApiError> {
    let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)?;
    caller.require_role(conn, t.id.0, &[StaffRole::Organiser, StaffRole::Referee])?;
    let round = crate::db::rounds::by_number(conn, t.id.0, number, Lock::None)?;
    if round.status == RoundStatus::Draft {
        return Err(ApiError::conflict_at(
            "round",
            format!("round {number} is a draft: publish it first"),
        ));
    }
    let draw = &round.draw;
    let done = crate::db::results::tables_with_results(conn, round.id)?;
    let mut newest: Vec<(i32, ReportRow)> = Vec::new();
    for (table, row) in crate::db::reports::of_round(conn, round.id)? {
        match newest.last_mut() {
            Some(last) if last.0 == table => *last = (table, row),
            _ => newest.push((table, row)),
        }
    }
    let (mut pending, mut disputed) = (Vec::new(), Vec::new());
    let mut answered = Vec::new();
    for (table, row) in newest {
        if done.contains(&table) {
            continue;
        }
        match row.status {
            ReportStatus::Pending => pending.push(out(&round, table, row)?),
            ReportStatus::Disputed => disputed.push(out(&round, table, row)?),
            _ => continue,
        }
        answered.push(table);
    }
    let missing = draw
        .tables
        .iter()
        .map(|t| t.number as i32)
        .filter(|n| !done.contains(n) && !answered.contains(n))
        .collect();
    Ok(ReportQueue {
        round: round.number,
        round_status: round.status.as_str().to_string(),
        tables: draw.tables.len() as u32,
        done,
        pending,
        disputed,
        missing,
    })
}
