//! Invitations to a tournament (issue 29, item 4). An organiser (or an admin) invites an
//! address, optionally as a given player; the message carries a code (`in_`, 256 bits, stored as
//! its SHA-256 only) that works once and for [`LIFETIME_DAYS`] days, unless revoked first.
//! Accepting signs the person up (a new account, its address counted as verified: the code came
//! to it) or takes the account they are signed in with, links the account to the invited player
//! only with their consent (and only if the player has no account), and registers the player by
//! the inviter's authority (confirmed or waitlisted as any registration).

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::credentials::check_new_credentials;
use crate::auth::password;
use crate::auth::secrets::{new_secret, secret_hash};
use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::accounts::{by_email, username_taken};
/// An invitation's id, as the handlers name the invitation they act on.
pub use crate::db::ids::InvitationId;
use crate::db::ids::{PlayerId, TournamentId, UserId};
use crate::db::invitations::{self as store, InvitationRow, NewInvitation};
use crate::db::rounds::Lock;
use crate::db::PgConnection;
use crate::domain::accounts::{normalise_email, Language, SignupMode};
use crate::error::{ApiError, FieldError};
use crate::services::access::load_for_staff;
use crate::services::accounts::links::{Flow, MailLinks};
use crate::services::accounts::mail_text::{Invitation, Mail};
use crate::services::accounts::outbox;
use crate::services::running::registrations::{
    read_registration, register, Register, RegistrationOut,
};
use crate::services::validate::{Page, PageParams};

/// How long an invitation can be accepted.
pub const LIFETIME_DAYS: i64 = 14;

/// The longest personal message.
const MESSAGE_MAX: usize = 2000;

/// An invitation to send.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "kari@example.no", "player_id": 12, "message": "See you in Oslo!"}))]
pub struct Invite {
    /// Where the invitation goes.
    #[schema(example = "kari@example.no", max_length = 254)]
    pub email: String,
    /// The existing player the person is invited as (linked to their account if they consent);
    /// absent: the player of their account, or a new one named after it.
    pub player_id: Option<i64>,
    /// A few words of the inviter's, quoted in the message.
    #[schema(max_length = 2000)]
    pub message: Option<String>,
}

/// An invitation as its tournament's organisers see it (never its code).
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationOut {
    pub id: i64,
    pub tournament_id: i64,
    pub email: String,
    pub player_id: Option<i64>,
    pub message: Option<String>,
    /// The account that sent it (absent once that account is erased).
    pub invited_by: Option<i64>,
    pub created_at: DateTime<Utc>,
    /// After this it cannot be accepted.
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub accepted_at: Option<DateTime<Utc>>,
    /// The account that accepted it.
    pub accepted_by: Option<i64>,
}

impl From<InvitationRow> for InvitationOut {
    fn from(i: InvitationRow) -> Self {
        Self {
            id: i.id.0,
            tournament_id: i.tournament_id.0,
            email: i.email,
            player_id: i.player_id.map(|p| p.0),
            message: i.message,
            invited_by: i.invited_by.map(|u| u.0),
            created_at: i.created_at,
            expires_at: i.expires_at,
            revoked_at: i.revoked_at,
            accepted_at: i.accepted_at,
            accepted_by: i.accepted_by.map(|u| u.0),
        }
    }
}

/// Accepting an invitation: a new account's username and password, or none of them with the
/// bearer token of an existing account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "in_3f9c...", "consent_link_player": true, "username": "kari", "password": "a long passphrase"}))]
pub struct AcceptInvitation {
    /// The code from the invitation's message.
    #[schema(min_length = 1, max_length = 100)]
    pub token: String,
    /// Whether the invited player (if the invitation names one) is to be linked to the account.
    /// Without consent the player is registered but stays unlinked.
    pub consent_link_player: bool,
    /// A new account's name (without a bearer token; `invite` and `open` modes only), as a
    /// sign-up's: not beginning with `deleted-`.
    pub username: Option<String>,
    /// A new account's password (with `username`).
    pub password: Option<String>,
}

/// What accepting did.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationAccepted {
    pub user_id: i64,
    pub username: String,
    /// Whether a new account was made (sign in with it at `POST /auth/token`).
    pub new_account: bool,
    pub tournament_id: i64,
    pub player_id: i64,
    /// Whether the player is now linked to the account.
    pub linked: bool,
    /// When the link was asked for (`consent_link_player`) but the inviter is not one of the
    /// player's deciders (an admin, a keeper of a pool it is rated in, the organiser of every
    /// tournament its records lie in): the claim opened for them to decide instead.
    pub claim_id: Option<i64>,
    pub registration: RegistrationOut,
}

fn check_invite(input: &Invite) -> Result<String, ApiError> {
    let mut errors = Vec::new();
    let email = normalise_email(&input.email);
    if email.is_none() {
        errors.push(FieldError::new(
            "email",
            "must be an e-mail address (name@example.org)",
        ));
    }
    if input
        .message
        .as_ref()
        .is_some_and(|m| m.chars().count() > MESSAGE_MAX)
    {
        errors.push(FieldError::new(
            "message",
            format!("at most {MESSAGE_MAX} characters"),
        ));
    }
    match email {
        Some(email) if errors.is_empty() => Ok(email),
        _ => Err(ApiError::Validation(errors)),
    }
}

/// Invites `input.email` to tournament `tid` (organisers and admins): the invitation, and its
/// message in `language` (the inviter's) through the outbox. `None` when the caller may invite
/// but this instance cannot send mail (`mail` none; else where its links lead): the HTTP layer answers that (503)
/// outside the database work, which would take a 503 for a lost database.
pub fn invite(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: &Invite,
    language: Language,
    mail: Option<&MailLinks>,
    now: DateTime<Utc>,
) -> Result<Option<InvitationOut>, ApiError> {
    crate::db::transaction(conn, |conn| {
        // Who is asking first; then whether this instance can send mail; then the body
        // (issue 37, item 6: a stranger learned of the mail set-up before being refused).
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let Some(links) = mail else {
            return Ok(None);
        };
        let email = check_invite(input)?;
        if let Some(p) = input.player_id {
            if !crate::db::players::exists(conn, PlayerId(p))? {
                return Err(ApiError::field(
                    "player_id",
                    format!("there is no player {p}"),
                ));
            }
        }
        let code = new_secret("in_");
        let out = store::insert(
            conn,
            &NewInvitation {
                tournament_id: TournamentId(tid),
                email: &email,
                player_id: input.player_id.map(PlayerId),
                message: input.message.as_deref(),
                invited_by: UserId(caller.user_id),
                token_hash: secret_hash(&code),
                expires_at: now + Duration::days(LIFETIME_DAYS),
            },
        )?;
        outbox::queue(
            conn,
            None,
            &email,
            language,
            &Mail::Invitation(Invitation {
                inviter: &caller.username,
                tournament: &t.name,
                starts_on: t.starts_on,
                ends_on: t.ends_on,
                venue: t.venue.as_deref(),
                code: &code,
                link: links.link(Flow::Invitation, &code).as_deref(),
                message: input.message.as_deref().unwrap_or(""),
            }),
        )?;
        Ok(Some(out.into()))
    })
}

/// The tournament's invitations, oldest first (organisers and admins), a page read in SQL.
pub fn list(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    params: &PageParams,
) -> Result<Page<InvitationOut>, ApiError> {
    load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
    let t = TournamentId(tid);
    let page = Page::read(
        conn,
        params,
        |conn| store::count_of(conn, t),
        |conn, limit, offset| store::page_of(conn, t, limit, offset),
    )?;
    page.try_map(|i| Ok::<_, ApiError>(InvitationOut::from(i)))
}

/// Revokes an invitation (organisers and admins): its code is refused from now on. Revoking
/// twice is the same as once; an accepted invitation cannot be revoked (409 naming `id`).
pub fn revoke(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: TournamentId,
    id: InvitationId,
    now: DateTime<Utc>,
) -> Result<InvitationOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        load_for_staff(conn, caller, tid.0, &[StaffRole::Organiser])?;
        let found = store::lock_in(conn, tid, id)?
            .ok_or_else(|| ApiError::NotFound(format!("no invitation {id}")))?;
        if found.accepted_at.is_some() {
            return Err(ApiError::conflict_at(
                "id",
                "the invitation was already accepted",
            ));
        }
        if found.revoked_at.is_some() {
            return Ok(found.into());
        }
        Ok(store::revoke(conn, id, now)?.into())
    })
}

/// Who accepts: the signed-in account, or a new one (its name and password hash).
enum Who<'a> {
    Existing(&'a Caller),
    New { username: &'a str, hash: String },
}

fn who<'a>(
    mode: SignupMode,
    caller: Option<&'a Caller>,
    input: &'a AcceptInvitation,
) -> Result<Who<'a>, ApiError> {
    if input.token.is_empty() || input.token.len() > 100 {
        return Err(ApiError::field(
            "token",
            "must be 1-100 characters (the code from the invitation)",
        ));
    }
    match (caller, &input.username, &input.password) {
        (Some(c), None, None) => Ok(Who::Existing(c)),
        (Some(_), _, _) => Err(ApiError::field(
            "username",
            "signed in: accept without a username and password, or sign out to make a new account",
        )),
        (None, Some(username), Some(pw)) => {
            if mode == SignupMode::Closed {
                return Err(ApiError::Forbidden(
                    "sign-up is closed on this instance: sign in to an existing account to accept"
                        .into(),
                ));
            }
            check_new_credentials(username, pw)?;
            let hash = password::hash(pw).map_err(ApiError::Internal)?;
            Ok(Who::New { username, hash })
        }
        (None, u, p) => Err(ApiError::Validation(
            [("username", u.is_none()), ("password", p.is_none())]
                .into_iter()
                .filter(|(_, missing)| *missing)
                .map(|(f, _)| {
                    FieldError::new(f, "required to make an account (or send a bearer token)")
                })
                .collect(),
        )),
    }
}

/// The invitation a code belongs to, locked; 422 naming `token` if unknown, revoked, used or
/// expired. Inside the caller's transaction.
fn redeem(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
) -> Result<InvitationRow, ApiError> {
    let found = store::lock_by_code_hash(conn, &secret_hash(code))?
        .ok_or_else(|| ApiError::field("token", "unknown invitation code"))?;
    if found.accepted_at.is_some() {
        return Err(ApiError::field("token", "this invitation was already used"));
    }
    if found.revoked_at.is_some() {
        return Err(ApiError::field("token", "this invitation was revoked"));
    }
    if found.expires_at <= now {
        return Err(ApiError::field(
            "token",
            "this invitation has expired; ask the organiser for a new one",
        ));
    }
    Ok(found)
}

/// The new account for the invited address (verified: the code came to it), inside the
/// caller's transaction; 409 naming `username` when the name is taken or the address already
/// has an account (then sign in and accept with its token).
fn new_account(
    conn: &mut PgConnection,
    username: &str,
    hash: &str,
    email: &str,
    language: Language,
    now: DateTime<Utc>,
) -> Result<Caller, ApiError> {
    if let Some(known) = by_email(conn, email)? {
        return Err(ApiError::conflict_at(
            "username",
            format!(
                "the invited address already has the account \"{}\": sign in and accept with its token",
                known.username
            ),
        ));
    }
    if username_taken(conn, username)? {
        return Err(ApiError::conflict_at("username", "that username is taken"));
    }
    let inserted = crate::db::accounts::insert_invited(conn, username, hash, email, language, now)?;
    match inserted {
        Some(id) => Ok(Caller {
            user_id: id.0,
            username: username.to_string(),
            is_admin: false,
            key: None,
            password_at: None,
        }),
        None => Err(ApiError::conflict_at(
            "username",
            "that username or the invited address was taken at the same moment",
        )),
    }
}

fn own_player(conn: &mut PgConnection, user_id: i64) -> Result<Option<i64>, ApiError> {
    Ok(crate::db::players::of_account(conn, UserId(user_id))?.map(|p| p.0))
}

/// The player to register and whether it is the account's (`Some(true)`), stays unlinked
/// (`Some(false)`) or is to be linked once registered (`None`), inside the caller's transaction:
/// the invited player (linked only with consent, and only if it has no account: 409 naming
/// `player_id` otherwise); without one, the account's player or a new one named after the
/// account.
fn the_player(
    conn: &mut PgConnection,
    invited: Option<i64>,
    account: &Caller,
    consent: bool,
) -> Result<(i64, Option<bool>), ApiError> {
    let Some(p) = invited else {
        if let Some(own) = own_player(conn, account.user_id)? {
            return Ok((own, Some(true)));
        }
        // A new player of the account's own: nobody else's records, linked as it is made.
        crate::db::player_links::say_how(
            conn,
            &crate::db::player_links::LinkContext {
                via: "invitation",
                claim_id: None,
                invitation_id: None,
                decided_by: Some(crate::db::ids::UserId(account.user_id)),
            },
        )?;
        let id = crate::db::players::insert_own(conn, &account.username, UserId(account.user_id))?;
        return Ok((id.0, Some(true)));
    };
    // The row lock: a claim or another acceptance linking the player waits for this one.
    let owner = crate::db::players::account_of(conn, PlayerId(p), Lock::ForUpdate)?;
    let Some(owner) = owner.map(|o| o.map(|u| u.0)) else {
        return Err(ApiError::field(
            "token",
            "the invited player no longer exists",
        ));
    };
    if owner == Some(account.user_id) {
        return Ok((p, Some(true)));
    }
    if !consent {
        return Ok((p, Some(false)));
    }
    if owner.is_some() {
        return Err(ApiError::conflict_at(
            "player_id",
            format!("player {p} is already linked to another account"),
        ));
    }
    if let Some(other) = own_player(conn, account.user_id)? {
        return Err(ApiError::conflict_at(
            "player_id",
            format!("your account is already linked to player {other}"),
        ));
    }
    Ok((p, None))
}

/// Links the registered invited player to the account when the inviter may decide claims on
/// it (and is not the account itself): the invitation is then the inviter's decision, kept in
/// the player's links. Otherwise a claim is opened in the account's name for the player's
/// deciders (issue 37, item 2): `(linked, claim)`. Inside the caller's transaction, under the
/// player's row lock taken by [`the_player`].
fn link_invited(
    conn: &mut PgConnection,
    inv: &InvitationRow,
    by: &Caller,
    account: &Caller,
    player: i64,
    now: DateTime<Utc>,
) -> Result<(bool, Option<i64>), ApiError> {
    if by.user_id != account.user_id && super::claims::may_decide(conn, by, player)? {
        crate::db::player_links::say_how(
            conn,
            &crate::db::player_links::LinkContext {
                via: "invitation",
                claim_id: None,
                invitation_id: Some(inv.id),
                decided_by: Some(crate::db::ids::UserId(by.user_id)),
            },
        )?;
        crate::db::players::link(conn, PlayerId(player), UserId(account.user_id), now)?;
        return Ok((true, None));
    }
    let (player, me) = (PlayerId(player), UserId(account.user_id));
    let claim = match crate::db::claims::open_of(conn, player, me)? {
        Some(id) => id,
        None => {
            let message = format!(
                "Accepted invitation {} to tournament {} from {} and asked to be linked.",
                inv.id, inv.tournament_id, by.username
            );
            crate::db::claims::insert(conn, player, me, &message)?.id
        }
    };
    Ok((false, Some(claim.0)))
}

/// The inviter as a caller (their authority registers the player). 409 naming `token` when the
/// inviter's account is disabled, erased or gone: an invitation carries its inviter's
/// authority, which such an account no longer has (the caller's transaction is rolled back, so
/// the code stays unspent).
fn inviter(conn: &mut PgConnection, inv: &InvitationRow) -> Result<Caller, ApiError> {
    let standing = match inv.invited_by {
        Some(id) => crate::db::accounts::enabled_name_and_admin(conn, id)?,
        None => None,
    };
    match standing {
        Some((user_id, username, is_admin)) => Ok(Caller {
            user_id: user_id.0,
            username,
            is_admin,
            key: None,
            password_at: None,
        }),
        None => Err(ApiError::conflict_at(
            "token",
            "the account that sent this invitation is disabled or deleted: ask the tournament's \
             organisers for a new one",
        )),
    }
}

/// Accepts an invitation: signs up (in `invite` and `open` modes) or takes the signed-in
/// account, links the player with consent, registers it in the tournament, and spends the code.
/// 422 naming `token` for an unknown, revoked, used or expired code.
pub fn accept(
    conn: &mut PgConnection,
    mode: SignupMode,
    caller: &MaybeCaller,
    input: &AcceptInvitation,
    language: Language,
    now: DateTime<Utc>,
) -> Result<InvitationAccepted, ApiError> {
    let who = who(mode, caller.0.as_ref(), input)?;
    crate::db::transaction(conn, |conn| {
        let inv = redeem(conn, &input.token, now)?;
        let (account, new_account_made) = match &who {
            Who::Existing(c) => ((*c).clone(), false),
            Who::New { username, hash } => (
                new_account(conn, username, hash, &inv.email, language, now)?,
                true,
            ),
        };
        let (player_id, linked) = the_player(
            conn,
            inv.player_id.map(|p| p.0),
            &account,
            input.consent_link_player,
        )?;
        let by = inviter(conn, &inv)?;
        let tid = inv.tournament_id.0;
        let live =
            crate::db::registrations::is_registered(conn, inv.tournament_id, PlayerId(player_id))?;
        let registration = if live {
            read_registration(
                conn,
                &MaybeCaller(Some(by.clone())),
                inv.tournament_id,
                PlayerId(player_id),
            )?
            .1
        } else {
            let input = Register {
                player_id,
                seeding_rating: None,
                seeding_rated_games: None,
                colours: None,
            };
            register(conn, &by, tid, input, now)?
        };
        // Registered first, so the inviter's own tournament counts among the player's records.
        let (linked, claim_id) = match linked {
            Some(l) => (l, None),
            None => link_invited(conn, &inv, &by, &account, player_id, now)?,
        };
        store::set_accepted(conn, inv.id, UserId(account.user_id), now)?;
        Ok(InvitationAccepted {
            user_id: account.user_id,
            username: account.username,
            new_account: new_account_made,
            tournament_id: tid,
            player_id,
            linked,
            claim_id,
            registration,
        })
    })
}
