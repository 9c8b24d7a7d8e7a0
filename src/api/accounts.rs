//! Accounts their owners make and recover (issue 29): `POST /auth/signup`,
//! `/auth/verify-email`, `/auth/password-reset` and `/auth/password-reset/confirm`.

use actix_web::{post, web, HttpRequest, HttpResponse};

use crate::api::extract::Json;
use crate::api::problem::BodyErrors;
use crate::domain::accounts::{Language, SignupMode};
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::accounts::reset::{self, ResetConfirm, ResetRequest};
use crate::services::accounts::signup::{self, Accepted, SignUp, VerifyEmail};

fn client_address(req: &HttpRequest) -> String {
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default()
}

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
        (status = 503, description = "This instance cannot send e-mail (SMTP_URL is not configured)", body = Problem, content_type = "application/problem+json"),
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
    let address = client_address(&req);
    setup.throttle.check(&body.0.email, &address)?;
    setup.throttle.failed(&body.0.email, &address);
    let language = Language::from_accept_language(
        req.headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok()),
    );
    let mode = setup.mode;
    let accepted = state
        .run(move |conn| signup::sign_up(conn, mode, &body.0, language))
        .await?;
    Ok(HttpResponse::Accepted().json(accepted))
}

/// Verify an e-mail address with the code from its message.
///
/// The account can sign in from then on. A code works once and for 24 hours. Public.
#[utoipa::path(
    operation_id = "verify_email",
    tag = "auth",
    request_body = VerifyEmail,
    responses(
        BodyErrors,
        (status = 204, description = "Verified"),
    )
)]
#[post("/auth/verify-email")]
pub async fn verify_email(
    state: web::Data<AppState>,
    body: Json<VerifyEmail>,
) -> ApiResult<HttpResponse> {
    state
        .run(move |conn| signup::verify_email(conn, &body.0))
        .await?;
    Ok(HttpResponse::NoContent().finish())
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
        (status = 503, description = "This instance cannot send e-mail (SMTP_URL is not configured)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/password-reset")]
pub async fn request_reset(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Json<ResetRequest>,
) -> ApiResult<HttpResponse> {
    let setup = &state.signup;
    setup.mail.require()?;
    let address = client_address(&req);
    setup.throttle.check(&body.0.email, &address)?;
    setup.throttle.failed(&body.0.email, &address);
    let accepted = state
        .run(move |conn| reset::request_reset(conn, &body.0))
        .await?;
    Ok(HttpResponse::Accepted().json(accepted))
}

/// Set a new password with a reset code.
///
/// The code works once and for an hour; using it spends the account's other reset codes,
/// counts its address as verified, and ends every session (refresh tokens revoked, access
/// tokens refused). Sign in with the new password afterwards. Public.
#[utoipa::path(
    operation_id = "confirm_password_reset",
    tag = "auth",
    request_body = ResetConfirm,
    responses(
        BodyErrors,
        (status = 204, description = "The password is set; every session ended"),
    )
)]
#[post("/auth/password-reset/confirm")]
pub async fn confirm_reset(
    state: web::Data<AppState>,
    body: Json<ResetConfirm>,
) -> ApiResult<HttpResponse> {
    state
        .run(move |conn| reset::confirm_reset(conn, &body.0))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
