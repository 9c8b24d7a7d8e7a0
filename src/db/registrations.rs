//! Queries on registrations shared by several services.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, RegistrationId, TournamentId};
use crate::db::running::{NewRegistration, Registration, TeamRow};
use crate::db::schema::teams;
use crate::db::schema::{players, registrations};
use crate::domain::colours::Colour;
use crate::domain::status::RegistrationStatus;
use crate::error::ApiError;
use chrono::{DateTime, Utc};

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

/// The live (not cancelled) registrations of a tournament with their status, in registration
/// order.
pub fn live_statuses(
    conn: &mut PgConnection,
    t: TournamentId,
) -> QueryResult<Vec<(RegistrationId, RegistrationStatus)>> {
    registrations::table
        .filter(registrations::tournament_id.eq(t))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select((registrations::id, registrations::status))
        .load(conn)
}

/// Sets the status of these registrations.
pub fn set_status(
    conn: &mut PgConnection,
    ids: &[RegistrationId],
    status: RegistrationStatus,
) -> QueryResult<()> {
    diesel::update(registrations::table.filter(registrations::id.eq_any(ids)))
        .set(registrations::status.eq(status))
        .execute(conn)?;
    Ok(())
}

/// `limit` live registrations of a tournament after the first `offset`, in order of id, each
/// with the player's name.
pub fn live_page(
    conn: &mut PgConnection,
    t: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<(Registration, String)>> {
    registrations::table
        .inner_join(players::table)
        .filter(registrations::tournament_id.eq(t))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select((Registration::as_select(), players::name))
        .limit(limit)
        .offset(offset)
        .load(conn)
}

fn count_live_upto(conn: &mut PgConnection, t: TournamentId, upto: i64) -> QueryResult<i64> {
    registrations::table
        .filter(registrations::tournament_id.eq(t))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .filter(registrations::id.le(upto))
        .count()
        .get_result(conn)
}

/// How many live registrations a tournament has.
pub fn count_live(conn: &mut PgConnection, t: TournamentId) -> QueryResult<i64> {
    count_live_upto(conn, t, i64::MAX)
}

/// The 1-based place of a registration among the tournament's live ones (registration order).
pub fn position(conn: &mut PgConnection, t: TournamentId, r: RegistrationId) -> QueryResult<i64> {
    count_live_upto(conn, t, r.0)
}

/// A player's live registration in a tournament, with the player's name.
pub fn live_of_player(
    conn: &mut PgConnection,
    t: TournamentId,
    p: PlayerId,
) -> QueryResult<Option<(Registration, String)>> {
    registrations::table
        .inner_join(players::table)
        .filter(registrations::tournament_id.eq(t))
        .filter(registrations::player_id.eq(p))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select((Registration::as_select(), players::name))
        .first(conn)
        .optional()
}

/// Whether a player has a live registration in a tournament.
pub fn is_live(conn: &mut PgConnection, t: TournamentId, p: PlayerId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq(p))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
    ))
    .get_result(conn)
}

/// Whether a player's registration in a tournament is confirmed.
pub fn is_confirmed(conn: &mut PgConnection, t: TournamentId, p: PlayerId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq(p))
            .filter(registrations::status.eq(RegistrationStatus::Confirmed)),
    ))
    .get_result(conn)
}

/// Stores a registration.
pub fn insert(conn: &mut PgConnection, new: NewRegistration) -> QueryResult<()> {
    diesel::insert_into(registrations::table)
        .values(new)
        .execute(conn)?;
    Ok(())
}

/// Stores a registration; `false` when the player is already registered (the unique key).
pub fn insert_new(conn: &mut PgConnection, new: NewRegistration) -> QueryResult<bool> {
    match insert(conn, new) {
        Ok(()) => Ok(true),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Sets the seeding of a player's live registration.
pub fn set_seeding(
    conn: &mut PgConnection,
    t: TournamentId,
    p: PlayerId,
    (rating, games): (Option<f64>, i32),
) -> QueryResult<()> {
    diesel::update(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq(p))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
    )
    .set((
        registrations::seeding_rating.eq(rating),
        registrations::seeding_rated_games.eq(games),
    ))
    .execute(conn)?;
    Ok(())
}

/// Sets the colour choices of a player's live registration.
pub fn set_colours(
    conn: &mut PgConnection,
    t: TournamentId,
    p: PlayerId,
    (first, second): (Colour, Colour),
) -> QueryResult<()> {
    diesel::update(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq(p))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
    )
    .set((
        registrations::colour_first.eq(first),
        registrations::colour_second.eq(second),
    ))
    .execute(conn)?;
    Ok(())
}

/// Cancels a player's live registration at `now`; how many were cancelled (0 or 1).
pub fn cancel(
    conn: &mut PgConnection,
    t: TournamentId,
    p: PlayerId,
    now: DateTime<Utc>,
) -> QueryResult<usize> {
    diesel::update(
        registrations::table
            .filter(registrations::tournament_id.eq(t))
            .filter(registrations::player_id.eq(p))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
    )
    .set((
        registrations::status.eq(RegistrationStatus::Cancelled),
        registrations::cancelled_at.eq(now),
    ))
    .execute(conn)
}

/// A new team of a team event.
#[derive(Debug, Insertable)]
#[diesel(table_name = teams)]
pub struct NewTeam {
    pub tournament_id: TournamentId,
    pub number: i32,
    pub name: String,
    pub pair_a1: PlayerId,
    pub pair_a2: PlayerId,
    pub pair_b1: PlayerId,
    pub pair_b2: PlayerId,
}

/// How many teams a tournament has.
pub fn count_teams(conn: &mut PgConnection, t: TournamentId) -> QueryResult<i64> {
    teams::table
        .filter(teams::tournament_id.eq(t))
        .count()
        .get_result(conn)
}

/// `limit` teams of a tournament after the first `offset`, by number.
pub fn teams_page(
    conn: &mut PgConnection,
    t: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<TeamRow>> {
    teams::table
        .filter(teams::tournament_id.eq(t))
        .order((teams::number, teams::id))
        .select(TeamRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// Stores a team.
pub fn insert_team(conn: &mut PgConnection, new: NewTeam) -> QueryResult<TeamRow> {
    diesel::insert_into(teams::table)
        .values(new)
        .returning(TeamRow::as_returning())
        .get_result(conn)
}
