//! The read model of the invitation page: an invitation by its code, with its tournament, its
//! inviter and its player.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::schema::{invitations, players, tournaments, users};

/// What an invitation is for, as its page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct InvitationPreview {
    pub tournament: String,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub venue: Option<String>,
    /// The inviter's username (none once that account is erased).
    pub inviter: Option<String>,
    /// The address the invitation went to.
    pub email: String,
    /// The player the invitation registers, when it names one.
    pub player: Option<String>,
    pub message: Option<String>,
}

/// An invitation as its page reads it, with what decides whether it can still be accepted.
pub struct Found {
    pub preview: InvitationPreview,
    pub accepted: bool,
    pub revoked: bool,
    pub expires_at: DateTime<Utc>,
}

type Row = (
    String,
    NaiveDate,
    NaiveDate,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    DateTime<Utc>,
);

/// The invitation whose code hashes to `code_hash`, if any.
pub fn by_code_hash(conn: &mut PgConnection, code_hash: &[u8]) -> QueryResult<Option<Found>> {
    let row: Option<Row> = invitations::table
        .inner_join(tournaments::table.on(tournaments::id.eq(invitations::tournament_id)))
        .left_join(users::table.on(users::id.nullable().eq(invitations::invited_by)))
        .left_join(players::table.on(players::id.nullable().eq(invitations::player_id)))
        .filter(invitations::token_hash.eq(code_hash))
        .select((
            tournaments::name,
            tournaments::starts_on,
            tournaments::ends_on,
            tournaments::venue,
            users::username.nullable(),
            invitations::email,
            players::name.nullable(),
            invitations::message,
            invitations::accepted_at,
            invitations::revoked_at,
            invitations::expires_at,
        ))
        .first(conn)
        .optional()?;
    Ok(row.map(
        |(tournament, starts_on, ends_on, venue, inviter, email, player, message, a, r, e)| Found {
            preview: InvitationPreview {
                tournament,
                starts_on,
                ends_on,
                venue,
                inviter,
                email,
                player,
                message,
            },
            accepted: a.is_some(),
            revoked: r.is_some(),
            expires_at: e,
        },
    ))
}
