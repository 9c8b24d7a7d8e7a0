//! Applying a decision: remedies through the result and penalty paths, and the panel checks before it.

use super::*;
use crate::db::ids::{PenaltyId, UserId};
use crate::domain::case_scope::CaseScope;
use crate::domain::entries::AppliedRemedy;
use crate::domain::events::{CaseDecidedPayload, ReplayOrderedPayload, TournamentEvent};
use crate::domain::status::CaseStatus;

pub(super) fn reason_for_records(cid: i64, reason: &str) -> String {
    format!("case {cid}: {reason}")
        .chars()
        .take(REASON_MAX)
        .collect()
}

/// Applies one remedy inside the decision's transaction; returns what it did.
pub(super) fn apply_remedy(
    conn: &mut PgConnection,
    t: &Tournament,
    cid: i64,
    i: usize,
    remedy: &Remedy,
    reason: &str,
    (by, now): (i64, DateTime<Utc>),
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
                playoff_winner: None,
            };
            let out = store_result(
                conn,
                t.clone(),
                *round,
                *table,
                &input,
                Precondition::Case(cid),
                by,
                now,
            )
            .map_err(as_field)?;
            serde_json::json!({"result_version": out.current.version, "round_status": out.round_status})
        }
        Remedy::AnnulPenalty { penalty_id } => {
            let p = annul_penalty(conn, t.id, *penalty_id, UserId(by), reason, now)
                .map_err(as_field)?;
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
            let p = record_penalty(
                conn,
                t.id,
                t.ruleset,
                &input,
                reason,
                Some(CaseId(cid)),
                UserId(by),
            )
            .map_err(as_field)?;
            serde_json::json!({"penalty_recorded": p.id, "penalty_kind": p.kind.as_str()})
        }
        Remedy::ReplayTable { round, table } => {
            seated_at(conn, t.id.0, *round, *table, &field)?;
            crate::db::events::record(
                conn,
                t.id.0,
                TournamentEvent::ReplayOrdered(ReplayOrderedPayload {
                    round: *round,
                    table: *table,
                    case_id: Some(cid),
                    double_crash: None,
                }),
            )?;
            serde_json::json!({"replay_ordered": {"round": round, "table": table}})
        }
    })
}

/// The table and players case `case` is about: the table of a `table` or `result` case, the
/// players who are its parties (directly or through their account in the tournament) and the
/// players seated at its table.
fn scope_of(conn: &mut PgConnection, case: &CaseRow) -> Result<CaseScope, ApiError> {
    let tid = case.tournament_id.0;
    let table = match (case.subject, case.round_number, case.table_number) {
        (CaseSubject::Table | CaseSubject::Result, Some(r), Some(t)) => Some((r, t)),
        _ => None,
    };
    let mut players = BTreeSet::new();
    for p in parties_of(conn, case.id.0)? {
        if let Some(player) = p.player_id {
            players.insert(player.0);
        }
        if let Some(user) = p.user_id {
            players.extend(crate::db::registrations::player_of_user(conn, tid, user.0)?);
        }
    }
    if let Some((r, t)) = table {
        players.extend(seated_at(conn, tid, r, t, "table").unwrap_or_default());
    }
    Ok(CaseScope {
        table,
        players: players.into_iter().collect(),
    })
}

/// 422 naming `remedies[i]` (or its field) unless every remedy stays within the case: its
/// table, its parties and the players at its table (`crate::domain::case_scope`).
pub(super) fn remedies_in_case(
    conn: &mut PgConnection,
    case: &CaseRow,
    remedies: &[Remedy],
) -> Result<(), ApiError> {
    if remedies.is_empty() {
        return Ok(());
    }
    let scope = scope_of(conn, case)?;
    for (i, r) in remedies.iter().enumerate() {
        let penalised = match r {
            Remedy::AnnulPenalty { penalty_id } => {
                crate::db::cases::penalty_parties(conn, case.tournament_id, PenaltyId(*penalty_id))?
                    .map(|(p, _)| p.0)
            }
            _ => None,
        };
        if let Err(e) = scope.admits(r, penalised) {
            let field = match e.field {
                "" => format!("remedies[{i}]"),
                f => format!("remedies[{i}].{f}"),
            };
            return Err(ApiError::field(
                field,
                format!("case {}: {}", case.id, e.message),
            ));
        }
    }
    Ok(())
}

/// Decides a case by `by` at `now`: applies the remedies, stores the outcome, logs it and
/// tells the live feed.
pub(super) fn decide(
    conn: &mut PgConnection,
    t: &Tournament,
    case: &CaseRow,
    verdict: Verdict,
    ordered: Vec<Remedy>,
    reason: String,
    (by, now): (i64, DateTime<Utc>),
) -> Result<(), ApiError> {
    let remedies = match verdict {
        Verdict::Uphold => case.requested_remedies.clone(),
        Verdict::Dismiss => Vec::new(),
        Verdict::Remedy => ordered,
    };
    remedies_in_case(conn, case, &remedies)?;
    let mut applied = Vec::new();
    for (i, r) in remedies.iter().enumerate() {
        let effect = apply_remedy(conn, t, case.id.0, i, r, &reason, (by, now))?;
        let detail = RemedyAppliedDetail {
            order: r.clone(),
            effect: effect.clone(),
        };
        log(conn, case.id.0, by, CaseEvent::RemedyApplied(detail))?;
        applied.push(AppliedRemedy {
            order: r.clone(),
            effect,
        });
    }
    crate::db::cases::set_decided(
        conn,
        case.id,
        &crate::db::cases::Decision {
            by: UserId(by),
            at: now,
            outcome: verdict.outcome(),
            reason: &reason,
            remedies: &applied,
            appeal_until: now + Duration::minutes(t.appeal_window_minutes.into()),
        },
    )?;
    log(
        conn,
        case.id.0,
        by,
        CaseEvent::Decided(DecidedDetail {
            outcome: verdict.outcome().as_str().into(),
            reason,
            remedies: applied.len(),
        }),
    )?;
    crate::db::events::record(
        conn,
        t.id.0,
        TournamentEvent::CaseDecided(CaseDecidedPayload {
            case_id: case.id.0,
            kind: case.kind.as_str().to_string(),
            outcome: verdict.outcome().as_str().to_string(),
            remedies: applied.iter().map(to_json).collect::<Result<_, _>>()?,
        }),
    )?;
    Ok(())
}

/// Checks a verdict's remedies: only `remedy` carries them, and it needs at least one.
pub(super) fn verdict_remedies(
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
/// for someone not on the panel, 403 for a member no longer holding the seat's role.
pub(super) fn require_panel_member(
    conn: &mut PgConnection,
    case: &CaseRow,
    caller: &Caller,
) -> Result<(), ApiError> {
    let parties = parties_of(conn, case.id.0)?;
    if party_users(conn, &parties)?.contains(&caller.user_id) {
        return Err(ApiError::Forbidden(format!(
            "you are a party to case {}: nobody decides a case they are a party to",
            case.id
        )));
    }
    let seat = panel_of(conn, case.id.0)?
        .into_iter()
        .find(|m| m.user_id == UserId(caller.user_id))
        .map(|m| m.seat);
    let Some(seat) = seat else {
        return Err(ApiError::Forbidden(format!(
            "you are not on the deciding panel of case {}",
            case.id
        )));
    };
    // The panel was stored when the case opened: a seat counts only while its holder still
    // holds the role it was given for (a dismissed official no longer decides).
    let role = match seat {
        rules::Seat::Referee => StaffRole::Referee,
        rules::Seat::Committee => StaffRole::AppealsCommittee,
    };
    if !caller.roles_in(conn, case.tournament_id.0)?.contains(&role) {
        return Err(ApiError::Forbidden(format!(
            "you no longer hold the {} role in this tournament: only its current officials decide case {}",
            role.as_str(),
            case.id
        )));
    }
    Ok(())
}

/// The tournament and the case (locked) for a member of its deciding panel about to act on
/// it: an open case stays hidden (404) from anyone outside it; 403 for a party or someone not
/// on the panel.
pub(super) fn case_for_panel(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    cid: CaseId,
) -> Result<(Tournament, CaseRow, MaybeCaller), ApiError> {
    let t = load_tournament(conn, caller, tid.0)?;
    // The tournament's lock before the case's, as every path taking both (lock_case).
    let case = lock_case(conn, &t, cid)?;
    let me = MaybeCaller(Some(caller.clone()));
    if case.status == CaseStatus::Open && !is_insider(conn, &me, &case)? {
        return Err(ApiError::NotFound(format!(
            "no case {cid} in tournament {tid}"
        )));
    }
    require_panel_member(conn, &case, caller)?;
    Ok((t, case, me))
}

pub(super) fn require_open(case: &CaseRow) -> Result<(), ApiError> {
    if case.status != CaseStatus::Open {
        return Err(ApiError::Conflict(format!(
            "case {} is already decided ({})",
            case.id,
            case.outcome.map_or(case.status.as_str(), |o| o.as_str())
        )));
    }
    Ok(())
}

/// Locks the tournament, then its case `cid`: every path that takes both locks takes them in
/// this order (a decision's penalty takes the tournament's lock to count a sanction's step, a
/// staff change takes it and recomputes the open cases' panels), so two of them never wait on
/// each other.
pub(super) fn lock_case(
    conn: &mut PgConnection,
    t: &Tournament,
    cid: CaseId,
) -> Result<CaseRow, ApiError> {
    crate::services::access::lock_tournament(conn, t.id.0)?;
    load_case(conn, t.id, cid, true)
}

pub(super) fn load_tournament(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
) -> Result<Tournament, ApiError> {
    load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)
}

// ---------------------------------------------------------------------------------------
// Handlers
