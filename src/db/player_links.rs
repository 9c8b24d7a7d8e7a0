//! How a player comes to be linked to an account (issue 37, item 2). The trigger on
//! `players.user_id` writes every link and cut into `player_links`; the path that links says
//! how and on whose decision first, in the transaction-local setting `tourney.player_link`, which
//! the trigger reads and clears. A change nobody described is kept too: a cut as
//! `account_removed` (the account's erasure or removal), a link as `unrecorded`.

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::PgConnection;
use serde::Serialize;

use crate::db::ids::{ClaimId, InvitationId, UserId};

/// How the next change of a player's link in this transaction came about.
#[derive(Debug, Serialize)]
pub struct LinkContext {
    /// `claim`, `invitation`, `admin` or `created`.
    pub via: &'static str,
    pub claim_id: Option<ClaimId>,
    pub invitation_id: Option<InvitationId>,
    /// Who decided (the claim's decider, the inviter, the admin).
    pub decided_by: Option<UserId>,
}

/// Tells the link trigger how the next change of a player's account comes about. Inside the
/// caller's transaction (the setting ends with it).
pub fn say_how(conn: &mut PgConnection, ctx: &LinkContext) -> QueryResult<()> {
    let json = serde_json::to_string(ctx)
        .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
    diesel::sql_query("SELECT set_config('tourney.player_link', $1, true)")
        .bind::<Text, _>(json)
        .execute(conn)?;
    Ok(())
}
