//! The staff of tournaments (`tournament_staff`): who holds which role where.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{TournamentId, UserId};
use crate::db::schema::tournament_staff;

/// Whether `user` holds any role in tournament `t`.
pub fn is_member(conn: &mut PgConnection, t: TournamentId, user: UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        tournament_staff::table
            .filter(tournament_staff::tournament_id.eq(t))
            .filter(tournament_staff::user_id.eq(user)),
    ))
    .get_result(conn)
}

/// The holders of the roles named `roles` in tournament `t` with the role each holds, in
/// the order they were appointed.
pub fn holders_of(
    conn: &mut PgConnection,
    t: TournamentId,
    roles: &[&str],
) -> QueryResult<Vec<(UserId, String)>> {
    tournament_staff::table
        .filter(tournament_staff::tournament_id.eq(t))
        .filter(tournament_staff::role.eq_any(roles))
        .order(tournament_staff::appointed_at)
        .select((tournament_staff::user_id, tournament_staff::role))
        .load(conn)
}
