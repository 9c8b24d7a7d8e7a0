//! Deciding: the referee's ruling, committee votes and appeals.

use super::*;
use crate::db::ids::{CaseId, TournamentId, UserId};
use crate::domain::status::CaseStatus;

/// The checks of a ruling or a vote that need no database: its reason (1-500 characters) and
/// the remedies its verdict orders (a `remedy` verdict at least one, the others none; at most
/// 5, each within the remedies' bounds): the reason and remedies (422 naming the body's field).
fn check_ruling(
    verdict: Verdict,
    remedies: Option<&[Remedy]>,
    reason: &str,
) -> Result<(String, Vec<Remedy>), ApiError> {
    let mut check = Check::new();
    let reason = check.text("reason", reason, REASON_MAX);
    let remedies = verdict_remedies(&mut check, verdict, remedies.map(<[Remedy]>::to_vec));
    check.finish()?;
    Ok((reason, remedies))
}

/// The checks of a referee's ruling that need no database ([`check_ruling`]). An archive's
/// decided case is held to them too (`archives::case_rows`).
pub fn check_decision(input: &Decide) -> Result<(String, Vec<Remedy>), ApiError> {
    check_ruling(input.verdict, input.remedies.as_deref(), &input.reason)
}

/// The checks of a committee member's vote that need no database ([`check_ruling`]). An
/// archive's vote is held to them too (`archives::case_rows`).
pub fn check_vote(input: &CastVote) -> Result<(String, Vec<Remedy>), ApiError> {
    check_ruling(input.vote, input.remedies.as_deref(), &input.reason)
}

/// Decides a case (the referee, or a single-member panel); remedies are applied with the decision.
pub fn decide_case(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    cid: CaseId,
    input: Decide,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let tid = tid.0;
    let cid = cid.0;
    crate::db::transaction(conn, |conn| {
        // Who is asking first, then the body (issue 37, item 6).
        let (t, case, me) = case_for_panel(conn, caller, TournamentId(tid), CaseId(cid))?;
        let (reason, remedies) = check_decision(&input)?;
        require_open(&case)?;
        if case.panel_mode != PanelMode::Referee {
            return Err(ApiError::Conflict(format!(
                "case {cid} is decided by the votes of its panel: POST /tournaments/{tid}/cases/{cid}/votes"
            )));
        }
        decide(
            conn,
            &t,
            &case,
            input.verdict,
            remedies,
            reason,
            (caller.user_id, now),
        )?;
        render_for(conn, &t, &me, cid, now)
    })
}

/// Casts a committee member's vote; the majority decides.
pub fn vote(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    cid: CaseId,
    input: CastVote,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let tid = tid.0;
    let cid = cid.0;
    crate::db::transaction(conn, |conn| {
        // Who is asking first, then the body (issue 37, item 6).
        let (t, case, me) = case_for_panel(conn, caller, TournamentId(tid), CaseId(cid))?;
        let (reason, remedies) = check_vote(&input)?;
        let cast = votes_of(conn, cid)?;
        if cast.iter().any(|v| v.member_id == UserId(caller.user_id)) {
            return Err(ApiError::Conflict(format!(
                "you have already voted on case {cid}; each member votes once"
            )));
        }
        require_open(&case)?;
        if case.panel_mode != PanelMode::Vote {
            return Err(ApiError::Conflict(format!(
                "case {cid} is ruled on by a referee alone: POST /tournaments/{tid}/cases/{cid}/decision"
            )));
        }
        // A vote for remedies outside the case is refused before it is stored.
        remedies_in_case(conn, &case, &remedies)?;
        let cast = crate::db::cases::cast_vote(
            conn,
            &NewVote {
                case_id: CaseId(cid),
                member_id: UserId(caller.user_id),
                vote: input.vote,
                remedy: (input.vote == Verdict::Remedy).then(|| Json(remedies.clone())),
                reason: reason.clone(),
            },
        )?;
        if !cast {
            return Err(ApiError::Conflict(format!(
                "you have already voted on case {cid}"
            )));
        }
        log(
            conn,
            cid,
            caller.user_id,
            CaseEvent::Voted(VotedDetail {
                vote: input.vote.as_str().into(),
                remedies: (input.vote == Verdict::Remedy).then(|| remedies.clone()),
                reason: reason.clone(),
            }),
        )?;
        // Tally: a choice is the verdict together with the remedies it orders.
        let all = votes_of(conn, cid)?;
        let keys: Vec<String> = all
            .iter()
            .map(|v| match &v.remedy {
                Some(r) => Ok(format!("{}:{}", v.vote.as_str(), to_json(r)?)),
                None => Ok(v.vote.as_str().to_string()),
            })
            .collect::<Result<_, ApiError>>()?;
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
                let verdict = winner.vote;
                let ordered = winner.remedy.clone().unwrap_or_default();
                let count = keys.iter().filter(|k| **k == key).count();
                let why = format!(
                    "{count} of {size} panel members voted to {} ({} votes cast)",
                    winner.vote.as_str(),
                    all.len()
                );
                decide(
                    conn,
                    &t,
                    &case,
                    verdict,
                    ordered,
                    why,
                    (caller.user_id, now),
                )?;
            }
            Tally::Deadlock => {
                let why = format!(
                    "no majority among the {size} panel members: nothing changes, the case is dismissed"
                );
                decide(
                    conn,
                    &t,
                    &case,
                    Verdict::Dismiss,
                    Vec::new(),
                    why,
                    (caller.user_id, now),
                )?;
            }
        }
        render_for(conn, &t, &me, cid, now)
    })
}

/// The checks of an appeal that need no database: its statement, evidence and remedies (422
/// naming the body's field). An archive's appeal is held to them too (`archives::case_rows`).
pub fn check_appeal(input: &Appeal) -> Result<(String, Evidence, Vec<Remedy>), ApiError> {
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
    Ok((statement, evidence, requested))
}

/// The parties of an appeal: the appellant first, then the other parties of the appealed
/// case, then the referee who ruled (domain.md section 1: the official whose decision is
/// appealed is a party).
fn add_appeal_parties(
    conn: &mut PgConnection,
    tid: TournamentId,
    aid: CaseId,
    case: &CaseRow,
    parties: &[PartyRow],
    caller: &Caller,
) -> Result<(), ApiError> {
    let mine: HashSet<i64> = parties
        .iter()
        .filter(|p| p.user_id == Some(UserId(caller.user_id)))
        .map(|p| p.id.0)
        .collect();
    let own_player = crate::db::registrations::player_of_user(conn, tid.0, caller.user_id)?;
    add_party(
        conn,
        aid.0,
        Some(caller.user_id),
        own_player,
        PartyRole::Complainant,
        caller.user_id,
    )?;
    for p in parties.iter().filter(|p| !mine.contains(&p.id.0)) {
        add_party(
            conn,
            aid.0,
            p.user_id.map(|u| u.0),
            p.player_id.map(|p| p.0),
            p.role,
            caller.user_id,
        )?;
    }
    if let Some(referee) = case.decided_by {
        add_party(
            conn,
            aid.0,
            Some(referee.0),
            None,
            PartyRole::OfficialAppealed,
            caller.user_id,
        )?;
    }
    Ok(())
}

/// Appeals a referee's ruling to the committee within the tournament's appeal window.
pub fn appeal(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    cid: CaseId,
    input: Appeal,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let tid = tid.0;
    let cid = cid.0;
    crate::db::transaction(conn, |conn| {
        let t = load_tournament(conn, caller, tid)?;
        let case = lock_case(conn, &t, CaseId(cid))?;
        let parties = parties_of(conn, cid)?;
        if !party_users(conn, &parties)?.contains(&caller.user_id) {
            let me = MaybeCaller(Some(caller.clone()));
            if case.status == CaseStatus::Open && !is_insider(conn, &me, &case)? {
                return Err(ApiError::NotFound(format!(
                    "no case {cid} in tournament {tid}"
                )));
            }
            return Err(ApiError::Forbidden(format!(
                "only a party to case {cid} may appeal its decision"
            )));
        }
        // Who is asking first, then the body (issue 37, item 6).
        let (statement, evidence, requested) = check_appeal(&input)?;
        let appealed = crate::db::cases::appeal_against(conn, CaseId(cid))?.is_some();
        let decided = rules::Decided {
            kind: case.kind,
            mode: case.panel_mode,
            decided_at: case.decided_at,
            appealed,
        };
        let appeals = appeals_of(&t)?;
        rules::may_appeal_under(appeals, &decided, now, window_of(&case, &t))
            .map_err(|e| ApiError::Conflict(e.to_string()))?;
        let row: CaseRow = crate::db::cases::insert_appeal(
            conn,
            &NewCase {
                tournament_id: TournamentId(tid),
                kind: CaseKind::Appeal,
                subject: case.subject,
                round_number: case.round_number,
                table_number: case.table_number,
                penalty_id: case.penalty_id,
                statement,
                evidence_text: evidence.text.clone(),
                evidence_links: Json(evidence.links.clone().unwrap_or_default()),
                requested_remedies: Json(requested.clone()),
                panel_mode: PanelMode::Vote,
                panel_rule: PanelReason::Pending,
                opened_by: UserId(caller.user_id),
                appeal_of: Some(CaseId(cid)),
            },
        )?
        .ok_or_else(|| ApiError::Conflict("this decision has already been appealed".into()))?;
        let aid = row.id;
        log(
            conn,
            aid.0,
            caller.user_id,
            CaseEvent::Opened(OpenedDetail::Appeal(OpenedAppeal { appeal_of: cid })),
        )?;
        add_appeal_parties(conn, TournamentId(tid), aid, &case, &parties, caller)?;
        recompute_panel(
            conn,
            TournamentId(tid),
            aid,
            CaseKind::Appeal,
            caller.user_id,
        )?;
        crate::db::cases::set_appealed(conn, CaseId(cid))?;
        log(
            conn,
            cid,
            caller.user_id,
            CaseEvent::Appealed(AppealedDetail { appeal: aid.0 }),
        )?;
        crate::db::events::record(
            conn,
            tid,
            crate::domain::events::TournamentEvent::CaseAppealed(
                crate::domain::events::CaseAppealedPayload {
                    case_id: cid,
                    appeal_id: aid.0,
                },
            ),
        )?;
        render_for(conn, &t, &MaybeCaller(Some(caller.clone())), aid.0, now)
    })
}
