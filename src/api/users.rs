//! `/users`: accounts, managed by admins.

use actix_web::{get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::api::support::{with_links, Page, PageParams};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::services::users::{self, CreateUser, UserOut};
use crate::state::AppState;

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
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
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

/// List accounts (admin).
///
/// In creation order, in the list envelope with a `Link` header.
#[utoipa::path(
    operation_id = "list_users",
    tag = "users",
    security(("bearer" = [])),
    params(PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "A page of accounts", body = Page<UserOut>),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/users")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let page = state
        .run(move |conn| users::list_users(conn, &caller, &page.0))
        .await?;
    let mut answer = HttpResponse::Ok().json(&page);
    with_links(&req, &page, &mut answer);
    Ok(answer)
}
