//! API keys for scripts and club websites (issue 17): a user creates named keys with scopes and
//! an optional tournament or rating pool; the key is shown once and stored as its SHA-256;
//! revocable; its last use is recorded. A key acts as its owner, within its scopes
//! (`auth::keys::KeyLimits`, checked per request) and the owner's own roles.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::keys::KeyHolder;
use crate::auth::keys::{KeyLimits, Scope};
use crate::auth::secrets::{new_secret, secret_hash};
use crate::auth::Caller;
use crate::db::schema::{api_keys, rating_pools, tournaments, users};
use crate::error::ApiError;
use crate::services::validate::Check;

/// The most live keys one account may hold.
const MAX_KEYS: i64 = 50;

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
    /// Limit the key to this tournament's paths.
    pub tournament_id: Option<i64>,
    /// Limit the key to this rating pool's paths.
    pub pool_id: Option<i64>,
    /// When the key stops working (none: until revoked).
    pub expires_at: Option<DateTime<Utc>>,
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

type KeyRow = (
    i64,
    String,
    String,
    Vec<String>,
    Option<i64>,
    Option<i64>,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

fn out(row: KeyRow) -> ApiKeyOut {
    let (id, name, prefix, scopes, tournament_id, pool_id, created_at, expires_at, used, revoked) =
        row;
    ApiKeyOut {
        id,
        name,
        prefix,
        scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        tournament_id,
        pool_id,
        created_at,
        expires_at,
        last_used_at: used,
        revoked_at: revoked,
    }
}

fn columns() -> (
    api_keys::id,
    api_keys::name,
    api_keys::prefix,
    api_keys::scopes,
    api_keys::tournament_id,
    api_keys::pool_id,
    api_keys::created_at,
    api_keys::expires_at,
    api_keys::last_used_at,
    api_keys::revoked_at,
) {
    (
        api_keys::id,
        api_keys::name,
        api_keys::prefix,
        api_keys::scopes,
        api_keys::tournament_id,
        api_keys::pool_id,
        api_keys::created_at,
        api_keys::expires_at,
        api_keys::last_used_at,
        api_keys::revoked_at,
    )
}

/// Creates a key for the caller (a signed-in session: keys do not make keys).
pub fn create(
    conn: &mut PgConnection,
    caller: &Caller,
    input: CreateApiKey,
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
        check.ensure(at > Utc::now(), "expires_at", "must be in the future");
    }
    check.finish()?;
    if let Some(tid) = input.tournament_id {
        let found: i64 = tournaments::table
            .filter(tournaments::id.eq(tid))
            .count()
            .get_result(conn)?;
        if found == 0 {
            return Err(ApiError::field("tournament_id", "no such tournament"));
        }
    }
    if let Some(pid) = input.pool_id {
        let found: i64 = rating_pools::table
            .filter(rating_pools::id.eq(pid))
            .count()
            .get_result(conn)?;
        if found == 0 {
            return Err(ApiError::field("pool_id", "no such rating pool"));
        }
    }
    conn.transaction(|conn| {
        // The owner's row serialises key creation, so the limit holds under concurrency.
        users::table
            .find(caller.user_id)
            .select(users::id)
            .for_update()
            .first::<i64>(conn)?;
        let live: i64 = api_keys::table
            .filter(api_keys::user_id.eq(caller.user_id))
            .filter(api_keys::revoked_at.is_null())
            .count()
            .get_result(conn)?;
        if live >= MAX_KEYS {
            return Err(ApiError::Conflict(format!(
                "an account holds at most {MAX_KEYS} live keys; revoke one first"
            )));
        }
        let key = new_secret("tk_");
        let row: KeyRow = diesel::insert_into(api_keys::table)
            .values((
                api_keys::user_id.eq(caller.user_id),
                api_keys::name.eq(input.name.trim()),
                api_keys::prefix.eq(&key[..9]),
                api_keys::key_hash.eq(secret_hash(&key)),
                api_keys::scopes.eq(scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>()),
                api_keys::tournament_id.eq(input.tournament_id),
                api_keys::pool_id.eq(input.pool_id),
                api_keys::expires_at.eq(input.expires_at),
            ))
            .returning(columns())
            .get_result(conn)?;
        Ok(ApiKeyCreated {
            key,
            api_key: out(row),
        })
    })
}

/// The caller's keys, newest first, revoked ones included.
pub fn list(conn: &mut PgConnection, caller: &Caller) -> Result<Vec<ApiKeyOut>, ApiError> {
    let rows: Vec<KeyRow> = api_keys::table
        .filter(api_keys::user_id.eq(caller.user_id))
        .order(api_keys::id.desc())
        .select(columns())
        .load(conn)?;
    Ok(rows.into_iter().map(out).collect())
}

/// One of the caller's keys (never its secret).
pub fn read(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<ApiKeyOut, ApiError> {
    let row: Option<KeyRow> = api_keys::table
        .filter(api_keys::user_id.eq(caller.user_id))
        .filter(api_keys::id.eq(id))
        .select(columns())
        .first(conn)
        .optional()?;
    row.map(out)
        .ok_or_else(|| ApiError::NotFound(format!("you have no key {id}")))
}

/// Revokes one of the caller's keys (admins: anyone's); it stops working within seconds.
pub fn revoke(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<(), ApiError> {
    conn.transaction(|conn| {
        let owner: Option<i64> = api_keys::table
            .find(id)
            .select(api_keys::user_id)
            .first(conn)
            .optional()?;
        match owner {
            Some(o) if o == caller.user_id || caller.is_admin => {
                diesel::update(
                    api_keys::table
                        .find(id)
                        .filter(api_keys::revoked_at.is_null()),
                )
                .set(api_keys::revoked_at.eq(Utc::now()))
                .execute(conn)?;
                Ok(())
            }
            _ => Err(ApiError::NotFound(format!("you have no API key {id}"))),
        }
    })
}

/// A live key and its owner: (key id, scopes, tournament, pool, last used, owner id, name, admin).
type HolderRow = (
    i64,
    Vec<String>,
    Option<i64>,
    Option<i64>,
    Option<DateTime<Utc>>,
    i64,
    String,
    bool,
);

/// The live key with this secret and its owner (`None`: unknown, revoked, expired, or its owner
/// disabled or deleted). Records the use at most once a minute, in one statement (no
/// transaction needed: a lost update of the last use is harmless).
pub fn holder(conn: &mut PgConnection, secret: &str) -> Result<Option<KeyHolder>, ApiError> {
    let now = Utc::now();
    let row: Option<HolderRow> = api_keys::table
        .inner_join(users::table)
        .filter(api_keys::key_hash.eq(secret_hash(secret)))
        .filter(api_keys::revoked_at.is_null())
        .filter(
            api_keys::expires_at
                .is_null()
                .or(api_keys::expires_at.gt(now)),
        )
        .filter(users::disabled_at.is_null())
        .select((
            api_keys::id,
            api_keys::scopes,
            api_keys::tournament_id,
            api_keys::pool_id,
            api_keys::last_used_at,
            users::id,
            users::username,
            users::is_admin,
        ))
        .first(conn)
        .optional()?;
    let Some((key_id, scopes, tournament_id, pool_id, used, user_id, username, is_admin)) = row
    else {
        return Ok(None);
    };
    if used.is_none_or(|u| now - u > chrono::Duration::seconds(60)) {
        diesel::update(api_keys::table.find(key_id))
            .set(api_keys::last_used_at.eq(now))
            .execute(conn)?;
    }
    Ok(Some(KeyHolder {
        user_id,
        username,
        is_admin,
        limits: KeyLimits {
            key_id,
            scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
            tournament_id,
            pool_id,
        },
    }))
}
