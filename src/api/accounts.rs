//! Accounts their owners make, recover and take away (issue 29): `POST /auth/signup`,
//! `/auth/verify-email`, `/auth/verify-email/resend`, `/auth/password-reset` and `/auth/password-reset/confirm`; a person's
//! own data, `GET /me/export` and `DELETE /me`, and an admin's `GET /users/{id}/export` and
//! `POST /users/{id}/erasure`; and `PATCH /me` (language and address, issue 40).

use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::Json;
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::api::problem::{MailNotConfigured, NoSuchAccount};
use crate::api::support::{client_address, private_json, PasswordGuard};
use crate::auth::Caller;
use crate::domain::accounts::{Language, SignupMode};
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::accounts::auth::Me;
use crate::services::accounts::data::{self, EraseMe, Erased};
use crate::services::accounts::export::{self, Export};
use crate::services::accounts::profile::{self, UpdateMe};
use crate::services::accounts::reset::{self, ResetConfirm, ResetRequest};
use crate::services::accounts::signup::{self, Accepted, ResendVerification, SignUp, VerifyEmail};

/// Sign up (when the instance's `SIGNUP_MODE` is `open`).
///
/// Makes an account that can sign in once its e-mail address is verified: the code goes to the
/// address, in the language of `Accept-Language` (en, nb, pl, de, zh-Hant; else English). The
/// answer is 202 whether or not the address already has an account (that account gets a
/// message instead), so it tells nobody which addresses are known. Sign-ups are counted like
/// failed sign-ins: 10 per address or 50 per client in 5 minutes. Public.
#[utoipa::path(
    operation_id = "sign_up",
    tag = "auth",
    request_body = SignUp,
    params(("Accept-Language" = Option<String>, Header, description = "The language of the account's messages")),
    responses(
        BodyErrors,
        (status = 202, description = "Taken: if the address can be used, a message is on its way", body = Accepted),
        (status = 403, description = "Sign-up is closed here, or by invitation only", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The username is taken (in any case)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many sign-ups for the address or from the client; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until sign-ups are taken again"))),
        MailNotConfigured,
    )
)]
#[post("/auth/signup")]
pub async fn sign_up(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Json<SignUp>,
) -> ApiResult<HttpResponse> {
    let setup = &state.signup;
    if setup.mode == SignupMode::Open {
        setup.mail.require()?;
    }
    count_request(&req, &state, &body.0.email)?;
    let language = Language::from_accept_language(
        req.headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok()),
    );
    let mode = setup.mode;
    let links = setup.links.clone();
    let now = state.clock.now();
    let accepted = state
        .run(move |conn| signup::sign_up(conn, mode, &body.0, language, &links, now))
        .await?;
    Ok(HttpResponse::Accepted().json(accepted))
}

/// Verify an e-mail address with the code from its message.
///
/// The account can sign in from then on, with the password of the sign-up that made it (signing
/// up again with the address before verifying sends another code, which keeps that password:
/// the second sign-up's password is not used); the account's other verification codes are spent. A code works once
/// and for 24 hours. An address change's code (`ec_...`, from `PATCH /me`) moves the account to
/// its new address instead. The code of an account an admin has disabled is refused like an
/// unknown one (422 naming `token`, saying the account is closed) and stays unspent: it works
/// once the account is enabled again, within its 24 hours. Public.
#[utoipa::path(
    operation_id = "verify_email",
    tag = "auth",
    request_body = VerifyEmail,
    responses(
        BodyErrors,
        (status = 204, description = "Verified"),
        (status = 409, description = "An address change's code, but another account took the address meanwhile (`email`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/verify-email")]
pub async fn verify_email(
    state: web::Data<AppState>,
    body: Json<VerifyEmail>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    state
        .run(move |conn| signup::verify_email(conn, &body.0, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Ask for a new verification code by e-mail.
///
/// Always 202 for an address: if it belongs to an enabled account that is not verified yet, a
/// new code valid for 24 hours is on its way to it (the password stays as it is). Counted like
/// sign-ups: 10 per address or 50 per client in 5 minutes. Public.
#[utoipa::path(
    operation_id = "resend_verification",
    tag = "auth",
    request_body = ResendVerification,
    responses(
        BodyErrors,
        (status = 202, description = "Taken: if the address waits for verification, a message is on its way", body = Accepted),
        (status = 429, description = "Too many requests for the address or from the client; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until requests are taken again"))),
        MailNotConfigured,
    )
)]
#[post("/auth/verify-email/resend")]
pub async fn resend_verification(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Json<ResendVerification>,
) -> ApiResult<HttpResponse> {
    mailed_request(&req, &state, &body.0.email)?;
    let links = state.signup.links.clone();
    let now = state.clock.now();
    let accepted = state
        .run(move |conn| signup::resend_verification(conn, &body.0, &links, now))
        .await?;
    Ok(HttpResponse::Accepted().json(accepted))
}

/// Ask for a password-reset code by e-mail.
///
/// Always 202 for an address: if it belongs to an enabled account, a code valid for one hour
/// is on its way to it (in the account's language). Counted like sign-ups. Public.
#[utoipa::path(
    operation_id = "request_password_reset",
    tag = "auth",
    request_body = ResetRequest,
    responses(
        BodyErrors,
        (status = 202, description = "Taken: if the address is known, a message is on its way", body = Accepted),
        (status = 429, description = "Too many requests for the address or from the client; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until requests are taken again"))),
        MailNotConfigured,
    )
)]
#[post("/auth/password-reset")]
pub async fn request_reset(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Json<ResetRequest>,
) -> ApiResult<HttpResponse> {
    mailed_request(&req, &state, &body.0.email)?;
    let links = state.signup.links.clone();
    let now = state.clock.now();
    let accepted = state
        .run(move |conn| reset::request_reset(conn, &body.0, &links, now))
        .await?;
    Ok(HttpResponse::Accepted().json(accepted))
}

/// Set a new password with a reset code.
///
/// The code works once and for an hour; using it spends the account's other reset codes,
/// counts its address as verified, and ends every session (refresh tokens revoked, access
/// tokens refused) and the account's private calendar feed (make a new one with `POST
/// /me/calendar`). API keys keep working: review them at `/me/api-keys`. Sign in with the new
/// password afterwards. Public.
#[utoipa::path(
    operation_id = "confirm_password_reset",
    tag = "auth",
    request_body = ResetConfirm,
    responses(
        BodyErrors,
        (status = 204, description = "The password is set; every session and the calendar feed ended"),
    )
)]
#[post("/auth/password-reset/confirm")]
pub async fn confirm_reset(
    state: web::Data<AppState>,
    body: Json<ResetConfirm>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    state
        .run(move |conn| reset::confirm_reset(conn, &body.0, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Everything stored about me (GDPR articles 15 and 20).
///
/// One JSON document in named sections: my account, my player, sessions, API keys, codes issued
/// and messages (when and what, never a code, a secret, a hash or a message's text), roles,
/// claims, invitations, registrations, results, ratings, withdrawals, penalties, cases, and the
/// records I made or decided by kind and key. A password sign-in only (an API key is refused).
#[utoipa::path(
    operation_id = "export_me",
    tag = "auth",
    security(("bearer" = [])),
    responses(
        AuthErrors,
        (status = 200, description = "Everything stored about the account and its player", body = Export),
        (status = 403, description = "Signed in with an API key", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/export")]
pub async fn export_me(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let id = caller.user_id;
    let now = state.clock.now();
    let export = state
        .run(move |conn| export::export(conn, &caller, id, now))
        .await?;
    Ok(private_json(&export))
}

/// Erase my account (GDPR article 17).
///
/// The account's address, name, password, sessions, keys, codes, messages and roles go. My
/// player is removed, or, if records refer to it (games, ratings, registrations), renamed
/// `Player <id> (erased)` without club or country, so results, standings and ratings stay
/// intact. Every token of the account is refused within 2 seconds. The last enabled admin
/// cannot erase themselves (409). A password sign-in only, and the account's password in the
/// body: a token alone erases nothing (422 naming `password` when it is missing or wrong;
/// wrong passwords are counted like failed sign-ins).
#[utoipa::path(
    operation_id = "erase_me",
    tag = "auth",
    security(("bearer" = [])),
    request_body = EraseMe,
    responses(
        AuthErrors,
        (status = 200, description = "Erased; what became of the player", body = Erased),
        (status = 403, description = "Signed in with an API key", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The last enabled admin", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The password is missing or is not the account's; nothing was erased", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for the account or from the client; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until passwords are taken again"))),
    )
)]
#[delete("/me")]
pub async fn erase_me(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    // A missing or unreadable body is a missing password: the service names the field.
    body: Option<Json<EraseMe>>,
) -> ApiResult<HttpResponse> {
    let guard = PasswordGuard::check(&req, &state, &caller.username, "password").await?;
    let input = body.map(|b| b.0);
    let now = state.clock.now();
    let erased = state
        .run(move |conn| data::erase_me(conn, &caller, input.as_ref(), now))
        .await;
    Ok(private_json(&guard.counted(erased)?))
}

/// Everything stored about an account and its player (admin).
///
/// As `GET /me/export`, for any account: an admin answers a person's request for their data.
#[utoipa::path(
    operation_id = "export_user",
    tag = "users",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "User id")),
    responses(
        AuthErrors,
        (status = 200, description = "Everything stored about the account and its player", body = Export),
        (status = 403, description = "Not an admin, or an API key", body = Problem, content_type = "application/problem+json"),
        NoSuchAccount,
    )
)]
#[get("/users/{id}/export")]
pub async fn export_user(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let now = state.clock.now();
    let export = state
        .run(move |conn| export::export(conn, &caller, id, now))
        .await?;
    Ok(private_json(&export))
}

/// Erase an account and pseudonymise its player (admin).
///
/// As `DELETE /me`, for another account (an admin answers a person's request for erasure); not
/// the last enabled admin. An admin only, and never the caller's own account: that is
/// `DELETE /me`, which asks for the password (403).
#[utoipa::path(
    operation_id = "erase_user",
    tag = "users",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "User id")),
    responses(
        AuthErrors,
        (status = 200, description = "Erased; what became of the player", body = Erased),
        (status = 403, description = "Not an admin, an API key, or the caller's own account (erased with DELETE /me and its password)", body = Problem, content_type = "application/problem+json"),
        NoSuchAccount,
        (status = 409, description = "The last enabled admin", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/users/{id}/erasure")]
pub async fn erase_user(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let now = state.clock.now();
    let erased = state
        .run(move |conn| data::erase(conn, &caller, id, now))
        .await?;
    Ok(private_json(&erased))
}

/// A request that mails an address (a reset or a new verification code): the instance must
/// send mail, and it counts like a sign-up for the address and the client.
fn mailed_request(req: &HttpRequest, state: &AppState, email: &str) -> ApiResult<()> {
    state.signup.mail.require()?;
    count_request(req, state, email)
}

/// Counts a sign-up-like request for the address and the client; 429 past the limit.
fn count_request(req: &HttpRequest, state: &AppState, email: &str) -> ApiResult<()> {
    let address = client_address(req);
    state.signup.throttle.check(email, &address)?;
    state.signup.throttle.failed(email, &address);
    Ok(())
}

/// Change my language or my address.
///
/// `language` (`en`, `nb`, `pl`, `de`, `zh-Hant`) changes at once. A new `email` needs the
/// account's `current_password` as well (a token alone does not move the account's mail): a
/// code goes to the new address (the link opens `/account/verify-email`, as a sign-up's; the
/// code works at `POST /auth/verify-email` too, for 24 hours), and a notice to the current
/// address with a password-reset code that undoes the change. The address changes only when
/// the code is used; until then `pending_email` shows it. Sending the current address cancels
/// a change that waits; a new password (reset or `POST /me/password`) does too. Wrong passwords
/// count like failed sign-ins; address changes count like sign-ups (10 per address, 50 per
/// client in 5 minutes). Nothing is written on a refused step.
#[utoipa::path(
    operation_id = "update_me",
    tag = "auth",
    security(("bearer" = [])),
    request_body = UpdateMe,
    responses(
        BodyErrors,
        AuthErrors,
        (status = 200, description = "The account as changed (an address change waits in `pending_email`)", body = Me),
        (status = 409, description = "Another account uses the address (`email`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords or address changes; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until requests are taken again"))),
        MailNotConfigured,
    )
)]
#[patch("/me")]
pub async fn update_me(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<UpdateMe>,
) -> ApiResult<HttpResponse> {
    // Only an address change asks for the password.
    let guard = match body.0.email.as_deref() {
        Some(email) => {
            state.signup.mail.require()?;
            let guard =
                PasswordGuard::check(&req, &state, &caller.username, "current_password").await?;
            count_request(&req, &state, email)?;
            Some(guard)
        }
        None => None,
    };
    let links = state.signup.links.clone();
    let now = state.clock.now();
    let input = body.0;
    let changed = state
        .run(move |conn| profile::update_me(conn, &caller, &input, &links, now))
        .await;
    let changed = match guard {
        Some(guard) => guard.counted(changed),
        None => changed,
    };
    Ok(private_json(&changed?))
}
