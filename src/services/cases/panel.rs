//! Queries about a case: its parties, panel and votes, who sat where, who is an insider.

use super::*;
use crate::domain::scoring::Preset;
use crate::domain::status::RegistrationStatus;

pub(super) fn load_case(
    conn: &mut PgConnection,
    tid: i64,
    cid: i64,
    lock: bool,
) -> Result<CaseRow, ApiError> {
    let q = cases::table
        .filter(cases::tournament_id.eq(tid))
        .filter(cases::id.eq(cid))
        .select(CaseRow::as_select());
    let row = if lock {
        q.for_update().first(conn).optional()?
    } else {
        q.first(conn).optional()?
    };
    row.ok_or_else(|| ApiError::NotFound(format!("no case {cid} in tournament {tid}")))
}

pub(super) fn parties_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<PartyRow>, ApiError> {
    Ok(case_parties::table
        .filter(case_parties::case_id.eq(cid))
        .order(case_parties::id)
        .select(PartyRow::as_select())
        .load(conn)?)
}

pub(super) fn panel_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<PanelRow>, ApiError> {
    Ok(case_panel::table
        .filter(case_panel::case_id.eq(cid))
        .order((case_panel::seat.desc(), case_panel::user_id))
        .select(PanelRow::as_select())
        .load(conn)?)
}

pub(super) fn votes_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<VoteRow>, ApiError> {
    Ok(votes::table
        .filter(votes::case_id.eq(cid))
        .order(votes::at)
        .select(VoteRow::as_select())
        .load(conn)?)
}

/// The user accounts behind the parties: a party's account, or the account linked to a party
/// player.
pub(super) fn party_users(
    conn: &mut PgConnection,
    parties: &[PartyRow],
) -> Result<Vec<i64>, ApiError> {
    let mut out: BTreeSet<i64> = parties.iter().filter_map(|p| p.user_id).collect();
    let player_ids: Vec<i64> = parties.iter().filter_map(|p| p.player_id).collect();
    if !player_ids.is_empty() {
        let linked: Vec<Option<i64>> = players::table
            .filter(players::id.eq_any(&player_ids))
            .select(players::user_id)
            .load(conn)?;
        out.extend(linked.into_iter().flatten());
    }
    Ok(out.into_iter().collect())
}

/// The tournament's referees and appeals committee members.
pub(super) fn officials(
    conn: &mut PgConnection,
    tid: i64,
) -> Result<(Vec<i64>, Vec<i64>), ApiError> {
    let rows: Vec<(i64, String)> = tournament_staff::table
        .filter(tournament_staff::tournament_id.eq(tid))
        .filter(tournament_staff::role.eq_any([
            StaffRole::Referee.as_str(),
            StaffRole::AppealsCommittee.as_str(),
        ]))
        .order(tournament_staff::appointed_at)
        .select((tournament_staff::user_id, tournament_staff::role))
        .load(conn)?;
    let pick = |role: StaffRole| -> Vec<i64> {
        rows.iter()
            .filter(|(_, r)| r == role.as_str())
            .map(|(u, _)| *u)
            .collect()
    };
    Ok((pick(StaffRole::Referee), pick(StaffRole::AppealsCommittee)))
}

/// Computes the panel for the case's current parties and stores it; 409 when nobody is
/// eligible. Returns the panel's mode and rule.
pub(super) fn recompute_panel(
    conn: &mut PgConnection,
    tid: i64,
    cid: i64,
    kind: CaseKind,
    author: i64,
) -> Result<rules::Panel, ApiError> {
    let parties = parties_of(conn, cid)?;
    let party_ids = party_users(conn, &parties)?;
    let (referees, committee) = officials(conn, tid)?;
    let appeals = appeals_in(conn, tid)?;
    let panel = rules::deciding_panel_under(appeals, kind, &referees, &committee, &party_ids)
        .map_err(|e| ApiError::Conflict(e.to_string()))?;
    diesel::delete(case_panel::table.filter(case_panel::case_id.eq(cid))).execute(conn)?;
    let rows: Vec<PanelRow> = panel
        .members
        .iter()
        .map(|(u, seat)| PanelRow {
            case_id: cid,
            user_id: *u,
            seat: *seat,
        })
        .collect();
    diesel::insert_into(case_panel::table)
        .values(&rows)
        .execute(conn)?;
    diesel::update(cases::table.find(cid))
        .set((
            cases::panel_mode.eq(panel.mode),
            cases::panel_rule.eq(panel.rule.explain(kind)),
        ))
        .execute(conn)?;
    log(
        conn,
        cid,
        author,
        CaseEvent::PanelComputed(PanelComputedDetail {
            mode: panel.mode.as_str().into(),
            rule: panel.rule.explain(kind).into(),
            members: panel
                .members
                .iter()
                .map(|(u, s)| PanelMember {
                    user_id: *u,
                    seat: s.as_str().into(),
                })
                .collect(),
        }),
    )?;
    Ok(panel)
}

pub(super) fn log(
    conn: &mut PgConnection,
    cid: i64,
    author: i64,
    event: CaseEvent,
) -> Result<(), ApiError> {
    diesel::insert_into(case_events::table)
        .values(NewCaseEvent {
            case_id: cid,
            author,
            what: event.what().into(),
            detail: event.detail()?,
        })
        .execute(conn)?;
    Ok(())
}

pub(super) fn is_registered(
    conn: &mut PgConnection,
    tid: i64,
    player_id: i64,
) -> Result<bool, ApiError> {
    Ok(diesel::select(diesel::dsl::exists(
        registrations::table
            .filter(registrations::tournament_id.eq(tid))
            .filter(registrations::player_id.eq(player_id))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
    ))
    .get_result(conn)?)
}

/// Checks a party reference (exactly one of an existing account or player).
pub(super) fn check_party_ref(
    conn: &mut PgConnection,
    field: &str,
    user_id: Option<i64>,
    player_id: Option<i64>,
) -> Result<(), ApiError> {
    match (user_id, player_id) {
        (Some(u), None) => {
            let ok: bool =
                diesel::select(diesel::dsl::exists(users::table.find(u))).get_result(conn)?;
            if !ok {
                return Err(ApiError::field(
                    format!("{field}.user_id"),
                    format!("there is no user {u}"),
                ));
            }
        }
        (None, Some(p)) => {
            let ok: bool =
                diesel::select(diesel::dsl::exists(players::table.find(p))).get_result(conn)?;
            if !ok {
                return Err(ApiError::field(
                    format!("{field}.player_id"),
                    format!("there is no player {p}"),
                ));
            }
        }
        _ => {
            return Err(ApiError::field(
                field,
                "name exactly one of user_id and player_id",
            ))
        }
    }
    Ok(())
}

/// Adds a party unless the same account or player is already one; whether it was added.
pub(super) fn add_party(
    conn: &mut PgConnection,
    cid: i64,
    user_id: Option<i64>,
    player_id: Option<i64>,
    role: &str,
    by: i64,
) -> Result<bool, ApiError> {
    let existing = parties_of(conn, cid)?;
    let dup = existing.iter().any(|p| {
        (user_id.is_some() && p.user_id == user_id)
            || (player_id.is_some() && p.player_id == player_id)
    });
    if dup {
        return Ok(false);
    }
    diesel::insert_into(case_parties::table)
        .values(NewParty {
            case_id: cid,
            user_id,
            player_id,
            role: role.into(),
            added_by: by,
        })
        .execute(conn)?;
    log(
        conn,
        cid,
        by,
        CaseEvent::PartyAdded(PartyAddedDetail {
            user_id,
            player_id,
            role: role.into(),
        }),
    )?;
    Ok(true)
}

pub(super) fn seated_at(
    conn: &mut PgConnection,
    tid: i64,
    round: i32,
    table: i32,
    field: &str,
) -> Result<Vec<i64>, ApiError> {
    let draw: Option<(serde_json::Value, RoundStatus)> = rounds::table
        .filter(rounds::tournament_id.eq(tid))
        .filter(rounds::number.eq(round))
        .select((rounds::draw, rounds::status))
        .first(conn)
        .optional()?;
    let (draw, status) = draw.ok_or_else(|| ApiError::field(field, format!("no round {round}")))?;
    if status == RoundStatus::Draft {
        return Err(ApiError::field(
            field,
            format!("round {round} is not published"),
        ));
    }
    draw["tables"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["number"].as_i64() == Some(table.into()))
        .map(|t| {
            t["seats"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p.as_i64())
                .collect()
        })
        .ok_or_else(|| ApiError::field(field, format!("round {round} has no table {table}")))
}

// ---------------------------------------------------------------------------------------
// Rendering

/// Whether the caller sees everything about the case: admins, the tournament's referees and
/// organisers, the parties and the panel.
pub(super) fn is_insider(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    case: &CaseRow,
) -> Result<bool, ApiError> {
    let Some(c) = &caller.0 else {
        return Ok(false);
    };
    if c.has_any_role(
        conn,
        case.tournament_id,
        &[StaffRole::Referee, StaffRole::Organiser],
    )? {
        return Ok(true);
    }
    let on_panel: bool = diesel::select(diesel::dsl::exists(
        case_panel::table
            .filter(case_panel::case_id.eq(case.id))
            .filter(case_panel::user_id.eq(c.user_id)),
    ))
    .get_result(conn)?;
    if on_panel {
        return Ok(true);
    }
    let parties = parties_of(conn, case.id)?;
    Ok(party_users(conn, &parties)?.contains(&c.user_id))
}

/// Who hears what after a ruling in tournament `tid`: its ruleset's appeals.
pub(super) fn appeals_in(conn: &mut PgConnection, tid: i64) -> Result<rules::Appeals, ApiError> {
    use crate::db::schema::tournaments;
    let (preset, overrides): (Preset, serde_json::Value) = tournaments::table
        .find(tid)
        .select((tournaments::ruleset, tournaments::ruleset_overrides))
        .first(conn)?;
    Ok(appeals_of(preset, &overrides))
}

/// The appeals of a ruleset preset with its overrides.
pub(super) fn appeals_of(preset: Preset, overrides: &serde_json::Value) -> rules::Appeals {
    crate::domain::scoring::Ruleset::for_tournament(preset, overrides)
        .map(|r| r.appeals)
        .unwrap_or_default()
}
