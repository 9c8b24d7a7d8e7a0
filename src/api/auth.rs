//! Sign-in and sessions: `POST /auth/token`, `/auth/refresh`, `/auth/logout`, `GET /me` and
//! `POST /me/password`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::Json;
use crate::api::problem::NoOrInvalidToken;
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::api::support::{private_json, throttled_sign_in, PasswordGuard};
use crate::auth::jwt::Subject;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::accounts::auth::{self, Me, TokenRequest};
use crate::services::accounts::sessions::{self, ChangePassword, Logout, SessionTokens, Started};

/// Exchange a username and password for a short-lived JWT.
///
/// Wrong credentials get 401 without saying whether the username or the password was wrong.
/// Failures are counted over the last five minutes (a sliding count, not fixed windows): 10
/// per account from one address and 50 per address; past them 429 until one has left the five
/// minutes. After 10 on an account from anywhere its sign-ins are slowed (up to 3 s), never
/// refused.
#[utoipa::path(
    operation_id = "issue_token",
    tag = "auth",
    request_body = TokenRequest,
    responses(
        BodyErrors,
        (status = 200, description = "A fresh access token and the refresh token of a new session", body = SessionTokens),
        (status = 401, description = "Wrong username or password", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The account's e-mail address is not verified yet (self-made accounts, issue 29)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many failed sign-ins for the account or from the address; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until a sign-in is taken again: until one of the failures has left the last five minutes"))),
    )
)]
#[post("/auth/token")]
pub async fn issue_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Json<TokenRequest>,
) -> ApiResult<HttpResponse> {
    let TokenRequest { username, password } = body.0;
    let session = throttled_sign_in(&req, &state, username, password, |name, password| {
        let now = state.clock.now();
        state.run(move |conn| sessions::sign_in(conn, &name, &password, now))
    })
    .await?;
    tokens(&state, session)
}

/// The answer of a sign-in, a refresh or a password change: a fresh access token for the
/// session, with its refresh token.
fn tokens(state: &AppState, session: Started) -> ApiResult<HttpResponse> {
    let (token, expires_at) = state
        .jwt
        .issue(Subject {
            user_id: session.user_id,
            username: &session.username,
            is_admin: session.is_admin,
            session_epoch: session.session_epoch,
            session: Some(session.refresh.family_id),
            password_at: session.password_at,
        })
        .map_err(ApiError::Internal)?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(SessionTokens {
            access_token: token,
            token_type: "Bearer".into(),
            expires_in: state.jwt.ttl().as_secs(),
            expires_at,
            refresh_token: session.refresh.token,
            refresh_expires_at: session.refresh.expires_at,
        }))
}

/// A refresh token to exchange.
#[derive(Debug, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "rt_3f9c..."}))]
pub struct RefreshRequest {
    #[schema(min_length = 1, max_length = 100)]
    pub refresh_token: String,
}

/// Exchange a refresh token for a new access token and a new refresh token.
///
/// Each refresh token works once: the answer carries its successor. Presenting one that was
/// already exchanged means it leaked, so the whole session is revoked and the answer is 401;
/// the app must sign in again (RFC 9700, section 4.14.2).
#[utoipa::path(
    operation_id = "refresh_token",
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        BodyErrors,
        (status = 200, description = "New tokens; the refresh token sent is spent", body = SessionTokens),
        (status = 401, description = "Unknown, expired, revoked or reused refresh token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: Json<RefreshRequest>,
) -> ApiResult<HttpResponse> {
    let token = body.0.refresh_token;
    let now = state.clock.now();
    let session = state
        .run(move |conn| sessions::refresh(conn, &token, now))
        .await?;
    tokens(&state, session)
}

/// Sign out: revoke the session of a refresh token, or every session of its account.
///
/// Needs no access token (an app's may have expired). With `everywhere`, every access token of
/// the account issued so far is refused within seconds as well. Answers 204 whether or not the
/// token was known.
#[utoipa::path(
    operation_id = "logout",
    tag = "auth",
    request_body = Logout,
    responses(
        BodyErrors,
        (status = 204, description = "Signed out"),
    )
)]
#[post("/auth/logout")]
pub async fn logout(state: web::Data<AppState>, body: Json<Logout>) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    state
        .run(move |conn| sessions::logout(conn, &body.0, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Change my password.
///
/// Needs the current password. Every session of the account ends: refresh tokens are revoked
/// and access tokens issued before are refused. The answer is a new session for this device.
/// API keys and the calendar feed keep working (revoke them at `/me/api-keys` and
/// `/me/calendar`). Wrong current passwords count like failed sign-ins (a stolen token must not
/// guess the password at the write rate): too many, and the account is refused from this client
/// for a while (429), the right password too.
#[utoipa::path(
    operation_id = "change_password",
    tag = "auth",
    security(("bearer" = [])),
    request_body = ChangePassword,
    responses(
        BodyErrors,
        AuthErrors,
        (status = 200, description = "Changed; a new session", body = SessionTokens),
        (status = 429, description = "Too many wrong passwords for the account or from the client; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until passwords are taken again"))),
    )
)]
#[post("/me/password")]
pub async fn change_password(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<ChangePassword>,
) -> ApiResult<HttpResponse> {
    let guard = PasswordGuard::check(&req, &state, &caller.username, "current_password").await?;
    let now = state.clock.now();
    let session = state
        .run(move |conn| sessions::change_password(conn, &caller, &body.0, now))
        .await;
    tokens(&state, guard.counted(session)?)
}

/// Who am I: my account, my global role and my tournament roles.
///
/// Answers the account behind the bearer token: its id, username, whether it is an admin (as stored
/// now, not as the token says), its linked player if any, every tournament where it holds a
/// staff role, its address (whether verified, and an address change waiting for its code) and
/// the language of its messages.
#[utoipa::path(
    operation_id = "read_me",
    tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = Me),
        NoOrInvalidToken,
    )
)]
#[get("/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let me = state.run(move |conn| auth::me(conn, &caller, now)).await?;
    Ok(private_json(&me))
}
