//! `/users`: accounts, managed by admins.

use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::api::problem::{NoSuchAccount, NotAnAdmin};
use crate::api::support::{private_json, private_page, Page};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::accounts::users::{self, CreateUser, UpdateUser, UserFilter, UserOut};

/// Create an account (admin).
///
/// Passwords need at least 10 characters, must not equal the username and must not be one of the
/// most common passwords. Answers 201 with `Location`.
#[utoipa::path(
    operation_id = "create_user",
    tag = "users",
    security(("bearer" = [])),
    request_body = CreateUser,
    responses(
        BodyErrors,
        (status = 201, description = "Created", body = UserOut),
        NotAnAdmin,
        (status = 409, description = "Username taken", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/users")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreateUser>,
) -> ApiResult<HttpResponse> {
    let user = state
        .run(move |conn| users::create_account(conn, &caller, body.0))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/users/{}", user.id)))
        .json(user))
}

/// List or search accounts (admin).
///
/// In creation order, in the list envelope with a `Link` header; later pages by `cursor` (the
/// `next` link), which costs the same however many accounts there are; `total` is counted up
/// to 1,000 (`total_exact`). `q` finds part of a username, of the linked player's name (the
/// display name) or of the address, or a near match of a word of either name, ignoring case
/// and diacritics. (A pool's keepers choose keepers at
/// `GET /rating-pools/{id}/keeper-candidates`.)
#[utoipa::path(
    operation_id = "list_users",
    tag = "users",
    security(("bearer" = [])),
    params(UserFilter),
    responses(
        AuthErrors,
        (status = 200, description = "A page of accounts", body = Page<UserOut>),
        NotAnAdmin,
    )
)]
#[get("/users")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    query: Query<UserFilter>,
) -> ApiResult<HttpResponse> {
    let page = state
        .run(move |conn| users::list_users(conn, &caller, &query.0))
        .await?;
    Ok(private_page(&req, &page))
}

/// Read an account (admin).
///
/// Its name, global role, creation time and whether it is disabled; never its password.
#[utoipa::path(
    operation_id = "read_user",
    tag = "users",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "User id")),
    responses(
        AuthErrors,
        (status = 200, description = "The account", body = UserOut),
        NotAnAdmin,
        NoSuchAccount,
    )
)]
#[get("/users/{id}")]
pub async fn read(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let user = state
        .run(move |conn| users::read_user(conn, &caller, id))
        .await?;
    Ok(private_json(&user))
}

/// Change an account's admin role, or disable or enable it (admin).
///
/// Disabling ends every session of the account: its refresh tokens are revoked and its access
/// tokens and API keys are refused within seconds. The last enabled admin cannot be demoted or
/// disabled, nor an admin's own account (409): another admin does it.
#[utoipa::path(
    operation_id = "update_user",
    tag = "users",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "User id")),
    request_body = UpdateUser,
    responses(
        BodyErrors,
        (status = 200, description = "The account as changed", body = UserOut),
        NotAnAdmin,
        NoSuchAccount,
        (status = 409, description = "It is the last enabled admin, or your own account", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/users/{id}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<UpdateUser>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    let user = state
        .run(move |conn| users::update_user(conn, &caller, id, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(user))
}

/// Delete an account (admin).
///
/// An account that entered results or holds other records stays as a nameless, disabled
/// `deleted-<id>` so the history still says who did what; one without records is removed.
/// Either way its player link, staff roles, sessions and keys are gone. The last enabled admin
/// and one's own account cannot be deleted (409).
#[utoipa::path(
    operation_id = "delete_user",
    tag = "users",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "User id")),
    responses(
        AuthErrors,
        (status = 204, description = "Deleted"),
        NotAnAdmin,
        NoSuchAccount,
        (status = 409, description = "It is the last enabled admin, or your own account", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/users/{id}")]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    state
        .run(move |conn| users::delete_user(conn, &caller, id, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
