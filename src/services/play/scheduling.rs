//! Self-scheduled games (issue 18, item 2; seed 003 rules 8.2 and 8.4, domain.md section 8).
//!
//! In a round with a deadline (`self_scheduled_until`) each game has a scheduling thread: a
//! player proposes times (UTC instants before the deadline), the opponent accepts one or
//! counter-proposes. The player whose answer to a proposal is awaited has 5 days; then the
//! leader is told (a `schedule_overdue` event on the live feed), and 2 days later the game is
//! forfeited by that player (rule 8.2). A game nobody has proposed anything for waits on nobody:
//! it is no case of rule 8.2; when the round's deadline nears, the leader is told of the games
//! nobody has scheduled (`unscheduled_games`) and decides (rule 8.5). A player who misses an
//! agreed time and says so within 24 hours gets the game rescheduled, one chance per player and
//! match and three per tournament (rule 8.4). A double crash is replayed (rule 3.3). The
//! leader can reverse an automatic forfeit with a reason. The readings are in
//! `docs/decisions/self-scheduling.md`. The deadlines run on the server's
//! [`Clock`]; [`apply_deadlines`] applies them (every instance runs it; each game is taken with
//! a row lock that skips games another instance holds).

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db;
use crate::db::models::Tournament;
use crate::db::registrations::player_of_user;
use crate::db::rounds::Lock;
use crate::db::running::RoundRow;
use crate::db::schedules::NewMessage;
use crate::db::PgConnection;
use crate::domain::status::{RoundStatus, ScheduleState};
use crate::domain::{PlayerId, UserId};
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::running::results::{history, TableRef};
use crate::services::running::snapshot::seats_at;
use crate::services::validate::Check;

/// How long a player has to answer (rule 8.2: then the leader is told).
pub const ANSWER_WITHIN: Duration = Duration::days(5);
/// When an unanswered game is forfeited: 2 more days.
pub const FORFEIT_AFTER: Duration = Duration::days(7);
/// How long after an agreed time a player may say they missed it (rule 8.4).
pub const TELL_WITHIN: Duration = Duration::hours(24);
/// How long the opponent waits at the agreed time (rule 8.3): before the agreed time plus this,
/// the time has not been missed yet.
pub const WAIT_FOR_OPPONENT: Duration = Duration::minutes(15);
/// Reschedules per player and tournament (rule 8.4).
pub const RESCHEDULES_PER_TOURNAMENT: i64 = 3;

pub(crate) use crate::db::schedules::GameRow;
pub use crate::infra::clock::Clock;

/// An instant in UTC and in the time zone it is shown in.
#[derive(Debug, Serialize, ToSchema)]
pub struct ShownTime {
    pub utc: DateTime<Utc>,
    /// The same instant in `time_zone` (RFC 3339 with its offset).
    #[schema(example = "2027-03-06T14:00:00+01:00")]
    pub local: String,
}

/// One message of a game's scheduling thread.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScheduleMessage {
    /// `propose`, `accept`, `missed`, `leader_told` (no answer for 5 days), `forfeit`,
    /// `reinstate`, `unscheduled` (the leader was told the game is not scheduled as the round's
    /// deadline nears) or `replay` (a double crash: the game is scheduled again).
    pub kind: String,
    pub player_id: Option<i64>,
    pub times: Vec<ShownTime>,
    pub note: Option<String>,
    pub at: DateTime<Utc>,
}

/// A self-scheduled game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScheduleOut {
    pub round: i32,
    pub table: i32,
    /// The two players in seat order.
    pub players: Vec<i64>,
    /// `open` (no proposal pending: new, after a missed time or a replay), `proposed`, `agreed`
    /// or `forfeited`.
    pub state: String,
    /// The zone the local times are shown in (`?time_zone=`, else the tournament's).
    pub time_zone: String,
    /// The player whose answer to a proposal is awaited (nobody while the game is open).
    pub waiting_on: Option<i64>,
    /// When the leader is told if that player has not answered.
    pub answer_by: Option<DateTime<Utc>>,
    /// When the game is forfeited if that player has still not answered.
    pub forfeit_at: Option<DateTime<Utc>>,
    pub proposed_by: Option<i64>,
    pub proposed_times: Vec<ShownTime>,
    pub agreed_time: Option<ShownTime>,
    /// The round's deadline.
    pub deadline: DateTime<Utc>,
    /// Whether the game was rescheduled at least once after a missed time (rule 8.4).
    pub rescheduled: bool,
    /// The players who have used their chance of rule 8.4 in this match (each player has one
    /// per match and three per tournament), in the order they used it.
    pub chances_used_by: Vec<i64>,
    pub forfeited_player: Option<i64>,
    /// Oldest first.
    pub thread: Vec<ScheduleMessage>,
}

/// Times proposed for a game.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"times": ["2027-03-06T13:00:00Z", "2027-03-07T18:30:00Z"]}))]
pub struct Propose {
    /// 1 to 5 instants, before the round's deadline.
    #[schema(min_items = 1, max_items = 5)]
    pub times: Vec<DateTime<Utc>>,
}

/// Accepting one proposed time.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"time": "2027-03-06T13:00:00Z"}))]
pub struct Accept {
    /// One of the proposed times, still to come.
    pub time: DateTime<Utc>,
}

/// A note with a scheduling step (a missed time) or the leader's reason (a reinstatement).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"note": "My connection dropped; I told Ola at once"}))]
pub struct Note {
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub note: String,
}

fn zone_of(t: &Tournament, asked: Option<&str>) -> Result<chrono_tz::Tz, ApiError> {
    match asked {
        Some(z) => z
            .parse()
            .map_err(|_| ApiError::field("time_zone", "not an IANA time zone such as Europe/Oslo")),
        None => t
            .time_zone
            .parse()
            .map_err(|_| ApiError::Internal(format!("stored time zone {}", t.time_zone))),
    }
}

fn shown(at: DateTime<Utc>, tz: chrono_tz::Tz) -> ShownTime {
    ShownTime {
        utc: at,
        local: at.with_timezone(&tz).to_rfc3339(),
    }
}

/// Makes the scheduling rows of a published self-scheduled round (once). A new game waits on
/// nobody: either player proposes (rule 8.1), and only an unanswered proposal runs the clock of
/// rule 8.2.
pub(crate) fn ensure_games(conn: &mut PgConnection, round: &RoundRow) -> Result<(), ApiError> {
    if round.self_scheduled_until.is_none() || round.status == RoundStatus::Draft {
        return Ok(());
    }
    let tables: Vec<i32> = round
        .draw
        .tables
        .iter()
        .filter(|t| t.seats.len() == 2)
        .map(|t| t.number as i32)
        .collect();
    let (t, id) = (round.tournament_id, round.id);
    db::schedules::insert_open_games(conn, t, id, &tables)?;
    Ok(())
}

pub(crate) fn message(
    conn: &mut PgConnection,
    g: &GameRow,
    kind: &str,
    player: Option<i64>,
    times: &[DateTime<Utc>],
    note: Option<&str>,
    (by, at): (Option<i64>, DateTime<Utc>),
) -> Result<(), ApiError> {
    db::schedules::add_message(
        conn,
        NewMessage {
            round_id: g.round_id,
            table_number: g.table_number,
            player_id: player.map(PlayerId),
            kind,
            times,
            note,
            by_user: by.map(UserId),
            at,
        },
    )?;
    Ok(())
}

/// The game of a self-scheduled round, its round and tournament, with the game's row locked.
pub(crate) fn game_for_update(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
) -> Result<(Tournament, RoundRow, GameRow), ApiError> {
    let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), at.tournament)?;
    let round = crate::db::rounds::by_number(conn, t.id.0, at.round, Lock::None)?;
    if round.self_scheduled_until.is_none() || round.status == RoundStatus::Draft {
        return Err(ApiError::NotFound(format!(
            "round {} is not a published self-scheduled round",
            at.round
        )));
    }
    ensure_games(conn, &round)?;
    let g: GameRow = db::schedules::lock_game(conn, round.id, at.table)?
        .ok_or_else(|| ApiError::NotFound(format!("no game at table {}", at.table)))?;
    Ok((t, round, g))
}

/// The scheduling steps are for a game still to be played: once its table has a result (409
/// naming `table`) or its round is completed (409 naming `round`) nothing is proposed, accepted
/// or rescheduled.
fn still_to_play(conn: &mut PgConnection, round: &RoundRow, table: i32) -> Result<(), ApiError> {
    if round.status == RoundStatus::Completed {
        return Err(ApiError::conflict_at(
            "round",
            format!(
                "round {} is completed: its games are not scheduled any more",
                round.number
            ),
        ));
    }
    if !history(conn, round, table)?.is_empty() {
        return Err(ApiError::conflict_at(
            "table",
            format!("table {table} has its result: the game is not scheduled any more"),
        ));
    }
    Ok(())
}

fn my_seat(
    conn: &mut PgConnection,
    caller: &Caller,
    t: &Tournament,
    round: &RoundRow,
    table: i32,
) -> Result<(i64, i64), ApiError> {
    let seats = seats_at(round, table)?;
    let me = player_of_user(conn, t.id.0, caller.user_id)?
        .filter(|p| seats.contains(p))
        .ok_or_else(|| ApiError::Forbidden("only the game's players schedule it".into()))?;
    let other = seats
        .into_iter()
        .find(|p| *p != me)
        .ok_or_else(|| ApiError::Internal("a game without an opponent".into()))?;
    Ok((me, other))
}

/// A player proposes times (or counter-proposes the awaited answer): the opponent now has
/// 5 days to answer.
pub fn propose(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: Propose,
    now: DateTime<Utc>,
) -> Result<ScheduleOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round, g) = game_for_update(conn, caller, at)?;
        let (me, other) = my_seat(conn, caller, &t, &round, at.table)?;
        still_to_play(conn, &round, at.table)?;
        let deadline = round.self_scheduled_until.unwrap_or(now);
        let mut check = Check::new();
        check.ensure(
            (1..=5).contains(&input.times.len()),
            "times",
            "propose 1 to 5 times",
        );
        for (i, time) in input.times.iter().enumerate() {
            check.ensure(
                *time > now && *time <= deadline,
                &format!("times[{i}]"),
                format!("must lie between now and the round's deadline {deadline}"),
            );
        }
        check.finish()?;
        match g.state {
            ScheduleState::Open => {}
            ScheduleState::Proposed if g.waiting_on == Some(PlayerId(me)) => {}
            ScheduleState::Proposed => {
                return Err(ApiError::Conflict(
                    "your proposal waits for your opponent's answer".into(),
                ))
            }
            state @ (ScheduleState::Agreed | ScheduleState::Forfeited) => {
                return Err(ApiError::Conflict(format!(
                    "the game is {}; nothing to propose",
                    state.as_str()
                )))
            }
        }
        let mut times = input.times.clone();
        times.sort();
        times.dedup();
        let game = (g.round_id, g.table_number);
        db::schedules::propose(conn, game, PlayerId(me), &times, PlayerId(other), now)?;
        message(
            conn,
            &g,
            "propose",
            Some(me),
            &times,
            None,
            (Some(caller.user_id), now),
        )?;
        view(conn, &t, &round, at.table, None)
    })
}

/// The awaited player accepts one of the proposed times, one still to come (422 naming `time`
/// for a time that has passed).
pub fn accept(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: Accept,
    now: DateTime<Utc>,
) -> Result<ScheduleOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round, g) = game_for_update(conn, caller, at)?;
        let (me, _) = my_seat(conn, caller, &t, &round, at.table)?;
        still_to_play(conn, &round, at.table)?;
        if g.state != ScheduleState::Proposed || g.waiting_on != Some(PlayerId(me)) {
            return Err(ApiError::Conflict(
                "there is no proposal waiting for your answer".into(),
            ));
        }
        if !g.proposed_times.contains(&input.time) {
            return Err(ApiError::field("time", "accept one of the proposed times"));
        }
        if input.time <= now {
            return Err(ApiError::field(
                "time",
                format!("{} has passed: propose new times instead", input.time),
            ));
        }
        db::schedules::agree(conn, (g.round_id, g.table_number), input.time)?;
        message(
            conn,
            &g,
            "accept",
            Some(me),
            &[input.time],
            None,
            (Some(caller.user_id), now),
        )?;
        view(conn, &t, &round, at.table, None)
    })
}

/// Rule 8.4: a player who missed the agreed time (did not appear within 15 minutes of it, rule
/// 8.3) and says so within 24 hours gets the game rescheduled: each player has one such chance
/// per match and three per tournament. Before the agreed time plus 15 minutes nothing has been
/// missed yet (409 naming `agreed_time`). The game is open again, waiting on nobody: either
/// player proposes the new times.
pub fn missed(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    input: Note,
    now: DateTime<Utc>,
) -> Result<ScheduleOut, ApiError> {
    let mut check = Check::new();
    let note = check.text("note", &input.note, 500);
    check.finish()?;
    crate::db::transaction(conn, |conn| {
        let (t, round, g) = game_for_update(conn, caller, at)?;
        let (me, _) = my_seat(conn, caller, &t, &round, at.table)?;
        still_to_play(conn, &round, at.table)?;
        let Some(agreed) = g.agreed_time.filter(|_| g.state == ScheduleState::Agreed) else {
            return Err(ApiError::Conflict("no time is agreed for this game".into()));
        };
        if now < agreed + WAIT_FOR_OPPONENT {
            return Err(ApiError::conflict_at(
                "agreed_time",
                format!(
                    "the agreed time {agreed} has not been missed yet: a missed time can be \
                     reported from {} on, 15 minutes after it (rules 8.3 and 8.4)",
                    agreed + WAIT_FOR_OPPONENT
                ),
            ));
        }
        if now > agreed + TELL_WITHIN {
            return Err(ApiError::Conflict(
                "a missed time must be reported within 24 hours of it (rule 8.4)".into(),
            ));
        }
        let used = db::schedules::missed_in_tournament(conn, t.id, PlayerId(me))?;
        if used >= RESCHEDULES_PER_TOURNAMENT {
            return Err(ApiError::Conflict(
                "you have had three reschedules in this tournament (rule 8.4)".into(),
            ));
        }
        let game = (g.round_id, g.table_number);
        let mine_here = db::schedules::missed_in_game(conn, game, PlayerId(me))?;
        if mine_here > 0 {
            return Err(ApiError::Conflict(
                "you have already used your chance in this match (rule 8.4: one per player and match)"
                    .into(),
            ));
        }
        db::schedules::reopen_missed(conn, game)?;
        message(
            conn,
            &g,
            "missed",
            Some(me),
            &[agreed],
            Some(&note),
            (Some(caller.user_id), now),
        )?;
        view(conn, &t, &round, at.table, None)
    })
}

/// The game as its players and the staff see it.
pub fn read(
    conn: &mut PgConnection,
    caller: &Caller,
    at: TableRef,
    time_zone: Option<String>,
) -> Result<ScheduleOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let (t, round, _) = game_for_update(conn, caller, at)?;
        let staff = caller.has_any_role(
            conn,
            t.id.0,
            &[
                StaffRole::Organiser,
                StaffRole::Referee,
                StaffRole::AppealsCommittee,
            ],
        )?;
        let seats = seats_at(&round, at.table)?;
        let seated =
            player_of_user(conn, t.id.0, caller.user_id)?.is_some_and(|p| seats.contains(&p));
        if !staff && !seated {
            return Err(ApiError::NotFound(format!("no game at table {}", at.table)));
        }
        view(conn, &t, &round, at.table, time_zone.as_deref())
    })
}

pub(crate) fn view(
    conn: &mut PgConnection,
    t: &Tournament,
    round: &RoundRow,
    table: i32,
    time_zone: Option<&str>,
) -> Result<ScheduleOut, ApiError> {
    let tz = zone_of(t, time_zone)?;
    let g: GameRow = db::schedules::game(conn, round.id, table)?;
    let thread = db::schedules::thread(conn, round.id, table)?;
    let mut chances_used_by: Vec<i64> = Vec::new();
    for m in &thread {
        let missed_by = m.player_id.map(|p| p.0).filter(|_| m.kind == "missed");
        if let Some(p) = missed_by.filter(|p| !chances_used_by.contains(p)) {
            chances_used_by.push(p);
        }
    }
    Ok(ScheduleOut {
        round: round.number,
        table,
        players: seats_at(round, table)?,
        state: g.state.as_str().to_string(),
        time_zone: tz.name().to_string(),
        waiting_on: g.waiting_on.map(|p| p.0),
        answer_by: g
            .waiting_since
            .filter(|_| g.waiting_on.is_some())
            .map(|s| s + ANSWER_WITHIN),
        forfeit_at: g
            .waiting_since
            .filter(|_| g.waiting_on.is_some())
            .map(|s| s + FORFEIT_AFTER),
        proposed_by: g.proposed_by.map(|p| p.0),
        proposed_times: g.proposed_times.iter().map(|x| shown(*x, tz)).collect(),
        agreed_time: g.agreed_time.map(|x| shown(x, tz)),
        deadline: round.self_scheduled_until.unwrap_or_default(),
        rescheduled: g.rescheduled,
        chances_used_by,
        forfeited_player: g.forfeited_player.map(|p| p.0),
        thread: thread
            .into_iter()
            .map(|m| ScheduleMessage {
                kind: m.kind,
                player_id: m.player_id.map(|p| p.0),
                times: m.times.into_iter().map(|x| shown(x, tz)).collect(),
                note: m.note,
                at: m.at,
            })
            .collect(),
    })
}

/// Reopens the game at `table` of a round for a replay (seed 003 rule 3.3, see
/// `services::play::replays`): no agreed or proposed time, waiting on nobody. The game as it
/// was before; `None` when the round has no game at that table.
pub(crate) fn reopen_game(
    conn: &mut PgConnection,
    round: &RoundRow,
    table: i32,
) -> Result<Option<GameRow>, ApiError> {
    Ok(db::schedules::reopen(conn, round.id, table)?)
}
