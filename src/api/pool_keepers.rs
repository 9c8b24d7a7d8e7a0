//! Who keeps a rating list and which tournaments feed it (issue 26):
//! `/rating-pools/{id}/keepers`, `/rating-pools/{id}/tournaments` (the keepers' queue and their
//! decisions), `/tournaments/{id}/rating-request` and `/tournaments/{id}/rating-decisions`;
//! and `/rating-pools/{id}/keeper-candidates` (issue 40: the accounts a keeper may choose).

use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query, TournamentPath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    InvalidParameters, InvalidToken, NoSuchPool, NoSuchTournament, NotAKeeper, NotModified,
    NotSignedIn, NotThisOrganiser,
};
use crate::api::support::{page_json, Page, PageParams, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::domain::{PoolId, TournamentId, UserId};
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::accounts::users::{self, KeeperCandidate, UserFilter};
use crate::services::ratings::{
    self, DecideRating, KeeperOut, PoolTournamentOut, PoolTournamentsQuery, RatingDecisionOut,
};

/// List a rating pool's keepers (public).
///
/// Keepers do a pool's daily work without being admins: its settings and seasons, imports,
/// webhooks, keepers, and which tournaments feed it. In the order they were granted.
#[utoipa::path(
    operation_id = "list_pool_keepers",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), PageParams),
    responses(
        (status = 200, description = "A page of keepers", body = Page<KeeperOut>),
        NotModified,
        InvalidToken,
        NoSuchPool,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/keepers")]
pub async fn list_keepers(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let page = state
        .run(move |conn| ratings::list_keepers(conn, id, &page.0))
        .await?;
    page_json(&req, &page, Visibility::Public)
}

/// Make a user a keeper of a rating pool (admins and the pool's keepers).
///
/// 201 when the role is new, 200 when the user already keeps the pool. A keeper of one pool has
/// no power over another.
#[utoipa::path(
    operation_id = "grant_pool_keeper",
    tag = "ratings",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Rating pool id"),
        ("user_id" = i64, Path, description = "The user who keeps the pool"),
    ),
    responses(
        (status = 200, description = "Already a keeper", body = KeeperOut),
        (status = 201, description = "Granted", body = KeeperOut),
        NotSignedIn,
        NotAKeeper,
        NoSuchPool,
        (status = 422, description = "No such user, or a disabled one (`user_id`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/rating-pools/{id}/keepers/{user_id}")]
pub async fn grant_keeper(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (id, user_id) = path.into_inner();
    let (new, keeper) = state
        .run(move |conn| ratings::grant_keeper(conn, &caller, PoolId(id), UserId(user_id)))
        .await?;
    Ok(if new {
        HttpResponse::Created().json(keeper)
    } else {
        HttpResponse::Ok().json(keeper)
    })
}

/// Take the keeper role from a user (admins and the pool's keepers).
///
/// The last keeper of a pool with accepted tournaments cannot step down by themselves (409 on
/// `user_id`); an admin can remove them.
#[utoipa::path(
    operation_id = "revoke_pool_keeper",
    tag = "ratings",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Rating pool id"),
        ("user_id" = i64, Path, description = "The keeper"),
    ),
    responses(
        (status = 204, description = "Revoked"),
        NotSignedIn,
        NotAKeeper,
        (status = 404, description = "No such pool or keeper", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The last keeper of a pool with accepted tournaments", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/rating-pools/{id}/keepers/{user_id}")]
pub async fn revoke_keeper(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (id, user_id) = path.into_inner();
    state
        .run(move |conn| ratings::revoke_keeper(conn, &caller, PoolId(id), UserId(user_id)))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// List the tournaments that ask to be rated in a pool (admins and the pool's keepers).
///
/// Newest request or decision first, with who created each tournament, its confirmed players,
/// its completed rounds and results; `rating_status=pending` is the keepers' queue. Later pages
/// by `cursor` (the `next` link); `total` is counted up to 1,000 (`total_exact`).
#[utoipa::path(
    operation_id = "list_pool_tournaments",
    tag = "ratings",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id"), PoolTournamentsQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = Page<PoolTournamentOut>),
        NotSignedIn,
        NotAKeeper,
        NoSuchPool,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/tournaments")]
pub async fn pool_tournaments(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: Query<PoolTournamentsQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let page = state
        .run(move |conn| ratings::pool_tournaments(conn, &caller, id, &query.0))
        .await?;
    page_json(&req, &page, Visibility::Private)
}

/// Accept, refuse or withdraw a tournament's rating (admins and the pool's keepers).
///
/// `accept` a pending request: the tournament's games feed the list from then on, in the order
/// they were played among the pool's other games (before, during or after play); in a league
/// pool, `announced_at` (with a `reason`) records when it was announced elsewhere. `refuse` a
/// pending request, or `withdraw` an accepted tournament, with a `reason`: a withdrawal takes
/// its games out of the list as a correction would. 409 names the field: `tournament_id` for a
/// tournament of another pool, `rating_status` for a step its status does not allow (a refused
/// or withdrawn tournament needs a new request from its organiser first).
#[utoipa::path(
    operation_id = "decide_tournament_rating",
    tag = "ratings",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Rating pool id"),
        ("tournament_id" = i64, Path, description = "Tournament id"),
    ),
    request_body = DecideRating,
    responses(
        BodyErrors,
        (status = 200, description = "Decided", body = RatingDecisionOut),
        NotAKeeper,
        (status = 404, description = "No such pool or tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A tournament of another pool, or a step its rating status does not allow", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/rating-pools/{id}/tournaments/{tournament_id}/decision")]
pub async fn decide(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<DecideRating>,
) -> ApiResult<HttpResponse> {
    let (id, tournament_id) = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| {
            ratings::decide(
                conn,
                &caller,
                PoolId(id),
                TournamentId(tournament_id),
                body.0,
                now,
            )
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Ask again to be rated (the tournament's organisers).
///
/// After a refusal or a withdrawal: the request is pending until a keeper of the pool decides
/// (accepted at once in an open pool, or when the organiser keeps the pool). 409 on
/// `rating_status` while a request is pending or accepted, on `rating_pool_id` without a pool.
#[utoipa::path(
    operation_id = "request_tournament_rating",
    tag = "tournaments",
    security(("bearer" = [])),
    params(TournamentPath),
    responses(
        (status = 201, description = "Requested", body = RatingDecisionOut),
        NotSignedIn,
        NotThisOrganiser,
        NoSuchTournament,
        (status = 409, description = "A request is pending or accepted, or no pool is named", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rating-request")]
pub async fn ask_again(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let now = state.clock.now();
    let out = state
        .run(move |conn| ratings::ask_again(conn, &caller, id, now))
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// List a tournament's rating requests and decisions (whoever may see the tournament).
///
/// Oldest first: each request (`pending`, or accepted at once) and each keeper's decision with
/// its reason.
#[utoipa::path(
    operation_id = "list_tournament_rating_decisions",
    tag = "tournaments",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "A page of requests and decisions", body = Page<RatingDecisionOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
        InvalidParameters,
    )
)]
#[get("/tournaments/{id}/rating-decisions")]
pub async fn tournament_decisions(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let public = caller.0.is_none();
    let page = state
        .run(move |conn| ratings::tournament_decisions(conn, &caller, id, &page.0))
        .await?;
    page_json(&req, &page, Visibility::public_if(public))
}

/// Find accounts to make keepers of a rating pool (admins and the pool's keepers).
///
/// What a keeper choosing another keeper needs: the enabled accounts whose username or linked
/// player's name (the display name) holds `q` (2 characters at least; an admin may leave it
/// out and see them all), or a near match of a
/// word of either, ignoring case and diacritics; each with its id, username and display name,
/// nothing more (no address, and addresses are not searched). In creation order, in the list
/// envelope with a `Link` header; later pages by `cursor`.
#[utoipa::path(
    operation_id = "list_keeper_candidates",
    tag = "ratings",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id"), UserFilter),
    responses(
        (status = 200, description = "A page of accounts", body = Page<KeeperCandidate>),
        NotSignedIn,
        NotAKeeper,
        NoSuchPool,
        (status = 422, description = "A keeper's search without `q` or with a shorter one, or bad paging", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/rating-pools/{id}/keeper-candidates")]
pub async fn keeper_candidates(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: Query<UserFilter>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let page = state
        .run(move |conn| users::keeper_candidates(conn, &caller, id, &query.0))
        .await?;
    page_json(&req, &page, Visibility::Private)
}
