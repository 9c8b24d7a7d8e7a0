//! The `api_keys` table: an account's keys (stored as their SHA-256), their limits and use.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{ApiKeyId, PoolId, TournamentId, UserId};
use crate::db::schema::{api_keys, tournaments, users};

/// A key as listed (never its hash). `scopes` are the stored names (`auth::keys::Scope`).
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = api_keys)]
pub struct KeyRow {
    pub id: ApiKeyId,
    pub name: String,
    pub prefix: String,
    pub scopes: Vec<String>,
    pub tournament_id: Option<TournamentId>,
    pub pool_id: Option<PoolId>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A new key.
pub struct NewKey<'a> {
    pub user_id: UserId,
    pub name: &'a str,
    pub prefix: &'a str,
    pub key_hash: &'a [u8],
    pub scopes: Vec<&'a str>,
    pub tournament_id: Option<TournamentId>,
    pub pool_id: Option<PoolId>,
    pub expires_at: Option<DateTime<Utc>>,
}

/// Whether the tournament exists (a key may be limited to it).
pub fn tournament_exists(conn: &mut PgConnection, id: TournamentId) -> QueryResult<bool> {
    let found: i64 = tournaments::table
        .filter(tournaments::id.eq(id))
        .count()
        .get_result(conn)?;
    Ok(found > 0)
}

/// How many keys of the account are not revoked.
pub fn live_count(conn: &mut PgConnection, user_id: UserId) -> QueryResult<i64> {
    api_keys::table
        .filter(api_keys::user_id.eq(user_id))
        .filter(api_keys::revoked_at.is_null())
        .count()
        .get_result(conn)
}

/// Stores a new key; returns it as listed.
pub fn insert(conn: &mut PgConnection, new: NewKey<'_>) -> QueryResult<KeyRow> {
    diesel::insert_into(api_keys::table)
        .values((
            api_keys::user_id.eq(new.user_id),
            api_keys::name.eq(new.name),
            api_keys::prefix.eq(new.prefix),
            api_keys::key_hash.eq(new.key_hash),
            api_keys::scopes.eq(new.scopes),
            api_keys::tournament_id.eq(new.tournament_id),
            api_keys::pool_id.eq(new.pool_id),
            api_keys::expires_at.eq(new.expires_at),
        ))
        .returning(KeyRow::as_returning())
        .get_result(conn)
}

/// The account's keys, newest first, revoked ones included.
pub fn of_user(conn: &mut PgConnection, user_id: UserId) -> QueryResult<Vec<KeyRow>> {
    api_keys::table
        .filter(api_keys::user_id.eq(user_id))
        .order(api_keys::id.desc())
        .select(KeyRow::as_select())
        .load(conn)
}

/// One of the account's keys.
pub fn one_of_user(
    conn: &mut PgConnection,
    user_id: UserId,
    id: ApiKeyId,
) -> QueryResult<Option<KeyRow>> {
    api_keys::table
        .filter(api_keys::user_id.eq(user_id))
        .filter(api_keys::id.eq(id))
        .select(KeyRow::as_select())
        .first(conn)
        .optional()
}

/// Who holds the key.
pub fn owner(conn: &mut PgConnection, id: ApiKeyId) -> QueryResult<Option<UserId>> {
    api_keys::table
        .find(id)
        .select(api_keys::user_id)
        .first(conn)
        .optional()
}

/// Revokes the key at `now` (a revoked key keeps its first revocation).
pub fn revoke(conn: &mut PgConnection, id: ApiKeyId, now: DateTime<Utc>) -> QueryResult<()> {
    diesel::update(
        api_keys::table
            .find(id)
            .filter(api_keys::revoked_at.is_null()),
    )
    .set(api_keys::revoked_at.eq(now))
    .execute(conn)
    .map(drop)
}

/// A live key and its owner.
#[derive(Debug, Clone, Queryable)]
pub struct HolderRow {
    pub key_id: ApiKeyId,
    pub scopes: Vec<String>,
    pub tournament_id: Option<TournamentId>,
    pub pool_id: Option<PoolId>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub user_id: UserId,
    pub username: String,
    pub is_admin: bool,
}

/// The key with this hash when it is live at `now` (not revoked, not expired, its owner not
/// disabled), with its owner.
pub fn live_by_hash(
    conn: &mut PgConnection,
    key_hash: &[u8],
    now: DateTime<Utc>,
) -> QueryResult<Option<HolderRow>> {
    api_keys::table
        .inner_join(users::table)
        .filter(api_keys::key_hash.eq(key_hash))
        .filter(api_keys::revoked_at.is_null())
        .filter(
            api_keys::expires_at
                .is_null()
                .or(api_keys::expires_at.gt(now)),
        )
        .filter(users::disabled_at.is_null())
        .select((
            api_keys::id,
            api_keys::scopes,
            api_keys::tournament_id,
            api_keys::pool_id,
            api_keys::last_used_at,
            users::id,
            users::username,
            users::is_admin,
        ))
        .first(conn)
        .optional()
}

/// Records the key's use at `now`.
pub fn touch(conn: &mut PgConnection, id: ApiKeyId, now: DateTime<Utc>) -> QueryResult<()> {
    diesel::update(api_keys::table.find(id))
        .set(api_keys::last_used_at.eq(now))
        .execute(conn)
        .map(drop)
}
