//! Who may see and change what: the checks every use case makes first.

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::ids::{PoolId, TournamentId, UserId};
use crate::db::models::{RatingPoolRow, Tournament};
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::status::{RoundStatus, TournamentStatus};
use crate::error::ApiError;

/// Loads a tournament the caller may see: published ones for everyone, drafts only for its
/// staff and admins (404 for others, so drafts stay private).
pub fn load_visible(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    id: i64,
) -> Result<Tournament, ApiError> {
    let t = crate::db::tournaments::by_id(conn, TournamentId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
    if t.status == TournamentStatus::Draft {
        let allowed = match &caller.0 {
            Some(c) if c.is_admin => true,
            Some(c) => crate::db::staff::is_member(conn, TournamentId(id), UserId(c.user_id))?,
            None => false,
        };
        if !allowed {
            return Err(ApiError::NotFound(format!("no tournament {id}")));
        }
    }
    Ok(t)
}

/// Loads a tournament for a write by one of `roles` (403 for other signed-in callers).
pub fn load_for_staff(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    roles: &[StaffRole],
) -> Result<Tournament, ApiError> {
    let t = crate::db::tournaments::by_id(conn, TournamentId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
    caller.require_role(conn, id, roles)?;
    Ok(t)
}

/// The pool a tournament names, or 422 on `rating_pool_id` if there is none (for the
/// tournament routes). Naming a pool only asks to be rated in it: a keeper of the pool decides
/// (`services::ratings::request_status`).
pub fn require_pool(conn: &mut PgConnection, pool_id: i64) -> Result<RatingPoolRow, ApiError> {
    crate::db::tournaments::rating_pool(conn, PoolId(pool_id))?.ok_or_else(|| {
        ApiError::field(
            "rating_pool_id",
            format!("there is no rating pool {pool_id}"),
        )
    })
}

/// Takes the tournament's row lock until the transaction ends: the writes that
/// check a tournament-wide rule before they insert (the confirmed registrations, the staff
/// limits, a keeper's rating decision) run one at a time per tournament, so two at once cannot
/// both pass the check. Returns the tournament as locked.
pub fn lock_tournament(conn: &mut PgConnection, id: i64) -> Result<Tournament, ApiError> {
    crate::db::tournaments::lock(conn, TournamentId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))
}

/// Whether the caller is on the tournament's staff (any role).
pub fn is_staff(conn: &mut PgConnection, caller: &MaybeCaller, tid: i64) -> Result<bool, ApiError> {
    match &caller.0 {
        Some(c) => c.has_any_role(
            conn,
            tid,
            &[
                StaffRole::Organiser,
                StaffRole::Referee,
                StaffRole::AppealsCommittee,
            ],
        ),
        None => Ok(false),
    }
}

/// Loads a round of a tournament the caller may see (drafts only for staff).
pub fn load_visible_round(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(Tournament, RoundRow), ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let r = crate::db::rounds::by_number(conn, tid, number, crate::db::rounds::Lock::None)?;
    if r.status == RoundStatus::Draft && !is_staff(conn, caller, tid)? {
        return Err(ApiError::NotFound(format!("no round {number}")));
    }
    Ok((t, r))
}

/// Whether the caller takes any part in tournament `tid` (issue 37, item 6): an admin, its
/// staff, the account of a player registered in it, or a party to one of its cases; with
/// `open_to_players`, any account with a player of its own (players register themselves).
/// 404 for a tournament the caller may not see, 403 for a stranger. The HTTP layer asks this
/// before it answers anything about a malformed body, so a stranger learns nothing from one.
pub fn takes_part(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    open_to_players: bool,
) -> Result<(), ApiError> {
    load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)?;
    if is_staff(conn, &MaybeCaller(Some(caller.clone())), tid)? {
        return Ok(());
    }
    let (t, me) = (TournamentId(tid), UserId(caller.user_id));
    let registered = crate::db::registrations::account_registered(conn, t, me)?;
    let party = crate::db::cases::is_party_in(conn, t, me)?;
    let has_player = open_to_players && crate::db::players::of_account(conn, me)?.is_some();
    if registered || party || has_player {
        Ok(())
    } else {
        Err(ApiError::Forbidden(format!(
            "you take no part in tournament {tid}: this needs its staff, or a player registered in it"
        )))
    }
}
