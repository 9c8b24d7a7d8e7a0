//! Signing in and the signed-in user.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{password, Caller, StaffRole};
use crate::db::accounts::{roles, sessions, tokens, users};
use crate::db::ids::UserId;
use crate::db::models::User;
use crate::db::PgConnection;
use crate::error::ApiError;

/// Credentials to exchange for a token.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "kari", "password": "a long passphrase"}))]
pub struct TokenRequest {
    #[schema(example = "admin", max_length = 64)]
    pub username: String,
    #[schema(example = "correct horse battery staple", max_length = 256)]
    pub password: String,
}

/// A role held in one tournament.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentRole {
    pub tournament_id: i64,
    pub role: StaffRole,
}

/// The signed-in user.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    pub id: i64,
    pub username: String,
    /// The one global role.
    pub is_admin: bool,
    /// The player identity linked to this account, if any.
    pub player_id: Option<i64>,
    /// Staff roles per tournament (organiser, referee, appeals committee).
    pub tournament_roles: Vec<TournamentRole>,
    /// The account's e-mail address (accounts an admin made may have none).
    #[schema(example = "kari@example.no")]
    pub email: Option<String>,
    /// Whether the address was proved by a code sent to it.
    pub email_verified: bool,
    /// The language of the account's messages: `en`, `nb`, `pl`, `de` or `zh-Hant`.
    #[schema(example = "nb")]
    pub language: String,
    /// The address an address change waits to confirm (the code went there; `PATCH /me`),
    /// until the code is used or expires; the account's address stays `email` until then.
    #[schema(example = "kari@club.example")]
    pub pending_email: Option<String>,
}

/// The account these credentials belong to, or None for wrong credentials. A miss costs the
/// same password hash as a hit, so timing does not tell which part was wrong.
pub fn authenticate(
    conn: &mut PgConnection,
    username: &str,
    password_plain: &str,
) -> Result<Option<User>, ApiError> {
    // Only a name that could exist is looked up (this also keeps NUL bytes, which PostgreSQL
    // refuses in text, away from the query); the rest costs a dummy hash like a miss.
    if !crate::auth::credentials::is_valid_username(username) {
        password::verify_dummy(password_plain);
        return Ok(None);
    }
    match users::by_username(conn, username)? {
        Some(u) if password::verify(password_plain, &u.password_hash) => Ok(Some(u)),
        Some(_) => Ok(None),
        None => {
            password::verify_dummy(password_plain);
            Ok(None)
        }
    }
}

/// The caller's account, linked player and tournament roles, its address and language, and the
/// address a change waits to confirm (as of `now`).
pub fn me(conn: &mut PgConnection, caller: &Caller, now: DateTime<Utc>) -> Result<Me, ApiError> {
    let user: User = users::by_id(conn, UserId(caller.user_id))?
        .ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    let player_id = users::player_of(conn, user.id)?;
    let roles = roles::of_user(conn, user.id)?;
    let pending_email = tokens::pending_address(conn, user.id, now)?;
    Ok(Me {
        id: user.id.0,
        username: user.username,
        is_admin: user.is_admin,
        player_id: player_id.map(|p| p.0),
        tournament_roles: roles
            .into_iter()
            .filter_map(|(tournament, r)| {
                StaffRole::parse(&r).map(|role| TournamentRole {
                    tournament_id: tournament.0,
                    role,
                })
            })
            .collect(),
        email_verified: user.email.is_some() && user.email_verified_at.is_some(),
        email: user.email,
        language: user.language.as_str().to_string(),
        pending_email,
    })
}

/// How long a looked-up account is trusted before it is read again: a role change, a deletion,
/// a sign-out (of one session or everywhere), a password change and a session revoked for a
/// reused refresh token take effect on every access token within this time.
pub const ACCOUNT_TTL: std::time::Duration = std::time::Duration::from_secs(2);

/// What a token's holder is now: the account's name and global role as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub username: String,
    pub is_admin: bool,
    /// Access tokens issued before this epoch are refused.
    pub session_epoch: i32,
    pub disabled: bool,
    /// Sessions (refresh-token families) revoked within the longest life of an access token
    /// (24 h): access tokens issued for them are refused.
    pub revoked_sessions: Vec<i64>,
}

/// The accounts behind recently used tokens (this instance's; `None`: deleted), so most
/// requests need no query and a change still shows within [`ACCOUNT_TTL`].
#[derive(Debug, Clone)]
pub struct AccountCache {
    entries: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<i64, CachedAccount>>>,
    /// API keys by the SHA-256 of their secret, trusted as long as accounts. A made-up key is
    /// kept too (as `None`), so this is a capped map whose entries leave after [`ACCOUNT_TTL`].
    keys: moka::sync::Cache<Vec<u8>, Option<crate::auth::keys::KeyHolder>>,
    /// The SHA-256 of the API keys found live within [`KNOWN_KEY_TTL`]: the rate limiter
    /// counts such a key as itself, any other as its address (issue 43), without a query.
    known_keys: moka::sync::Cache<Vec<u8>, ()>,
}

/// How long an API key found live is counted on its own by the rate limiter (a key revoked
/// meanwhile stops counting on its own at its next use, when it is read again).
pub const KNOWN_KEY_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// The most API keys remembered (read, and known live).
const KEY_CAPACITY: u64 = 100_000;

impl Default for AccountCache {
    fn default() -> Self {
        AccountCache {
            entries: Default::default(),
            keys: key_cache(ACCOUNT_TTL),
            known_keys: key_cache(KNOWN_KEY_TTL),
        }
    }
}

/// A map of key digests whose entries leave `ttl` after they were stored, at most
/// [`KEY_CAPACITY`] of them.
fn key_cache<V: Clone + Send + Sync + 'static>(
    ttl: std::time::Duration,
) -> moka::sync::Cache<Vec<u8>, V> {
    moka::sync::Cache::builder()
        .max_capacity(KEY_CAPACITY)
        .time_to_live(ttl)
        .build()
}

/// When an account was read, and what was read (`None`: deleted).
type CachedAccount = (std::time::Instant, Option<Account>);

impl AccountCache {
    /// The cached account, if it was read within [`ACCOUNT_TTL`].
    pub fn fresh(&self, user_id: i64) -> Option<Option<Account>> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(&user_id)
            .filter(|(at, _)| at.elapsed() < ACCOUNT_TTL)
            .map(|(_, a)| a.clone())
    }

    /// Remembers what was read.
    pub fn store(&self, user_id: i64, account: Option<Account>) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() > 100_000 {
            entries.retain(|_, (at, _)| at.elapsed() < ACCOUNT_TTL);
        }
        entries.insert(user_id, (std::time::Instant::now(), account));
    }

    /// The cached holder of the key with this hash, if read within [`ACCOUNT_TTL`].
    pub fn fresh_key(&self, hash: &[u8]) -> Option<Option<crate::auth::keys::KeyHolder>> {
        self.keys.get(hash)
    }

    /// Remembers what was read for a key: a live key is known for [`KNOWN_KEY_TTL`], a dead
    /// one no longer.
    pub fn store_key(&self, hash: Vec<u8>, holder: Option<crate::auth::keys::KeyHolder>) {
        if holder.is_some() {
            self.known_keys.insert(hash.clone(), ());
        } else {
            self.known_keys.invalidate(&hash);
        }
        self.keys.insert(hash, holder);
    }

    /// Whether the key with this hash was found live within [`KNOWN_KEY_TTL`] (no query).
    pub fn is_known_key(&self, hash: &[u8]) -> bool {
        self.known_keys.contains_key(hash)
    }
}

/// The account a token names, as stored at `now` (`None` when it was deleted).
pub fn account_of(
    conn: &mut PgConnection,
    user_id: i64,
    now: DateTime<Utc>,
) -> Result<Option<Account>, ApiError> {
    let revoked_sessions =
        sessions::revoked_since(conn, UserId(user_id), now - chrono::Duration::days(1))?;
    Ok(
        users::state_of(conn, UserId(user_id))?.map(|state| Account {
            username: state.username,
            is_admin: state.is_admin,
            session_epoch: state.session_epoch,
            disabled: state.disabled,
            revoked_sessions: revoked_sessions.into_iter().map(|s| s.0).collect(),
        }),
    )
}
