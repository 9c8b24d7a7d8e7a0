//! Invitations to a tournament (issue 29, item 4): stored with the SHA-256 of their code only;
//! and the read model of the invitation page (an invitation by its code, with its tournament,
//! its inviter and its player).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{InvitationId, PlayerId, TournamentId, UserId};
use crate::db::schema::{invitations, players, tournaments, users};

/// An invitation (never its code's hash).
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = invitations)]
pub struct InvitationRow {
    pub id: InvitationId,
    pub tournament_id: TournamentId,
    pub email: String,
    pub player_id: Option<PlayerId>,
    pub message: Option<String>,
    pub invited_by: Option<UserId>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub accepted_at: Option<DateTime<Utc>>,
    pub accepted_by: Option<UserId>,
}

/// A new invitation.
#[derive(Debug, Insertable)]
#[diesel(table_name = invitations)]
pub struct NewInvitation<'a> {
    pub tournament_id: TournamentId,
    pub email: &'a str,
    pub player_id: Option<PlayerId>,
    pub message: Option<&'a str>,
    pub invited_by: UserId,
    pub token_hash: Vec<u8>,
    pub expires_at: DateTime<Utc>,
}

/// Stores a new invitation.
pub fn insert(conn: &mut PgConnection, new: &NewInvitation<'_>) -> QueryResult<InvitationRow> {
    diesel::insert_into(invitations::table)
        .values(new)
        .returning(InvitationRow::as_returning())
        .get_result(conn)
}

/// How many invitations tournament `t` has.
pub fn count_of(conn: &mut PgConnection, t: TournamentId) -> QueryResult<i64> {
    invitations::table
        .filter(invitations::tournament_id.eq(t))
        .count()
        .get_result(conn)
}

/// A page of tournament `t`'s invitations, oldest first.
pub fn page_of(
    conn: &mut PgConnection,
    t: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<InvitationRow>> {
    invitations::table
        .filter(invitations::tournament_id.eq(t))
        .order(invitations::id)
        .select(InvitationRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// Invitation `id` of tournament `t`, its row locked (`FOR UPDATE`).
pub fn lock_in(
    conn: &mut PgConnection,
    t: TournamentId,
    id: InvitationId,
) -> QueryResult<Option<InvitationRow>> {
    invitations::table
        .find(id.0)
        .filter(invitations::tournament_id.eq(t))
        .select(InvitationRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// The invitation whose code hashes to `hash`, its row locked (`FOR UPDATE`).
pub fn lock_by_code_hash(
    conn: &mut PgConnection,
    hash: &[u8],
) -> QueryResult<Option<InvitationRow>> {
    invitations::table
        .filter(invitations::token_hash.eq(hash))
        .select(InvitationRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Revokes invitation `id` at `now`.
pub fn revoke(
    conn: &mut PgConnection,
    id: InvitationId,
    now: DateTime<Utc>,
) -> QueryResult<InvitationRow> {
    diesel::update(invitations::table.find(id.0))
        .set(invitations::revoked_at.eq(Some(now)))
        .returning(InvitationRow::as_returning())
        .get_result(conn)
}

/// Spends invitation `id`: accepted by account `by` at `now`.
pub fn set_accepted(
    conn: &mut PgConnection,
    id: InvitationId,
    by: UserId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(invitations::table.find(id.0))
        .set((
            invitations::accepted_at.eq(Some(now)),
            invitations::accepted_by.eq(Some(by)),
        ))
        .execute(conn)?;
    Ok(())
}

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

type PageRow = (
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
    let row: Option<PageRow> = invitations::table
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
