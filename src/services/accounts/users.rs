//! Accounts, managed by admins.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::credentials::check_credentials;
use crate::auth::{password, Caller};
use crate::db::models::{NewUser, User};
use crate::db::schema::users;
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
        Ok(diesel::insert_into(users::table)
            .values(NewUser {
                username,
                password_hash: &hash,
                is_admin,
            })
            .returning(User::as_returning())
            .get_result(conn)?)
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
            id: u.id,
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
    let live = || {
        users::table
            .filter(users::deleted_at.is_null())
            .into_boxed()
    };
    let mut rows = live();
    let (mut offset, mut first) = (0, false);
    match start {
        Start::Offset(o) => (offset, first) = (o, true),
        Start::After(last) => rows = rows.filter(users::id.gt(last)),
    }
    let rows: Vec<User> = rows
        .order(users::id)
        .limit(limit + 1)
        .offset(offset)
        .select(User::as_select())
        .load(conn)?;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || {
            Ok(live()
                .select(users::id)
                .limit(COUNT_CAP + 1)
                .load::<i64>(conn)?
                .len() as i64)
        },
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
    users::table
        .find(id)
        .filter(users::deleted_at.is_null())
        .select(User::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no user {id}")))
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
    let others: i64 = users::table
        .filter(users::is_admin.eq(true))
        .filter(users::disabled_at.is_null())
        .filter(users::id.ne(id))
        .count()
        .get_result(conn)?;
    if others == 0 {
        return Err(ApiError::Conflict(
            "this is the last enabled admin: make another admin first".into(),
        ));
    }
    Ok(())
}

/// Changes an account's global role or disables it (admin only). The account's row lock
/// serialises changes, and the last enabled admin cannot be demoted or disabled.
pub fn update_user(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: UpdateUser,
) -> Result<UserOut, ApiError> {
    caller.require_admin()?;
    conn.transaction(|conn| {
        // Every admin row, locked in id order: two admins demoting each other at once cannot
        // both see the other still an admin.
        users::table
            .filter(users::is_admin.eq(true))
            .select(users::id)
            .order(users::id)
            .for_update()
            .load::<i64>(conn)?;
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
            diesel::update(users::table.find(id))
                .set(users::is_admin.eq(admin))
                .execute(conn)?;
        }
        match input.disabled {
            Some(true) if user.disabled_at.is_none() => {
                diesel::update(users::table.find(id))
                    .set(users::disabled_at.eq(Utc::now()))
                    .execute(conn)?;
                crate::db::accounts::end_every_session(conn, id)?;
            }
            Some(false) => {
                diesel::update(users::table.find(id))
                    .set(users::disabled_at.eq(None::<DateTime<Utc>>))
                    .execute(conn)?;
            }
            _ => {}
        }
        find(conn, id).map(UserOut::from)
    })
}

/// Deletes an account (admin only). An account that entered results, made draws or holds
/// other records keeps its id, so the history still names who did what, but loses its name,
/// password, admin role, player link, staff roles, sessions and keys ("deleted-<id>", no longer
/// listed or readable); an account without records is removed.
pub fn delete_user(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<(), ApiError> {
    caller.require_admin()?;
    conn.transaction(|conn| {
        let user = lock_for_removal(conn, id)?;
        if id == caller.user_id {
            return Err(not_yourself());
        }
        remove_account(conn, &user)
    })
}

/// Locks the admin rows (so two removals cannot both see the other admin still there) and the
/// account; 404 when it is gone. Inside the caller's transaction.
pub(crate) fn lock_for_removal(conn: &mut PgConnection, id: i64) -> Result<User, ApiError> {
    users::table
        .filter(users::is_admin.eq(true))
        .select(users::id)
        .order(users::id)
        .for_update()
        .load::<i64>(conn)?;
    let user = find(conn, id)?;
    if user.is_admin && user.disabled_at.is_none() {
        keep_an_admin(conn, id)?;
    }
    Ok(user)
}

/// Removes an account locked by [`lock_for_removal`], inside the caller's transaction: its
/// player link, staff roles, keys, sessions, codes and mail go; the row is removed when nothing
/// refers to it, else kept as a nameless tombstone (`deleted-<id>`, no password, address or
/// power).
pub(crate) fn remove_account(conn: &mut PgConnection, user: &User) -> Result<(), ApiError> {
    use crate::db::schema::{
        account_tokens, api_keys, invitations, mail_outbox, player_claims, players, refresh_tokens,
        tournament_staff,
    };
    let id = user.id;
    diesel::update(players::table.filter(players::user_id.eq(id)))
        .set(players::user_id.eq(None::<i64>))
        .execute(conn)?;
    // The account's claims (their messages are its words) and the invitations it accepted or
    // that were sent to its address (they hold the address) go with it.
    diesel::delete(player_claims::table.filter(player_claims::user_id.eq(id))).execute(conn)?;
    diesel::delete(invitations::table.filter(invitations::accepted_by.eq(id))).execute(conn)?;
    if let Some(email) = &user.email {
        diesel::delete(
            invitations::table.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>("lower(email) = lower(")
                    .bind::<diesel::sql_types::Text, _>(email.clone())
                    .sql(")"),
            ),
        )
        .execute(conn)?;
    }
    diesel::delete(tournament_staff::table.filter(tournament_staff::user_id.eq(id)))
        .execute(conn)?;
    diesel::delete(api_keys::table.filter(api_keys::user_id.eq(id))).execute(conn)?;
    diesel::delete(refresh_tokens::table.filter(refresh_tokens::user_id.eq(id))).execute(conn)?;
    diesel::delete(account_tokens::table.filter(account_tokens::user_id.eq(id))).execute(conn)?;
    diesel::delete(mail_outbox::table.filter(mail_outbox::user_id.eq(id))).execute(conn)?;
    // Removed outright when nothing refers to it; kept as a nameless tombstone otherwise.
    let removed = conn.transaction(|conn| diesel::delete(users::table.find(id)).execute(conn));
    match removed {
        Ok(_) => Ok(()),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ForeignKeyViolation,
            _,
        )) => {
            diesel::update(users::table.find(id))
                .set((
                    users::username.eq(format!("deleted-{id}")),
                    users::password_hash.eq("!"),
                    users::is_admin.eq(false),
                    users::email.eq(None::<String>),
                    users::email_verified_at.eq(None::<DateTime<Utc>>),
                    users::disabled_at.eq(Utc::now()),
                    users::deleted_at.eq(Utc::now()),
                    users::session_epoch.eq(users::session_epoch + 1),
                ))
                .execute(conn)?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}
