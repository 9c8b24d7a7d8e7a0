//! A person's own data as one explicit document (issue 29, item 6; issue 37, item 1; GDPR
//! articles 15 and 20): named sections, each field chosen in `db::accounts::export` and typed in
//! the OpenAPI document. Nothing is read by walking the catalogue, so a table added later stays
//! out until someone decides what of it belongs here (tests/api/account_theft.rs fails for a
//! column that names a person and is neither exported nor listed in
//! `db::personal_data::LEFT_OUT`).
//!
//! No code, hash, token, secret or message body is in it: a stolen access token must not turn
//! into the codes that take the account over (a reset code asked for by anyone, then read here).

use chrono::{DateTime, Utc};

use crate::auth::Caller;
use crate::db::ids::UserId;
use crate::db::PgConnection;
use crate::error::ApiError;

pub use crate::db::accounts::export::{
    covered, Export, ExportAccount, ExportAct, ExportApiKey, ExportCaseRole, ExportClaim,
    ExportCode, ExportInvitation, ExportMessage, ExportPenalty, ExportPlayer, ExportPoolKept,
    ExportRating, ExportRatingChange, ExportRegistration, ExportResultSeat, ExportSession,
    ExportTournamentRole, ExportWithdrawal, SECTIONS,
};

/// Only the owner, signed in with a password (not an API key), or an admin.
pub(crate) fn may_handle(caller: &Caller, user_id: i64) -> Result<(), ApiError> {
    if caller.key.is_some() {
        return Err(ApiError::Forbidden(
            "personal data is exported and erased with a password sign-in, not an API key".into(),
        ));
    }
    if caller.user_id != user_id {
        caller.require_admin()?;
    }
    Ok(())
}

/// Everything stored about account `user_id` and its player (the owner or an admin), read in
/// one snapshot, stamped `now`.
pub fn export(
    conn: &mut PgConnection,
    caller: &Caller,
    user_id: i64,
    now: DateTime<Utc>,
) -> Result<Export, ApiError> {
    may_handle(caller, user_id)?;
    crate::db::snapshot(conn, |conn| {
        crate::db::accounts::export::read(conn, UserId(user_id), now)?
            .ok_or_else(|| ApiError::NotFound(format!("no user {user_id}")))
    })
}
