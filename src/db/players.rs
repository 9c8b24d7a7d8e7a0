//! Player identities: one by id, who is whose, the search behind the player list, and the
//! writes that create, change and link players.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId, UserId};
use crate::db::models::{NewPlayer, Player};
use crate::db::named::{self, Named, NamesAfter};
use crate::db::rounds::Lock;
use crate::db::schema::{players, pool_keepers, rating_pools, rating_standings, search_stamp};
use diesel::sql_types::{BigInt, Bool};

/// Player `id`, if there is one.
pub fn by_id(conn: &mut PgConnection, id: PlayerId) -> QueryResult<Option<Player>> {
    players::table
        .find(id.0)
        .select(Player::as_select())
        .first(conn)
        .optional()
}

/// Whether player `id` exists.
pub fn exists(conn: &mut PgConnection, id: PlayerId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(players::table.find(id.0))).get_result(conn)
}

/// The account player `id` is linked to (`Some(None)`: none), if the player exists; its row
/// locked with [`Lock::ForUpdate`].
pub fn account_of(
    conn: &mut PgConnection,
    id: PlayerId,
    lock: Lock,
) -> QueryResult<Option<Option<UserId>>> {
    let q = players::table.find(id.0).select(players::user_id);
    match lock {
        Lock::None => q.first(conn).optional(),
        Lock::ForUpdate => q.for_update().first(conn).optional(),
    }
}

/// The accounts linked to any of `ids` (players without one are left out).
pub fn accounts_of(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<Vec<UserId>> {
    let linked: Vec<Option<UserId>> = players::table
        .filter(players::id.eq_any(ids))
        .select(players::user_id)
        .load(conn)?;
    Ok(linked.into_iter().flatten().collect())
}

/// The player linked to account `user`, if any.
pub fn of_account(conn: &mut PgConnection, user: UserId) -> QueryResult<Option<PlayerId>> {
    players::table
        .filter(players::user_id.eq(user))
        .select(players::id)
        .first(conn)
        .optional()
}

/// The player other than `besides` linked to account `user`, if any.
pub fn other_of_account(
    conn: &mut PgConnection,
    user: UserId,
    besides: PlayerId,
) -> QueryResult<Option<PlayerId>> {
    players::table
        .filter(players::user_id.eq(user))
        .filter(players::id.ne(besides))
        .select(players::id)
        .first(conn)
        .optional()
}

/// A player's name.
pub fn name_of(conn: &mut PgConnection, id: PlayerId) -> QueryResult<String> {
    players::table.find(id.0).select(players::name).first(conn)
}

/// Stores a new player.
pub fn insert(conn: &mut PgConnection, new: NewPlayer) -> QueryResult<Player> {
    diesel::insert_into(players::table)
        .values(new)
        .returning(Player::as_returning())
        .get_result(conn)
}

/// Stores a new player named `name`, linked to account `user`, which made it.
pub fn insert_own(conn: &mut PgConnection, name: &str, user: UserId) -> QueryResult<PlayerId> {
    diesel::insert_into(players::table)
        .values((
            players::name.eq(name),
            players::user_id.eq(Some(user)),
            players::created_by.eq(user),
        ))
        .returning(players::id)
        .get_result(conn)
}

/// Whether `user`, player `id`'s creator, still alone answers for it (the SQL function
/// `tourney_creator_answers_for`): never linked to an account, rated in no pool, every record
/// in a tournament `user` organises.
pub fn creator_answers_for(
    conn: &mut PgConnection,
    id: PlayerId,
    user: UserId,
) -> QueryResult<bool> {
    diesel::select(
        diesel::dsl::sql::<Bool>("tourney_creator_answers_for(")
            .bind::<BigInt, _>(id.0)
            .sql(", ")
            .bind::<BigInt, _>(user.0)
            .sql(")"),
    )
    .get_result(conn)
}

/// The pools `user` keeps in which player `id` has a standing.
pub fn pools_kept_rating(
    conn: &mut PgConnection,
    user: UserId,
    id: PlayerId,
) -> QueryResult<Vec<PoolId>> {
    pool_keepers::table
        .filter(pool_keepers::user_id.eq(user))
        .filter(
            pool_keepers::pool_id.eq_any(
                rating_standings::table
                    .filter(rating_standings::player_id.eq(id))
                    .select(rating_standings::pool_id),
            ),
        )
        .select(pool_keepers::pool_id)
        .load(conn)
}

/// A player's name, club and country, changed at `now`.
pub fn set_details(
    conn: &mut PgConnection,
    id: PlayerId,
    (name, club, country): (String, Option<String>, Option<String>),
    now: DateTime<Utc>,
) -> QueryResult<Player> {
    diesel::update(players::table.find(id.0))
        .set((
            players::name.eq(name),
            players::club.eq(club),
            players::country.eq(country),
            players::updated_at.eq(now),
        ))
        .returning(Player::as_returning())
        .get_result(conn)
}

/// Links player `id` to account `user` (or unlinks it), leaving its `updated_at`.
pub fn set_account(conn: &mut PgConnection, id: PlayerId, user: Option<UserId>) -> QueryResult<()> {
    diesel::update(players::table.find(id.0))
        .set(players::user_id.eq(user))
        .execute(conn)?;
    Ok(())
}

/// Links player `id` to account `user`, changed at `now`.
pub fn link(
    conn: &mut PgConnection,
    id: PlayerId,
    user: UserId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(players::table.find(id.0))
        .set((players::user_id.eq(Some(user)), players::updated_at.eq(now)))
        .execute(conn)?;
    Ok(())
}

/// Moves on the leaderboard version of every pool that lists player `id` (their ETags derive
/// from it).
pub fn leaderboards_changed(conn: &mut PgConnection, id: PlayerId) -> QueryResult<()> {
    diesel::update(
        rating_pools::table.filter(
            rating_pools::id.eq_any(
                rating_standings::table
                    .filter(rating_standings::player_id.eq(id))
                    .select(rating_standings::pool_id),
            ),
        ),
    )
    .set(rating_pools::leaderboard_version.eq(rating_pools::leaderboard_version + 1))
    .execute(conn)?;
    Ok(())
}

/// What the player list looks for: part of the name or a near match of a word of it
/// (ignoring case and diacritics), and a country.
#[derive(Debug, Clone, Default)]
pub struct PlayerSearch {
    pub q: Option<String>,
    pub country: Option<String>,
}

/// Where a page of the player list starts after the one before: the last row's keys.
pub type PlayersAfter = NamesAfter<PlayerId>;

/// The player list's search by name.
const NAMED: Named = Named("players");

fn matching(s: &PlayerSearch) -> players::BoxedQuery<'static, diesel::pg::Pg> {
    let mut query = players::table.into_boxed();
    if let Some(q) = &s.q {
        query = query.filter(NAMED.matches(q));
    }
    if let Some(c) = &s.country {
        query = query.filter(players::country.eq(c.clone()));
    }
    query
}

/// A page of the players `s` finds, each with its similarity to `s.q` and (with
/// `counted_here`) the count of every match taken in the same pass (`count(*) OVER ()`),
/// `limit` rows from `offset` after `after`: ranked by similarity (`ranked`), else by name.
#[allow(clippy::too_many_arguments)]
pub fn search_page(
    conn: &mut PgConnection,
    s: &PlayerSearch,
    ranked: bool,
    after: Option<PlayersAfter>,
    limit: i64,
    offset: i64,
    counted_here: bool,
) -> QueryResult<Vec<(Player, f32, Option<i64>)>> {
    let q = s.q.clone().unwrap_or_default();
    let mut query = matching(s);
    if let Some(after) = after {
        query = query.filter(NAMED.after(&q, after));
    }
    let query = if ranked {
        query.order((NAMED.score(&q).desc(), NAMED.name(), players::id))
    } else {
        query.order((NAMED.name(), players::id))
    };
    query
        .select((
            Player::as_select(),
            NAMED.score(&q),
            named::counted_here(counted_here),
        ))
        .limit(limit + 1)
        .offset(offset)
        .load(conn)
}

/// How many players `s` finds, counted up to `cap` + 1.
pub fn search_count(conn: &mut PgConnection, s: &PlayerSearch, cap: i64) -> QueryResult<i64> {
    Ok(matching(s)
        .select(players::id)
        .limit(cap + 1)
        .load::<i64>(conn)?
        .len() as i64)
}

/// The names of these players (those that exist).
pub fn names_of(
    conn: &mut PgConnection,
    ids: &[PlayerId],
) -> QueryResult<HashMap<PlayerId, String>> {
    Ok(players::table
        .filter(players::id.eq_any(ids))
        .select((players::id, players::name))
        .load::<(PlayerId, String)>(conn)?
        .into_iter()
        .collect())
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

/// The players with these ids (those that exist), in no order, and the registry's search
/// stamp in the same snapshot (`db::search::stamp`): one round trip.
pub fn by_ids_at_stamp(
    conn: &mut PgConnection,
    ids: &[PlayerId],
) -> QueryResult<(Vec<Player>, i64)> {
    // In the DSL, not as SQL text: diesel prepares the statement once a connection, where
    // PostgreSQL would parse and plan a literal's text on every search.
    let stamp = search_stamp::table.select(search_stamp::n).single_value();
    let rows: Vec<(Player, Option<i64>)> = players::table
        .filter(players::id.eq_any(ids))
        .select((Player::as_select(), stamp))
        .load(conn)?;
    let stamp = match rows.first() {
        Some((_, Some(stamp))) => *stamp,
        // No row to carry it (no ids, or none left).
        _ => crate::db::search::stamp(conn)?,
    };
    Ok((rows.into_iter().map(|(p, _)| p).collect(), stamp))
}

/// The players with these ids (those that exist), in no order.
pub fn by_ids(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<Vec<Player>> {
    players::table
        .filter(players::id.eq_any(ids))
        .select(Player::as_select())
        .load(conn)
}
