//! What a change of a tournament's officials must respect besides the staff limits: the open
//! cases' panels follow the officials (the cases service recomputes them, handed in by the
//! caller since the cases sit above this room).

use crate::auth::StaffRole;
use crate::db::PgConnection;
use crate::domain::{TournamentId, UserId};
use crate::error::ApiError;

/// What runs after a referee or committee member was appointed or dismissed, in the same
/// transaction: the open cases' panels are recomputed (`services::cases::after_staff_change`).
pub type AfterStaffChange =
    fn(&mut PgConnection, TournamentId, StaffRole, UserId) -> Result<(), ApiError>;
