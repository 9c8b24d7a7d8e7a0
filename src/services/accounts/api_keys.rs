//! API keys for scripts and club websites (issue 17): a user creates named keys with scopes and
//! an optional tournament or rating pool; the key is shown once and stored as its SHA-256;
//! revocable; its last use is recorded. A key acts as its owner, within its scopes
//! (`auth::keys::KeyLimits`, checked per request) and the owner's own roles.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::keys::KeyHolder;
use crate::auth::keys::{KeyLimits, Scope};
use crate::auth::secrets::{new_secret, secret_hash};
use crate::auth::Caller;
use crate::db::accounts::api_keys::{self as store, KeyRow, NewKey};
use crate::db::accounts::users;
use crate::db::ids::{ApiKeyId, PoolId, TournamentId, UserId};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::validate::Check;

/// The most live keys one account may hold.
const MAX_KEYS: i64 = 50;

/// How long after the password was given its access token may create a key without it.
pub const RECENT_PASSWORD: chrono::Duration = chrono::Duration::minutes(10);

/// A new key.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "club website standings", "scopes": ["read"], "tournament_id": 12}))]
pub struct CreateApiKey {
    /// What the key is for (1-100 characters).
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    /// At least one; `admin` only for admins.
    #[schema(min_items = 1, max_items = 4)]
    pub scopes: Vec<Scope>,
    /// Limit the key to this tournament's paths (its owner's `/me/tournaments` and `/me/games`
    /// then show this tournament only).
    pub tournament_id: Option<i64>,
    /// Limit the key to this rating pool's paths (its owner's `/me/tournaments` and `/me/games`
    /// then show no tournament).
    pub pool_id: Option<i64>,
    /// When the key stops working (none: until revoked).
    pub expires_at: Option<DateTime<Utc>>,
    /// The account's password. Needed unless the access token was answered by a sign-in (or a
    /// password change) in the last ten minutes: a key outlives every session, so a token
    /// alone (say one copied from a device) does not make one. A wrong one counts as a
    /// failed sign-in.
    #[schema(min_length = 1, max_length = 1000)]
    pub current_password: Option<String>,
}

/// A key as listed (never the secret).
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyOut {
    pub id: i64,
    pub name: String,
    /// The key's first characters, to tell keys apart.
    #[schema(example = "tk_3f9c1a")]
    pub prefix: String,
    pub scopes: Vec<Scope>,
    pub tournament_id: Option<i64>,
    pub pool_id: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    /// Within a minute.
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A key just created: the secret is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyCreated {
    /// Send it as `Authorization: Bearer <key>`; it is not shown again.
    #[schema(example = "tk_3f9c1a...")]
    pub key: String,
    pub api_key: ApiKeyOut,
}

fn out(row: KeyRow) -> ApiKeyOut {
    ApiKeyOut {
        id: row.id.0,
        name: row.name,
        prefix: row.prefix,
        scopes: row.scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        tournament_id: row.tournament_id.map(|t| t.0),
        pool_id: row.pool_id.map(|p| p.0),
        created_at: row.created_at,
        expires_at: row.expires_at,
        last_used_at: row.last_used_at,
        revoked_at: row.revoked_at,
    }
}

/// Creates a key for the caller (a signed-in session: keys do not make keys); an expiry must be
/// after `now`.
pub fn create(
    conn: &mut PgConnection,
    caller: &Caller,
    input: CreateApiKey,
    now: DateTime<Utc>,
) -> Result<ApiKeyCreated, ApiError> {
    let mut check = Check::new();
    check.text("name", &input.name, 100);
    let scopes: BTreeSet<Scope> = input.scopes.iter().copied().collect();
    check.ensure(
        (1..=4).contains(&input.scopes.len()),
        "scopes",
        "name 1 to 4 scopes",
    );
    check.ensure(
        !scopes.contains(&Scope::Admin) || caller.is_admin,
        "scopes",
        "only an admin may create a key with the `admin` scope",
    );
    check.ensure(
        input.tournament_id.is_none() || input.pool_id.is_none(),
        "pool_id",
        "limit a key to a tournament or to a rating pool, not both",
    );
    if let Some(at) = input.expires_at {
        check.ensure(at > now, "expires_at", "must be in the future");
    }
    check.finish()?;
    password_given(conn, caller, input.current_password.as_deref(), now)?;
    if let Some(tid) = input.tournament_id {
        if !store::tournament_exists(conn, TournamentId(tid))? {
            return Err(ApiError::field("tournament_id", "no such tournament"));
        }
    }
    if let Some(pid) = input.pool_id {
        if !crate::db::ratings::pools::exists(conn, PoolId(pid))? {
            return Err(ApiError::field("pool_id", "no such rating pool"));
        }
    }
    let owner = UserId(caller.user_id);
    crate::db::transaction(conn, |conn| {
        // The owner's row serialises key creation, so the limit holds under concurrency.
        users::lock_row(conn, owner)?;
        if store::live_count(conn, owner)? >= MAX_KEYS {
            return Err(ApiError::Conflict(format!(
                "an account holds at most {MAX_KEYS} live keys; revoke one first"
            )));
        }
        let key = new_secret("tk_");
        let row = store::insert(
            conn,
            NewKey {
                user_id: owner,
                name: input.name.trim(),
                prefix: &key[..9],
                key_hash: &secret_hash(&key),
                scopes: scopes.iter().map(|s| s.as_str()).collect(),
                tournament_id: input.tournament_id.map(TournamentId),
                pool_id: input.pool_id.map(PoolId),
                expires_at: input.expires_at,
            },
        )?;
        Ok(ApiKeyCreated {
            key,
            api_key: out(row),
        })
    })
}

/// 422 naming `current_password` unless the caller gave the account's password now, or its
/// access token was answered to the password less than [`RECENT_PASSWORD`] before `now`.
fn password_given(
    conn: &mut PgConnection,
    caller: &Caller,
    given: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let Some(given) = given else {
        let recent = caller
            .password_at
            .is_some_and(|at| now - at <= RECENT_PASSWORD);
        return if recent {
            Ok(())
        } else {
            Err(ApiError::field(
                "current_password",
                "give the account's password: this access token was not answered to a \
                 sign-in in the last ten minutes, and a key outlives every session",
            ))
        };
    };
    let user = users::by_id(conn, UserId(caller.user_id))?
        .ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    if crate::auth::password::verify(given, &user.password_hash) {
        Ok(())
    } else {
        Err(ApiError::field(
            "current_password",
            "is not the account's password",
        ))
    }
}

/// The caller's keys, newest first, revoked ones included.
pub fn list(conn: &mut PgConnection, caller: &Caller) -> Result<Vec<ApiKeyOut>, ApiError> {
    let rows = store::of_user(conn, UserId(caller.user_id))?;
    Ok(rows.into_iter().map(out).collect())
}

/// One of the caller's keys (never its secret).
pub fn read(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<ApiKeyOut, ApiError> {
    store::one_of_user(conn, UserId(caller.user_id), ApiKeyId(id))?
        .map(out)
        .ok_or_else(|| ApiError::NotFound(format!("you have no key {id}")))
}

/// Revokes one of the caller's keys (admins: anyone's) at `now`; it stops working within
/// seconds.
pub fn revoke(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| match store::owner(conn, ApiKeyId(id))? {
        Some(o) if o.0 == caller.user_id || caller.is_admin => {
            Ok(store::revoke(conn, ApiKeyId(id), now)?)
        }
        _ => Err(ApiError::NotFound(format!("you have no API key {id}"))),
    })
}

/// The live key with this secret at `now` and its owner (`None`: unknown, revoked, expired, or
/// its owner disabled or deleted). Records the use at most once a minute, in one statement (no
/// transaction needed: a lost update of the last use is harmless).
pub fn holder(
    conn: &mut PgConnection,
    secret: &str,
    now: DateTime<Utc>,
) -> Result<Option<KeyHolder>, ApiError> {
    let Some(row) = store::live_by_hash(conn, &secret_hash(secret), now)? else {
        return Ok(None);
    };
    if row
        .last_used_at
        .is_none_or(|u| now - u > chrono::Duration::seconds(60))
    {
        store::touch(conn, row.key_id, now)?;
    }
    Ok(Some(KeyHolder {
        user_id: row.user_id.0,
        username: row.username,
        is_admin: row.is_admin,
        limits: KeyLimits {
            key_id: row.key_id.0,
            scopes: row.scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
            tournament_id: row.tournament_id.map(|t| t.0),
            pool_id: row.pool_id.map(|p| p.0),
        },
    }))
}
