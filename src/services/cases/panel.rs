//! Reads and writes about a case: its parties, panel and votes, who sat where, who is an
//! insider, all through `crate::db::cases`.

use super::*;
use crate::db::cases as store;
use crate::db::ids::{CaseId, PlayerId, UserId};

pub(super) fn load_case(
    conn: &mut PgConnection,
    tid: TournamentId,
    cid: CaseId,
    lock: bool,
) -> Result<CaseRow, ApiError> {
    let lock = if lock { Lock::ForUpdate } else { Lock::None };
    store::in_tournament(conn, tid, cid, lock)?
        .ok_or_else(|| ApiError::NotFound(format!("no case {cid} in tournament {tid}")))
}

pub(super) fn parties_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<PartyRow>, ApiError> {
    Ok(store::parties_of(conn, CaseId(cid))?)
}

pub(super) fn panel_of(conn: &mut PgConnection, cid: i64) -> Result<Vec<PanelRow>, ApiError> {
    Ok(store::panel_of(conn, CaseId(cid))?)
}

pub(super) fn votes_of(
    conn: &mut PgConnection,
    cid: i64,
) -> Result<Vec<crate::db::cases::VoteRow>, ApiError> {
    Ok(store::votes_of(conn, CaseId(cid))?)
}

/// The user accounts behind the parties: a party's account, or the account linked to a party
/// player.
pub(super) fn party_users(
    conn: &mut PgConnection,
    parties: &[PartyRow],
) -> Result<Vec<i64>, ApiError> {
    let mut out: BTreeSet<i64> = parties
        .iter()
        .filter_map(|p| p.user_id.map(|u| u.0))
        .collect();
    let player_ids: Vec<PlayerId> = parties.iter().filter_map(|p| p.player_id).collect();
    if !player_ids.is_empty() {
        let linked = crate::db::players::accounts_of(conn, &player_ids)?;
        out.extend(linked.into_iter().map(|u| u.0));
    }
    Ok(out.into_iter().collect())
}

/// The tournament's referees and appeals committee members.
pub(super) fn officials(
    conn: &mut PgConnection,
    tid: i64,
) -> Result<(Vec<i64>, Vec<i64>), ApiError> {
    let rows = crate::db::staff::holders_of(
        conn,
        TournamentId(tid),
        &[
            StaffRole::Referee.as_str(),
            StaffRole::AppealsCommittee.as_str(),
        ],
    )?;
    let rows: Vec<(i64, Option<StaffRole>)> = rows
        .into_iter()
        .map(|(u, r)| (u.0, StaffRole::parse(&r)))
        .collect();
    let pick = |role: StaffRole| -> Vec<i64> {
        rows.iter()
            .filter(|(_, r)| *r == Some(role))
            .map(|(u, _)| *u)
            .collect()
    };
    Ok((pick(StaffRole::Referee), pick(StaffRole::AppealsCommittee)))
}

/// Computes the panel for the case's current parties and stores it; 409 when nobody is
/// eligible. Returns the panel's mode and rule.
pub(super) fn recompute_panel(
    conn: &mut PgConnection,
    tid: TournamentId,
    cid: CaseId,
    kind: CaseKind,
    author: i64,
) -> Result<rules::Panel, ApiError> {
    let parties = parties_of(conn, cid.0)?;
    let party_ids = party_users(conn, &parties)?;
    let (referees, committee) = officials(conn, tid.0)?;
    let appeals = store::appeals_in(conn, tid)?;
    let panel = rules::deciding_panel_under(appeals, kind, &referees, &committee, &party_ids)
        .map_err(|e| ApiError::Conflict(e.to_string()))?;
    let rows: Vec<PanelRow> = panel
        .members
        .iter()
        .map(|(u, seat)| PanelRow {
            case_id: cid,
            user_id: UserId(*u),
            seat: *seat,
        })
        .collect();
    let reason = PanelReason::of(panel.rule, kind);
    store::seat_panel(conn, cid, &rows, panel.mode, reason)?;
    log(
        conn,
        cid.0,
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

/// Recomputes the panel of every open case of the tournament after one of its referees or
/// appeals committee members was appointed or dismissed, inside that change's transaction (which
/// holds the tournament's lock: the cases' rows are locked after it): the same conflict-of-interest rules, a dismissed
/// official replaced, a new one seated where eligible (`crate::domain::case_panels`). Each
/// changed panel is kept in the case's history (`panel_computed`, by `author`).
fn panels_after_staff_change(
    conn: &mut PgConnection,
    tid: TournamentId,
    author: UserId,
) -> Result<(), ApiError> {
    use crate::domain::case_panels::{after_staff_change, NewPanel};
    let (referees, committee) = officials(conn, tid.0)?;
    let appeals = store::appeals_in(conn, tid)?;
    for case in store::open_in(conn, tid)? {
        let parties = parties_of(conn, case.id.0)?;
        let party_ids = party_users(conn, &parties)?;
        let computed =
            rules::deciding_panel_under(appeals, case.kind, &referees, &committee, &party_ids);
        let stored: Vec<(i64, rules::Seat)> = panel_of(conn, case.id.0)?
            .into_iter()
            .map(|m| (m.user_id.0, m.seat))
            .collect();
        let voted: Vec<i64> = votes_of(conn, case.id.0)?
            .into_iter()
            .map(|v| v.member_id.0)
            .collect();
        let holds = |u: i64, seat: rules::Seat| {
            let held = match seat {
                rules::Seat::Referee => &referees,
                rules::Seat::Committee => &committee,
            };
            held.contains(&u) && !party_ids.contains(&u)
        };
        let (members, mode, reason) = match after_staff_change(computed, &stored, &voted, holds) {
            NewPanel::Recomputed(p) => (p.members, p.mode, PanelReason::of(p.rule, case.kind)),
            NewPanel::Vacant => (Vec::new(), case.panel_mode, PanelReason::Vacant),
            NewPanel::Refilled(m) => (m, case.panel_mode, case.panel_rule),
        };
        if (&members, mode, reason) == (&stored, case.panel_mode, case.panel_rule) {
            continue;
        }
        let rows: Vec<PanelRow> = members
            .iter()
            .map(|(u, seat)| PanelRow {
                case_id: case.id,
                user_id: UserId(*u),
                seat: *seat,
            })
            .collect();
        store::seat_panel(conn, case.id, &rows, mode, reason)?;
        log(
            conn,
            case.id.0,
            author.0,
            CaseEvent::PanelComputed(PanelComputedDetail {
                mode: mode.as_str().into(),
                rule: reason.as_str().into(),
                members: members
                    .iter()
                    .map(|(u, s)| PanelMember {
                        user_id: *u,
                        seat: s.as_str().into(),
                    })
                    .collect(),
            }),
        )?;
        store::touch(conn, case.id)?;
    }
    Ok(())
}

pub(super) fn log(
    conn: &mut PgConnection,
    cid: i64,
    author: i64,
    event: CaseEvent,
) -> Result<(), ApiError> {
    store::record(
        conn,
        &NewCaseEvent {
            case_id: CaseId(cid),
            author: UserId(author),
            what: event.what(),
            detail: event.detail()?,
        },
    )?;
    Ok(())
}

pub(super) fn is_registered(
    conn: &mut PgConnection,
    tid: TournamentId,
    player_id: PlayerId,
) -> Result<bool, ApiError> {
    Ok(crate::db::registrations::is_registered(
        conn, tid, player_id,
    )?)
}

/// Checks a party reference: exactly one of an existing account or player, of tournament
/// `tid` (422 naming `{field}.user_id` or `{field}.player_id` otherwise). A player is registered
/// in it (not cancelled); an account holds one of its staff roles or plays as a player
/// registered in it. Anyone else would read the case and could appeal its decision: a player
/// or account of another tournament is no party to this one's cases.
pub(super) fn check_party_ref(
    conn: &mut PgConnection,
    tid: TournamentId,
    field: &str,
    user_id: Option<i64>,
    player_id: Option<i64>,
) -> Result<(), ApiError> {
    match (user_id, player_id) {
        (Some(u), None) => {
            let f = format!("{field}.user_id");
            if !crate::db::accounts::user_exists(conn, UserId(u))? {
                return Err(ApiError::field(f, format!("there is no user {u}")));
            }
            let official = crate::db::staff::is_member(conn, tid, UserId(u))?;
            if !official && crate::db::registrations::player_of_user(conn, tid.0, u)?.is_none() {
                return Err(ApiError::field(
                    f,
                    format!(
                        "user {u} takes no part in this tournament: neither one of its staff \
                         nor the account of a player registered in it"
                    ),
                ));
            }
        }
        (None, Some(p)) => {
            let f = format!("{field}.player_id");
            if !crate::db::players::exists(conn, PlayerId(p))? {
                return Err(ApiError::field(f, format!("there is no player {p}")));
            }
            if !is_registered(conn, tid, PlayerId(p))? {
                return Err(ApiError::field(
                    f,
                    format!("player {p} is not registered in this tournament"),
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
    role: PartyRole,
    by: i64,
) -> Result<bool, ApiError> {
    let existing = parties_of(conn, cid)?;
    let dup = existing.iter().any(|p| {
        (user_id.is_some() && p.user_id == user_id.map(UserId))
            || (player_id.is_some() && p.player_id == player_id.map(PlayerId))
    });
    if dup {
        return Ok(false);
    }
    store::add_party(
        conn,
        &NewParty {
            case_id: CaseId(cid),
            user_id: user_id.map(UserId),
            player_id: player_id.map(PlayerId),
            role,
            added_by: UserId(by),
        },
    )?;
    log(
        conn,
        cid,
        by,
        CaseEvent::PartyAdded(PartyAddedDetail {
            user_id,
            player_id,
            role: role.as_str().into(),
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
    let r = match crate::db::rounds::by_number(conn, tid, round, Lock::None) {
        Err(ApiError::NotFound(_)) => {
            return Err(ApiError::field(field, format!("no round {round}")))
        }
        other => other?,
    };
    let (draw, status) = (r.draw, r.status);
    if status == RoundStatus::Draft {
        return Err(ApiError::field(
            field,
            format!("round {round} is not published"),
        ));
    }
    draw.tables
        .iter()
        .find(|t| i64::from(t.number) == i64::from(table))
        .map(|t| t.seats.iter().map(|p| p.0).collect())
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
        case.tournament_id.0,
        &[StaffRole::Referee, StaffRole::Organiser],
    )? {
        return Ok(true);
    }
    if store::on_panel(conn, case.id, UserId(c.user_id))? {
        return Ok(true);
    }
    let parties = parties_of(conn, case.id.0)?;
    Ok(party_users(conn, &parties)?.contains(&c.user_id))
}

/// The appeals of tournament `t`'s ruleset (stored overrides that do not parse are an
/// error naming the tournament, never the default).
pub(super) fn appeals_of(t: &Tournament) -> Result<rules::Appeals, ApiError> {
    store::appeals_of(t)
}

/// After appointing or dismissing `role` in tournament `tid` (handed to the staff use cases as
/// their [`crate::services::running::staff_changes::AfterStaffChange`]): a referee's or a
/// committee member's change recomputes the panel of every open case
/// ([`panels_after_staff_change`]).
pub fn after_staff_change(
    conn: &mut PgConnection,
    tid: TournamentId,
    role: StaffRole,
    author: UserId,
) -> Result<(), ApiError> {
    if role == StaffRole::Organiser {
        return Ok(());
    }
    panels_after_staff_change(conn, tid, author)
}
