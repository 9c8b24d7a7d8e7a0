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
