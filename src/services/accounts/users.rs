//! Accounts, managed by admins.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::credentials::check_new_credentials;
use crate::auth::{password, Caller};
use crate::db::accounts::users::UserSearch;
use crate::db::accounts::{end_every_session, erasure, users};
use crate::db::ids::{PoolId, UserId};
use crate::db::models::{NewUser, User};
use crate::db::ratings::{keepers, pools};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::validate::{keyset_page, keyset_start, Check, Page, Start, COUNT_CAP};

/// Creates an account in one transaction; 409 if the username is taken.
pub fn create_user(
    conn: &mut PgConnection,
    username: &str,
    password_plain: &str,
    is_admin: bool,
) -> Result<User, ApiError> {
    crate::db::transaction(conn, |conn| {
        check_new_credentials(username, password_plain)?;
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
    /// 3-64 characters: letters, digits, `.`, `_`, `-`; not beginning with `deleted-` (kept for
    /// removed accounts).
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
    /// The name of the player linked to the account (null without one).
    pub display_name: Option<String>,
    /// The account's address (accounts an admin made may have none).
    pub email: Option<String>,
    /// Whether the address was proved by a code sent to it.
    pub email_verified: bool,
}

impl From<User> for UserOut {
    fn from(u: User) -> Self {
        Self {
            id: u.id.0,
            username: u.username,
            is_admin: u.is_admin,
            created_at: u.created_at,
            disabled: u.disabled_at.is_some(),
            display_name: None,
            email_verified: u.email.is_some() && u.email_verified_at.is_some(),
            email: u.email,
        }
    }
}

/// The account with its linked player's name.
fn with_name(conn: &mut PgConnection, u: User) -> Result<UserOut, ApiError> {
    let name = users::player_names_of(conn, &[u.id])?
        .into_iter()
        .next()
        .map(|(_, n)| n);
    Ok(UserOut {
        display_name: name,
        ..UserOut::from(u)
    })
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

/// `?q=&limit=&offset=&cursor=` of the account list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UserFilter {
    /// Part of the username, of the linked player's name or of the address, or a near match
    /// of a word of either name; ignores case and diacritics (`oystein` finds `Øystein`).
    /// Blank means every account.
    #[param(max_length = 100, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub q: Option<String>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages through `cursor`).
    #[param(minimum = 0, maximum = 10000, example = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `next_cursor` of the page before (also in its `next` link),
    /// valid for that list and search only.
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

/// An account as a rating pool's keeper, choosing a keeper, sees it: no more than choosing
/// needs.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeeperCandidate {
    pub id: i64,
    pub username: String,
    /// The name of the player linked to the account (null without one).
    pub display_name: Option<String>,
}

/// A page of accounts in creation order, counted to [`COUNT_CAP`], by keyset on the id
/// (`cursor`: the last id shown): every live account without `q`, else those `q` finds (by
/// address too with `by_address`; enabled ones only with `enabled_only`), each turned by `out`.
fn page_of<T>(
    conn: &mut PgConnection,
    filter: &UserFilter,
    q: Option<String>,
    view: &str,
    (by_address, enabled_only): (bool, bool),
    out: impl Fn(User, Option<String>) -> T,
) -> Result<Page<T>, ApiError> {
    let scope = match &q {
        None => String::new(),
        Some(q) => format!("{q:?}|{view}"),
    };
    let (limit, start) = keyset_start::<i64>(
        filter.limit,
        filter.offset,
        filter.cursor.as_deref(),
        USERS,
        &scope,
    )?;
    let (offset, first, after) = match start {
        Start::Offset(o) => (o, true, None),
        Start::After(last) => (0, false, Some(UserId(last))),
    };
    let Some(q) = q else {
        let rows = users::live_page(conn, after, offset, limit + 1)?;
        let ids: Vec<UserId> = rows.iter().map(|u| u.id).collect();
        let names: std::collections::HashMap<UserId, String> =
            users::player_names_of(conn, &ids)?.into_iter().collect();
        return keyset_page(
            rows,
            limit,
            (offset, first),
            || Ok(users::count_live(conn, COUNT_CAP)?),
            USERS,
            &scope,
            |u| u.id,
            |u| {
                let name = names.get(&u.id).cloned();
                Ok(out(u, name))
            },
        );
    };
    let search = UserSearch {
        q,
        by_address,
        enabled_only,
    };
    let rows = users::search_page(conn, &search, after, offset, limit + 1)?;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || Ok(users::search_count(conn, &search, COUNT_CAP)?),
        USERS,
        &scope,
        |(u, _)| u.id,
        |(u, name)| Ok(out(u, name)),
    )
}

/// A page of the accounts not deleted (admin only), in creation order: every one, or those
/// `q` finds by username, linked player's name or address.
pub fn list_users(
    conn: &mut PgConnection,
    caller: &Caller,
    filter: &UserFilter,
) -> Result<Page<UserOut>, ApiError> {
    caller.require_admin()?;
    let mut check = Check::new();
    let q = check.search_text("q", filter.q.as_deref(), 100);
    check.finish()?;
    page_of(conn, filter, q, "admin", (true, false), |u, name| UserOut {
        display_name: name,
        ..UserOut::from(u)
    })
}

/// The enabled accounts a keeper of rating pool `pool_id` (or an admin) may choose as another
/// keeper, found by `q` (username or linked player's name, never the address; a keeper must
/// give 2 characters at least, an admin may list them all), with id, username and display name
/// only. 404 without the pool, 403 unless the caller keeps it, both before the query is read.
pub fn keeper_candidates(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
    filter: &UserFilter,
) -> Result<Page<KeeperCandidate>, ApiError> {
    if pools::by_id(conn, PoolId(pool_id))?.is_none() {
        return Err(ApiError::NotFound(format!("no rating pool {pool_id}")));
    }
    if !caller.is_admin && !keepers::keeps(conn, PoolId(pool_id), UserId(caller.user_id))? {
        return Err(ApiError::Forbidden(format!(
            "only an admin or a keeper of rating pool {pool_id} may do this"
        )));
    }
    let mut check = Check::new();
    let q = check.search_text("q", filter.q.as_deref(), 100);
    if !caller.is_admin && q.as_deref().is_none_or(|q| q.chars().count() < 2) {
        check.fail("q", "look accounts up by name: give 2 characters at least");
    }
    check.finish()?;
    page_of(conn, filter, q, "keeper", (false, true), |u, name| {
        KeeperCandidate {
            id: u.id.0,
            username: u.username,
            display_name: name,
        }
    })
}

/// One account (admin only).
pub fn read_user(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<UserOut, ApiError> {
    caller.require_admin()?;
    let user = find(conn, id)?;
    with_name(conn, user)
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
    crate::db::transaction(conn, |conn| {
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
        let user = find(conn, id)?;
        with_name(conn, user)
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
    crate::db::transaction(conn, |conn| {
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
/// power, deleted at `now`); the content kept by check-outs names it so too.
pub(crate) fn remove_account(
    conn: &mut PgConnection,
    user: &User,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let id = user.id;
    erasure::forget_belongings(conn, id, user.email.as_deref())?;
    // Removed outright when nothing refers to it; kept as a nameless tombstone otherwise.
    let name = if erasure::remove_if_unreferenced(conn, id)? {
        format!("deleted-{id}")
    } else {
        erasure::tombstone(conn, id, now)?
    };
    // A check-out's kept content names it no longer (a check-in maps the venue's copy onto it).
    crate::db::archives::checkouts::scrub_user(conn, id, &name)?;
    Ok(())
}
