//! Accounts.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::auth::password;
use crate::db::models::{NewUser, User};
use crate::db::schema::users;
use crate::error::ApiError;
use crate::services::validate::Check;

/// Whether `username` has the form of a username: 3-64 letters, digits, `.`, `_` and `-`.
pub fn is_valid_username(username: &str) -> bool {
    (3..=64).contains(&username.len())
        && username
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Checks a username and password; shared with `tourney create-admin`.
pub fn check_credentials(username: &str, password: &str) -> Result<(), ApiError> {
    let mut check = Check::new();
    check.ensure(
        is_valid_username(username),
        "username",
        "must be 3-64 characters of letters, digits, `.`, `_` and `-`",
    );
    check.ensure(
        (8..=256).contains(&password.chars().count()),
        "password",
        "must be 8-256 characters",
    );
    check.finish()
}

/// Creates an account in one transaction; 409 if the username is taken.
pub fn create_user(
    conn: &mut PgConnection,
    username: &str,
    password_plain: &str,
    is_admin: bool,
) -> Result<User, ApiError> {
    check_credentials(username, password_plain)?;
    let hash = password::hash(password_plain).map_err(ApiError::Internal)?;
    Ok(diesel::insert_into(users::table)
        .values(NewUser {
            username,
            password_hash: &hash,
            is_admin,
        })
        .returning(User::as_returning())
        .get_result(conn)?)
}
