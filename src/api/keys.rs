//! `/me/api-keys`: the caller's API keys for scripts and club websites.

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::api::support::{private_json, private_page, Page, PageParams, PasswordGuard};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::accounts::api_keys::{self, ApiKeyCreated, ApiKeyOut, CreateApiKey};

/// Create an API key.
///
/// The key is in this answer only; it is stored as a hash. Send it as
/// `Authorization: Bearer <key>`. It acts as you, limited to its scopes (`read`,
/// `results:write`, `tournaments:write` which includes results, `admin` for admins) and, if
/// given, to one tournament's or one rating pool's paths. A key cannot manage sign-ins,
/// passwords or keys. At most 50 live keys per account.
///
/// A key outlives every session (a password change or a sign-out everywhere leaves it), so a
/// token alone does not make one: send the account's `current_password`, unless the access
/// token was answered by a sign-in (or a password change) in the last ten minutes (a
/// refreshed token never is). Wrong passwords count like failed sign-ins.
#[utoipa::path(
    operation_id = "create_api_key",
    tag = "auth",
    security(("bearer" = [])),
    request_body = CreateApiKey,
    responses(
        BodyErrors,
        (status = 201, description = "Created; the key is shown this once", body = ApiKeyCreated),
        (status = 403, description = "An API key cannot create keys", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "50 live keys already", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords; wait Retry-After seconds", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until requests are taken again"))),
    )
)]
#[post("/me/api-keys")]
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreateApiKey>,
) -> ApiResult<HttpResponse> {
    // Only a password given is counted (a missing one is no guess).
    let guard = match body.0.current_password {
        Some(_) => {
            Some(PasswordGuard::check(&req, &state, &caller.username, "current_password").await?)
        }
        None => None,
    };
    let now = state.clock.now();
    let created = state
        .run(move |conn| api_keys::create(conn, &caller, body.0, now))
        .await;
    let created = match guard {
        Some(guard) => guard.counted(created)?,
        None => created?,
    };
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Location",
            format!("/api/v1/me/api-keys/{}", created.api_key.id),
        ))
        .json(created))
}

/// List my API keys.
///
/// Newest first, revoked ones included, never the secret: the prefix tells them apart. In the
/// list envelope, with `Link`.
#[utoipa::path(
    operation_id = "list_api_keys",
    tag = "auth",
    security(("bearer" = [])),
    params(PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "The keys", body = Page<ApiKeyOut>),
    )
)]
#[get("/me/api-keys")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let keys = state.run(move |conn| api_keys::list(conn, &caller)).await?;
    Ok(private_page(&req, &Page::window(keys, &page.0)?))
}

/// Read one of my API keys.
///
/// Where creating a key points (`Location`); never the secret.
#[utoipa::path(
    operation_id = "read_api_key",
    tag = "auth",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Key id")),
    responses(
        AuthErrors,
        (status = 200, description = "The key (never its secret)", body = ApiKeyOut),
        (status = 404, description = "You have no such key", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/api-keys/{id}")]
pub async fn read(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let key = state
        .run(move |conn| api_keys::read(conn, &caller, id))
        .await?;
    Ok(private_json(&key))
}

/// Revoke an API key.
///
/// It is refused within seconds. Admins may revoke anyone's key.
#[utoipa::path(
    operation_id = "revoke_api_key",
    tag = "auth",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Key id")),
    responses(
        AuthErrors,
        (status = 204, description = "Revoked"),
        (status = 403, description = "An API key cannot revoke keys", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no such key", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/api-keys/{id}")]
pub async fn revoke(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    state
        .run(move |conn| api_keys::revoke(conn, &caller, id, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
