//! The `account_tokens` table: one-use codes sent by e-mail (address verification, password
//! reset), stored as their SHA-256.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{AccountTokenId, UserId};
use crate::db::schema::account_tokens;
use crate::domain::accounts::TokenPurpose;

/// A stored code as read (never the code itself).
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = account_tokens)]
pub struct CodeRow {
    pub id: AccountTokenId,
    pub user_id: UserId,
    pub purpose: TokenPurpose,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    /// A verification code's sign-up password hash, set when the code is redeemed.
    pub password_hash: Option<String>,
    /// An address-change code's new address.
    pub email: Option<String>,
}

/// A new code for the account: its hash, purpose, expiry and the sign-up password hash it
/// carries (if any).
pub fn insert(
    conn: &mut PgConnection,
    user_id: UserId,
    purpose: TokenPurpose,
    token_hash: &[u8],
    password_hash: Option<&str>,
    expires_at: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::insert_into(account_tokens::table)
        .values((
            account_tokens::user_id.eq(user_id),
            account_tokens::purpose.eq(purpose),
            account_tokens::token_hash.eq(token_hash),
            account_tokens::password_hash.eq(password_hash),
            account_tokens::expires_at.eq(expires_at),
        ))
        .execute(conn)
        .map(drop)
}

/// The code with this hash, its row locked (two uses at once cannot both succeed).
pub fn lock_by_hash(conn: &mut PgConnection, token_hash: &[u8]) -> QueryResult<Option<CodeRow>> {
    account_tokens::table
        .filter(account_tokens::token_hash.eq(token_hash))
        .select(CodeRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Marks the code used at `now`.
pub fn mark_used(
    conn: &mut PgConnection,
    id: AccountTokenId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(account_tokens::table.find(id))
        .set(account_tokens::used_at.eq(Some(now)))
        .execute(conn)
        .map(drop)
}

/// Marks every unused code of the account for `purpose` used at `now`.
pub fn spend_all(
    conn: &mut PgConnection,
    user_id: UserId,
    purpose: TokenPurpose,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(
        account_tokens::table
            .filter(account_tokens::user_id.eq(user_id))
            .filter(account_tokens::purpose.eq(purpose))
            .filter(account_tokens::used_at.is_null()),
    )
    .set(account_tokens::used_at.eq(Some(now)))
    .execute(conn)
    .map(drop)
}

/// A new address-change code for the account: its hash, the new address it confirms and its
/// expiry.
pub fn insert_address_change(
    conn: &mut PgConnection,
    user_id: UserId,
    token_hash: &[u8],
    email: &str,
    expires_at: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::insert_into(account_tokens::table)
        .values((
            account_tokens::user_id.eq(user_id),
            account_tokens::purpose.eq(TokenPurpose::EmailChange),
            account_tokens::token_hash.eq(token_hash),
            account_tokens::email.eq(email),
            account_tokens::expires_at.eq(expires_at),
        ))
        .execute(conn)
        .map(drop)
}

/// The address the account's newest unused address-change code (not expired at `now`) would
/// confirm, if there is one.
pub fn pending_address(
    conn: &mut PgConnection,
    user_id: UserId,
    now: DateTime<Utc>,
) -> QueryResult<Option<String>> {
    account_tokens::table
        .filter(account_tokens::user_id.eq(user_id))
        .filter(account_tokens::purpose.eq(TokenPurpose::EmailChange))
        .filter(account_tokens::used_at.is_null())
        .filter(account_tokens::expires_at.gt(now))
        .order(account_tokens::id.desc())
        .select(account_tokens::email.assume_not_null())
        .first(conn)
        .optional()
}
