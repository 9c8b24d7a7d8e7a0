//! What the invitation page needs beyond the JSON operation (issue 40, item 2): what an
//! invitation is for, read with its code before anyone accepts it, and accepting it signed in
//! with a password typed into the page (a page has no bearer token).

use chrono::{DateTime, Utc};

use crate::auth::secrets::secret_hash;
use crate::auth::{Caller, MaybeCaller};
pub use crate::db::invitations::InvitationPreview;
use crate::db::PgConnection;
use crate::domain::accounts::{Language, SignupMode};
use crate::error::ApiError;
use crate::services::accounts::auth::authenticate;
use crate::services::invitations::invite::{self, AcceptInvitation, InvitationAccepted};

/// The invitation `code` opens, if it can still be accepted: 422 naming `token` for an
/// unknown, used, revoked or expired code (the same words as accepting). Nothing is written.
pub fn preview(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
) -> Result<InvitationPreview, ApiError> {
    let found = crate::db::invitations::by_code_hash(conn, &secret_hash(code))?
        .ok_or_else(|| ApiError::field("token", "unknown invitation code"))?;
    if found.accepted {
        return Err(ApiError::field("token", "this invitation was already used"));
    }
    if found.revoked {
        return Err(ApiError::field("token", "this invitation was revoked"));
    }
    if found.expires_at <= now {
        return Err(ApiError::field(
            "token",
            "this invitation has expired; ask the organiser for a new one",
        ));
    }
    Ok(found.preview)
}

/// Accepts an invitation for the account `username` signs in to with `password` (the page's
/// "I have an account"): `None` for a wrong name or password (the caller counts it as a failed
/// sign-in), 403 for a disabled account or one whose address is not verified yet.
pub fn accept_with_password(
    conn: &mut PgConnection,
    mode: SignupMode,
    username: &str,
    password: &str,
    input: &AcceptInvitation,
    language: Language,
    now: DateTime<Utc>,
) -> Result<Option<InvitationAccepted>, ApiError> {
    let Some(user) = authenticate(conn, username, password)? else {
        return Ok(None);
    };
    if user.disabled_at.is_some() {
        return Err(ApiError::Unauthorized("this account is disabled".into()));
    }
    if user.email.is_some() && user.email_verified_at.is_none() {
        return Err(ApiError::Forbidden(
            "verify your e-mail address first: open the link in the message you were sent".into(),
        ));
    }
    let caller = Caller {
        user_id: user.id.0,
        username: user.username,
        is_admin: user.is_admin,
        key: None,
        password_at: None,
    };
    invite::accept(conn, mode, &MaybeCaller(Some(caller)), input, language, now).map(Some)
}
