//! Sessions for apps (issue 17): a password sign-in starts a session whose refresh token is
//! opaque, stored only as its SHA-256, and rotated on every use; presenting a token that was
//! already rotated means it leaked, so the whole session (the token family) is revoked
//! (RFC 9700, OAuth 2.0 Security BCP, section 4.14.2). Access tokens stay short-lived JWTs that
//! name the account's session epoch; a password change or a sign-out everywhere moves the epoch
//! on and revokes every session.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::secrets::{new_secret, secret_hash};
use crate::auth::{password, Caller};
use crate::db::accounts::sessions as store;
use crate::db::accounts::{end_every_session, users};
use crate::db::ids::{RefreshTokenId, UserId};
use crate::db::models::User;
use crate::db::PgConnection;
use crate::error::ApiError;

/// How long a refresh token is good for if it is not used; each use gives a new one.
pub const REFRESH_TTL: Duration = Duration::days(30);

/// A session just started or continued: who it is for (to issue the access token) and its new
/// refresh token.
#[derive(Debug, Clone)]
pub struct Started {
    pub user_id: i64,
    pub username: String,
    pub is_admin: bool,
    pub session_epoch: i32,
    pub refresh: IssuedRefresh,
    /// When the account's password was given to start it (a sign-in or a password change;
    /// `None`: a refresh).
    pub password_at: Option<DateTime<Utc>>,
}

impl Started {
    fn of(user: &User, refresh: IssuedRefresh, password_at: Option<DateTime<Utc>>) -> Self {
        Started {
            user_id: user.id.0,
            username: user.username.clone(),
            is_admin: user.is_admin,
            session_epoch: user.session_epoch,
            refresh,
            password_at,
        }
    }
}

/// A new refresh token: the secret (shown once) and when it expires.
#[derive(Debug, Clone)]
pub struct IssuedRefresh {
    pub token: String,
    pub expires_at: DateTime<Utc>,
    pub family_id: i64,
}

fn insert_token(
    conn: &mut PgConnection,
    user_id: UserId,
    family: Option<RefreshTokenId>,
    now: DateTime<Utc>,
) -> Result<IssuedRefresh, ApiError> {
    let token = new_secret("rt_");
    let expires_at = now + REFRESH_TTL;
    let family = store::insert(conn, user_id, family, &secret_hash(&token), expires_at)?;
    Ok(IssuedRefresh {
        token,
        expires_at,
        family_id: family.0,
    })
}

/// Starts a session (at `now`) for an account that just signed in with its password; expired
/// tokens of the account are cleared on the way.
pub fn start(
    conn: &mut PgConnection,
    user: &User,
    now: DateTime<Utc>,
) -> Result<IssuedRefresh, ApiError> {
    crate::db::transaction(conn, |conn| {
        store::delete_expired(conn, user.id, now)?;
        insert_token(conn, user.id, None, now)
    })
}

/// What a refresh answered.
enum Refreshed {
    Rotated(Box<User>, IssuedRefresh),
    /// A rotated token came back: its family is now revoked.
    Reused,
}

/// Exchanges a refresh token for the next one (and the account to issue an access token for).
/// 401 for an unknown, expired or revoked token; a token used twice revokes its session, and
/// the answer says so. Tokens are rotated and revoked at `now`.
pub fn refresh(
    conn: &mut PgConnection,
    token: &str,
    now: DateTime<Utc>,
) -> Result<Started, ApiError> {
    check_token(token)?;
    let outcome = crate::db::transaction(conn, |conn| {
        let Some(row) = store::lock_by_hash(conn, &secret_hash(token))? else {
            return Err(unknown());
        };
        if row.revoked_at.is_some() {
            return Err(ApiError::Unauthorized(
                "this session was signed out; sign in again".into(),
            ));
        }
        if row.rotated_at.is_some() {
            store::revoke_family(conn, row.family_id, now)?;
            return Ok(Refreshed::Reused);
        }
        if row.expires_at < now {
            return Err(ApiError::Unauthorized(
                "the refresh token has expired; sign in again".into(),
            ));
        }
        let user = users::one(conn, row.user_id)?;
        if user.disabled_at.is_some() {
            return Err(ApiError::Unauthorized("this account is disabled".into()));
        }
        store::mark_rotated(conn, row.id, now)?;
        let next = insert_token(conn, row.user_id, Some(row.family_id), now)?;
        Ok(Refreshed::Rotated(Box::new(user), next))
    })?;
    match outcome {
        Refreshed::Rotated(user, next) => Ok(Started::of(&user, next, None)),
        Refreshed::Reused => Err(ApiError::Unauthorized(
            "this refresh token was already used: the session is revoked as a precaution; sign in again"
                .into(),
        )),
    }
}

/// 422 for what cannot be a refresh token (ours are `rt_` and 64 hex digits).
fn check_token(token: &str) -> Result<(), ApiError> {
    if token.is_empty() || token.len() > 100 {
        return Err(ApiError::field(
            "refresh_token",
            "must be 1-100 characters (as answered by a sign-in)",
        ));
    }
    Ok(())
}

fn unknown() -> ApiError {
    ApiError::Unauthorized("unknown refresh token; sign in again".into())
}

/// Signing out.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "rt_3f9c...", "everywhere": false}))]
pub struct Logout {
    /// The session's current refresh token.
    #[schema(min_length = 1, max_length = 100)]
    pub refresh_token: String,
    /// Sign out of every session of the account, and refuse every access token issued so far.
    #[serde(default)]
    pub everywhere: bool,
}

/// Signs out: revokes the session of the refresh token (or, with `everywhere`, every session of
/// its account). Needs no access token (an app's may have expired); an unknown or already
/// revoked token is answered the same way, so nothing is learnt from it. Revoked at `now`.
pub fn logout(conn: &mut PgConnection, input: &Logout, now: DateTime<Utc>) -> Result<(), ApiError> {
    check_token(&input.refresh_token)?;
    crate::db::transaction(conn, |conn| {
        match store::lock_by_hash(conn, &secret_hash(&input.refresh_token))? {
            Some(row) if row.revoked_at.is_none() && input.everywhere => {
                Ok(end_every_session(conn, row.user_id, now)?)
            }
            Some(row) if row.revoked_at.is_none() => {
                Ok(store::revoke_family(conn, row.family_id, now)?)
            }
            _ => Ok(()),
        }
    })
}

/// A password change.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "the old passphrase", "new_password": "a new long passphrase"}))]
pub struct ChangePassword {
    #[schema(max_length = 256)]
    pub current_password: String,
    /// 10-256 characters, not the username, not a common password.
    #[schema(min_length = 10, max_length = 256)]
    pub new_password: String,
}

/// Changes the caller's password (the current one is required) and ends every session: every
/// refresh token is revoked and every access token issued before is refused. Returns the
/// new session for the device that made the change (all at `now`).
pub fn change_password(
    conn: &mut PgConnection,
    caller: &Caller,
    input: &ChangePassword,
    now: DateTime<Utc>,
) -> Result<Started, ApiError> {
    let user: User = users::by_id(conn, UserId(caller.user_id))?
        .ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    if !password::verify(&input.current_password, &user.password_hash) {
        return Err(ApiError::field(
            "current_password",
            "is not the account's password",
        ));
    }
    crate::auth::credentials::check_credentials(&user.username, &input.new_password).map_err(
        |e| match e {
            ApiError::Validation(mut fields) => {
                for f in &mut fields {
                    if f.field == "password" {
                        f.field = "new_password".into();
                    }
                }
                ApiError::Validation(fields)
            }
            other => other,
        },
    )?;
    let hash = password::hash(&input.new_password).map_err(ApiError::Internal)?;
    crate::db::transaction(conn, |conn| {
        let id = user.id;
        users::set_password(conn, id, &hash)?;
        end_every_session(conn, id, now)?;
        // A new password cancels an address change waiting for its code (issue 40, item 4).
        crate::services::accounts::tokens::spend_all(
            conn,
            id,
            crate::domain::accounts::TokenPurpose::EmailChange,
            now,
        )?;
        let user = users::one(conn, id)?;
        let session = insert_token(conn, id, None, now)?;
        Ok(Started::of(&user, session, Some(now)))
    })
}

/// An access token with a refresh token, as a sign-in, a refresh or a password change answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionTokens {
    /// Send it as `Authorization: Bearer <access_token>`.
    pub access_token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    /// Seconds until the access token expires.
    #[schema(example = 3600)]
    pub expires_in: u64,
    pub expires_at: DateTime<Utc>,
    /// Exchange it at `POST /auth/refresh` for new tokens before it expires; it works once.
    pub refresh_token: String,
    pub refresh_expires_at: DateTime<Utc>,
}

/// A password sign-in: the account and its new session, or `None` for wrong credentials (the
/// caller counts those for throttling). A disabled account is refused once the password was
/// right. The session starts at `now`.
pub fn sign_in(
    conn: &mut PgConnection,
    username: &str,
    password_plain: &str,
    now: DateTime<Utc>,
) -> Result<Option<Started>, ApiError> {
    let Some(user) = crate::services::accounts::auth::authenticate(conn, username, password_plain)?
    else {
        return Ok(None);
    };
    if user.disabled_at.is_some() {
        return Err(ApiError::Unauthorized("this account is disabled".into()));
    }
    if user.email.is_some() && user.email_verified_at.is_none() {
        return Err(ApiError::Forbidden(
            "verify your e-mail address first: send the code from the message to POST /api/v1/auth/verify-email".into(),
        ));
    }
    let session = start(conn, &user, now)?;
    Ok(Some(Started::of(&user, session, Some(now))))
}
