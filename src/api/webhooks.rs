//! Webhook subscriptions and their delivery logs: `/tournaments/{id}/webhooks`,
//! `/rating-pools/{id}/webhooks`, `/webhooks/{id}`.

use actix_web::{delete, get, post, web, HttpResponse};

use crate::api::extract::Json;
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::integrations::webhooks::{
    self, CreateWebhook, DeliveryOut, Scope, WebhookCreated, WebhookOut,
};

async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    scope: Scope,
    body: CreateWebhook,
) -> ApiResult<HttpResponse> {
    let policy = state.webhooks.clone();
    let created = state
        .run(move |conn| webhooks::create(conn, &caller, scope, body, &policy))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Location",
            format!("/api/v1/webhooks/{}/deliveries", created.webhook.id),
        ))
        .json(created))
}

async fn list(state: web::Data<AppState>, caller: Caller, scope: Scope) -> ApiResult<HttpResponse> {
    let hooks = state
        .run(move |conn| webhooks::list(conn, &caller, scope))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(hooks))
}

/// Subscribe a URL to a tournament's events (organisers).
///
/// Deliveries follow the Standard Webhooks specification: a JSON POST with `webhook-id` (the
/// same on every retry), `webhook-timestamp` and `webhook-signature` (`v1,` and the base64
/// HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed by the secret, shown only in this answer).
/// Failed deliveries are retried with growing delays for a day. Loopback and private targets
/// are refused unless the service allows them.
#[utoipa::path(
    operation_id = "create_tournament_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = CreateWebhook,
    responses(
        BodyErrors,
        (status = 201, description = "Subscribed; the secret is shown this once", body = WebhookCreated),
        (status = 403, description = "Not an organiser of the tournament", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/webhooks")]
pub async fn create_for_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<CreateWebhook>,
) -> ApiResult<HttpResponse> {
    create(state, caller, Scope::Tournament(id.into_inner()), body.0).await
}

/// List a tournament's webhooks (organisers).
///
/// Without their secrets.
#[utoipa::path(
    operation_id = "list_tournament_webhooks",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    responses(
        AuthErrors,
        (status = 200, description = "The subscriptions", body = Vec<WebhookOut>),
        (status = 403, description = "Not an organiser of the tournament", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/webhooks")]
pub async fn list_for_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    list(state, caller, Scope::Tournament(id.into_inner())).await
}

/// Subscribe a URL to a rating pool's events (admins).
///
/// The event is `leaderboard_changed`, signed and retried as for tournaments.
#[utoipa::path(
    operation_id = "create_pool_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id")),
    request_body = CreateWebhook,
    responses(
        BodyErrors,
        (status = 201, description = "Subscribed; the secret is shown this once", body = WebhookCreated),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such rating pool", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/rating-pools/{id}/webhooks")]
pub async fn create_for_pool(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<CreateWebhook>,
) -> ApiResult<HttpResponse> {
    create(state, caller, Scope::Pool(id.into_inner()), body.0).await
}

/// List a rating pool's webhooks (admins).
///
/// Without their secrets.
#[utoipa::path(
    operation_id = "list_pool_webhooks",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id")),
    responses(
        AuthErrors,
        (status = 200, description = "The subscriptions", body = Vec<WebhookOut>),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such rating pool", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/rating-pools/{id}/webhooks")]
pub async fn list_for_pool(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    list(state, caller, Scope::Pool(id.into_inner())).await
}

/// Remove a webhook and its delivery log (those who manage it).
///
/// Nothing more is sent to it, not even deliveries still pending.
#[utoipa::path(
    operation_id = "delete_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        AuthErrors,
        (status = 204, description = "Removed"),
        (status = 404, description = "No such webhook you manage", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/webhooks/{id}")]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    state
        .run(move |conn| webhooks::delete(conn, &caller, id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A webhook's newest 100 deliveries (those who manage it).
///
/// Each with its status (pending, delivered, failed), attempts, the last answer or error and
/// the body sent.
#[utoipa::path(
    operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        AuthErrors,
        (status = 200, description = "The deliveries, newest first", body = Vec<DeliveryOut>),
        (status = 404, description = "No such webhook you manage", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/webhooks/{id}/deliveries")]
pub async fn deliveries(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let list = state
        .run(move |conn| webhooks::deliveries(conn, &caller, id))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(list))
}

/// A webhook and one of its deliveries.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DeliveryPath {
    /// Webhook id
    pub id: i64,
    /// Delivery id
    pub delivery_id: i64,
}

/// Send a delivery again (those who manage the webhook).
///
/// It is queued now, with the same `webhook-id`, and retried for a day as a new one.
#[utoipa::path(
    operation_id = "redeliver_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(DeliveryPath),
    responses(
        AuthErrors,
        (status = 202, description = "Queued"),
        (status = 404, description = "No such webhook or delivery", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/webhooks/{id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DeliveryPath>,
) -> ApiResult<HttpResponse> {
    let DeliveryPath { id, delivery_id } = path.into_inner();
    state
        .run(move |conn| webhooks::redeliver(conn, &caller, id, delivery_id))
        .await?;
    Ok(HttpResponse::Accepted().finish())
}
