//! Pool keepers (issue 26): the people who keep one rating list. A keeper changes the pool's
//! settings and seasons, imports lists, manages its webhooks and decides which tournaments feed
//! it, without being a global admin; a keeper of one pool has no power over another. Keepers
//! are granted and revoked by an admin or another keeper of the same pool.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::db::ratings::keepers::{self as store, KeeperRow};
use crate::db::ratings::pools;
use crate::db::PgConnection;
use crate::domain::{PoolId, UserId};
use crate::error::ApiError;
use crate::services::validate::{Page, PageParams};

/// A keeper of a rating pool.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeeperOut {
    pub user_id: i64,
    #[schema(example = "rating-officer")]
    pub username: String,
    /// Who granted the role (an admin or another keeper).
    pub granted_by: i64,
    pub granted_at: DateTime<Utc>,
}

/// Whether the caller keeps the pool (admins keep every pool).
pub fn keeps(conn: &mut PgConnection, caller: &Caller, pool_id: i64) -> Result<bool, ApiError> {
    if caller.is_admin {
        return Ok(true);
    }
    Ok(store::keeps(conn, PoolId(pool_id), UserId(caller.user_id))?)
}

/// Whether the caller takes a keeper's decision on the pool outside the pool's own paths (a
/// tournament's rating request accepted at once, an accepted tournament moved in time): they
/// keep it (or are an admin), and a call made with an API key is made with one that may do a
/// keeper's work on this pool (`pools:write`). A key without it (`tournaments:write` for a
/// tournament's software, say) acts as an organiser: its requests wait for a keeper.
pub fn acts_as_keeper(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
) -> Result<bool, ApiError> {
    if caller.key.as_ref().is_some_and(|k| !k.keeps_pool(pool_id)) {
        return Ok(false);
    }
    keeps(conn, caller, pool_id)
}

/// 403 unless the caller is an admin or a keeper of the pool. Call it after the pool was
/// found (404 first, so the answer tells nothing about pools that do not exist).
pub fn require_keeper(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
) -> Result<(), ApiError> {
    if keeps(conn, caller, pool_id)? {
        Ok(())
    } else {
        Err(ApiError::Forbidden(format!(
            "only an admin or a keeper of rating pool {pool_id} may do this"
        )))
    }
}

/// 404 if there is no such pool, 403 unless the caller keeps it (or is an admin): the check of
/// every write to a pool's daily work (settings, seasons, imports, webhooks, rebuilds).
pub fn require_pool_keeper(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
) -> Result<(), ApiError> {
    super::load_pool(conn, pool_id)?;
    require_keeper(conn, caller, pool_id)
}

fn keeper_out(k: KeeperRow) -> KeeperOut {
    KeeperOut {
        user_id: k.user_id.0,
        username: k.username,
        granted_by: k.granted_by.0,
        granted_at: k.granted_at,
    }
}

/// The pool's keepers (public: a list says who keeps it), in the order they were granted.
pub fn list_keepers(
    conn: &mut PgConnection,
    pool_id: i64,
    page: &PageParams,
) -> Result<Page<KeeperOut>, ApiError> {
    let (limit, offset) = page.resolve()?;
    super::load_pool(conn, pool_id)?;
    let total = store::count_of(conn, PoolId(pool_id))?;
    let rows = store::page_of(conn, PoolId(pool_id), limit, offset)?;
    Ok(Page {
        items: rows.into_iter().map(keeper_out).collect(),
        total,
        limit,
        offset,
        next_cursor: None,
        total_exact: None,
    })
}

/// Makes `user_id` a keeper of the pool (an admin or a keeper of it). Answers the keeper and
/// whether the role is new (granting it again changes nothing).
pub fn grant_keeper(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: PoolId,
    user_id: UserId,
) -> Result<(bool, KeeperOut), ApiError> {
    crate::db::transaction(conn, |conn| {
        super::load_pool(conn, pool_id.0)?;
        require_keeper(conn, caller, pool_id.0)?;
        match store::user_standing(conn, user_id)? {
            None => {
                return Err(ApiError::field(
                    "user_id",
                    format!("there is no user {user_id}"),
                ))
            }
            Some(Some(_)) => {
                return Err(ApiError::field(
                    "user_id",
                    format!("user {user_id} is disabled"),
                ))
            }
            Some(None) => {}
        }
        let new = store::grant(conn, pool_id, user_id, UserId(caller.user_id))?;
        let row = store::one(conn, pool_id, user_id)?;
        Ok((new, keeper_out(row)))
    })
}

/// Takes the role from `user_id` (an admin or a keeper of the pool). The last keeper of a pool
/// with accepted tournaments cannot step down by themselves (409): someone must answer for the
/// list; an admin can still remove them.
pub fn revoke_keeper(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: PoolId,
    user_id: UserId,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| {
        super::load_pool(conn, pool_id.0)?;
        require_keeper(conn, caller, pool_id.0)?;
        // The pool's keepers, locked: two keepers stepping down at once cannot both be "not
        // the last one".
        let keepers = store::lock_all(conn, pool_id)?;
        if !keepers.contains(&user_id) {
            return Err(ApiError::NotFound(format!(
                "user {user_id} does not keep rating pool {pool_id}"
            )));
        }
        if !caller.is_admin && keepers.len() == 1 {
            let accepted = pools::accepted_tournaments(conn, pool_id)?;
            if accepted > 0 {
                return Err(ApiError::conflict_at(
                    "user_id",
                    format!(
                        "the last keeper of rating pool {pool_id} cannot step down while it has \
                         {accepted} accepted tournament(s); grant the role to someone else first, \
                         or ask an admin"
                    ),
                ));
            }
        }
        store::revoke(conn, pool_id, user_id)?;
        Ok(())
    })
}
