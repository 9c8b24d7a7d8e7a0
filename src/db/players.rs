//! Players: whether they exist, whose they are, their names.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, UserId};
use crate::db::schema::players;

/// Whether a player exists.
pub fn exists(conn: &mut PgConnection, p: PlayerId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(players::table.find(p.0))).get_result(conn)
}

/// Whether a player is linked to a user's account.
pub fn is_users(conn: &mut PgConnection, p: PlayerId, user: UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        players::table
            .filter(players::id.eq(p))
            .filter(players::user_id.eq(user)),
    ))
    .get_result(conn)
}

/// How many of these players exist.
pub fn count_existing(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<i64> {
    players::table
        .filter(players::id.eq_any(ids))
        .count()
        .get_result(conn)
}

/// The names of these players (those that exist).
pub fn names_of(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<Vec<(PlayerId, String)>> {
    players::table
        .filter(players::id.eq_any(ids))
        .select((players::id, players::name))
        .load(conn)
}
