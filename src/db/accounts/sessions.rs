//! The `refresh_tokens` table: sessions (token families) and their rotating refresh tokens,
//! stored as their SHA-256.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{RefreshTokenId, UserId};
use crate::db::schema::refresh_tokens;

/// A refresh token as read (never the token itself).
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = refresh_tokens)]
pub struct RefreshRow {
    pub id: RefreshTokenId,
    /// The session: named after its first token.
    pub family_id: RefreshTokenId,
    pub user_id: UserId,
    pub expires_at: DateTime<Utc>,
    pub rotated_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Stores a refresh token of session `family` (`None`: a new session, named after this first
/// token); returns the session.
pub fn insert(
    conn: &mut PgConnection,
    user_id: UserId,
    family: Option<RefreshTokenId>,
    token_hash: &[u8],
    expires_at: DateTime<Utc>,
) -> QueryResult<RefreshTokenId> {
    let id: RefreshTokenId = diesel::insert_into(refresh_tokens::table)
        .values((
            refresh_tokens::family_id.eq(family.map_or(0, |f| f.0)),
            refresh_tokens::user_id.eq(user_id),
            refresh_tokens::token_hash.eq(token_hash),
            refresh_tokens::expires_at.eq(expires_at),
        ))
        .returning(refresh_tokens::id)
        .get_result(conn)?;
    match family {
        Some(f) => Ok(f),
        None => {
            diesel::update(refresh_tokens::table.find(id))
                .set(refresh_tokens::family_id.eq(id))
                .execute(conn)?;
            Ok(id)
        }
    }
}

/// Deletes the account's tokens that expired before `now`.
pub fn delete_expired(
    conn: &mut PgConnection,
    user_id: UserId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::delete(
        refresh_tokens::table
            .filter(refresh_tokens::user_id.eq(user_id))
            .filter(refresh_tokens::expires_at.lt(now)),
    )
    .execute(conn)
    .map(drop)
}

/// The token with this hash, its row locked.
pub fn lock_by_hash(conn: &mut PgConnection, token_hash: &[u8]) -> QueryResult<Option<RefreshRow>> {
    refresh_tokens::table
        .filter(refresh_tokens::token_hash.eq(token_hash))
        .select(RefreshRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Marks the token rotated (exchanged for its successor) at `now`.
pub fn mark_rotated(
    conn: &mut PgConnection,
    id: RefreshTokenId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(refresh_tokens::table.find(id))
        .set(refresh_tokens::rotated_at.eq(now))
        .execute(conn)
        .map(drop)
}

/// Revokes every token of the session not revoked yet, at `now`.
pub fn revoke_family(
    conn: &mut PgConnection,
    family: RefreshTokenId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::family_id.eq(family))
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set(refresh_tokens::revoked_at.eq(now))
    .execute(conn)
    .map(drop)
}

/// The account's sessions with a token revoked after `since`.
pub fn revoked_since(
    conn: &mut PgConnection,
    user_id: UserId,
    since: DateTime<Utc>,
) -> QueryResult<Vec<RefreshTokenId>> {
    refresh_tokens::table
        .filter(refresh_tokens::user_id.eq(user_id))
        .filter(refresh_tokens::revoked_at.gt(since))
        .select(refresh_tokens::family_id)
        .distinct()
        .load(conn)
}
