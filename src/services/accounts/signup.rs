//! Sign-up and address verification (issue 29). An instance's `SIGNUP_MODE` says who may make
//! an account: `closed` (an admin, `POST /users`), `invite` (an invitation's link) or `open`
//! (anyone here, with the address verified before the account can sign in).
//!
//! The answer never tells whether an address is known: a new address gets a verification
//! code; a known one gets a message saying someone tried to sign up with it (a new code if its
//! account is not verified yet); both answer the same, after the same password hash.
//!
//! The first sign-up's code carries its password, set when the code is redeemed. Signing up
//! again with an unverified address sends a new code that carries no password (as
//! `POST /auth/verify-email/resend` does): it keeps the account's password, so a stranger who
//! signs up with the address cannot choose the password the owner's click verifies (issue 37;
//! docs/decisions/accounts.md). Redeeming one code spends the others.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::credentials::check_new_credentials;
use crate::auth::password;
use crate::db::accounts::users::{self, SignedUp};
use crate::db::accounts::{by_email, username_taken};
use crate::db::models::User;
use crate::db::PgConnection;
use crate::domain::accounts::{normalise_email, Language, SignupMode, TokenPurpose};
use crate::error::{ApiError, FieldError};
use crate::services::accounts::links::{Flow, MailLinks};
use crate::services::accounts::mail_text::Mail;
use crate::services::accounts::{outbox, tokens};

/// A new account, made by its owner.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "kari", "email": "kari@example.no", "password": "a long passphrase"}))]
pub struct SignUp {
    /// 3-64 characters: letters, digits, `.`, `_`, `-`; unique without regard to case; not
    /// beginning with `deleted-` (kept for removed accounts).
    #[schema(example = "kari", pattern = "^[A-Za-z0-9._-]{3,64}$")]
    pub username: String,
    /// Where the verification code goes; unique without regard to case.
    #[schema(example = "kari@example.no", max_length = 254)]
    pub email: String,
    /// 8-256 characters, not the username, not one of the most common passwords.
    #[schema(example = "a long passphrase", min_length = 8, max_length = 256)]
    pub password: String,
}

/// A request taken: a message is on its way if the address can be used (the answer is the same
/// whether or not the address is known).
#[derive(Debug, Serialize, ToSchema)]
pub struct Accepted {
    #[schema(example = "If the address can be used, a message with a code is on its way to it.")]
    pub detail: String,
}

/// A verification code from the message.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "ev_3f9c..."}))]
pub struct VerifyEmail {
    #[schema(min_length = 1, max_length = 100)]
    pub token: String,
}

fn accepted() -> Accepted {
    Accepted {
        detail: "If the address can be used, a message with a code is on its way to it.".into(),
    }
}

/// The checked address, and the credentials' form: 422 with every field at fault.
pub(crate) fn check_sign_up(
    username: &str,
    email: &str,
    password: &str,
) -> Result<String, ApiError> {
    let mut errors: Vec<FieldError> = match check_new_credentials(username, password) {
        Ok(()) => Vec::new(),
        Err(ApiError::Validation(fields)) => fields,
        Err(e) => return Err(e),
    };
    let email = normalise_email(email);
    if email.is_none() {
        errors.push(FieldError::new(
            "email",
            "must be an e-mail address (name@example.org)",
        ));
    }
    match email {
        Some(email) if errors.is_empty() => Ok(email),
        _ => Err(ApiError::Validation(errors)),
    }
}

/// Signs up in `open` mode (403 in the others): a new account, unverified, and its
/// verification code by mail in `language`; or, for a known address, a message to it. 409
/// naming `username` when the name is taken in any case. Codes are issued at `now`.
pub fn sign_up(
    conn: &mut PgConnection,
    mode: SignupMode,
    input: &SignUp,
    language: Language,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<Accepted, ApiError> {
    match mode {
        SignupMode::Closed => {
            return Err(ApiError::Forbidden(
                "sign-up is closed on this instance: an admin creates accounts".into(),
            ))
        }
        SignupMode::Invite => {
            return Err(ApiError::Forbidden(
                "sign-up on this instance is by invitation: follow the link of your invitation"
                    .into(),
            ))
        }
        SignupMode::Open => {}
    }
    let email = check_sign_up(&input.username, &input.email, &input.password)?;
    // Hashed whatever follows, so a known address costs the same time as a new one.
    let hash = password::hash(&input.password).map_err(ApiError::Internal)?;
    crate::db::transaction(conn, |conn| {
        // The name first, whatever the address: a taken name is 409 for a known address as for
        // an unknown one, so the answer tells nobody which addresses have accounts.
        if username_taken(conn, &input.username)? {
            return Err(ApiError::conflict_at("username", "that username is taken"));
        }
        if let Some(known) = by_email(conn, &email)? {
            return known_address(conn, &known, links, now);
        }
        let user = match users::insert_signed_up(conn, &input.username, &hash, &email, language)? {
            SignedUp::Inserted(user) => user,
            // Someone signed up with the same address or name at the same moment.
            SignedUp::EmailTaken => return Ok(accepted()),
            SignedUp::UsernameTaken => {
                return Err(ApiError::conflict_at("username", "that username is taken"))
            }
        };
        send_code(conn, &user, Some(&hash), links, now)?;
        Ok(accepted())
    })
}

/// A sign-up with an address that has an account: a new code if it is not verified yet, else a
/// message saying someone tried; inside the caller's transaction. The code carries no password
/// (as a resend's): whoever signs up with someone else's address must not choose the password
/// the owner's click would verify; the account keeps its own (forgotten: a reset).
fn known_address(
    conn: &mut PgConnection,
    known: &User,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<Accepted, ApiError> {
    let to = known.email.as_deref().unwrap_or_default();
    if known.email_verified_at.is_none() {
        send_code(conn, known, None, links, now)?;
    } else {
        outbox::queue(
            conn,
            Some(known.id.0),
            to,
            known.language,
            &Mail::AlreadyRegistered {
                username: &known.username,
            },
        )?;
    }
    Ok(accepted())
}

/// A verification code for the account's address (carrying a new account's password hash, set
/// when the code is redeemed), by mail, inside the caller's transaction.
fn send_code(
    conn: &mut PgConnection,
    user: &User,
    password_hash: Option<&str>,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let code = tokens::issue_with(conn, user.id, TokenPurpose::Verify, password_hash, now)?;
    let link = links.link(Flow::Verify, &code);
    outbox::queue(
        conn,
        Some(user.id.0),
        user.email.as_deref().unwrap_or_default(),
        user.language,
        &Mail::Verify {
            username: &user.username,
            code: &code,
            link: link.as_deref(),
        },
    )
}

/// Verifies an address with the code from its message (a new account's, or an address change's:
/// see `profile::confirm_address`): the account can sign in from now on,
/// with the password of the sign-up that made the account; the account's other
/// verification codes are spent (at `now`). 422 naming `token` for an unknown, expired or used
/// code, and for the code of an account an admin has disabled (the code is then not spent: it
/// works once the account is enabled again, within its lifetime).
pub fn verify_email(
    conn: &mut PgConnection,
    input: &VerifyEmail,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| {
        let code = tokens::redeem_any(
            conn,
            &input.token,
            &[TokenPurpose::Verify, TokenPurpose::EmailChange],
            "token",
            now,
        )?;
        if code.purpose == TokenPurpose::EmailChange {
            let email = code.email.as_deref().unwrap_or_default();
            return crate::services::accounts::profile::confirm_address(
                conn,
                code.user_id,
                email,
                now,
            );
        }
        // A disabled account's address is not verified behind the admin's back (nor its
        // sign-up's password set): 422 naming `token`, the code unspent for when it is enabled.
        tokens::open_account(conn, code.user_id)?;
        users::verify_address(conn, code.user_id, code.password_hash.as_deref(), now)?;
        tokens::spend_all(conn, code.user_id, TokenPurpose::Verify, now)
    })
}

/// An address whose verification code is lost or expired.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "kari@example.no"}))]
pub struct ResendVerification {
    #[schema(example = "kari@example.no", max_length = 254)]
    pub email: String,
}

/// Sends a new verification code to an address whose enabled account is not verified yet (the
/// password stays as it is, and the codes sent before are spent); the same answer whether or
/// not there is one. 422 naming `email`
/// only for what is not an address at all. The code is issued at `now`.
pub fn resend_verification(
    conn: &mut PgConnection,
    input: &ResendVerification,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<Accepted, ApiError> {
    let email = normalise_email(&input.email)
        .ok_or_else(|| ApiError::field("email", "must be an e-mail address (name@example.org)"))?;
    crate::db::transaction(conn, |conn| {
        let waiting = by_email(conn, &email)?
            .filter(|u| u.email_verified_at.is_none() && u.disabled_at.is_none());
        if let Some(user) = waiting {
            // The codes sent before stop working: only the newest message counts.
            tokens::spend_all(conn, user.id, TokenPurpose::Verify, now)?;
            send_code(conn, &user, None, links, now)?;
        }
        Ok(accepted())
    })
}
