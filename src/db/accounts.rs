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
