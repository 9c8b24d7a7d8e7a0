//! The staff roles an account holds (`tournament_staff`, by account), as stored names
//! (`auth::StaffRole`).

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{TournamentId, UserId};
use crate::db::schema::tournament_staff;

/// The account's roles in one tournament.
pub fn in_tournament(
    conn: &mut PgConnection,
    user_id: UserId,
    tournament_id: TournamentId,
) -> QueryResult<Vec<String>> {
    tournament_staff::table
        .filter(tournament_staff::tournament_id.eq(tournament_id))
        .filter(tournament_staff::user_id.eq(user_id))
        .select(tournament_staff::role)
        .load(conn)
}

/// Every role of the account, by tournament and role.
pub fn of_user(
    conn: &mut PgConnection,
    user_id: UserId,
) -> QueryResult<Vec<(TournamentId, String)>> {
    tournament_staff::table
        .filter(tournament_staff::user_id.eq(user_id))
        .select((tournament_staff::tournament_id, tournament_staff::role))
        .order((tournament_staff::tournament_id, tournament_staff::role))
        .load(conn)
}

/// How many times the account holds the role `role` (a stored name).
pub fn count_of(conn: &mut PgConnection, user_id: UserId, role: &str) -> QueryResult<i64> {
    tournament_staff::table
        .filter(tournament_staff::user_id.eq(user_id))
        .filter(tournament_staff::role.eq(role))
        .count()
        .get_result(conn)
}
