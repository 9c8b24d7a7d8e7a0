//! Queries on accounts shared by several services.

use chrono::Utc;
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::schema::{refresh_tokens, users};
use crate::error::ApiError;

/// Revokes every session of an account and moves its epoch on, so that its access tokens are
/// refused too (within `services::accounts::auth::ACCOUNT_TTL`).
pub fn end_every_session(conn: &mut PgConnection, user_id: i64) -> Result<(), ApiError> {
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::user_id.eq(user_id))
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set(refresh_tokens::revoked_at.eq(Utc::now()))
    .execute(conn)?;
    diesel::update(users::table.find(user_id))
        .set(users::session_epoch.eq(users::session_epoch + 1))
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
    Ok(users::table
        .filter(lower(users::email.assume_not_null()).eq(lower(email)))
        .filter(users::deleted_at.is_null())
        .select(User::as_select())
        .first(conn)
        .optional()?)
}

/// Whether an account (deleted ones included: their names stay taken) has this username,
/// whatever its case.
pub fn username_taken(conn: &mut PgConnection, username: &str) -> Result<bool, ApiError> {
    Ok(diesel::select(diesel::dsl::exists(
        users::table.filter(lower(users::username).eq(lower(username))),
    ))
    .get_result(conn)?)
}

/// Whether a user account exists (deleted ones are kept, and count).
pub fn user_exists(conn: &mut PgConnection, user: crate::db::ids::UserId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(users::table.find(user.0))).get_result(conn)
}
