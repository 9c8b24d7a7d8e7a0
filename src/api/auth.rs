//! `POST /auth/token` and `GET /me`.

use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::extract::Json;
use crate::auth::{password, Caller, StaffRole};
use crate::db::models::User;
use crate::db::schema::{players, tournament_staff, users};
use crate::error::{ApiError, ApiResult, Problem};
use crate::state::AppState;

/// Credentials to exchange for a token.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    #[schema(example = "admin", max_length = 64)]
    pub username: String,
    #[schema(example = "correct horse battery staple", max_length = 256)]
    pub password: String,
}

/// A bearer token.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    /// Send it as `Authorization: Bearer <access_token>`.
    pub access_token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    /// Seconds until it expires.
    #[schema(example = 3600)]
    pub expires_in: u64,
    pub expires_at: DateTime<Utc>,
}

/// Exchange a username and password for a short-lived JWT.
///
/// Wrong credentials get 401 without saying whether the username or the password was wrong.
#[utoipa::path(
    tag = "auth",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "A fresh token", body = TokenResponse),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong username or password", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/token")]
pub async fn issue_token(
    state: web::Data<AppState>,
    body: Json<TokenRequest>,
) -> ApiResult<HttpResponse> {
    let TokenRequest { username, password } = body.0;
    if username.len() > 64 || password.len() > 256 {
        return Err(ApiError::Unauthorized("wrong username or password".into()));
    }
    let st = state.clone();
    // Only a name that could exist is looked up (this also keeps NUL bytes, which PostgreSQL
    // refuses in text, away from the query); the rest costs a dummy hash like a miss.
    let plausible = crate::services::users::is_valid_username(&username);
    let user = state
        .run(move |conn| {
            if !plausible {
                password::verify_dummy(&password);
                return Ok(None);
            }
            let user: Option<User> = users::table
                .filter(users::username.eq(&username))
                .select(User::as_select())
                .first(conn)
                .optional()?;
            match user {
                Some(u) if password::verify(&password, &u.password_hash) => Ok(Some(u)),
                Some(_) => Ok(None),
                None => {
                    password::verify_dummy(&password);
                    Ok(None)
                }
            }
        })
        .await?
        .ok_or_else(|| ApiError::Unauthorized("wrong username or password".into()))?;
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

/// A role held in one tournament.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentRole {
    pub tournament_id: i64,
    pub role: StaffRole,
}

/// The signed-in user.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    pub id: i64,
    pub username: String,
    /// The one global role.
    pub is_admin: bool,
    /// The player identity linked to this account, if any.
    pub player_id: Option<i64>,
    /// Staff roles per tournament (organiser, referee, appeals committee).
    pub tournament_roles: Vec<TournamentRole>,
}

/// Who am I: my account, my global role and my tournament roles.
#[utoipa::path(
    tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = Me),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let me = state
        .run(move |conn| {
            let user: User = users::table
                .find(caller.user_id)
                .select(User::as_select())
                .first(conn)
                .optional()?
                .ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
            let player_id: Option<i64> = players::table
                .filter(players::user_id.eq(user.id))
                .select(players::id)
                .first(conn)
                .optional()?;
            let roles: Vec<(i64, String)> = tournament_staff::table
                .filter(tournament_staff::user_id.eq(user.id))
                .select((tournament_staff::tournament_id, tournament_staff::role))
                .order((tournament_staff::tournament_id, tournament_staff::role))
                .load(conn)?;
            Ok(Me {
                id: user.id,
                username: user.username,
                is_admin: user.is_admin,
                player_id,
                tournament_roles: roles
                    .into_iter()
                    .filter_map(|(tournament_id, r)| {
                        StaffRole::parse(&r).map(|role| TournamentRole {
                            tournament_id,
                            role,
                        })
                    })
                    .collect(),
            })
        })
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(me))
}
