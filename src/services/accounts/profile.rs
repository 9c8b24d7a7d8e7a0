//! A person looks after their own account (issue 40, item 4): `PATCH /me` changes the language
//! of their messages and their address.
//!
//! An address changes in two steps. Asking needs the account's current password besides the
//! token (a stolen access token alone must not move the account's mail, and with it the
//! password reset, to the thief), and sends a code to the new address and a notice to the old
//! one. The notice carries a password-reset code: a new password cancels the change and ends
//! every session, and still gives the account back if the change was confirmed already. The
//! address changes only when the code from the new address is used (`POST /auth/verify-email`
//! or its page, the same as a sign-up's code). Nothing is written on a refused step.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::{password, Caller};
use crate::db::accounts::{by_email, users};
use crate::db::ids::UserId;
use crate::db::models::User;
use crate::db::PgConnection;
use crate::domain::accounts::{normalise_email, Language, TokenPurpose};
use crate::error::ApiError;
use crate::services::accounts::auth::{me, Me};
use crate::services::accounts::links::{Flow, MailLinks};
use crate::services::accounts::mail_text::Mail;
use crate::services::accounts::{outbox, tokens};
use crate::services::validate::Check;

/// A change to my own account; fields left out stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "kari@club.example", "current_password": "a long passphrase", "language": "nb"}))]
pub struct UpdateMe {
    /// The language of my messages: `en`, `nb`, `pl`, `de` or `zh-Hant`.
    #[schema(example = "nb")]
    pub language: Option<String>,
    /// A new address: a code goes to it and a notice to the current one; the address changes
    /// when the code is used. My current address cancels a change that waits.
    #[schema(example = "kari@club.example", max_length = 254)]
    pub email: Option<String>,
    /// The account's password: needed with `email`.
    #[schema(max_length = 256)]
    pub current_password: Option<String>,
}

/// What the change asks for, checked: 422 naming every field at fault.
struct Checked {
    language: Option<Language>,
    email: Option<String>,
}

fn check(input: &UpdateMe) -> Result<Checked, ApiError> {
    let mut check = Check::new();
    let language = input.language.as_deref().and_then(|l| {
        let parsed = Language::parse(l.trim());
        check.ensure(
            parsed.is_some(),
            "language",
            "must be one of en, nb, pl, de, zh-Hant",
        );
        parsed
    });
    let email = input.email.as_deref().and_then(|e| {
        let parsed = normalise_email(e);
        check.ensure(
            parsed.is_some(),
            "email",
            "must be an e-mail address (name@example.org)",
        );
        parsed
    });
    if let Some(given) = &input.current_password {
        // As documented, whether or not the address changes.
        check.ensure(
            given.chars().count() <= 256,
            "current_password",
            "at most 256 characters",
        );
    }
    if input.email.is_some() && input.current_password.is_none() {
        check.fail(
            "current_password",
            "send the account's password to change its address",
        );
    }
    check.finish()?;
    Ok(Checked { language, email })
}

/// Changes the caller's language and asks for an address change (the code to the new
/// address, the notice with a reset code to the old one), all at `now` in one transaction,
/// after every check: 422 naming `language`, `email` or `current_password` (missing or not the
/// account's: the handler counts wrong passwords like failed sign-ins), 409 naming `email` when
/// another account uses the address. Answers the account as `GET /me` shows it.
pub fn update_me(
    conn: &mut PgConnection,
    caller: &Caller,
    input: &UpdateMe,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<Me, ApiError> {
    let checked = check(input)?;
    let gone = || ApiError::Unauthorized("this account no longer exists".into());
    let user = users::live(conn, UserId(caller.user_id))?.ok_or_else(gone)?;
    if checked.email.is_some() {
        let given = input.current_password.as_deref().unwrap_or_default();
        if given.len() > 256 || !password::verify(given, &user.password_hash) {
            return Err(ApiError::field(
                "current_password",
                "is not the account's password; nothing was changed",
            ));
        }
    }
    crate::db::transaction(conn, |conn| {
        let user = users::lock(conn, user.id)?;
        if user.deleted_at.is_some() {
            return Err(gone());
        }
        let language = checked.language.unwrap_or(user.language);
        if let Some(email) = &checked.email {
            ask_address_change(conn, &user, email, language, links, now)?;
        }
        if language != user.language {
            users::set_language(conn, user.id, language)?;
        }
        me(conn, caller, now)
    })
}

/// Whether two addresses are the same account's (their case aside).
fn same_address(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// The address change, inside the caller's transaction: the account's own address cancels a
/// change that waits; another account's is 409 naming `email`; else the change that waited
/// is replaced, the code goes to `email` and the notice to the current address.
fn ask_address_change(
    conn: &mut PgConnection,
    user: &User,
    email: &str,
    language: Language,
    links: &MailLinks,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let id = user.id;
    let current = user.email.as_deref();
    if current.is_some_and(|c| same_address(c, email)) {
        return tokens::spend_all(conn, id, TokenPurpose::EmailChange, now);
    }
    if by_email(conn, email)?.is_some_and(|other| other.id != user.id) {
        return Err(taken());
    }
    tokens::spend_all(conn, id, TokenPurpose::EmailChange, now)?;
    let code = tokens::issue_address_change(conn, id, email, now)?;
    let link = links.link(Flow::Verify, &code);
    outbox::queue(
        conn,
        Some(user.id.0),
        email,
        language,
        &Mail::AddressChange {
            username: &user.username,
            code: &code,
            link: link.as_deref(),
        },
    )?;
    if let Some(old) = current {
        let reset = tokens::issue(conn, id, TokenPurpose::Reset, now)?;
        let link = links.link(Flow::Reset, &reset);
        outbox::queue(
            conn,
            Some(user.id.0),
            old,
            language,
            &Mail::AddressChangeNotice {
                username: &user.username,
                new_email: email,
                code: &reset,
                link: link.as_deref(),
            },
        )?;
    }
    Ok(())
}

fn taken() -> ApiError {
    ApiError::conflict_at("email", "another account uses this address")
}

/// Confirms an address change with its code (already redeemed by the caller, inside its
/// transaction): the account's address becomes `email`, proved at `now`, and its other
/// address-change codes are spent. 422 naming `token` when the account was closed meanwhile,
/// 409 naming `email` when another account took the address meanwhile (nothing written: the
/// code stays good).
pub(crate) fn confirm_address(
    conn: &mut PgConnection,
    user_id: UserId,
    email: &str,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let user = tokens::open_account(conn, user_id)?;
    if by_email(conn, email)?.is_some_and(|other| other.id != user.id) {
        return Err(taken());
    }
    if !users::set_address(conn, user_id, email, now)? {
        return Err(taken());
    }
    tokens::spend_all(conn, user_id, TokenPurpose::EmailChange, now)
}
