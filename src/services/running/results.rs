//! Table results: every version kept with who entered it, when and why; a round completes when
//! all its tables have results, and ratings follow in the same transaction.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{MaybeCaller, StaffRole};
use crate::db::models::Tournament;
use crate::db::results::NewVersion;
use crate::db::rounds::Lock;
use crate::db::running::{ResultRow, RoundRow};
use crate::db::PgConnection;
use crate::db::{self};
use crate::domain::events::{
    ResultPayload, RoundPayload, StandingsChangedPayload, TournamentEvent,
};
use crate::domain::rating::PlayingDays;
use crate::domain::scoring::{score_table, Format, Outcome, Points, SeatResult, TableResult};
use crate::domain::scoring::{Preset, Ruleset};
use crate::domain::seating::{Draw, SeatingMethod};
use crate::domain::status::RoundStatus;
use crate::domain::{CaseId, PlayerId, UserId};
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::running::snapshot as play;
use crate::services::running::time_of_play;
use crate::services::validate::Check;

pub use crate::domain::entries::{ResultSeat, SeatOutcome};

/// A table's result.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seats": [{"player_id": 11, "score": 42, "bonus": 3}, {"player_id": 12, "score": 38}, {"player_id": 13, "score": 35}, {"player_id": 14, "score": 29}]}))]
pub struct EnterResult {
    /// Every seated player exactly once.
    #[schema(min_items = 1, max_items = 8)]
    pub seats: Vec<ResultSeat>,
    /// Tantrix: both players crashed and the game vanished.
    pub double_crash: Option<bool>,
    /// Why: required when correcting an existing result.
    #[schema(
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: Option<String>,
    /// Tantrix cup (a knockout round): the player who won the 5-minute play-off games of a
    /// match level on TP, games won and tiles (seed 003, Tie-Breaks 1). Give it on any game of
    /// the match; it counts only while the match is level.
    pub playoff_winner: Option<i64>,
}

/// One version of a table's result.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResultOut {
    pub round: i32,
    pub table: i32,
    /// 1 for the first entry, +1 per correction; send it in `If-Match` to correct.
    pub version: i32,
    /// Every seated player, in seat order, as entered.
    pub seats: Vec<ResultSeat>,
    pub double_crash: bool,
    pub reason: Option<String>,
    /// The case whose decision made this version, if any.
    pub case_id: Option<i64>,
    /// The winner of the cup match's 5-minute play-off games, if recorded on this game.
    pub playoff_winner: Option<i64>,
    pub entered_by: i64,
    pub entered_at: DateTime<Utc>,
}

/// A table's result in force and every earlier version.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResultWithHistory {
    pub current: ResultOut,
    /// All versions, oldest first.
    pub versions: Vec<ResultOut>,
    /// The round's status after this write or at this read.
    #[schema(example = "completed")]
    pub round_status: String,
}

/// The stored seats (the engine's `SeatResult`) in the shape they are entered in.
pub fn seats_out(seats: &[SeatResult]) -> Vec<ResultSeat> {
    seats
        .iter()
        .map(|s| ResultSeat {
            player_id: s.player.0,
            score: s.score,
            bonus: Some(s.bonus),
            penalty: Some(s.penalty),
            time_used_secs: s.time_used_secs.map(i64::from),
            forfeit: Some(s.forfeit),
            outcome: s.outcome.map(|o| match o {
                Outcome::Win => SeatOutcome::Win,
                Outcome::Draw => SeatOutcome::Draw,
                Outcome::Loss => SeatOutcome::Loss,
            }),
        })
        .collect()
}

pub fn result_out(round: i32, r: ResultRow) -> Result<ResultOut, ApiError> {
    Ok(ResultOut {
        round,
        table: r.table_number,
        version: r.version,
        seats: seats_out(&r.seats),
        double_crash: r.double_crash,
        reason: r.reason,
        case_id: r.case_id.map(|id| id.0),
        playoff_winner: r.playoff_winner.map(|p| p.0),
        entered_by: r.entered_by.0,
        entered_at: r.entered_at,
    })
}

/// Every version of a table's result, oldest first (empty: no result yet).
pub fn history(
    conn: &mut PgConnection,
    round: &RoundRow,
    table: i32,
) -> Result<Vec<ResultRow>, ApiError> {
    Ok(db::results::versions(conn, round.id, table)?)
}

/// A table's result with its versions (`None`: no result yet); an internal error when a stored
/// version does not parse.
pub fn with_history(
    round: &RoundRow,
    rows: Vec<ResultRow>,
    status: RoundStatus,
) -> Result<Option<ResultWithHistory>, ApiError> {
    let Some(current) = rows.last().cloned() else {
        return Ok(None);
    };
    Ok(Some(ResultWithHistory {
        current: result_out(round.number, current)?,
        versions: rows
            .into_iter()
            .map(|r| result_out(round.number, r))
            .collect::<Result<_, _>>()?,
        round_status: status.as_str().to_string(),
    }))
}

/// Checks an entered result against the draw and the ruleset; the engine's seats.
pub fn check_result(
    ruleset: &Ruleset,
    round: &RoundRow,
    draw: &Draw,
    table: i32,
    input: &EnterResult,
) -> Result<Vec<SeatResult>, ApiError> {
    check_table_result(ruleset, (round.number, round.method), draw, table, input)
}

/// [`check_result`] for round `number` drawn by `method` (an archive's round, read before it is
/// stored, is checked by it too): 404 when the draw has no such table, 422 naming the field.
pub fn check_table_result(
    ruleset: &Ruleset,
    (number, method): (i32, SeatingMethod),
    draw: &Draw,
    table: i32,
    input: &EnterResult,
) -> Result<Vec<SeatResult>, ApiError> {
    let t = draw
        .tables
        .iter()
        .find(|t| t.number as i32 == table)
        .ok_or_else(|| ApiError::NotFound(format!("round {number} has no table {table}")))?;
    let mut check = Check::new();
    let seated: HashSet<i64> = t.seats.iter().map(|p| p.0).collect();
    let mut seen = HashSet::new();
    for (i, s) in input.seats.iter().enumerate() {
        let f = |name: &str| format!("seats[{i}].{name}");
        if !seated.contains(&s.player_id) {
            check.fail(
                &f("player_id"),
                format!("player {} is not seated at this table", s.player_id),
            );
        } else if !seen.insert(s.player_id) {
            check.fail(
                &f("player_id"),
                format!("player {} is listed twice", s.player_id),
            );
        }
        check.range(&f("score"), s.score, -1000, 10_000);
        if let Some(b) = s.bonus {
            check.range(&f("bonus"), b, 0, 1000);
        }
        if let Some(p) = s.penalty {
            check.range(&f("penalty"), p, 0, 1000);
        }
        if let Some(t) = s.time_used_secs {
            check.range(&f("time_used_secs"), t, 0, 86_400);
        }
    }
    let missing: Vec<i64> = t
        .seats
        .iter()
        .map(|p| p.0)
        .filter(|p| !seen.contains(p))
        .collect();
    if !missing.is_empty() && input.seats.len() <= 8 {
        check.fail(
            "seats",
            format!("every seated player needs a result; missing {missing:?}"),
        );
    }
    check.ensure(
        (1..=8).contains(&input.seats.len()),
        "seats",
        "1 to 8 seats",
    );
    if let Some(r) = &input.reason {
        check.text("reason", r, 500);
    }
    if let Some(p) = input.playoff_winner {
        if method != SeatingMethod::Knockout {
            check.fail(
                "playoff_winner",
                "only a cup match (a knockout round) is decided by play-off games",
            );
        } else if !seated.contains(&p) {
            check.fail(
                "playoff_winner",
                format!("player {p} is not seated at this table"),
            );
        }
    }
    check.finish()?;
    let seats: Vec<SeatResult> = input
        .seats
        .iter()
        .map(|s| SeatResult {
            player: PlayerId(s.player_id),
            score: s.score,
            bonus: s.bonus.unwrap_or(0),
            penalty: s.penalty.unwrap_or(0),
            time_used_secs: s.time_used_secs.map(|t| t as u32),
            forfeit: s.forfeit.unwrap_or(false),
            outcome: s.outcome.map(|o| match o {
                SeatOutcome::Win => Outcome::Win,
                SeatOutcome::Draw => Outcome::Draw,
                SeatOutcome::Loss => Outcome::Loss,
            }),
        })
        .collect();
    if ruleset.format != Format::TeamDuplicate {
        let table_result = TableResult {
            seats: seats.clone(),
            clarification: None,
            double_crash: input.double_crash.unwrap_or(false),
        };
        score_table(ruleset, &table_result, Points::ONE, table as usize)
            .map_err(|e| ApiError::field("seats", e.to_string()))?;
    }
    Ok(seats)
}

/// A round takes results once it is published: a draft is seen by its staff only and may be
/// drawn again (409 naming round `number`'s draft otherwise). An archive's result is held to it
/// too (`archives::checks`).
pub fn require_published(number: i32, status: RoundStatus) -> Result<(), ApiError> {
    if status == RoundStatus::Draft {
        return Err(ApiError::Conflict(format!(
            "round {number} is a draft; publish it before entering results"
        )));
    }
    Ok(())
}

/// The reason a new version of a table's result keeps (trimmed), given `current`, the version in
/// force (0: none): a correction, a version after the first, needs one (422 on `reason`). An
/// archive's result is held to it too (`archives::checks`).
pub fn version_reason(current: i32, reason: Option<&str>) -> Result<Option<String>, ApiError> {
    let reason = reason.map(str::trim).map(String::from);
    if current > 0 && reason.is_none() {
        return Err(ApiError::field("reason", "a correction needs a reason"));
    }
    Ok(reason)
}

/// What a write of a result must check about the version in force.
#[derive(Debug, Clone, Copy)]
pub enum Precondition {
    /// A referee's write: the `If-Match` version (required once a result exists).
    IfMatch(Option<i32>),
    /// A referee's write with `If-Match: *`: replaces whatever version is in force.
    AnyVersion,
    /// A case decision's remedy: replaces whatever version is in force and links the new
    /// version to the case.
    Case(i64),
}

/// Whether a result is a double crash in a self-scheduled round (seed 003 rule 3.3: "Wenn
/// beide Spieler abstürzen und das Spiel verschwindet, sollte das Spiel noch einmal von vorn
/// begonnen werden"): replayed (`services::play::replays`), never stored as 23:23.
pub fn is_replay(round: &RoundRow, input: &EnterResult) -> bool {
    round.self_scheduled_until.is_some() && input.double_crash == Some(true)
}

/// Stores a new version of a table's result inside the caller's transaction: locks the round,
/// refuses a double crash of a self-scheduled round (replayed, not scored: see [`is_replay`]),
/// then [`store_locked`]. Used by case decisions and the scheduling deadlines, so they correct
/// results the way the results handler enters them. `now` stamps the version.
#[allow(clippy::too_many_arguments)]
pub fn store_result(
    conn: &mut PgConnection,
    t: Tournament,
    number: i32,
    table: i32,
    input: &EnterResult,
    precondition: Precondition,
    by: i64,
    now: DateTime<Utc>,
) -> Result<ResultWithHistory, ApiError> {
    // The round row serialises writers of its tables.
    let round = db::rounds::by_number(conn, t.id.0, number, Lock::ForUpdate)?;
    // A draft is refused first (by `store_locked`); a self-scheduled double crash next.
    if round.status != RoundStatus::Draft && is_replay(&round, input) {
        return Err(ApiError::conflict_at(
            "double_crash",
            "in a self-scheduled round a double crash is replayed, not scored 23:23 (seed 003, \
             rule 3.3): enter it through PUT .../result or a confirmed report before the table \
             has a result, which reopens the game for scheduling",
        ));
    }
    store_locked(conn, t, &round, table, input, precondition, UserId(by), now)
}

/// Stores a new version of a table's result, with the round's row locked by the caller
/// (`db::rounds::by_number` with `Lock::ForUpdate`, in the caller's transaction) and the
/// double crash of a self-scheduled round already told apart ([`is_replay`]): checks the draw,
/// the ruleset and the version in force, inserts the version stamped `now`, completes the
/// round when every table has a result, feeds the ratings and tells the live feed.
#[allow(clippy::too_many_arguments)]
pub fn store_locked(
    conn: &mut PgConnection,
    t: Tournament,
    round: &RoundRow,
    table: i32,
    input: &EnterResult,
    precondition: Precondition,
    by: UserId,
    now: DateTime<Utc>,
) -> Result<ResultWithHistory, ApiError> {
    let (tid, number) = (t.id, round.number);
    require_published(number, round.status)?;
    // No game can have been played before the first day (issue 14, item 20).
    time_of_play::require_started(&t, now)?;
    let days = time_of_play::playing_days(&t)?;
    // What the write reads: the tournament (its ruleset), the round's row with its draw and the
    // table's versions, never the rest of the event (issue 16).
    let ruleset = play::ruleset_of(&t)?;
    let draw = &round.draw;
    let seats = check_result(&ruleset, round, draw, table, input)?;
    let current = history(conn, round, table)?
        .last()
        .map(|r| r.version)
        .unwrap_or(0);
    let case_id = match precondition {
        Precondition::IfMatch(Some(v)) if v != current => {
            return Err(ApiError::PreconditionFailed(format!(
                "the result is at version {current}, not {v}; reload and retry"
            )))
        }
        Precondition::IfMatch(None) if current > 0 => {
            return Err(ApiError::PreconditionRequired(format!(
                "table {table} already has a result (version {current}); send If-Match: \"{current}\" to correct it"
            )))
        }
        Precondition::IfMatch(_) | Precondition::AnyVersion => None,
        Precondition::Case(id) => Some(id),
    };
    let reason = version_reason(current, input.reason.as_deref())?;
    db::results::insert_version(
        conn,
        NewVersion {
            round: round.id,
            table,
            version: current + 1,
            seats: &seats,
            double_crash: input.double_crash.unwrap_or(false),
            reason,
            case: case_id.map(CaseId),
            entered_by: by,
            entered_at: now,
            playoff_winner: input.playoff_winner.map(PlayerId),
        },
    )?;
    let payload = ResultPayload {
        round: number,
        table,
        version: current + 1,
        case_id,
    };
    crate::db::events::record(
        conn,
        tid.0,
        if current == 0 {
            TournamentEvent::ResultEntered(payload)
        } else {
            TournamentEvent::ResultCorrected(payload)
        },
    )?;
    // After the result's own event, so the feed reads in the order things happened.
    let round_status = after_result_change(conn, round, draw, days, now)?;
    let rows = history(conn, round, table)?;
    with_history(round, rows, round_status)?
        .ok_or_else(|| ApiError::Internal("result vanished".into()))
}

/// After a result was stored: completes the round when every table has a result, and tells
/// the live feed that the standings changed when a completed round's results did. Returns the
/// round's status; `now` is when it completes. Runs inside the caller's transaction.
pub fn after_result_change(
    conn: &mut PgConnection,
    round: &RoundRow,
    draw: &Draw,
    days: PlayingDays,
    now: DateTime<Utc>,
) -> Result<RoundStatus, ApiError> {
    let done = db::results::tables_done(conn, round.id)? as usize;
    let mut status = round.status;
    if status == RoundStatus::Published && done >= draw.tables.len() {
        // When its games were played, the order ratings follow: the stated time, else now
        // held within the playing days (domain::rating::time_of_play).
        let played_at = match round.played_at.filter(|_| round.played_at_fixed) {
            Some(stated) => stated,
            None => days.default_time_of_play(now),
        };
        db::rounds::complete(conn, round.id, now, played_at)?;
        status = RoundStatus::Completed;
        crate::db::events::record(
            conn,
            round.tournament_id.0,
            TournamentEvent::RoundCompleted(RoundPayload {
                round: round.number,
            }),
        )?;
    }
    if status == RoundStatus::Completed {
        // Ratings follow the adjudicated results, in this same transaction.
        crate::services::ratings::round_results_changed(conn, round.tournament_id, round.id)?;
        crate::db::events::record(
            conn,
            round.tournament_id.0,
            TournamentEvent::StandingsChanged(StandingsChangedPayload {
                after_round: round.number,
            }),
        )?;
    }
    Ok(status)
}

/// A table of a round of a tournament, as the URL names it.
#[derive(Debug, Clone, Copy)]
pub struct TableRef {
    pub tournament: i64,
    pub round: i32,
    pub table: i32,
}

/// A table's result with every version. In Bridge-Agricola, results of a round that is not
/// completed are shown only to the tournament's staff (players at other tables hold the same
/// cards); drafts only to staff. Read as of one instant: a result stored while it is read
/// (the deadline job's forfeit, which may complete the round) is shown with the round's
/// status of the same commit, never the new result beside the old status.
pub fn read(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    at: TableRef,
) -> Result<ResultWithHistory, ApiError> {
    crate::db::snapshot(conn, |conn| read_at_once(conn, caller, at))
}

fn read_at_once(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    at: TableRef,
) -> Result<ResultWithHistory, ApiError> {
    let TableRef {
        tournament: tid,
        round: number,
        table,
    } = at;
    let t = load_visible(conn, caller, tid)?;
    let round = db::rounds::by_number(conn, tid, number, Lock::None)?;
    let staff = match &caller.0 {
        Some(c) => c.has_any_role(
            conn,
            tid,
            &[
                StaffRole::Organiser,
                StaffRole::Referee,
                StaffRole::AppealsCommittee,
            ],
        )?,
        None => false,
    };
    let hidden = match t.ruleset {
        Preset::BridgeAgricola => round.status != RoundStatus::Completed,
        Preset::AgricolaNorway
        | Preset::TeamDuplicate2v2
        | Preset::Tantrix
        | Preset::AshesLeague => round.status == RoundStatus::Draft,
    };
    if hidden && !staff {
        return Err(ApiError::NotFound(format!(
            "no result for round {number} table {table} yet"
        )));
    }
    let rows = history(conn, &round, table)?;
    with_history(&round, rows, round.status)?.ok_or_else(|| {
        ApiError::NotFound(format!("no result for round {number} table {table} yet"))
    })
}
