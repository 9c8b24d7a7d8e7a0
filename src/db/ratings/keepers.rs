//! The keepers of a rating pool (`pool_keepers`).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PoolId, UserId};
use crate::db::schema::{pool_keepers, users};

/// A keeper of a pool, with the name of their account.
#[derive(Debug, Clone, Queryable)]
pub struct KeeperRow {
    pub user_id: UserId,
    pub username: String,
    /// Who granted the role.
    pub granted_by: UserId,
    pub granted_at: DateTime<Utc>,
}

type KeeperColumns = (
    pool_keepers::user_id,
    users::username,
    pool_keepers::granted_by,
    pool_keepers::granted_at,
);

const KEEPER_COLUMNS: KeeperColumns = (
    pool_keepers::user_id,
    users::username,
    pool_keepers::granted_by,
    pool_keepers::granted_at,
);

fn keepers_of(
    pool: PoolId,
) -> diesel::dsl::Filter<
    diesel::dsl::InnerJoin<pool_keepers::table, users::table>,
    diesel::dsl::Eq<pool_keepers::pool_id, PoolId>,
> {
    pool_keepers::table
        .inner_join(users::table)
        .filter(pool_keepers::pool_id.eq(pool))
}

/// Whether `user` keeps `pool`.
pub fn keeps(conn: &mut PgConnection, pool: PoolId, user: UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        pool_keepers::table
            .filter(pool_keepers::pool_id.eq(pool))
            .filter(pool_keepers::user_id.eq(user)),
    ))
    .get_result(conn)
}

/// How many keepers `pool` has.
pub fn count_of(conn: &mut PgConnection, pool: PoolId) -> QueryResult<i64> {
    keepers_of(pool).count().get_result(conn)
}

/// One page of `pool`'s keepers, in the order they were granted.
pub fn page_of(
    conn: &mut PgConnection,
    pool: PoolId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<KeeperRow>> {
    keepers_of(pool)
        .order((pool_keepers::granted_at, pool_keepers::user_id))
        .limit(limit)
        .offset(offset)
        .select(KEEPER_COLUMNS)
        .load(conn)
}

/// `user` as a keeper of `pool` (an error if they do not keep it).
pub fn one(conn: &mut PgConnection, pool: PoolId, user: UserId) -> QueryResult<KeeperRow> {
    keepers_of(pool)
        .filter(pool_keepers::user_id.eq(user))
        .select(KEEPER_COLUMNS)
        .first(conn)
}

/// Whether a user may be granted a role: `None` if there is no such user (or it was deleted),
/// `Some(disabled_at)` otherwise.
pub fn user_standing(
    conn: &mut PgConnection,
    user: UserId,
) -> QueryResult<Option<Option<DateTime<Utc>>>> {
    users::table
        .filter(users::id.eq(user))
        .filter(users::deleted_at.is_null())
        .select(users::disabled_at)
        .first(conn)
        .optional()
}

/// Makes `user` a keeper of `pool`, granted by `granted_by`; whether the role is new
/// (`ON CONFLICT DO NOTHING`).
pub fn grant(
    conn: &mut PgConnection,
    pool: PoolId,
    user: UserId,
    granted_by: UserId,
) -> QueryResult<bool> {
    let inserted = diesel::insert_into(pool_keepers::table)
        .values((
            pool_keepers::pool_id.eq(pool),
            pool_keepers::user_id.eq(user),
            pool_keepers::granted_by.eq(granted_by),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(inserted == 1)
}

/// The keepers of `pool`, locked (`FOR UPDATE`) until the end of the transaction.
pub fn lock_all(conn: &mut PgConnection, pool: PoolId) -> QueryResult<Vec<UserId>> {
    pool_keepers::table
        .filter(pool_keepers::pool_id.eq(pool))
        .select(pool_keepers::user_id)
        .for_update()
        .load(conn)
}

/// Takes the role of keeper of `pool` from `user`.
pub fn revoke(conn: &mut PgConnection, pool: PoolId, user: UserId) -> QueryResult<usize> {
    diesel::delete(
        pool_keepers::table
            .filter(pool_keepers::pool_id.eq(pool))
            .filter(pool_keepers::user_id.eq(user)),
    )
    .execute(conn)
}

/// Whether `user` keeps any rating pool.
pub fn keeps_any(conn: &mut PgConnection, user: UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        pool_keepers::table.filter(pool_keepers::user_id.eq(user)),
    ))
    .get_result(conn)
}
