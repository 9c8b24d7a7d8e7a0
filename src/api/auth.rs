//! `POST /auth/token` and `GET /me`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::Json;
use crate::api::problem::BodyErrors;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult, Problem};
use crate::services::auth::{self, Me, TokenRequest, TokenResponse};
use crate::state::AppState;

/// Exchange a username and password for a short-lived JWT.
///
/// Wrong credentials get 401 without saying whether the username or the password was wrong.
#[utoipa::path(
    operation_id = "issue_token",
    tag = "auth",
    request_body = TokenRequest,
    responses(
        BodyErrors,
        (status = 200, description = "A fresh token", body = TokenResponse),
        (status = 401, description = "Wrong username or password", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many failed sign-ins for the account or from the address; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until sign-ins are taken again"))),
    )
)]
#[post("/auth/token")]
pub async fn issue_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Json<TokenRequest>,
) -> ApiResult<HttpResponse> {
    let TokenRequest { username, password } = body.0;
    let address = req
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    let throttle = state.login_throttle.clone();
    throttle.check(&username, &address)?;
    let wrong = || ApiError::Unauthorized("wrong username or password".into());
    if username.len() > 64 || password.len() > 256 {
        throttle.failed(&username, &address);
        return Err(wrong());
    }
    let st = state.clone();
    let name = username.clone();
    let user = state
        .run(move |conn| auth::authenticate(conn, &name, &password))
        .await?;
    let Some(user) = user else {
        throttle.failed(&username, &address);
        return Err(wrong());
    };
    throttle.succeeded(&username);
    let (token, expires_at) = st
        .jwt
        .issue(user.id, &user.username, user.is_admin)
        .map_err(ApiError::Internal)?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(TokenResponse {
            access_token: token,
            token_type: "Bearer".into(),
            expires_in: st.jwt.ttl().as_secs(),
            expires_at,
        }))
}

/// Who am I: my account, my global role and my tournament roles.
///
/// Answers the account behind the bearer token: its id, username, whether it is an admin (as stored
/// now, not as the token says), its linked player if any, and every tournament where it holds a
/// staff role.
#[utoipa::path(
    operation_id = "read_me",
    tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = Me),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let me = state.run(move |conn| auth::me(conn, &caller)).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(me))
}
