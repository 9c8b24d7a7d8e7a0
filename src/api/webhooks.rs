//! Webhook subscriptions and their delivery logs: `/tournaments/{id}/webhooks`,
//! `/rating-pools/{id}/webhooks`, `/webhooks/{id}`.

use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::{AuthErrors, BodyErrors};
use crate::api::problem::{NoSuchTournament, NoSuchWebhook, NotAnAdmin, NotTheOrganiser};
use crate::api::support::{private_json, private_page, CursorParams, Page, PageParams};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::integrations::webhook_manage::{
    self, RotateSecret, SecretRotated, UpdateWebhook,
};
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
            format!("/api/v1/webhooks/{}", created.webhook.id),
        ))
        .json(created))
}

async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    scope: Scope,
    page: PageParams,
) -> ApiResult<HttpResponse> {
    let hooks = state
        .run(move |conn| webhooks::list(conn, &caller, scope))
        .await?;
    Ok(private_page(&req, &Page::window(hooks, &page)?))
}

/// Subscribe a URL to a tournament's events (organisers).
///
/// Deliveries follow the Standard Webhooks specification: a JSON POST with `webhook-id` (the
/// same on every retry), `webhook-timestamp` and `webhook-signature` (`v1,` and the base64
/// HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed by the secret, shown only in this answer).
/// Failed deliveries are retried with growing delays for a day. Loopback, private and reserved
/// targets are refused unless the service allows them. At most 10 subscriptions per tournament
/// (and per pool). `webhook-id` is random (`msg_` and 32 hex digits): it never repeats. Answers
/// 201 with `Location` (`GET /webhooks/{id}`).
#[utoipa::path(
    operation_id = "create_tournament_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = CreateWebhook,
    responses(
        BodyErrors,
        (status = 201, description = "Subscribed; the secret is shown this once", body = WebhookCreated),
        NotTheOrganiser,
        NoSuchTournament,
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
    params(("id" = i64, Path, description = "Tournament id"), PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "The live subscriptions, in the list envelope", body = Page<WebhookOut>),
        NotTheOrganiser,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/webhooks")]
pub async fn list_for_tournament(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    list(
        req,
        state,
        caller,
        Scope::Tournament(id.into_inner()),
        page.0,
    )
    .await
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
        NotAnAdmin,
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
    params(("id" = i64, Path, description = "Rating pool id"), PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "The live subscriptions, in the list envelope", body = Page<WebhookOut>),
        NotAnAdmin,
        (status = 404, description = "No such rating pool", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/rating-pools/{id}/webhooks")]
pub async fn list_for_pool(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    list(req, state, caller, Scope::Pool(id.into_inner()), page.0).await
}

/// Remove a webhook (those who manage it).
///
/// Nothing more is sent to it: deliveries still pending fail ("the subscription was deleted").
/// Its delivery log stays readable (`GET /webhooks/{id}/deliveries`) for 30 days.
#[utoipa::path(
    operation_id = "delete_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        AuthErrors,
        (status = 204, description = "Removed"),
        NoSuchWebhook,
    )
)]
#[delete("/webhooks/{id}")]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    state
        .run(move |conn| webhooks::delete(conn, &caller, id, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A webhook's deliveries, newest first (those who manage it).
///
/// Each with its status (pending, delivered, failed), attempts, the last answer or error and
/// the body sent; pages in the list envelope with `Link`: later pages by `cursor` (the `next`
/// link), which costs the same however long the log is; `total` is counted up to 1,000
/// (`total_exact`). A deleted webhook's log is readable for 30 days after the deletion.
#[utoipa::path(
    operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id"), CursorParams),
    responses(
        AuthErrors,
        (status = 200, description = "The deliveries, newest first, in the list envelope", body = Page<DeliveryOut>),
        NoSuchWebhook,
    )
)]
#[get("/webhooks/{id}/deliveries")]
pub async fn deliveries(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: Query<CursorParams>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let list = state
        .run(move |conn| webhooks::deliveries(conn, &caller, id, &query.0))
        .await?;
    Ok(private_page(&req, &list))
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
    let now = state.clock.now();
    state
        .run(move |conn| webhooks::redeliver(conn, &caller, id, delivery_id, now))
        .await?;
    Ok(HttpResponse::Accepted().finish())
}

/// Read a webhook (those who manage it).
///
/// Its URL, kinds, pause, the end of a secret rotation's overlap and the last error with its
/// cause (never the secret).
#[utoipa::path(
    operation_id = "read_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        AuthErrors,
        (status = 200, description = "The subscription", body = WebhookOut),
        NoSuchWebhook,
    )
)]
#[get("/webhooks/{id}")]
pub async fn read(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let hook = state
        .run(move |conn| webhook_manage::read(conn, &caller, id))
        .await?;
    Ok(private_json(&hook))
}

/// Change a webhook's URL, kinds or pause (those who manage it).
///
/// While paused, events still queue and nothing is sent; resuming sends them (a delivery more
/// than a day old is tried once more, then `failed`).
#[utoipa::path(
    operation_id = "update_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    request_body = UpdateWebhook,
    responses(
        BodyErrors,
        (status = 200, description = "The subscription as changed", body = WebhookOut),
        NoSuchWebhook,
    )
)]
#[patch("/webhooks/{id}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<UpdateWebhook>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let policy = state.webhooks.clone();
    let hook = state
        .run(move |conn| webhook_manage::update(conn, &caller, id, body.0, &policy))
        .await?;
    Ok(private_json(&hook))
}

/// Rotate a webhook's secret (those who manage it).
///
/// The new secret is in this answer only. The old one keeps signing beside it for
/// `overlap_hours` (default 24, at most 168): `webhook-signature` then carries two
/// space-separated `v1,` signatures, as Standard Webhooks allows, so a receiver verifies with
/// either while it switches.
#[utoipa::path(
    operation_id = "rotate_webhook_secret",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    request_body = RotateSecret,
    responses(
        BodyErrors,
        (status = 200, description = "Rotated; the new secret is shown this once", body = SecretRotated),
        NoSuchWebhook,
    )
)]
#[post("/webhooks/{id}/rotate-secret")]
pub async fn rotate_secret(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<RotateSecret>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    let rotated = state
        .run(move |conn| webhook_manage::rotate_secret(conn, &caller, id, body.0, now))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(rotated))
}

/// Ping a webhook (those who manage it).
///
/// Queues a signed `ping` delivery (`{"type":"ping","timestamp":..,"data":{"webhook":id}}`)
/// and answers 201 with it and its `Location`; its outcome shows in the delivery log.
#[utoipa::path(
    operation_id = "ping_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        AuthErrors,
        (status = 201, description = "Queued", body = DeliveryOut),
        NoSuchWebhook,
    )
)]
#[post("/webhooks/{id}/ping")]
pub async fn ping(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    let delivery = state
        .run(move |conn| webhook_manage::ping(conn, &caller, id, now))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Location",
            format!("/api/v1/webhooks/{id}/deliveries/{}", delivery.id),
        ))
        .json(delivery))
}

/// Read one delivery of a webhook (those who manage it).
///
/// Its status, attempts, last answer or error and the body sent; a deleted webhook's for 30
/// days after the deletion. Where a ping points (`Location`).
#[utoipa::path(
    operation_id = "read_webhook_delivery",
    tag = "webhooks",
    security(("bearer" = [])),
    params(DeliveryPath),
    responses(
        AuthErrors,
        (status = 200, description = "The delivery", body = DeliveryOut),
        (status = 404, description = "No such webhook or delivery", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/webhooks/{id}/deliveries/{delivery_id}")]
pub async fn read_delivery(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DeliveryPath>,
) -> ApiResult<HttpResponse> {
    let DeliveryPath { id, delivery_id } = path.into_inner();
    let delivery = state
        .run(move |conn| webhook_manage::read_delivery(conn, &caller, id, delivery_id))
        .await?;
    Ok(private_json(&delivery))
}
