//! Withdrawals, voluntary-round opt-outs, penalties and sanctions.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db;
use crate::db::ids::PenaltyId;
use crate::db::running::{NewPenalty, NewWithdrawal, PenaltyRow, WithdrawalRow};
use crate::db::PgConnection;
use crate::domain::events::{
    PenaltyAnnulledPayload, PenaltyPayload, StandingsChangedPayload, TournamentEvent,
    WithdrawalPayload,
};
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::scoring::Preset;
use crate::domain::{CaseId, PlayerId, TournamentId, UserId};
use crate::error::ApiError;
use crate::services::access::{load_for_staff, load_visible};
use crate::services::validate::{Check, Page, PageParams};
/// The number of the tournament's last drawn round (0 before the first).
pub fn rounds_drawn(conn: &mut PgConnection, tid: i64) -> Result<i32, ApiError> {
    Ok(db::rounds::last_drawn(conn, TournamentId(tid))?)
}

/// 422 naming `player_id` unless the player is a confirmed participant.
pub fn ensure_confirmed(
    conn: &mut PgConnection,
    tid: TournamentId,
    player_id: PlayerId,
) -> Result<(), ApiError> {
    let ok = db::registrations::is_confirmed(conn, tid, player_id)?;
    if ok {
        Ok(())
    } else {
        Err(ApiError::field(
            "player_id",
            format!("player {player_id} is not a confirmed participant"),
        ))
    }
}

/// Stores a withdrawal or opt-out inside the caller's transaction (the withdrawal and
/// voluntary-round use cases, and case decisions).
pub fn insert_withdrawal(
    conn: &mut PgConnection,
    w: NewWithdrawal,
) -> Result<WithdrawalRow, ApiError> {
    db::conduct::insert_withdrawal(conn, w)?
        .ok_or_else(|| ApiError::Conflict("the player has already withdrawn or stopped".into()))
}

/// Seed 000 ("Obligatoriske og frivillige spill"): mandatory games are played by everyone, and
/// a player who does not play one has withdrawn (placed last). An opt-out names a round not yet
/// drawn, whose kind is only known at its draw: when round `number` is drawn mandatory (any kind
/// but voluntary), its opt-outs become withdrawals from it, each with the `withdrawal` event an
/// organiser's withdrawal sends. Runs inside the draw's transaction.
pub fn withdraw_opted_out(
    conn: &mut PgConnection,
    tid: TournamentId,
    number: i32,
) -> Result<(), ApiError> {
    for row in db::conduct::opt_outs_to_withdrawals(conn, tid, number)? {
        crate::db::events::record(
            conn,
            tid.0,
            TournamentEvent::Withdrawal(WithdrawalPayload {
                player_id: row.player_id.0,
                from_round: row.from_round,
                kind: row.kind.as_str().to_string(),
            }),
        )?;
    }
    Ok(())
}

pub use crate::domain::entries::PenaltyKind;

/// Record a penalty or sanction.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"player_id": 17, "kind": "point_penalty", "points": 5, "round": 2, "table": 3, "reason": "Late to the table after the break."}))]
pub struct RecordPenalty {
    pub player_id: i64,
    pub kind: PenaltyKind,
    /// The round and table the penalty applies to (required for point penalties and game
    /// losses).
    #[schema(minimum = 1, maximum = 1000)]
    pub round: Option<i32>,
    #[schema(minimum = 1, maximum = 10000)]
    pub table: Option<i32>,
    /// Points deducted from the game score (point penalties; the team format's rule is 5 per
    /// violation, the default there).
    #[schema(minimum = 1, maximum = 1000)]
    pub points: Option<i32>,
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: String,
}

/// Annul a penalty: the decision and its reason are kept.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "Given to the wrong player."}))]
pub struct AnnulPenalty {
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: String,
}

/// A recorded penalty.
#[derive(Debug, Serialize, ToSchema)]
pub struct PenaltyOut {
    pub id: i64,
    pub player_id: i64,
    #[schema(value_type = PenaltyKind, example = "warning")]
    pub kind: String,
    pub round: Option<i32>,
    pub table: Option<i32>,
    pub points: i32,
    pub reason: String,
    pub case_id: Option<i64>,
    pub issued_by: i64,
    pub issued_at: DateTime<Utc>,
    pub annulled_by: Option<i64>,
    pub annulled_at: Option<DateTime<Utc>>,
    pub annul_reason: Option<String>,
}

pub fn penalty_out(p: PenaltyRow) -> PenaltyOut {
    PenaltyOut {
        id: p.id.0,
        player_id: p.player_id.0,
        kind: p.kind.as_str().to_string(),
        round: p.round_number,
        table: p.table_number,
        points: p.points,
        reason: p.reason,
        case_id: p.case_id.map(|id| id.0),
        issued_by: p.issued_by.0,
        issued_at: p.issued_at,
        annulled_by: p.annulled_by.map(|id| id.0),
        annulled_at: p.annulled_at,
        annul_reason: p.annul_reason,
    }
}

/// The kind a penalty is stored under: a `sanction` takes the next step of the Ashes
/// escalation (seed 004: a warning, then a game loss, then removal) from the player's earlier
/// sanctions in force.
fn stored_kind(
    conn: &mut PgConnection,
    tid: i64,
    input: &RecordPenalty,
) -> Result<RecordedPenalty, ApiError> {
    Ok(match input.kind {
        PenaltyKind::Sanction => {
            let earlier = db::conduct::sanctions_in_force(
                conn,
                TournamentId(tid),
                PlayerId(input.player_id),
            )?;
            match earlier {
                0 => RecordedPenalty::Warning,
                1 => RecordedPenalty::GameLoss,
                _ => RecordedPenalty::Removal,
            }
        }
        PenaltyKind::PointPenalty => RecordedPenalty::PointPenalty,
        PenaltyKind::Warning => RecordedPenalty::Warning,
        PenaltyKind::GameLoss => RecordedPenalty::GameLoss,
        PenaltyKind::Removal => RecordedPenalty::Removal,
    })
}

/// Records a penalty inside the caller's transaction (also used by case decisions). A removal
/// also withdraws the player from the next round not yet drawn.
#[allow(clippy::too_many_arguments)]
pub fn record_penalty(
    conn: &mut PgConnection,
    tid: TournamentId,
    ruleset: Preset,
    input: &RecordPenalty,
    reason: String,
    case_id: Option<CaseId>,
    issued_by: UserId,
) -> Result<PenaltyRow, ApiError> {
    let (tid, case_id, issued_by) = (tid.0, case_id.map(|c| c.0), issued_by.0);
    // A sanction's step is counted from the sanctions in force, then inserted: one penalty
    // at a time per tournament, else two at once both count as the first.
    crate::services::access::lock_tournament(conn, tid)?;
    ensure_confirmed(conn, TournamentId(tid), PlayerId(input.player_id))?;
    let kind = stored_kind(conn, tid, input)?;
    let needs_game = kind.changes_game();
    let (round, table) = match (input.round, input.table) {
        (Some(r), Some(t)) => (Some(r), Some(t)),
        (None, None) if !needs_game => (None, None),
        _ => {
            return Err(ApiError::field(
                "round",
                format!(
                    "a {} names the round and the table of the game",
                    kind.as_str()
                ),
            ))
        }
    };
    if let (Some(r), Some(t)) = (round, table) {
        let draw = db::rounds::draw_by_number(conn, TournamentId(tid), r)?
            .ok_or_else(|| ApiError::field("round", format!("no round {r}")))?;
        if !sits_at(&draw, t, input.player_id) {
            return Err(ApiError::field(
                "table",
                format!(
                    "player {} does not sit at round {r} table {t}",
                    input.player_id
                ),
            ));
        }
    }
    let points = match kind {
        RecordedPenalty::PointPenalty => input.points.unwrap_or(match ruleset {
            // Seed 002: 5 points per violation.
            Preset::TeamDuplicate2v2 => 5,
            Preset::AgricolaNorway
            | Preset::BridgeAgricola
            | Preset::Tantrix
            | Preset::AshesLeague => 0,
        }),
        RecordedPenalty::Warning | RecordedPenalty::GameLoss | RecordedPenalty::Removal => 0,
    };
    if kind == RecordedPenalty::PointPenalty && points < 1 {
        return Err(ApiError::field(
            "points",
            "a point penalty deducts at least 1 point",
        ));
    }
    let row: PenaltyRow = db::conduct::insert_penalty(
        conn,
        NewPenalty {
            tournament_id: TournamentId(tid),
            player_id: PlayerId(input.player_id),
            kind,
            round_number: round,
            table_number: table,
            points,
            reason: reason.clone(),
            case_id: case_id.map(CaseId),
            issued_by: UserId(issued_by),
        },
    )?;
    if kind == RecordedPenalty::Removal {
        let next = rounds_drawn(conn, tid)? + 1;
        insert_withdrawal(
            conn,
            NewWithdrawal {
                tournament_id: TournamentId(tid),
                player_id: PlayerId(input.player_id),
                kind: WithdrawalKind::Withdrawal,
                from_round: next,
                reason: Some(format!("removed: {reason}")),
                recorded_by: UserId(issued_by),
            },
        )?;
    }
    crate::db::events::record(
        conn,
        tid,
        TournamentEvent::Penalty(PenaltyPayload {
            player_id: row.player_id.0,
            kind: row.kind.as_str().to_string(),
            round: row.round_number,
            table: row.table_number,
        }),
    )?;
    if let (true, Some(r), Some(t)) = (needs_game, round, table) {
        crate::services::ratings::game_adjudicated(conn, tid, r, t)?;
        crate::db::events::record(
            conn,
            tid,
            TournamentEvent::StandingsChanged(StandingsChangedPayload { after_round: r }),
        )?;
    }
    Ok(row)
}

/// Annuls a penalty inside the caller's transaction (also used by case decisions).
pub fn annul_penalty(
    conn: &mut PgConnection,
    tid: TournamentId,
    pid: i64,
    by: UserId,
    reason: String,
    now: DateTime<Utc>,
) -> Result<PenaltyRow, ApiError> {
    let p: PenaltyRow = db::conduct::lock_penalty(conn, tid, PenaltyId(pid))?
        .ok_or_else(|| ApiError::NotFound(format!("no penalty {pid}")))?;
    if p.annulled_at.is_some() {
        return Err(ApiError::Conflict(format!(
            "penalty {pid} is already annulled"
        )));
    }
    if p.kind == RecordedPenalty::Removal {
        let drawn = rounds_drawn(conn, tid.0)?;
        let lifted = db::conduct::lift_withdrawals_after(conn, tid, p.player_id, drawn)?;
        if lifted == 0 {
            return Err(ApiError::Conflict(
                "the removal has taken effect (a round was drawn without the player)".into(),
            ));
        }
    }
    let row = db::conduct::annul_penalty(conn, PenaltyId(pid), by, now, reason)?;
    if let (true, Some(r), Some(t)) = (p.kind.changes_game(), p.round_number, p.table_number) {
        crate::services::ratings::game_adjudicated(conn, tid.0, r, t)?;
    }
    crate::db::events::record(
        conn,
        tid.0,
        TournamentEvent::PenaltyAnnulled(PenaltyAnnulledPayload { penalty: pid }),
    )?;
    Ok(row)
}

pub use crate::domain::scoring::standings::WithdrawalKind;

/// Record a withdrawal or an opt-out.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"player_id": 17, "from_round": 4, "kind": "withdrawal", "reason": "Ill."}))]
pub struct RecordWithdrawal {
    pub player_id: i64,
    /// The first round the player does not play; not drawn yet.
    #[schema(minimum = 1, maximum = 1000)]
    pub from_round: i32,
    /// `withdrawal` (default) or `opt_out` (of a voluntary round; if the round is drawn
    /// mandatory, the opt-out becomes a withdrawal from it).
    pub kind: Option<WithdrawalKind>,
    #[schema(
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: Option<String>,
}

/// A recorded withdrawal or opt-out.
#[derive(Debug, Serialize, ToSchema)]
pub struct WithdrawalOut {
    pub player_id: i64,
    #[schema(value_type = WithdrawalKind, example = "withdrawal")]
    pub kind: String,
    pub from_round: i32,
    pub reason: Option<String>,
    pub recorded_by: i64,
    pub recorded_at: DateTime<Utc>,
}

fn withdrawal_out(w: WithdrawalRow) -> WithdrawalOut {
    WithdrawalOut {
        player_id: w.player_id.0,
        kind: w.kind.as_str().to_string(),
        from_round: w.from_round,
        reason: w.reason,
        recorded_by: w.recorded_by.0,
        recorded_at: w.recorded_at,
    }
}

/// Records a withdrawal or a voluntary-round opt-out (organisers and referees; a player may opt out of a voluntary round themselves).
pub fn record_withdrawal(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: RecordWithdrawal,
) -> Result<WithdrawalOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let kind = input.kind.unwrap_or(WithdrawalKind::Withdrawal);
        // Players opt out of a voluntary round themselves; everything else is recorded
        // by the tournament's organisers and referees.
        let own_opt_out = kind == WithdrawalKind::OptOut
            && db::players::is_users(conn, PlayerId(input.player_id), UserId(caller.user_id))?;
        let team_event = if own_opt_out {
            let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)?;
            t.ruleset == Preset::TeamDuplicate2v2
        } else {
            load_for_staff(
                conn,
                caller,
                tid,
                &[StaffRole::Organiser, StaffRole::Referee],
            )?;
            false
        };
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        check.range("from_round", input.from_round.into(), 1, 1000);
        let reason = check.optional_text("reason", input.reason.as_deref(), 500);
        check.finish()?;
        if team_event {
            // Seed 002: a team plays with its four players; one stopping alone would take the
            // whole team out of the round.
            return Err(ApiError::conflict_at(
                "kind",
                "in a team_duplicate_2v2 tournament a team plays with its four players: a \
                 player does not opt out alone; the organiser or referee records a withdrawal",
            ));
        }
        // A draw holds the tournament's row lock while it seats the field and turns the
        // opt-outs of its round into withdrawals: taken here too, the round a record names is
        // checked against the draws committed, never against one in flight (which would leave
        // an opt-out of a round drawn without it, its player seated and recorded as stopped).
        crate::services::access::lock_tournament(conn, tid)?;
        ensure_confirmed(conn, TournamentId(tid), PlayerId(input.player_id))?;
        let drawn = rounds_drawn(conn, tid)?;
        if input.from_round <= drawn {
            return Err(ApiError::field(
                "from_round",
                format!(
                    "round {} is already drawn; the earliest is {}",
                    input.from_round,
                    drawn + 1
                ),
            ));
        }
        let row = insert_withdrawal(
            conn,
            NewWithdrawal {
                tournament_id: TournamentId(tid),
                player_id: PlayerId(input.player_id),
                kind,
                from_round: input.from_round,
                reason,
                recorded_by: UserId(caller.user_id),
            },
        )?;
        crate::db::events::record(
            conn,
            tid,
            TournamentEvent::Withdrawal(WithdrawalPayload {
                player_id: row.player_id.0,
                from_round: row.from_round,
                kind: row.kind.as_str().to_string(),
            }),
        )?;
        Ok(withdrawal_out(row))
    })
}

/// Withdrawals and opt-outs of a tournament.
pub fn list_withdrawals(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    params: &PageParams,
) -> Result<Page<WithdrawalOut>, ApiError> {
    load_visible(conn, caller, tid)?;
    let page = Page::read(
        conn,
        params,
        |c| db::conduct::count_withdrawals(c, TournamentId(tid)),
        |c, limit, offset| db::conduct::withdrawals_page(c, TournamentId(tid), limit, offset),
    )?;
    page.try_map(|row| Ok(withdrawal_out(row)))
}

/// Whether `player` sits at table `table` of `draw`.
fn sits_at(draw: &crate::domain::seating::Draw, table: i32, player: i64) -> bool {
    draw.tables
        .iter()
        .any(|t| i64::from(t.number) == i64::from(table) && t.seats.iter().any(|p| p.0 == player))
}

/// 403 when the penalty names a game (round and table) the caller's own player sits at: an
/// official who played the game does not penalise it (domain.md section 1: nobody decides a
/// matter in which they are a party, "as a player at the table concerned"; seed 003 rule 15).
/// Another referee or organiser records it, or a case.
fn not_at_my_table(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: &RecordPenalty,
) -> Result<(), ApiError> {
    let (Some(round), Some(table)) = (input.round, input.table) else {
        return Ok(());
    };
    let Some(me) = db::registrations::player_of_user(conn, tid, caller.user_id)? else {
        return Ok(());
    };
    let Some(draw) = db::rounds::draw_by_number(conn, TournamentId(tid), round)? else {
        return Ok(());
    };
    if sits_at(&draw, table, me) {
        return Err(ApiError::Forbidden(format!(
            "you play at round {round} table {table}: another referee or an organiser \
             penalises that game, or a case decides"
        )));
    }
    Ok(())
}

/// Records a penalty or sanction (referees and organisers; not for a game the caller played).
pub fn penalise(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: RecordPenalty,
) -> Result<PenaltyOut, ApiError> {
    crate::db::unit_of_work(conn, |conn| {
        let t = load_for_staff(
            conn,
            caller,
            tid,
            &[StaffRole::Referee, StaffRole::Organiser],
        )?;
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        let reason = check.text("reason", &input.reason, 500);
        if let Some(r) = input.round {
            check.range("round", r.into(), 1, 1000);
        }
        if let Some(t) = input.table {
            check.range("table", t.into(), 1, 10_000);
        }
        if let Some(p) = input.points {
            check.range("points", p.into(), 1, 1000);
        }
        check.finish()?;
        not_at_my_table(conn, caller, tid, &input)?;
        let row = record_penalty(
            conn,
            TournamentId(tid),
            t.ruleset,
            &input,
            reason,
            None,
            UserId(caller.user_id),
        )?;
        Ok(penalty_out(row))
    })
}

/// Penalties and sanctions of a tournament (annulled ones included, marked).
pub fn list_penalties(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    params: &PageParams,
) -> Result<Page<PenaltyOut>, ApiError> {
    load_visible(conn, caller, tid)?;
    let page = Page::read(
        conn,
        params,
        |c| db::conduct::count_penalties(c, TournamentId(tid)),
        |c, limit, offset| db::conduct::penalties_page(c, TournamentId(tid), limit, offset),
    )?;
    page.try_map(|row| Ok(penalty_out(row)))
}

/// 403 when penalty `pid` was given to the player `by` plays as: nobody decides a matter they
/// are a party to (domain.md section 1; seed 003 rule 15, a dispute involving the leader as a
/// player goes to someone else). Another referee or organiser annuls it, or a case does.
fn not_my_own_penalty(
    conn: &mut PgConnection,
    tid: TournamentId,
    pid: i64,
    by: UserId,
) -> Result<(), ApiError> {
    let Some((player, _)) = db::cases::penalty_parties(conn, tid, PenaltyId(pid))? else {
        return Ok(());
    };
    if db::players::accounts_of(conn, &[player])?.contains(&by) {
        return Err(ApiError::Forbidden(format!(
            "penalty {pid} was given to your own player: another referee or an organiser \
             annuls it, or a case about it decides"
        )));
    }
    Ok(())
}

/// Annuls a penalty (referees and organisers, not the penalised player's own account); it stays
/// listed with who annulled it, when and why.
pub fn annul(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    pid: i64,
    input: AnnulPenalty,
    now: DateTime<Utc>,
) -> Result<PenaltyOut, ApiError> {
    let tid = tid.0;
    crate::db::transaction(conn, |conn| {
        load_for_staff(
            conn,
            caller,
            tid,
            &[StaffRole::Referee, StaffRole::Organiser],
        )?;
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        let reason = check.text("reason", &input.reason, 500);
        check.finish()?;
        let by = UserId(caller.user_id);
        not_my_own_penalty(conn, TournamentId(tid), pid, by)?;
        annul_penalty(conn, TournamentId(tid), pid, by, reason, now).map(penalty_out)
    })
}
