//! Queries on registrations shared by several services.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::schema::{players, registrations};
use crate::domain::status::RegistrationStatus;
use crate::error::ApiError;

/// The player a user is, when that player is registered in the tournament (not cancelled).
pub fn player_of_user(
    conn: &mut PgConnection,
    tid: i64,
    user_id: i64,
) -> Result<Option<i64>, ApiError> {
    Ok(players::table
        .inner_join(registrations::table.on(registrations::player_id.eq(players::id)))
        .filter(players::user_id.eq(user_id))
        .filter(registrations::tournament_id.eq(tid))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .select(players::id)
        .first(conn)
        .optional()?)
}

/// A tournament's live registrations (not cancelled), in registration order.
pub fn live_of(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
) -> QueryResult<Vec<crate::db::running::Registration>> {
    use crate::db::running::Registration;
    registrations::table
        .filter(registrations::tournament_id.eq(t))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select(Registration::as_select())
        .load(conn)
}

/// A team event's teams, by number.
pub fn teams_of(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
) -> QueryResult<Vec<crate::db::running::TeamRow>> {
    use crate::db::running::TeamRow;
    use crate::db::schema::teams;
    teams::table
        .filter(teams::tournament_id.eq(t))
        .order(teams::number)
        .select(TeamRow::as_select())
        .load(conn)
}

/// Whether player `player` holds a live (not cancelled) registration in tournament `t`.
pub fn is_registered(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
    player: crate::db::ids::PlayerId,
) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq(player))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
    ))
    .get_result(conn)
}

/// Whether a player of account `user` holds a registration (of any status) in tournament `t`.
pub fn account_registered(
    conn: &mut PgConnection,
    t: crate::db::ids::TournamentId,
    user: crate::db::ids::UserId,
) -> QueryResult<bool> {
    let own_players = players::table
        .filter(players::user_id.eq(user))
        .select(players::id);
    diesel::select(diesel::dsl::exists(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq_any(own_players)),
    ))
    .get_result(conn)
}
