//! Password reset by e-mail (issue 29): a request always answers the same; a known address gets
//! a one-hour, single-use code; confirming it sets the new password, proves the address, and
//! ends every session of the account and its private calendar feed (API keys stay).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::credentials::check_credentials;
use crate::auth::password;
use crate::db::accounts::{by_email, end_every_session, users};
use crate::db::calendars;
use crate::db::PgConnection;
use crate::domain::accounts::{normalise_email, TokenPurpose};
use crate::error::ApiError;
use crate::services::accounts::links::{Flow, MailLinks};
use crate::services::accounts::mail_text::Mail;
use crate::services::accounts::signup::Accepted;
use crate::services::accounts::{outbox, tokens};

/// The address of the account whose password is forgotten.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "kari@example.no"}))]
pub struct ResetRequest {
    #[schema(example = "kari@example.no", max_length = 254)]
    pub email: String,
}

/// The code from the message and the new password.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "pr_3f9c...", "password": "another long passphrase"}))]
pub struct ResetConfirm {
    #[schema(min_length = 1, max_length = 100)]
    pub token: String,
    /// 8-256 characters, not the username, not one of the most common passwords.
    #[schema(min_length = 8, max_length = 256)]
    pub password: String,
}

/// Asks for a reset code: sent to the address if an enabled account has it; the same answer
/// either way (the code issued at `now`). 422 naming `email` only for what is not an address
/// at all.
pub fn request_reset(
    conn: &mut PgConnection,
    input: &ResetRequest,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<Accepted, ApiError> {
    let email = normalise_email(&input.email)
        .ok_or_else(|| ApiError::field("email", "must be an e-mail address (name@example.org)"))?;
    crate::db::transaction(conn, |conn| {
        if let Some(user) = by_email(conn, &email)?.filter(|u| u.disabled_at.is_none()) {
            let code = tokens::issue(conn, user.id, TokenPurpose::Reset, now)?;
            let link = links.link(Flow::Reset, &code);
            outbox::queue(
                conn,
                Some(user.id.0),
                user.email.as_deref().unwrap_or(&email),
                user.language,
                &Mail::Reset {
                    username: &user.username,
                    code: &code,
                    link: link.as_deref(),
                },
            )?;
        }
        Ok(Accepted {
            detail:
                "If the address belongs to an account, a message with a code is on its way to it."
                    .into(),
        })
    })
}

/// Sets a new password with a reset code: the code and every other reset code of the account
/// are spent, the address counts as verified, and every session and the calendar feed end. 422 naming `token` for an
/// unknown, expired or used code, `password` for a password that is not allowed (the code is
/// then still good). The code is used and the sessions end at `now`.
pub fn confirm_reset(
    conn: &mut PgConnection,
    input: &ResetConfirm,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| {
        let user_id = tokens::redeem(conn, &input.token, TokenPurpose::Reset, "token", now)?;
        let user = tokens::open_account(conn, user_id)?;
        check_credentials(&user.username, &input.password)?;
        let hash = password::hash(&input.password).map_err(ApiError::Internal)?;
        users::set_password_by_reset(conn, user_id, &hash)?;
        tokens::spend_all(conn, user_id, TokenPurpose::Reset, now)?;
        // A pending address change is cancelled: the notice to the old address says a new
        // password undoes it (issue 40, item 4).
        tokens::spend_all(conn, user_id, TokenPurpose::EmailChange, now)?;
        // A reset is the recovery after a compromise: the private calendar feed (a URL nobody
        // can list, which whoever held the account could have made) ends with the sessions. API
        // keys stay: they are listed with their last use at `/me/api-keys` to revoke.
        calendars::remove_of_account(conn, user_id)?;
        Ok(end_every_session(conn, user_id, now)?)
    })
}
