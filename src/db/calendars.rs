//! Players' private calendar feeds (issue 41 item 4): the hash of each feed's token.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, UserId};
use crate::db::schema::{calendar_feeds, players, users};

/// Sets the player's feed to the token of hash `token_hash` (the previous one stops working).
pub fn replace(
    conn: &mut PgConnection,
    player: PlayerId,
    token_hash: &str,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::insert_into(calendar_feeds::table)
        .values((
            calendar_feeds::player_id.eq(player),
            calendar_feeds::token_hash.eq(token_hash),
            calendar_feeds::created_at.eq(now),
        ))
        .on_conflict(calendar_feeds::player_id)
        .do_update()
        .set((
            calendar_feeds::token_hash.eq(token_hash),
            calendar_feeds::created_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// Removes the player's feed; how many there were (0 or 1).
pub fn remove(conn: &mut PgConnection, player: PlayerId) -> QueryResult<usize> {
    diesel::delete(calendar_feeds::table.find(player)).execute(conn)
}

/// Removes the feed of the player linked to account `user`, if any; how many there were (0 or
/// 1).
pub fn remove_of_account(conn: &mut PgConnection, user: UserId) -> QueryResult<usize> {
    diesel::delete(
        calendar_feeds::table.filter(
            calendar_feeds::player_id.eq_any(
                players::table
                    .filter(players::user_id.eq(user))
                    .select(players::id),
            ),
        ),
    )
    .execute(conn)
}

/// The player whose feed has the token of hash `token_hash`, while the account the player is
/// linked to is enabled (a disabled account's feed is kept, and answers again once the account
/// is enabled again).
pub fn player_of(conn: &mut PgConnection, token_hash: &str) -> QueryResult<Option<PlayerId>> {
    calendar_feeds::table
        .inner_join(players::table.on(players::id.eq(calendar_feeds::player_id)))
        .inner_join(users::table.on(players::user_id.eq(users::id.nullable())))
        .filter(calendar_feeds::token_hash.eq(token_hash))
        .filter(users::disabled_at.is_null())
        .filter(users::deleted_at.is_null())
        .select(calendar_feeds::player_id)
        .first(conn)
        .optional()
}
