//! The accounts aggregate: users, their sessions (refresh tokens), one-use codes, API keys, the
//! mail outbox, the staff roles an account holds, erasure and the personal-data export's read
//! model. Queries shared by several services sit here; the rest by table below.

pub mod api_keys;
pub mod erasure;
pub mod export;
pub mod outbox;
pub mod roles;
pub mod sessions;
pub mod tokens;
pub mod users;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::UserId;
use crate::db::schema::refresh_tokens;
use crate::db::schema::users as user_rows;
use crate::error::ApiError;

/// Revokes every session of an account (at `now`) and moves its epoch on, so that its access
/// tokens are refused too (within `services::accounts::auth::ACCOUNT_TTL`).
pub fn end_every_session(
    conn: &mut PgConnection,
    user_id: UserId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::user_id.eq(user_id))
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set(refresh_tokens::revoked_at.eq(now))
    .execute(conn)?;
    diesel::update(user_rows::table.find(user_id))
        .set(user_rows::session_epoch.eq(user_rows::session_epoch + 1))
        .execute(conn)?;
    Ok(())
}

diesel::define_sql_function! {
    /// PostgreSQL's `lower(text)`: usernames and addresses are unique without regard to case.
    fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

/// The live (not deleted) account with this e-mail address, whatever its case.
pub fn by_email(
    conn: &mut PgConnection,
    email: &str,
) -> Result<Option<crate::db::models::User>, ApiError> {
    use crate::db::models::User;
    Ok(user_rows::table
        .filter(lower(user_rows::email.assume_not_null()).eq(lower(email)))
        .filter(user_rows::deleted_at.is_null())
        .select(User::as_select())
        .first(conn)
        .optional()?)
}

/// Whether an account (deleted ones included: their names stay taken) has this username,
/// whatever its case.
pub fn username_taken(conn: &mut PgConnection, username: &str) -> Result<bool, ApiError> {
    Ok(diesel::select(diesel::dsl::exists(
        user_rows::table.filter(lower(user_rows::username).eq(lower(username))),
    ))
    .get_result(conn)?)
}

/// Whether a user account exists (deleted ones are kept, and count).
pub fn user_exists(conn: &mut PgConnection, user: crate::db::ids::UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(user_rows::table.find(user.0))).get_result(conn)
}

/// Whether a live (not deleted) user account exists.
pub fn live_user_exists(
    conn: &mut PgConnection,
    user: crate::db::ids::UserId,
) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        user_rows::table
            .find(user.0)
            .filter(user_rows::deleted_at.is_null()),
    ))
    .get_result(conn)
}

/// An account's name and whether it is an admin's, if it exists and is neither disabled nor
/// deleted (an account that may still act).
pub fn enabled_name_and_admin(
    conn: &mut PgConnection,
    user: crate::db::ids::UserId,
) -> QueryResult<Option<(crate::db::ids::UserId, String, bool)>> {
    user_rows::table
        .find(user.0)
        .filter(user_rows::disabled_at.is_null())
        .filter(user_rows::deleted_at.is_null())
        .select((user_rows::id, user_rows::username, user_rows::is_admin))
        .first(conn)
        .optional()
}

/// Where an account's mail goes: its name, its address (if any) and its language.
pub fn mail_to(
    conn: &mut PgConnection,
    user: crate::db::ids::UserId,
) -> QueryResult<(String, Option<String>, crate::domain::accounts::Language)> {
    user_rows::table
        .find(user.0)
        .select((user_rows::username, user_rows::email, user_rows::language))
        .first(conn)
}

/// A new account for an invited address, its address verified at `now` (the code came to
/// it), in a savepoint; `None` when the name or the address was taken meanwhile.
pub fn insert_invited(
    conn: &mut PgConnection,
    username: &str,
    hash: &str,
    email: &str,
    language: crate::domain::accounts::Language,
    now: chrono::DateTime<Utc>,
) -> QueryResult<Option<crate::db::ids::UserId>> {
    let inserted = conn.transaction(|conn| {
        diesel::insert_into(user_rows::table)
            .values((
                user_rows::username.eq(username),
                user_rows::password_hash.eq(hash),
                user_rows::email.eq(email),
                user_rows::email_verified_at.eq(Some(now)),
                user_rows::language.eq(language),
            ))
            .returning(user_rows::id)
            .get_result(conn)
    });
    match inserted {
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(None),
        other => other.map(Some),
    }
}
