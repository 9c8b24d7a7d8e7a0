//! One-time codes sent by e-mail (issue 29): address verification and password reset. A code is
//! a 256-bit random value shown only in the message; the database keeps its SHA-256, when it
//! expires, and when it was used (it works once).

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::auth::secrets::{new_secret, secret_hash};
use crate::db::schema::account_tokens;
use crate::domain::accounts::TokenPurpose;
use crate::error::ApiError;

/// A stored code as read: (id, account, purpose, expires, used, sign-up password hash).
type CodeRow = (
    i64,
    i64,
    TokenPurpose,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<String>,
);

/// A redeemed code: its account, and the password hash of the sign-up that asked for it.
pub struct Redeemed {
    pub user_id: i64,
    pub password_hash: Option<String>,
}

/// A new code for `user_id`, inside the caller's transaction.
pub fn issue(
    conn: &mut PgConnection,
    user_id: i64,
    purpose: TokenPurpose,
) -> Result<String, ApiError> {
    issue_with(conn, user_id, purpose, None)
}

/// A new code for `user_id` that carries `password_hash` (a sign-up's: redeeming the code sets
/// it), inside the caller's transaction.
pub fn issue_with(
    conn: &mut PgConnection,
    user_id: i64,
    purpose: TokenPurpose,
    password_hash: Option<&str>,
) -> Result<String, ApiError> {
    let code = new_secret(purpose.prefix());
    diesel::insert_into(account_tokens::table)
        .values((
            account_tokens::user_id.eq(user_id),
            account_tokens::purpose.eq(purpose),
            account_tokens::token_hash.eq(secret_hash(&code)),
            account_tokens::password_hash.eq(password_hash),
            account_tokens::expires_at
                .eq(Utc::now() + Duration::minutes(purpose.lifetime_minutes())),
        ))
        .execute(conn)?;
    Ok(code)
}

/// The account a code for `purpose` belongs to, the code now used; runs
/// inside the caller's transaction (its row locked, so two uses at once cannot both succeed). 422 naming `field`
/// for a code that is unknown (or for another purpose), expired or already used.
pub fn redeem(
    conn: &mut PgConnection,
    code: &str,
    purpose: TokenPurpose,
    field: &str,
) -> Result<i64, ApiError> {
    redeem_with(conn, code, purpose, field).map(|r| r.user_id)
}

/// As [`redeem`], with the password hash the code carries; inside the caller's transaction.
pub fn redeem_with(
    conn: &mut PgConnection,
    code: &str,
    purpose: TokenPurpose,
    field: &str,
) -> Result<Redeemed, ApiError> {
    if code.is_empty() || code.len() > 100 {
        return Err(ApiError::field(
            field,
            "must be 1-100 characters (the code from the message)",
        ));
    }
    let row: Option<CodeRow> = account_tokens::table
        .filter(account_tokens::token_hash.eq(secret_hash(code)))
        .select((
            account_tokens::id,
            account_tokens::user_id,
            account_tokens::purpose,
            account_tokens::expires_at,
            account_tokens::used_at,
            account_tokens::password_hash,
        ))
        .for_update()
        .first(conn)
        .optional()?;
    let (id, user_id, password_hash) = match row {
        Some((id, user_id, p, expires_at, used_at, password_hash)) if p == purpose => {
            if used_at.is_some() {
                return Err(ApiError::field(field, "this code was already used"));
            }
            if expires_at <= Utc::now() {
                return Err(ApiError::field(
                    field,
                    "this code has expired; ask for a new one",
                ));
            }
            (id, user_id, password_hash)
        }
        _ => return Err(ApiError::field(field, "unknown code")),
    };
    diesel::update(account_tokens::table.find(id))
        .set(account_tokens::used_at.eq(Some(Utc::now())))
        .execute(conn)?;
    Ok(Redeemed {
        user_id,
        password_hash,
    })
}

/// Marks every unused code of the account for `purpose` used, inside the caller's transaction
/// (a password set by one reset code ends the others).
pub fn spend_all(
    conn: &mut PgConnection,
    user_id: i64,
    purpose: TokenPurpose,
) -> Result<(), ApiError> {
    diesel::update(
        account_tokens::table
            .filter(account_tokens::user_id.eq(user_id))
            .filter(account_tokens::purpose.eq(purpose))
            .filter(account_tokens::used_at.is_null()),
    )
    .set(account_tokens::used_at.eq(Some(Utc::now())))
    .execute(conn)?;
    Ok(())
}
