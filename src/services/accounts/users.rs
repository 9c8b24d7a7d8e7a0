//! Accounts, managed by admins.

use chrono::{DateTime, Utc};
use diesel::{Connection, PgConnection};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::credentials::check_credentials;
use crate::auth::{password, Caller};
use crate::db::accounts::{end_every_session, erasure, users};
use crate::db::ids::UserId;
use crate::db::models::{NewUser, User};
use crate::error::ApiError;
use crate::services::validate::{keyset_page, CursorParams, Page, Start, COUNT_CAP};

/// Creates an account in one transaction; 409 if the username is taken.
pub fn create_user(
    conn: &mut PgConnection,
    username: &str,
    password_plain: &str,
    is_admin: bool,
) -> Result<User, ApiError> {
    conn.transaction(|conn| {
        check_credentials(username, password_plain)?;
        let hash = password::hash(password_plain).map_err(ApiError::Internal)?;
        Ok(users::insert(
            conn,
            &NewUser {
                username,
                password_hash: &hash,
                is_admin,
            },
        )?)
    })
}

/// A new account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "referee.oslo", "password": "correct horse battery staple", "is_admin": false}))]
pub struct CreateUser {
    /// 3-64 characters: letters, digits, `.`, `_`, `-`.
    #[schema(example = "kari.referee", pattern = "^[A-Za-z0-9._-]{3,64}$")]
    pub username: String,
    /// 10-256 characters, not the username, not a common password.
    #[schema(example = "a long passphrase", min_length = 10, max_length = 256)]
    pub password: String,
    /// Make the account an admin (default false).
    #[serde(default)]
    pub is_admin: bool,
}

/// An account (never its password).
#[derive(Debug, Serialize, ToSchema)]
pub struct UserOut {
    pub id: i64,
    pub username: String,
    pub is_admin: bool,
    pub created_at: DateTime<Utc>,
    /// Disabled accounts cannot sign in; their tokens and keys are refused.
    pub disabled: bool,
}

impl From<User> for UserOut {
    fn from(u: User) -> Self {
        Self {
            id: u.id.0,
            username: u.username,
            is_admin: u.is_admin,
            created_at: u.created_at,
            disabled: u.disabled_at.is_some(),
        }
    }
}

/// Creates an account (admin only).
pub fn create_account(
    conn: &mut PgConnection,
    caller: &Caller,
    input: CreateUser,
) -> Result<UserOut, ApiError> {
    caller.require_admin()?;
    create_user(conn, &input.username, &input.password, input.is_admin).map(UserOut::from)
}

/// The name users' cursors are checked against.
const USERS: &str = "users";

/// A page of the accounts not deleted, in creation order (admin only): by keyset on the id
/// (`cursor`: the last id shown), counted to [`COUNT_CAP`].
pub fn list_users(
    conn: &mut PgConnection,
    caller: &Caller,
    query: &CursorParams,
) -> Result<Page<UserOut>, ApiError> {
    caller.require_admin()?;
    let (limit, start) = query.start::<i64>(USERS, "")?;
    let (offset, first, after) = match start {
        Start::Offset(o) => (o, true, None),
        Start::After(last) => (0, false, Some(UserId(last))),
    };
    let rows = users::live_page(conn, after, offset, limit + 1)?;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || Ok(users::count_live(conn, COUNT_CAP)?),
        USERS,
        "",
        |u| u.id,
        |u| Ok(UserOut::from(u)),
    )
}

/// One account (admin only).
pub fn read_user(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<UserOut, ApiError> {
    caller.require_admin()?;
    find(conn, id).map(UserOut::from)
}

fn find(conn: &mut PgConnection, id: i64) -> Result<User, ApiError> {
    users::live(conn, UserId(id))?.ok_or_else(|| ApiError::NotFound(format!("no user {id}")))
}

/// A change to an account (admin): its global role, or disabling it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"disabled": true}))]
pub struct UpdateUser {
    pub is_admin: Option<bool>,
    /// A disabled account cannot sign in, and every session, token and key of it is refused
    /// within seconds; enabling it again does not bring old sessions back.
    pub disabled: Option<bool>,
}

/// An admin does not lock themselves out: another admin demotes, disables or deletes them.
fn not_yourself() -> ApiError {
    ApiError::Conflict(
        "an admin cannot demote, disable or delete their own account; another admin can".into(),
    )
}

/// 409 when the change would leave no enabled admin.
fn keep_an_admin(conn: &mut PgConnection, id: i64) -> Result<(), ApiError> {
    if users::enabled_admins_besides(conn, UserId(id))? == 0 {
        return Err(ApiError::Conflict(
            "this is the last enabled admin: make another admin first".into(),
        ));
    }
    Ok(())
}

/// Changes an account's global role or disables it (admin only). The account's row lock
/// serialises changes, and the last enabled admin cannot be demoted or disabled. A disabled
/// account is disabled, and its sessions end, at `now`.
pub fn update_user(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: UpdateUser,
    now: DateTime<Utc>,
) -> Result<UserOut, ApiError> {
    caller.require_admin()?;
    conn.transaction(|conn| {
        // Every admin row, locked in id order: two admins demoting each other at once cannot
        // both see the other still an admin.
        users::lock_admins(conn)?;
        let user = find(conn, id)?;
        let demoted = input.is_admin == Some(false) && user.is_admin;
        let disabling = input.disabled == Some(true) && user.disabled_at.is_none();
        if id == caller.user_id && (demoted || disabling) {
            return Err(not_yourself());
        }
        if user.is_admin && (demoted || disabling) {
            keep_an_admin(conn, id)?;
        }
        if let Some(admin) = input.is_admin {
            users::set_admin(conn, UserId(id), admin)?;
        }
        match input.disabled {
            Some(true) if user.disabled_at.is_none() => {
                users::disable(conn, UserId(id), now)?;
                end_every_session(conn, UserId(id), now)?;
            }
            Some(false) => users::enable(conn, UserId(id))?,
            _ => {}
        }
        find(conn, id).map(UserOut::from)
    })
}

/// Deletes an account (admin only). An account that entered results, made draws or holds
/// other records keeps its id, so the history still names who did what, but loses its name,
/// password, admin role, player link, staff roles, sessions and keys ("deleted-<id>", no longer
/// listed or readable; its tombstone dated `now`); an account without records is removed.
pub fn delete_user(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    caller.require_admin()?;
    conn.transaction(|conn| {
        let user = lock_for_removal(conn, id)?;
        if id == caller.user_id {
            return Err(not_yourself());
        }
        remove_account(conn, &user, now)
    })
}

/// Locks the admin rows (so two removals cannot both see the other admin still there) and the
/// account; 404 when it is gone. Inside the caller's transaction.
pub(crate) fn lock_for_removal(conn: &mut PgConnection, id: i64) -> Result<User, ApiError> {
    users::lock_admins(conn)?;
    let user = find(conn, id)?;
    if user.is_admin && user.disabled_at.is_none() {
        keep_an_admin(conn, id)?;
    }
    Ok(user)
}

/// Removes an account locked by [`lock_for_removal`], inside the caller's transaction: its
/// player link, staff roles, keys, sessions, codes and mail go; the row is removed when nothing
/// refers to it, else kept as a nameless tombstone (`deleted-<id>`, no password, address or
/// power, deleted at `now`).
pub(crate) fn remove_account(
    conn: &mut PgConnection,
    user: &User,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let id = user.id;
    erasure::forget_belongings(conn, id, user.email.as_deref())?;
    // Removed outright when nothing refers to it; kept as a nameless tombstone otherwise.
    if !erasure::remove_if_unreferenced(conn, id)? {
        erasure::tombstone(conn, id, now)?;
    }
    Ok(())
}
