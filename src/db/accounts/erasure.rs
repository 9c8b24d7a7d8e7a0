//! Removing an account (an admin's deletion, a person's erasure) and erasing its player: what
//! goes with them, and the tombstones kept where records still refer to them.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error};
use diesel::PgConnection;

use crate::db::ids::{PlayerId, UserId};
use crate::db::schema::{
    account_tokens, api_keys, invitations, mail_outbox, player_claims, players, rating_changes,
    refresh_tokens, tournament_staff, users,
};

/// Removes what belongs to the account, inside the caller's transaction: its player link,
/// its claims (their messages are its words), the invitations it accepted or that were sent to
/// its address `email` (they hold the address), its staff roles, keys, sessions, codes, and the
/// mail to it or to its address.
pub fn forget_belongings(
    conn: &mut PgConnection,
    id: UserId,
    email: Option<&str>,
) -> QueryResult<()> {
    diesel::update(players::table.filter(players::user_id.eq(id)))
        .set(players::user_id.eq(None::<i64>))
        .execute(conn)?;
    diesel::delete(player_claims::table.filter(player_claims::user_id.eq(id))).execute(conn)?;
    diesel::delete(invitations::table.filter(invitations::accepted_by.eq(id))).execute(conn)?;
    if let Some(email) = email {
        diesel::delete(
            invitations::table.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>("lower(email) = lower(")
                    .bind::<diesel::sql_types::Text, _>(email.to_string())
                    .sql(")"),
            ),
        )
        .execute(conn)?;
    }
    diesel::delete(tournament_staff::table.filter(tournament_staff::user_id.eq(id)))
        .execute(conn)?;
    diesel::delete(api_keys::table.filter(api_keys::user_id.eq(id))).execute(conn)?;
    diesel::delete(refresh_tokens::table.filter(refresh_tokens::user_id.eq(id))).execute(conn)?;
    diesel::delete(account_tokens::table.filter(account_tokens::user_id.eq(id))).execute(conn)?;
    diesel::delete(mail_outbox::table.filter(mail_outbox::user_id.eq(id))).execute(conn)?;
    // Every other message to its address (an invitation's names no account): the export
    // counts them as the person's, and their recipient is the address itself.
    if let Some(email) = email {
        diesel::delete(
            mail_outbox::table.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>("lower(to_address) = lower(")
                    .bind::<diesel::sql_types::Text, _>(email.to_string())
                    .sql(")"),
            ),
        )
        .execute(conn)?;
    }
    Ok(())
}

/// Removes the account's row when nothing refers to it (in a savepoint of the caller's
/// transaction); `false` when records still do (a foreign key holds it).
pub fn remove_if_unreferenced(conn: &mut PgConnection, id: UserId) -> QueryResult<bool> {
    let removed = conn.transaction(|conn| diesel::delete(users::table.find(id)).execute(conn));
    match removed {
        Ok(_) => Ok(true),
        Err(Error::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _)) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Turns the account into a nameless tombstone (`deleted-<id>`, no password, address or power),
/// disabled and deleted at `now`, its access tokens refused. An account made before such names
/// were refused to new accounts may hold `deleted-<id>`: the tombstone is then `deleted-<id>-2`
/// (or the next number free), so a name taken never stops a removal. Each try in a savepoint of
/// the caller's transaction.
pub fn tombstone(conn: &mut PgConnection, id: UserId, now: DateTime<Utc>) -> QueryResult<String> {
    let mut last = None;
    for n in 1..=20 {
        let name = match n {
            1 => format!("deleted-{id}"),
            n => format!("deleted-{id}-{n}"),
        };
        let renamed = conn.transaction(|conn| {
            diesel::update(users::table.find(id))
                .set((
                    users::username.eq(&name),
                    users::password_hash.eq("!"),
                    users::is_admin.eq(false),
                    users::email.eq(None::<String>),
                    users::email_verified_at.eq(None::<DateTime<Utc>>),
                    users::disabled_at.eq(now),
                    users::deleted_at.eq(now),
                    users::session_epoch.eq(users::session_epoch + 1),
                ))
                .execute(conn)
        });
        match renamed {
            Ok(_) => return Ok(name),
            Err(e @ Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or(Error::NotFound))
}

/// The player linked to the account, its row locked.
pub fn lock_player_of(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<PlayerId>> {
    players::table
        .filter(players::user_id.eq(id))
        .select(players::id)
        .for_update()
        .first(conn)
        .optional()
}

/// Removes the player when nothing refers to it (in a savepoint of the caller's transaction);
/// `false` when records do: a foreign key, or the rating log (which names players without one:
/// a rated player is always kept).
pub fn remove_player_if_unreferenced(conn: &mut PgConnection, id: PlayerId) -> QueryResult<bool> {
    let rated: bool = diesel::select(diesel::dsl::exists(
        rating_changes::table.filter(rating_changes::player_id.eq(id)),
    ))
    .get_result(conn)?;
    if rated {
        return Ok(false);
    }
    match conn.transaction(|conn| diesel::delete(players::table.find(id)).execute(conn)) {
        Ok(_) => Ok(true),
        Err(Error::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _)) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The name an erased player keeps where records still refer to it.
pub fn pseudonym(id: PlayerId) -> String {
    format!("Player {id} (erased)")
}

/// Renames the player [`pseudonym`], without club, country or account, as of `now`.
pub fn pseudonymise_player(
    conn: &mut PgConnection,
    id: PlayerId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(players::table.find(id))
        .set((
            players::name.eq(pseudonym(id)),
            players::club.eq(None::<String>),
            players::country.eq(None::<String>),
            players::user_id.eq(None::<i64>),
            players::updated_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}
