//! What a change of a tournament's officials must respect besides the staff limits: the
//! appeals committee is fixed once the tournament has started, and the open cases' panels
//! follow the officials (the cases service recomputes them, handed in by the caller since the
//! cases sit above this room).

use crate::auth::StaffRole;
use crate::db::models::Tournament;
use crate::db::PgConnection;
use crate::domain::case_panels::committee_fixed;
use crate::domain::{TournamentId, UserId};
use crate::error::ApiError;

/// What runs after a referee or committee member was appointed or dismissed, in the same
/// transaction: the open cases' panels are recomputed (`services::cases::after_staff_change`).
pub type AfterStaffChange =
    fn(&mut PgConnection, TournamentId, StaffRole, UserId) -> Result<(), ApiError>;

/// Before appointing or dismissing `role` in tournament `t` (locked): 409 naming `role` for the
/// appeals committee once the tournament has started (seed 000 section (4): three members
/// appointed beforehand; `crate::domain::case_panels::committee_fixed`).
pub fn before_staff_change(
    conn: &mut PgConnection,
    t: &Tournament,
    role: StaffRole,
) -> Result<(), ApiError> {
    if role != StaffRole::AppealsCommittee {
        return Ok(());
    }
    let drawn = crate::db::rounds::any_drawn(conn, t.id)?;
    if committee_fixed(t.status, drawn) {
        return Err(ApiError::conflict_at(
            "role",
            "the appeals committee is appointed before the tournament (seed 000 section (4): three members appointed beforehand) and this tournament has started: its members can no longer be appointed or dismissed; a member involved in a case stands aside and the referee sits with the remaining members",
        ));
    }
    Ok(())
}
