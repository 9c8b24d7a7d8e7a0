//! A person's own data (issue 29, item 6; GDPR article 17): erasure (the export is
//! `services::accounts::export`). An erased account's player who
//! has records (rated games, results, registrations) stays in them under a pseudonym, so
//! results, standings and ratings stay intact; one without records is removed.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{password, Caller};
use crate::db::accounts::{erasure, users};
use crate::db::archives::checkouts;
use crate::db::ids::{PlayerId, UserId};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::accounts::export::may_handle;
use crate::services::accounts::users::{lock_for_removal, remove_account};

/// What erasure did with the player.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayerErased {
    /// There was no linked player.
    None,
    /// The player had no records and was removed.
    Removed,
    /// The player has records (games, ratings, registrations): kept under a pseudonym, without
    /// club, country or account.
    Pseudonymised,
}

/// What an erasure did.
#[derive(Debug, Serialize, ToSchema)]
pub struct Erased {
    pub user_id: i64,
    pub player: PlayerErased,
}

/// Erases another person's account `user_id` (`POST /users/{id}/erasure`): an admin signed in
/// with a password, always, and never on their own account: that is `DELETE /me`, which asks
/// for the password, so a stolen token cannot erase the account it belongs to (403 either way,
/// nothing erased). Otherwise as [`erase_account`].
pub fn erase(
    conn: &mut PgConnection,
    caller: &Caller,
    user_id: i64,
    now: DateTime<Utc>,
) -> Result<Erased, ApiError> {
    may_handle(caller, user_id)?;
    caller.require_admin()?;
    if caller.user_id == user_id {
        return Err(ApiError::Forbidden(
            "this is your own account: erase it with DELETE /me and its password".into(),
        ));
    }
    erase_account(conn, user_id, now)
}

/// Erases account `user_id` (not the last enabled admin), the caller's access already checked:
/// its address, name, password, sessions, keys, codes, mail, roles, player claims and the
/// invitations it accepted or that were sent to its address go; its linked player is removed,
/// or, with records, renamed `Player <id> (erased)` without club or country, so results and
/// ratings stay intact. Dated `now`.
fn erase_account(
    conn: &mut PgConnection,
    user_id: i64,
    now: DateTime<Utc>,
) -> Result<Erased, ApiError> {
    crate::db::transaction(conn, |conn| {
        let user = lock_for_removal(conn, user_id)?;
        let player = match erasure::lock_player_of(conn, UserId(user_id))? {
            None => PlayerErased::None,
            Some(p) => erase_player(conn, p, now)?,
        };
        remove_account(conn, &user, now)?;
        Ok(Erased { user_id, player })
    })
}

/// The account's password, which erasing one's own account asks for (a bearer token alone is
/// not enough: a stolen one must not erase the account).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "a long passphrase"}))]
pub struct EraseMe {
    #[schema(max_length = 256)]
    pub password: String,
}

/// Erases the caller's own account (`DELETE /me`) when `input` holds its password: 422 naming
/// `password` when it is missing (`None`) or wrong, nothing erased; else as [`erase`].
pub fn erase_me(
    conn: &mut PgConnection,
    caller: &Caller,
    input: Option<&EraseMe>,
    now: DateTime<Utc>,
) -> Result<Erased, ApiError> {
    may_handle(caller, caller.user_id)?;
    let Some(input) = input else {
        return Err(ApiError::field(
            "password",
            "send the account's password ({\"password\": \"...\"}) to erase it",
        ));
    };
    let hash: String = users::live_password_hash(conn, UserId(caller.user_id))?
        .ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    if input.password.len() > 256 || !password::verify(&input.password, &hash) {
        return Err(ApiError::field(
            "password",
            "is not the account's password; nothing was erased",
        ));
    }
    erase_account(conn, caller.user_id, now)
}

/// Removes player `id`, or pseudonymises it (at `now`) when records refer to it, and erases it
/// from the content check-outs keep; inside the caller's transaction.
fn erase_player(
    conn: &mut PgConnection,
    id: PlayerId,
    now: DateTime<Utc>,
) -> Result<PlayerErased, ApiError> {
    // The content kept by check-outs (to check the tournament back in) holds the player's
    // name, club and country too: erased there as here, whatever becomes of the row.
    checkouts::scrub_player(conn, id, &erasure::pseudonym(id))?;
    if erasure::remove_player_if_unreferenced(conn, id)? {
        return Ok(PlayerErased::Removed);
    }
    erasure::pseudonymise_player(conn, id, now)?;
    crate::services::players::leaderboards_show_changed(conn, id.0)?;
    Ok(PlayerErased::Pseudonymised)
}
