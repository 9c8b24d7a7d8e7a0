//! Claims on players (issue 29, item 5): `POST`/`GET /players/{id}/claims`, the deciders' queue
//! `GET /player-claims`, `POST /players/{id}/claims/{claim_id}/decision` and the claimant's
//! `DELETE /players/{id}/claims/{claim_id}`, and the player's link history
//! `GET /players/{id}/links` (issue 37, item 2).

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::NoSuchPlayer;
use crate::api::problem::{AuthErrors, BodyErrors, NotModified};
use crate::api::support::{page_json, Page, PageParams, Visibility};
use crate::auth::Caller;
use crate::domain::PlayerId;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::invitations::claims::{
    self, ClaimDecision, ClaimId, ClaimOut, NewClaim, PlayerLinkOut,
};

/// Claim a player as mine (signed in, my account without a player).
///
/// Asks the player's deciders (an admin, a keeper of a pool the player is rated in, or an
/// organiser of every tournament the player's records lie in) to link my account to it. 409 naming
/// `player_id` if my account already has a player, the player an account, or I have an open
/// claim on it already. Answers 201 with `Location`.
#[utoipa::path(
    operation_id = "claim_player",
    tag = "players",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Player id")),
    request_body = NewClaim,
    responses(
        BodyErrors,
        (status = 201, description = "Claimed; waiting for a decision", body = ClaimOut,
            headers(("Location" = String, description = "The player's claims"))),
        NoSuchPlayer,
        (status = 409, description = "Linked already, or a claim already open", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/players/{id}/claims")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<NewClaim>,
) -> ApiResult<HttpResponse> {
    let player = id.into_inner();
    let out = state
        .run(move |conn| claims::claim(conn, &caller, player, &body.0))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Location",
            format!("/api/v1/players/{player}/claims/{}", out.id),
        ))
        .json(out))
}

/// List a player's claims, oldest first.
///
/// The player's deciders (an admin, a keeper of a pool the player is rated in, or an
/// organiser of every tournament the player's records lie in) see all of them; anyone else
/// signed in, their own.
#[utoipa::path(
    operation_id = "list_player_claims",
    tag = "players",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Player id"), PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "Claims, oldest first", body = Page<ClaimOut>),
        NotModified,
        NoSuchPlayer,
    )
)]
#[get("/players/{id}/claims")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let player = id.into_inner();
    let page = state
        .run(move |conn| claims::list_for_player(conn, &caller, player, &page.0))
        .await?;
    page_json(&req, &page, Visibility::Private)
}

/// The open claims I may decide (signed in).
///
/// Oldest first, never my own. Admins see all; keepers those on players rated in their pools;
/// organisers those on players whose every record lies in tournaments they organise (and who
/// are rated nowhere); anyone else an empty list.
#[utoipa::path(
    operation_id = "claim_queue",
    tag = "players",
    security(("bearer" = [])),
    params(PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "Open claims to decide, oldest first", body = Page<ClaimOut>),
        NotModified,
    )
)]
#[get("/player-claims")]
pub async fn queue(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let page = state
        .run(move |conn| claims::queue(conn, &caller, &page.0))
        .await?;
    page_json(&req, &page, Visibility::Private)
}

/// Approve or refuse a claim (an admin, a keeper of a pool the player is rated in, or an
/// organiser of every tournament the player's records lie in; 403 for others and for the
/// claimant). Through an API key, an admin decides with the `admin` scope and a keeper with
/// `pools:write`; a `tournaments:write` key acts as an organiser.
///
/// Approving links the claimant's account to the player (409 naming `player_id` if the player
/// or the account was linked meanwhile, `claim_id` while the claimant's account is disabled);
/// refusing needs a `reason` (422). The claimant gets a mail in their language. A claim is
/// decided once (409 naming `claim_id` afterwards).
#[utoipa::path(
    operation_id = "decide_claim",
    tag = "players",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Player id"),
        ("claim_id" = i64, Path, description = "Claim id"),
    ),
    request_body = ClaimDecision,
    responses(
        BodyErrors,
        (status = 200, description = "Decided", body = ClaimOut),
        (status = 403, description = "Not one of the player's deciders (through an API key: without the scope the standing needs), or the claimant", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player or claim", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Decided already, linked meanwhile, or (approving) the claimant's account is disabled", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/players/{id}/claims/{claim_id}/decision")]
pub async fn decide(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<ClaimDecision>,
) -> ApiResult<HttpResponse> {
    let (player, claim) = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| {
            claims::decide(
                conn,
                &caller,
                PlayerId(player),
                ClaimId(claim),
                &body.0,
                now,
            )
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Withdraw my open claim (the claimant only).
///
/// A decided or withdrawn claim is 409 naming `claim_id`. The account may claim again after.
#[utoipa::path(
    operation_id = "withdraw_claim",
    tag = "players",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Player id"),
        ("claim_id" = i64, Path, description = "Claim id"),
    ),
    responses(
        AuthErrors,
        (status = 204, description = "Withdrawn"),
        (status = 403, description = "Not the claimant", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player or claim", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Decided or withdrawn already", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/players/{id}/claims/{claim_id}")]
pub async fn withdraw(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (player, claim) = path.into_inner();
    let now = state.clock.now();
    state
        .run(move |conn| claims::withdraw(conn, &caller, PlayerId(player), ClaimId(claim), now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Who linked a player to an account, when, how and on whose decision (the player's deciders).
///
/// Every link and cut, oldest first, kept after the account or its claim is gone: an approved
/// claim (`claim_id`, `decided_by` its decider), an accepted invitation, an admin's direct
/// link, the account's removal. For an admin, a keeper of a pool the player is rated in, or
/// an organiser of every tournament the player's records lie in; 403 for anyone else.
#[utoipa::path(
    operation_id = "list_player_links",
    tag = "players",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Player id"), PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "Links and cuts, oldest first", body = Page<PlayerLinkOut>),
        NotModified,
        (status = 403, description = "Not one of the player's deciders", body = Problem, content_type = "application/problem+json"),
        NoSuchPlayer,
    )
)]
#[get("/players/{id}/links")]
pub async fn links(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let player = id.into_inner();
    let page = state
        .run(move |conn| claims::links(conn, &caller, player, &page.0))
        .await?;
    page_json(&req, &page, Visibility::Private)
}
