//! Opening, listing, reading cases and adding parties.

use super::*;
use crate::db::ids::{PenaltyId, PlayerId, TournamentId, UserId};
use crate::domain::status::CaseStatus;
use crate::services::validate::{Page, PageParams};

/// The checks of a new case that need no database: texts, evidence, the round and table or
/// penalty its subject needs, at most 10 respondents, the remedies asked for (422 naming the
/// body's field). An archive's complaint is held to them too (`archives::case_rows`).
pub fn check_open_case(
    input: &OpenCase,
) -> Result<(String, Evidence, Vec<PartyIn>, Vec<Remedy>), ApiError> {
    let mut check = Check::new();
    let statement = check.text("statement", &input.statement, STATEMENT_MAX);
    let evidence = input
        .evidence
        .as_ref()
        .map(|e| check_evidence(&mut check, "evidence", e))
        .unwrap_or_default();
    check_round_table(&mut check, "", input.round, input.table);
    let respondents = input.respondents.clone().unwrap_or_default();
    check.ensure(
        respondents.len() <= 10,
        "respondents",
        "at most 10 respondents",
    );
    let requested = input.remedies.clone().unwrap_or_default();
    check_remedies(&mut check, "remedies", &requested);
    match input.subject {
        CaseSubject::Table | CaseSubject::Result => {
            check.ensure(
                input.round.is_some() && input.table.is_some(),
                "round",
                "a case about a table or a result names the round and the table",
            );
        }
        CaseSubject::Penalty => {
            check.ensure(
                input.penalty_id.is_some(),
                "penalty_id",
                "a case about a penalty names the penalty",
            );
        }
        CaseSubject::Conduct => {}
    }
    check.finish()?;
    Ok((statement, evidence, respondents, requested))
}

/// Opens a case: a complaint about a table, a result, a penalty or conduct.
pub fn open_case(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    input: OpenCase,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let tid = tid.0;
    crate::db::unit_of_work(conn, |conn| {
        let t = load_tournament(conn, caller, tid)?;
        let staff = caller.has_any_role(conn, tid, &[StaffRole::Referee, StaffRole::Organiser])?;
        let own_player = crate::db::registrations::player_of_user(conn, tid, caller.user_id)?;
        if !staff && own_player.is_none() {
            return Err(ApiError::Forbidden(
                "only a player registered in this tournament, a referee or an organiser may open a case".into(),
            ));
        }
        // Who is asking first, then the body (issue 37, item 6).
        let (statement, evidence, respondents, requested) = check_open_case(&input)?;
        let (complainant_user, complainant_player) = match input.complainant_player_id {
            Some(p) if !staff => {
                if Some(p) != own_player {
                    return Err(ApiError::Forbidden(
                        "only a referee or an organiser may open a case on behalf of another player".into(),
                    ));
                }
                (Some(caller.user_id), Some(p))
            }
            Some(p) => {
                if !is_registered(conn, TournamentId(tid), PlayerId(p))? {
                    return Err(ApiError::field(
                        "complainant_player_id",
                        format!("player {p} is not registered in this tournament"),
                    ));
                }
                (None, Some(p))
            }
            None => (Some(caller.user_id), own_player),
        };
        for (i, r) in respondents.iter().enumerate() {
            let field = format!("respondents[{i}]");
            check_party_ref(conn, TournamentId(tid), &field, r.user_id, r.player_id)?;
        }
        let mut seated = Vec::new();
        if let (Some(r), Some(tb)) = (input.round, input.table) {
            if matches!(input.subject, CaseSubject::Table | CaseSubject::Result) {
                seated = seated_at(conn, tid, r, tb, "table")?;
            }
        }
        let mut penalised = None;
        if let Some(pid) = input.penalty_id {
            let p = crate::db::cases::penalty_parties(conn, TournamentId(tid), PenaltyId(pid))?;
            penalised = Some(p.map(|(p, by)| (p.0, by.0)).ok_or_else(|| {
                ApiError::field("penalty_id", format!("no penalty {pid} in this tournament"))
            })?);
        }
        let row: CaseRow = crate::db::cases::insert(
            conn,
            &NewCase {
                tournament_id: TournamentId(tid),
                kind: CaseKind::Complaint,
                subject: input.subject,
                round_number: input.round,
                table_number: input.table,
                penalty_id: input.penalty_id.map(PenaltyId),
                statement,
                evidence_text: evidence.text.clone(),
                evidence_links: Json(evidence.links.clone().unwrap_or_default()),
                requested_remedies: Json(requested.clone()),
                panel_mode: PanelMode::Referee,
                panel_rule: PanelReason::Pending,
                opened_by: UserId(caller.user_id),
                appeal_of: None,
            },
        )?;
        let cid = row.id;
        log(
            conn,
            cid.0,
            caller.user_id,
            CaseEvent::Opened(OpenedDetail::Complaint(OpenedComplaint {
                subject: row.subject.as_str().into(),
                round: row.round_number,
                table: row.table_number,
                penalty_id: row.penalty_id.map(|id| id.0),
            })),
        )?;
        let by = caller.user_id;
        let party = |conn: &mut PgConnection, user, player, role| {
            add_party(conn, cid.0, user, player, role, by)
        };
        party(
            conn,
            complainant_user,
            complainant_player,
            PartyRole::Complainant,
        )?;
        for r in &respondents {
            party(conn, r.user_id, r.player_id, PartyRole::Respondent)?;
        }
        if let Some((p, issued_by)) = penalised {
            party(conn, None, Some(p), PartyRole::Respondent)?;
            // The official who gave the penalty is complained about too: a referee does not
            // rule on a complaint against their own penalty (domain.md section 1).
            party(conn, Some(issued_by), None, PartyRole::Respondent)?;
        }
        for p in seated {
            party(conn, None, Some(p), PartyRole::PlayerAtTable)?;
        }
        recompute_panel(conn, TournamentId(tid), cid, CaseKind::Complaint, by)?;
        let row = load_case(conn, TournamentId(tid), cid, false)?;
        render(conn, &t, row, true, now)
    })
}

/// A page of the cases of a tournament the caller may see. Staff (every case, as insiders) and
/// anonymous callers (no open case) read the page in SQL; another signed-in caller may be an
/// insider of some open cases (a party, on the panel), checked case by case, so that list is
/// built whole and cut.
pub fn list_cases(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: TournamentId,
    params: &PageParams,
    now: DateTime<Utc>,
) -> Result<Page<CaseOut>, ApiError> {
    let tid = tid.0;
    let t = load_visible(conn, caller, tid)?;
    let staff = match &caller.0 {
        None => Some(false),
        Some(c) => c
            .has_any_role(conn, tid, &[StaffRole::Referee, StaffRole::Organiser])?
            .then_some(true),
    };
    if let Some(insider) = staff {
        let page = Page::read(
            conn,
            params,
            |c| crate::db::cases::count_listed(c, TournamentId(tid), insider),
            |c, limit, offset| {
                crate::db::cases::page_listed(c, TournamentId(tid), insider, limit, offset)
            },
        )?;
        return page.try_map(|row| render(conn, &t, row, insider, now));
    }
    let rows = crate::db::cases::of_tournament(conn, TournamentId(tid))?;
    let mut out = Vec::new();
    for row in rows {
        let insider = is_insider(conn, caller, &row)?;
        if insider || row.status != CaseStatus::Open {
            out.push(render(conn, &t, row, insider, now)?);
        }
    }
    Page::window(out, params)
}

/// One case, as the caller may see it.
pub fn read_case(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: TournamentId,
    cid: CaseId,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let tid = tid.0;
    let cid = cid.0;
    let t = load_visible(conn, caller, tid)?;
    let case = load_case(conn, TournamentId(tid), CaseId(cid), false)?;
    let insider = is_insider(conn, caller, &case)?;
    if !insider && case.status == CaseStatus::Open {
        return Err(ApiError::NotFound(format!(
            "no case {cid} in tournament {tid}"
        )));
    }
    render(conn, &t, case, insider, now)
}

/// Adds a party to an open case (the tournament's referees and organisers who are not
/// parties themselves); the deciding panel is recomputed. A `player_at_table` must be seated at
/// the case's table in the draw.
pub fn add_parties(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    cid: CaseId,
    input: AddParty,
    now: DateTime<Utc>,
) -> Result<CaseOut, ApiError> {
    let tid = tid.0;
    let cid = cid.0;
    crate::db::transaction(conn, |conn| {
        let t = load_tournament(conn, caller, tid)?;
        let case = lock_case(conn, &t, CaseId(cid))?;
        let staff = caller.has_any_role(conn, tid, &[StaffRole::Referee, StaffRole::Organiser])?;
        if !staff {
            // The parties would pick who decides their case: only the officials add parties.
            if is_insider(conn, &MaybeCaller(Some(caller.clone())), &case)? {
                return Err(ApiError::Forbidden(
                    "only a referee or an organiser may add parties to a case".into(),
                ));
            }
            return Err(ApiError::NotFound(format!(
                "no case {cid} in tournament {tid}"
            )));
        }
        let parties = parties_of(conn, cid)?;
        if party_users(conn, &parties)?.contains(&caller.user_id) {
            return Err(ApiError::Forbidden(format!(
                "you are a party to case {cid}: another referee or an organiser adds its parties"
            )));
        }
        require_open(&case)?;
        if !votes_of(conn, cid)?.is_empty() {
            return Err(ApiError::Conflict(
                "votes have been cast on this case; its parties can no longer change".into(),
            ));
        }
        check_party_ref(
            conn,
            TournamentId(tid),
            "party",
            input.user_id,
            input.player_id,
        )?;
        let role = match input.role {
            AddedPartyRole::Respondent => PartyRole::Respondent,
            AddedPartyRole::PlayerAtTable => {
                check_seated_party(conn, &case, input.user_id, input.player_id)?;
                PartyRole::PlayerAtTable
            }
        };
        if !add_party(
            conn,
            cid,
            input.user_id,
            input.player_id,
            role,
            caller.user_id,
        )? {
            return Err(ApiError::Conflict("already a party to this case".into()));
        }
        recompute_panel(
            conn,
            TournamentId(tid),
            CaseId(cid),
            case.kind,
            caller.user_id,
        )?;
        crate::db::cases::touch(conn, CaseId(cid))?;
        render_for(conn, &t, &MaybeCaller(Some(caller.clone())), cid, now)
    })
}

/// 422 unless the party named (a player, or the player an account plays as in this
/// tournament) sits at the case's table in the draw of its round.
fn check_seated_party(
    conn: &mut PgConnection,
    case: &CaseRow,
    user_id: Option<i64>,
    player_id: Option<i64>,
) -> Result<(), ApiError> {
    let (Some(round), Some(table)) = (case.round_number, case.table_number) else {
        return Err(ApiError::field(
            "role",
            format!(
                "case {} concerns no table: name the party as a respondent",
                case.id
            ),
        ));
    };
    let tid = case.tournament_id.0;
    let (field, player) = match (user_id, player_id) {
        (Some(u), _) => (
            "user_id",
            crate::db::registrations::player_of_user(conn, tid, u)?,
        ),
        (None, p) => ("player_id", p),
    };
    let seated = seated_at(conn, tid, round, table, "role")?;
    if !player.is_some_and(|p| seated.contains(&p)) {
        return Err(ApiError::field(
            field,
            format!("not seated at table {table} of round {round}"),
        ));
    }
    Ok(())
}
