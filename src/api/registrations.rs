//! Registrations and teams: `/tournaments/{id}/registrations`, `/tournaments/{id}/teams`.
//!
//! Registrations are confirmed in multiples of the table size in registration order; the rest
//! wait and move up automatically (domain.md section 2). Registration closes at the deadline
//! or when the first round is drawn.

use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, Json, Query, TournamentPath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    InvalidToken, NoSuchTournament, NotAnOrganiser, NotModified, NotSignedIn,
};

use crate::api::support::{cached_json, page_json, Page, PageParams, Visibility};
use crate::api::support::{created_at, idempotent_answer};
use crate::auth::{Caller, MaybeCaller};
use crate::domain::{PlayerId, TournamentId};
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::runtime::state::AppState;
use crate::services::running::registrations::{
    self, CreateTeam, Register, RegistrationOut, TeamOut, UpdateRegistration,
};

/// The registrations of a tournament, in registration order.
///
/// Confirmed registrations fill whole tables (a multiple of the table size) in registration order;
/// the rest wait. Public once the tournament is published.
#[utoipa::path(
    operation_id = "list_registrations",
    tag = "registrations",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "Live registrations", body = Page<RegistrationOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/registrations")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let (public, out) = state
        .run(move |conn| registrations::list_registrations(conn, &caller, id, &page.0))
        .await?;
    let vis = if public {
        Visibility::Public
    } else {
        Visibility::Private
    };
    page_json(&req, &out, vis)
}

/// Register a player.
///
/// Confirmed when the count reaches a multiple of the table size, else waitlisted. Answers 201
/// with the new registration and its `Location` (the list shows everyone's status after it).
/// A team duplicate tournament takes teams (`POST .../teams`, organisers): a player registering
/// alone there is refused with 409 on `player_id`.
#[utoipa::path(
    operation_id = "register_player",
    tag = "registrations",
    security(("bearer" = [])),
    params(
        TournamentPath,
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = Register,
    responses(
        BodyErrors,
        (status = 201, description = "Registered", body = RegistrationOut),
        (status = 403, description = "Neither an organiser nor the player", body = Problem, content_type = "application/problem+json"),
        NoSuchTournament,
        (status = 409, description = "Already registered, registration closed, or a player alone in a team tournament (`player_id`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/registrations")]
pub async fn register(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<Register>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let key = idempotency_key(&req, &body.0)?;
    let player = body.0.player_id;
    let now = state.clock.now();
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |_| {
                    created_at(
                        format!("/api/v1/tournaments/{id}/registrations/{player}"),
                        None,
                    )
                },
                |conn| registrations::register(conn, &caller, id, body.0, now),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// One registration (where `POST .../registrations` points).
///
/// Public once the tournament is published, like the list.
#[utoipa::path(
    operation_id = "read_registration",
    tag = "registrations",
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("player_id" = i64, Path, description = "Player id"),
    ),
    responses(
        (status = 200, description = "The registration", body = RegistrationOut),
        NotModified,
        InvalidToken,
        (status = 404, description = "No such tournament or live registration", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/registrations/{player_id}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (id, player_id) = path.into_inner();
    let (public, out) = state
        .run(move |conn| {
            registrations::read_registration(conn, &caller, TournamentId(id), PlayerId(player_id))
        })
        .await?;
    let vis = if public {
        Visibility::Public
    } else {
        Visibility::Private
    };
    cached_json(&req, &out, vis)
}

/// Change a registration's seeding rating (organisers).
///
/// Answers the tournament's registrations after the change, in the list envelope.
#[utoipa::path(
    operation_id = "update_registration",
    tag = "registrations",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("player_id" = i64, Path, description = "Player id"),
    ),
    request_body = UpdateRegistration,
    responses(
        BodyErrors,
        (status = 200, description = "The live registrations", body = Page<RegistrationOut>),
        NotAnOrganiser,
        (status = 404, description = "No such tournament or registration", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The change conflicts with the tournament's state (e.g. it is checked out to another instance)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/tournaments/{id}/registrations/{player_id}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<UpdateRegistration>,
) -> ApiResult<HttpResponse> {
    let (id, player_id) = path.into_inner();
    let out = state
        .run(move |conn| {
            registrations::update_registration(
                conn,
                &caller,
                TournamentId(id),
                PlayerId(player_id),
                body.0,
            )
        })
        .await?;
    Ok(HttpResponse::Ok().json(Page::whole(out)))
}

/// Cancel a registration (the player or an organiser) before the first round; the waitlist
/// moves up. A member of a team cancels only through the organiser (409 on `player_id`).
///
/// Answers the tournament's registrations after the change, in the list envelope: the first waiting
/// player may now be confirmed.
#[utoipa::path(
    operation_id = "cancel_registration",
    tag = "registrations",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("player_id" = i64, Path, description = "Player id"),
    ),
    responses(
        (status = 200, description = "The live registrations", body = Page<RegistrationOut>),
        NotSignedIn,
        (status = 403, description = "Neither an organiser nor the player", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or registration", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Registration closed, or a player cancelling their own place in a team (`player_id`; the organiser does)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/tournaments/{id}/registrations/{player_id}")]
pub async fn cancel(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (id, player_id) = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| {
            let (t, p) = (TournamentId(id), PlayerId(player_id));
            registrations::cancel_registration(conn, &caller, t, p, now)
        })
        .await?;
    Ok(HttpResponse::Ok().json(Page::whole(out)))
}

/// The teams of a tournament.
///
/// Each team with its pairs A and B (team duplicate, seed 002). Public once the tournament is
/// published.
#[utoipa::path(
    operation_id = "list_teams",
    tag = "registrations",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "Teams in number order", body = Page<TeamOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/teams")]
pub async fn list_teams(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let out = state
        .run(move |conn| registrations::list_teams(conn, &caller, id, &page.0))
        .await?;
    page_json(&req, &out, Visibility::Private)
}

/// Register a team (organisers of a team-format tournament).
///
/// Every member must be a confirmed registration of the tournament and in no other team.
#[utoipa::path(
    operation_id = "create_team",
    tag = "registrations",
    security(("bearer" = [])),
    params(TournamentPath),
    request_body = CreateTeam,
    responses(
        BodyErrors,
        (status = 201, description = "Registered", body = TeamOut),
        NotAnOrganiser,
        NoSuchTournament,
        (status = 409, description = "Not a team tournament, a player already in a team, or registration closed", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/teams")]
pub async fn create_team(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<CreateTeam>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let out = state
        .run(move |conn| registrations::create_team(conn, &caller, id, body.0))
        .await?;
    Ok(HttpResponse::Created().json(out))
}
