//! A case as the caller may see it.

use super::*;
use crate::domain::status::CaseStatus;

/// The appeal window a decision was given with, in minutes: its stored deadline fixes it, so a
/// later change of the tournament's window neither reopens nor closes it; the tournament's
/// current window for a case not yet decided.
pub(super) fn window_of(case: &CaseRow, t: &Tournament) -> i64 {
    match (case.decided_at, case.appeal_until) {
        (Some(at), Some(until)) => (until - at).num_minutes(),
        _ => i64::from(t.appeal_window_minutes),
    }
}

pub(super) fn render(
    conn: &mut PgConnection,
    t: &Tournament,
    case: CaseRow,
    insider: bool,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let appealed_by = crate::db::cases::appeal_against(conn, case.id)?.map(|a| a.0);
    let decided = rules::Decided {
        kind: case.kind,
        mode: case.panel_mode,
        decided_at: case.decided_at,
        appealed: appealed_by.is_some(),
    };
    let window = window_of(&case, t);
    let appeals = appeals_of(t)?;
    let appealable = rules::may_appeal_under(appeals, &decided, now, window).is_ok();
    let appeal_until = case
        .decided_at
        .filter(|_| appealable)
        .map(|d| d + Duration::minutes(window));
    let is_final = case.status == CaseStatus::Decided && !appealable;
    let mut out = CaseOut {
        id: case.id.0,
        tournament_id: case.tournament_id.0,
        kind: case.kind.as_str().to_string(),
        subject: case.subject.as_str().to_string(),
        round: case.round_number,
        table: case.table_number,
        penalty_id: case.penalty_id.map(|id| id.0),
        status: case.status.as_str().to_string(),
        opened_at: case.opened_at,
        decided_at: case.decided_at,
        outcome: case.outcome.map(|o| o.as_str().to_string()),
        remedies: case.remedy.as_ref().map(to_json).transpose()?,
        appeal_of: case.appeal_of.map(|id| id.0),
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
    if insider {
        add_insider_view(conn, &case, &mut out)?;
    }
    Ok(out)
}

/// What the parties, the panel and the staff see besides the public view: the statement and
/// evidence, who opened and decided it, the parties, the panel, its votes and the history.
fn add_insider_view(
    conn: &mut PgConnection,
    case: &CaseRow,
    out: &mut CaseOut,
) -> Result<(), ApiError> {
    let links = case.evidence_links.clone();
    out.statement = Some(case.statement.clone());
    out.evidence = Some(Evidence {
        text: case.evidence_text.clone(),
        links: Some(links),
    });
    out.requested_remedies = Some(to_json(&case.requested_remedies)?);
    out.opened_by = Some(case.opened_by.0);
    out.decided_by = case.decided_by.map(|id| id.0);
    out.decision_reason = case.decision_reason.clone();
    out.parties = Some(
        parties_of(conn, case.id.0)?
            .into_iter()
            .map(|p| PartyOut {
                user_id: p.user_id.map(|id| id.0),
                player_id: p.player_id.map(|id| id.0),
                role: p.role.as_str().to_string(),
                added_by: p.added_by.0,
                added_at: p.added_at,
            })
            .collect(),
    );
    out.panel = Some(PanelOut {
        mode: case.panel_mode.as_str().to_string(),
        rule: case.panel_rule.as_str().to_string(),
        members: panel_of(conn, case.id.0)?
            .into_iter()
            .map(|m| PanelMember {
                user_id: m.user_id.0,
                seat: m.seat.as_str().to_string(),
            })
            .collect(),
    });
    out.votes = Some(
        votes_of(conn, case.id.0)?
            .into_iter()
            .map(|v| {
                Ok(VoteOut {
                    member_id: v.member_id.0,
                    vote: v.vote.as_str().to_string(),
                    remedies: v.remedy.as_ref().map(to_json).transpose()?,
                    reason: v.reason,
                    at: v.at,
                })
            })
            .collect::<Result<_, ApiError>>()?,
    );
    let events = crate::db::cases::history_of(conn, case.id)?;
    out.history = Some(
        events
            .into_iter()
            .map(|e| {
                Ok(CaseEventOut {
                    author: e.author.0,
                    at: e.at,
                    event: CaseEvent::read(e.what, e.detail)?,
                })
            })
            .collect::<Result<_, ApiError>>()?,
    );
    Ok(())
}

pub(super) fn render_for(
    conn: &mut PgConnection,
    t: &Tournament,
    caller: &MaybeCaller,
    cid: i64,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let case = load_case(conn, t.id, CaseId(cid), false)?;
    let insider = is_insider(conn, caller, &case)?;
    render(conn, t, case, insider, now)
}

// ---------------------------------------------------------------------------------------
// Decisions and remedies
