//! The `users` table: accounts by id, name and page, the admin rows' locks, and the changes to
//! an account's role, state, password and address.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use super::lower;
use crate::db::ids::{PlayerId, UserId};
use crate::db::models::{NewUser, User};
use crate::db::schema::{players, users};
use crate::domain::accounts::Language;

/// The account with this username, whatever its case (deleted ones included: their names are
/// `deleted-<id>`).
pub fn by_username(conn: &mut PgConnection, username: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(lower(users::username).eq(lower(username)))
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// The account with this id, deleted or not.
pub fn by_id(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<User>> {
    one(conn, id).optional()
}

/// The account with this id, deleted or not (`NotFound` when there is none).
pub fn one(conn: &mut PgConnection, id: UserId) -> QueryResult<User> {
    users::table.find(id).select(User::as_select()).first(conn)
}

/// The account with this id, its row locked (`NotFound` when there is none).
pub fn lock(conn: &mut PgConnection, id: UserId) -> QueryResult<User> {
    users::table
        .find(id)
        .select(User::as_select())
        .for_update()
        .first(conn)
}

/// Locks the account's row alone (to serialise changes that belong to it).
pub fn lock_row(conn: &mut PgConnection, id: UserId) -> QueryResult<UserId> {
    users::table
        .find(id)
        .select(users::id)
        .for_update()
        .first(conn)
}

/// The live (not deleted) account with this id.
pub fn live(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<User>> {
    users::table
        .find(id)
        .filter(users::deleted_at.is_null())
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// The password hash of the live account with this id.
pub fn live_password_hash(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<String>> {
    users::table
        .find(id)
        .filter(users::deleted_at.is_null())
        .select(users::password_hash)
        .first(conn)
        .optional()
}

/// What a token's holder is now, as stored (`None`: no live account).
#[derive(Debug, Clone, Queryable)]
pub struct AccountState {
    pub username: String,
    pub is_admin: bool,
    pub session_epoch: i32,
    pub disabled: bool,
}

/// The state of the live account with this id.
pub fn state_of(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<AccountState>> {
    users::table
        .find(id)
        .filter(users::deleted_at.is_null())
        .select((
            users::username,
            users::is_admin,
            users::session_epoch,
            users::disabled_at.is_not_null(),
        ))
        .first(conn)
        .optional()
}

/// The player linked to the account, if any.
pub fn player_of(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<PlayerId>> {
    players::table
        .filter(players::user_id.eq(id))
        .select(players::id)
        .first(conn)
        .optional()
}

/// A new account made by an admin (or the first admin).
pub fn insert(conn: &mut PgConnection, new: &NewUser<'_>) -> QueryResult<User> {
    diesel::insert_into(users::table)
        .values(new)
        .returning(User::as_returning())
        .get_result(conn)
}

/// What inserting a self-made account came to.
pub enum SignedUp {
    Inserted(User),
    /// Another account has the address (whatever its case).
    EmailTaken,
    /// Another account has the username (whatever its case).
    UsernameTaken,
}

/// Inserts a self-made account (unverified), in a savepoint of the caller's transaction so a
/// name or address taken at the same moment is an answer, not a failed transaction.
pub fn insert_signed_up(
    conn: &mut PgConnection,
    username: &str,
    password_hash: &str,
    email: &str,
    language: Language,
) -> QueryResult<SignedUp> {
    use diesel::result::{DatabaseErrorKind, Error};
    let inserted = conn.transaction(|conn| {
        diesel::insert_into(users::table)
            .values((
                users::username.eq(username),
                users::password_hash.eq(password_hash),
                users::email.eq(email),
                users::language.eq(language),
            ))
            .returning(User::as_returning())
            .get_result::<User>(conn)
    });
    match inserted {
        Ok(user) => Ok(SignedUp::Inserted(user)),
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info))
            if info.constraint_name() == Some("users_email_lower_key") =>
        {
            Ok(SignedUp::EmailTaken)
        }
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
            Ok(SignedUp::UsernameTaken)
        }
        Err(e) => Err(e),
    }
}

/// A page of the live accounts in id order: after `after` (keyset) or from `offset`, at most
/// `limit` rows.
pub fn live_page(
    conn: &mut PgConnection,
    after: Option<UserId>,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<User>> {
    let mut rows = users::table
        .filter(users::deleted_at.is_null())
        .into_boxed();
    if let Some(last) = after {
        rows = rows.filter(users::id.gt(last));
    }
    rows.order(users::id)
        .limit(limit)
        .offset(offset)
        .select(User::as_select())
        .load(conn)
}

/// How many live accounts there are, counted to `cap + 1` at most.
pub fn count_live(conn: &mut PgConnection, cap: i64) -> QueryResult<i64> {
    Ok(users::table
        .filter(users::deleted_at.is_null())
        .select(users::id)
        .limit(cap + 1)
        .load::<UserId>(conn)?
        .len() as i64)
}

/// Locks every admin row in id order (two admins changing each other at once cannot both see
/// the other still an admin).
pub fn lock_admins(conn: &mut PgConnection) -> QueryResult<Vec<UserId>> {
    users::table
        .filter(users::is_admin.eq(true))
        .select(users::id)
        .order(users::id)
        .for_update()
        .load(conn)
}

/// How many enabled admins there are besides `id`.
pub fn enabled_admins_besides(conn: &mut PgConnection, id: UserId) -> QueryResult<i64> {
    users::table
        .filter(users::is_admin.eq(true))
        .filter(users::disabled_at.is_null())
        .filter(users::id.ne(id))
        .count()
        .get_result(conn)
}

/// Gives or takes the global admin role.
pub fn set_admin(conn: &mut PgConnection, id: UserId, admin: bool) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set(users::is_admin.eq(admin))
        .execute(conn)
        .map(drop)
}

/// Disables the account as of `now`.
pub fn disable(conn: &mut PgConnection, id: UserId, now: DateTime<Utc>) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set(users::disabled_at.eq(now))
        .execute(conn)
        .map(drop)
}

/// Enables the account again.
pub fn enable(conn: &mut PgConnection, id: UserId) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set(users::disabled_at.eq(None::<DateTime<Utc>>))
        .execute(conn)
        .map(drop)
}

/// Sets the password hash.
pub fn set_password(conn: &mut PgConnection, id: UserId, hash: &str) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set(users::password_hash.eq(hash))
        .execute(conn)
        .map(drop)
}

/// Sets the password hash set with a reset code, and counts the address as proved (from the
/// database's `now()` unless it already was).
pub fn set_password_by_reset(conn: &mut PgConnection, id: UserId, hash: &str) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set((
            users::password_hash.eq(hash),
            users::email_verified_at.eq(diesel::dsl::sql::<
                diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>,
            >("coalesce(email_verified_at, now())")),
        ))
        .execute(conn)
        .map(drop)
}

/// Marks the address of an account not verified yet proved at `now`, setting the password hash
/// the code carried (if any); an account already verified is left as it is.
pub fn verify_address(
    conn: &mut PgConnection,
    id: UserId,
    password_hash: Option<&str>,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    let unverified = users::table
        .find(id)
        .filter(users::email_verified_at.is_null());
    match password_hash {
        Some(hash) => diesel::update(unverified)
            .set((
                users::email_verified_at.eq(Some(now)),
                users::password_hash.eq(hash),
            ))
            .execute(conn)?,
        None => diesel::update(unverified)
            .set(users::email_verified_at.eq(Some(now)))
            .execute(conn)?,
    };
    Ok(())
}

/// Sets the account's address, proved at `now`, in a savepoint of the caller's transaction;
/// false (nothing changed) when another account has the address (whatever its case).
pub fn set_address(
    conn: &mut PgConnection,
    id: UserId,
    email: &str,
    now: DateTime<Utc>,
) -> QueryResult<bool> {
    use diesel::result::{DatabaseErrorKind, Error};
    let changed = conn.transaction(|conn| {
        diesel::update(users::table.find(id))
            .set((
                users::email.eq(Some(email)),
                users::email_verified_at.eq(Some(now)),
            ))
            .execute(conn)
    });
    match changed {
        Ok(_) => Ok(true),
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Sets the language of the account's messages.
pub fn set_language(conn: &mut PgConnection, id: UserId, language: Language) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set(users::language.eq(language))
        .execute(conn)
        .map(drop)
}

/// What the account search (`GET /users?q=`) looks for: part of the username or of the linked
/// player's name, or a near match of a word of either (ignoring case and diacritics, as the
/// player search does); with `by_address` (an admin's search) part of the address as well. With
/// `enabled_only`, disabled accounts are left out (a keeper chooses among accounts that can
/// keep).
#[derive(Debug, Clone)]
pub struct UserSearch {
    pub q: String,
    pub by_address: bool,
    pub enabled_only: bool,
}

type SearchQuery<'a> =
    diesel::dsl::IntoBoxed<'a, diesel::dsl::LeftJoin<users::table, players::table>, diesel::pg::Pg>;

fn searching(s: &UserSearch) -> SearchQuery<'static> {
    use diesel::dsl::sql;
    use diesel::sql_types::{Bool, Text};
    let q = s.q.clone();
    let text = sql::<Bool>("(tourney_fold(users.username) LIKE tourney_like_pattern(")
        .bind::<Text, _>(q.clone())
        .sql(") OR coalesce(players.name_folded LIKE tourney_like_pattern(")
        .bind::<Text, _>(q.clone())
        .sql("), false) OR tourney_fold(")
        .bind::<Text, _>(q.clone())
        .sql(") <% tourney_fold(users.username) OR coalesce(tourney_fold(")
        .bind::<Text, _>(q.clone())
        .sql(") <% players.name_folded, false) OR (")
        .bind::<Bool, _>(s.by_address)
        .sql(" AND coalesce(tourney_fold(users.email) LIKE tourney_like_pattern(")
        .bind::<Text, _>(q)
        .sql("), false)))");
    let mut query = users::table
        .left_join(players::table)
        .filter(users::deleted_at.is_null())
        .filter(text)
        .into_boxed();
    if s.enabled_only {
        query = query.filter(users::disabled_at.is_null());
    }
    query
}

/// A page of the live accounts `s` finds, each with its linked player's name, in id order:
/// after `after` (keyset) or from `offset`, at most `limit` rows.
pub fn search_page(
    conn: &mut PgConnection,
    s: &UserSearch,
    after: Option<UserId>,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<(User, Option<String>)>> {
    let mut rows = searching(s);
    if let Some(last) = after {
        rows = rows.filter(users::id.gt(last));
    }
    rows.order(users::id)
        .limit(limit)
        .offset(offset)
        .select((User::as_select(), players::name.nullable()))
        .load(conn)
}

/// How many live accounts `s` finds, counted to `cap + 1` at most.
pub fn search_count(conn: &mut PgConnection, s: &UserSearch, cap: i64) -> QueryResult<i64> {
    Ok(searching(s)
        .select(users::id)
        .limit(cap + 1)
        .load::<UserId>(conn)?
        .len() as i64)
}

/// The names of the players linked to `ids` (accounts without one are left out).
pub fn player_names_of(
    conn: &mut PgConnection,
    ids: &[UserId],
) -> QueryResult<Vec<(UserId, String)>> {
    players::table
        .filter(players::user_id.assume_not_null().eq_any(ids))
        .select((players::user_id.assume_not_null(), players::name))
        .load(conn)
}
