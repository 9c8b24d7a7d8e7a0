//! The read model of a player's own view (`/me/...`): the player linked to an account, the
//! tournaments it plays in or works for, and the scheduling of its games.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, RoundId, TournamentId, UserId};
use crate::db::schema::{game_schedules, players, registrations, tournament_staff, tournaments};
use crate::domain::status::{RegistrationStatus, ScheduleState, TournamentStatus};

/// The player linked to an account, if any.
pub fn player_of(conn: &mut PgConnection, user: UserId) -> QueryResult<Option<PlayerId>> {
    players::table
        .filter(players::user_id.eq(user))
        .select(players::id)
        .first(conn)
        .optional()
}

/// The tournaments a player is registered in (not cancelled) that are not drafts: (id, name),
/// by id.
pub fn entered(
    conn: &mut PgConnection,
    player: PlayerId,
) -> QueryResult<Vec<(TournamentId, String)>> {
    registrations::table
        .inner_join(tournaments::table)
        .filter(registrations::player_id.eq(player))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .filter(tournaments::status.ne(TournamentStatus::Draft))
        .select((tournaments::id, tournaments::name))
        .order(tournaments::id)
        .load(conn)
}

/// The names of every player registered (in any status) in these tournaments.
pub fn names_in(
    conn: &mut PgConnection,
    ts: &[TournamentId],
) -> QueryResult<HashMap<PlayerId, String>> {
    Ok(players::table
        .filter(
            players::id.eq_any(
                registrations::table
                    .filter(registrations::tournament_id.eq_any(ts))
                    .select(registrations::player_id),
            ),
        )
        .select((players::id, players::name))
        .load::<(PlayerId, String)>(conn)?
        .into_iter()
        .collect())
}

/// A player's registrations that are not cancelled: their status by tournament.
pub fn registrations_of(
    conn: &mut PgConnection,
    player: PlayerId,
) -> QueryResult<HashMap<TournamentId, RegistrationStatus>> {
    Ok(registrations::table
        .filter(registrations::player_id.eq(player))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .select((registrations::tournament_id, registrations::status))
        .load::<(TournamentId, RegistrationStatus)>(conn)?
        .into_iter()
        .collect())
}

/// An account's staff roles (their stored names) by tournament, each tournament's in name
/// order.
pub fn roles_of(
    conn: &mut PgConnection,
    user: UserId,
) -> QueryResult<HashMap<TournamentId, Vec<String>>> {
    let mut roles: HashMap<TournamentId, Vec<String>> = HashMap::new();
    for (t, role) in tournament_staff::table
        .filter(tournament_staff::user_id.eq(user))
        .select((tournament_staff::tournament_id, tournament_staff::role))
        .order(tournament_staff::role)
        .load::<(TournamentId, String)>(conn)?
    {
        roles.entry(t).or_default().push(role);
    }
    Ok(roles)
}

/// A tournament as a player's list shows it.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = tournaments)]
pub struct ListedTournament {
    pub id: TournamentId,
    pub name: String,
    pub game: String,
    pub status: TournamentStatus,
    pub starts_on: NaiveDate,
}

/// These tournaments, newest start first.
pub fn tournaments_by_start(
    conn: &mut PgConnection,
    ids: &[TournamentId],
) -> QueryResult<Vec<ListedTournament>> {
    tournaments::table
        .filter(tournaments::id.eq_any(ids))
        .order((tournaments::starts_on.desc(), tournaments::id.desc()))
        .select(ListedTournament::as_select())
        .load(conn)
}

/// Where the scheduling of a self-scheduled game stands.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = game_schedules)]
pub struct GameSchedule {
    pub state: ScheduleState,
    pub proposed_by: Option<PlayerId>,
    pub proposed_times: Vec<DateTime<Utc>>,
    pub agreed_time: Option<DateTime<Utc>>,
    pub waiting_on: Option<PlayerId>,
    pub waiting_since: Option<DateTime<Utc>>,
}

/// The scheduling of the game at `table` of a round, if it has any yet.
pub fn schedule_of(
    conn: &mut PgConnection,
    round: RoundId,
    table: i32,
) -> QueryResult<Option<GameSchedule>> {
    game_schedules::table
        .find((round, table))
        .select(GameSchedule::as_select())
        .first(conn)
        .optional()
}
