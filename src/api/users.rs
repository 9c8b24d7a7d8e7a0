//! `/users`: accounts, managed by admins.

use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::extract::{Json, Query};
use crate::api::support::{Page, PageParams};
use crate::auth::Caller;
use crate::db::models::User;
use crate::db::schema::users;
use crate::error::{ApiResult, Problem};
use crate::services::users::create_user;
use crate::state::AppState;

/// A new account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateUser {
    /// 3-64 characters: letters, digits, `.`, `_`, `-`.
    #[schema(example = "kari.referee", pattern = "^[A-Za-z0-9._-]{3,64}$")]
    pub username: String,
    /// 8-256 characters.
    #[schema(example = "a long passphrase", min_length = 8, max_length = 256)]
    pub password: String,
    /// Make the account an admin (default false).
    #[serde(default)]
    pub is_admin: bool,
}

/// An account (never its password).
#[derive(Debug, Serialize, ToSchema)]
pub struct UserOut {
    pub id: i64,
    pub username: String,
    pub is_admin: bool,
    pub created_at: DateTime<Utc>,
}

impl From<User> for UserOut {
    fn from(u: User) -> Self {
        Self {
            id: u.id,
            username: u.username,
            is_admin: u.is_admin,
            created_at: u.created_at,
        }
    }
}

/// Create an account (admin).
#[utoipa::path(
    tag = "users",
    security(("bearer" = [])),
    request_body = CreateUser,
    responses(
        (status = 201, description = "Created", body = UserOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Username taken", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/users")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreateUser>,
) -> ApiResult<HttpResponse> {
    caller.require_admin()?;
    let CreateUser {
        username,
        password,
        is_admin,
    } = body.0;
    let user = state
        .run(move |conn| create_user(conn, &username, &password, is_admin))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/users/{}", user.id)))
        .json(UserOut::from(user)))
}

/// List accounts (admin).
#[utoipa::path(
    tag = "users",
    security(("bearer" = [])),
    params(PageParams),
    responses(
        (status = 200, description = "A page of accounts", body = Page<UserOut>),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid parameters", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/users")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    caller.require_admin()?;
    let (limit, offset) = page.0.resolve()?;
    let page = state
        .run(move |conn| {
            let total = users::table.count().get_result(conn)?;
            let items: Vec<User> = users::table
                .order(users::id)
                .limit(limit)
                .offset(offset)
                .select(User::as_select())
                .load(conn)?;
            Ok(Page {
                items: items.into_iter().map(UserOut::from).collect::<Vec<_>>(),
                total,
                limit,
                offset,
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(page))
}
