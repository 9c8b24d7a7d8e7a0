//! One-time codes sent by e-mail (issue 29): address verification and password reset. A code is
//! a 256-bit random value shown only in the message; the database keeps its SHA-256, when it
//! expires, and when it was used (it works once).

use chrono::{DateTime, Duration, Utc};

use crate::auth::secrets::{new_secret, secret_hash};
use crate::db::accounts::tokens as store;
use crate::db::accounts::users;
use crate::db::ids::UserId;
use crate::db::models::User;
use crate::db::PgConnection;
use crate::domain::accounts::TokenPurpose;
use crate::error::ApiError;

/// A redeemed code: its account, the password hash of the sign-up that asked for it, what it
/// was for, and the new address an address-change code confirms.
pub struct Redeemed {
    pub user_id: UserId,
    pub password_hash: Option<String>,
    pub purpose: TokenPurpose,
    pub email: Option<String>,
}

/// A new code for `user_id`, issued at `now`, inside the caller's transaction.
pub fn issue(
    conn: &mut PgConnection,
    user_id: UserId,
    purpose: TokenPurpose,
    now: DateTime<Utc>,
) -> Result<String, ApiError> {
    issue_with(conn, user_id, purpose, None, now)
}

/// A new code for `user_id` that carries `password_hash` (a sign-up's: redeeming the code sets
/// it), issued at `now`, inside the caller's transaction.
pub fn issue_with(
    conn: &mut PgConnection,
    user_id: UserId,
    purpose: TokenPurpose,
    password_hash: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String, ApiError> {
    let code = new_secret(purpose.prefix());
    let expires_at = now + Duration::minutes(purpose.lifetime_minutes());
    store::insert(
        conn,
        user_id,
        purpose,
        &secret_hash(&code),
        password_hash,
        expires_at,
    )?;
    Ok(code)
}

/// The account a code for `purpose` belongs to, the code now used (at `now`); runs inside the
/// caller's transaction (its row locked, so two uses at once cannot both succeed). 422 naming
/// `field` for a code that is unknown (or for another purpose), expired or already used.
pub fn redeem(
    conn: &mut PgConnection,
    code: &str,
    purpose: TokenPurpose,
    field: &str,
    now: DateTime<Utc>,
) -> Result<UserId, ApiError> {
    redeem_with(conn, code, purpose, field, now).map(|r| r.user_id)
}

/// As [`redeem`], with the password hash the code carries; inside the caller's transaction.
pub fn redeem_with(
    conn: &mut PgConnection,
    code: &str,
    purpose: TokenPurpose,
    field: &str,
    now: DateTime<Utc>,
) -> Result<Redeemed, ApiError> {
    redeem_any(conn, code, &[purpose], field, now)
}

/// As [`redeem_with`], for a code of any of `purposes` (the answer says which); inside the
/// caller's transaction.
pub fn redeem_any(
    conn: &mut PgConnection,
    code: &str,
    purposes: &[TokenPurpose],
    field: &str,
    now: DateTime<Utc>,
) -> Result<Redeemed, ApiError> {
    if code.is_empty() || code.len() > 100 {
        return Err(ApiError::field(
            field,
            "must be 1-100 characters (the code from the message)",
        ));
    }
    let row = match store::lock_by_hash(conn, &secret_hash(code))? {
        Some(row) if purposes.contains(&row.purpose) => row,
        _ => return Err(ApiError::field(field, "unknown code")),
    };
    if row.used_at.is_some() {
        return Err(ApiError::field(field, "this code was already used"));
    }
    if row.expires_at <= now {
        return Err(ApiError::field(
            field,
            "this code has expired; ask for a new one",
        ));
    }
    store::mark_used(conn, row.id, now)?;
    Ok(Redeemed {
        user_id: row.user_id,
        password_hash: row.password_hash,
        purpose: row.purpose,
        email: row.email,
    })
}

/// The account of a redeemed code, its row locked, while it may use the code: 422 naming
/// `token` when it is disabled or deleted. The caller's transaction then rolls back, so the
/// code stays unspent: a disabled account's code works once an admin enables the account again
/// (within the code's lifetime).
pub fn open_account(conn: &mut PgConnection, user_id: UserId) -> Result<User, ApiError> {
    let user = users::lock(conn, user_id)?;
    if user.deleted_at.is_some() || user.disabled_at.is_some() {
        return Err(ApiError::field(
            "token",
            "the account of this code is closed",
        ));
    }
    Ok(user)
}

/// Marks every unused code of the account for `purpose` used (at `now`), inside the caller's
/// transaction (a password set by one reset code ends the others).
pub fn spend_all(
    conn: &mut PgConnection,
    user_id: UserId,
    purpose: TokenPurpose,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    Ok(store::spend_all(conn, user_id, purpose, now)?)
}

/// A new address-change code for `user_id` confirming `email`, issued at `now`, inside the
/// caller's transaction.
pub fn issue_address_change(
    conn: &mut PgConnection,
    user_id: UserId,
    email: &str,
    now: DateTime<Utc>,
) -> Result<String, ApiError> {
    let purpose = TokenPurpose::EmailChange;
    let code = new_secret(purpose.prefix());
    let expires_at = now + Duration::minutes(purpose.lifetime_minutes());
    store::insert_address_change(conn, user_id, &secret_hash(&code), email, expires_at)?;
    Ok(code)
}
