//! `/players`: player identities shared across tournaments.

use actix_web::{get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, Json, Query};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    InvalidParameters, InvalidToken, NoSuchPlayer, NotAnOrganiser, NotModified,
};

use crate::api::support::{created_at, idempotent_answer};
use crate::api::support::{json_body, kept_answer, page_body, page_json, Page, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::infra::live::Subject;
use crate::runtime::state::{AppState, Fallback};
use crate::services::players::{self, CreatePlayer, PlayerFilter, PlayerOut, UpdatePlayer};

/// Create a player (an admin, or anyone who organises a tournament).
///
/// Players are identities shared across tournaments and rating pools. Linking an account
/// (`user_id`) needs that account's consent: only an admin (through an API key, one with the
/// `admin` scope) or the account itself may link it.
/// Answers 201 with `Location`; send an `Idempotency-Key` to retry safely.
#[utoipa::path(
    operation_id = "create_player",
    tag = "players",
    security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = CreatePlayer,
    responses(
        BodyErrors,
        (status = 201, description = "Created", body = PlayerOut),
        NotAnOrganiser,
        (status = 409, description = "The user account is linked to another player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/players")]
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreatePlayer>,
) -> ApiResult<HttpResponse> {
    let key = idempotency_key(&req, &body.0)?;
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |p: &PlayerOut| created_at(format!("/api/v1/players/{}", p.id), None),
                |conn| players::create_player(conn, &caller, body.0),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// List players (public).
///
/// Ordered by name (by its UTF-8 bytes, on every instance whatever its database's collation),
/// then id; `q` searches names case-insensitively in every alphabet. A page in the list
/// envelope with a `Link` header. Every anonymous page (a search, a filter, a page by cursor)
/// is kept by each instance under its query until a player is added, changed or removed.
#[utoipa::path(
    operation_id = "list_players",
    tag = "players",
    params(PlayerFilter),
    responses(
        (status = 200, description = "A page of players", body = Page<PlayerOut>),
        NotModified,
        InvalidToken,
        InvalidParameters,
    )
)]
#[get("/players")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    filter: Query<PlayerFilter>,
) -> ApiResult<HttpResponse> {
    if caller.0.is_some() {
        // A signed-in caller may be looking for what they just wrote: exact, on the primary
        // (the search index answers a search once it has every change committed before it).
        let st = state.clone();
        let page = state
            .run(move |conn| players::list_players(conn, filter.0, Some(&st.search)))
            .await?;
        return page_json(&req, &page, Visibility::Public);
    }
    // Every anonymous page (a search, a filter, a page by cursor) is kept per query until a
    // player changes; misses tolerate replication lag (`docs/scaling.md`).
    let (path, query) = (req.path().to_string(), req.query_string().to_string());
    let key = format!("players?{query}");
    // A search, or a page of the list by name, is answered from the search index's memory
    // once it is current, else on a connection (`infra::search`).
    let (held, asked) = (filter.0.clone(), (path.clone(), query.clone()));
    let st = state.clone();
    let body = state
        .run_kept_searched(
            key,
            Subject::Players,
            Fallback::Replica,
            move |index| match players::list_players_held(index, held)? {
                Some(page) => Ok(Some(page_body(&asked.0, &asked.1, &page)?)),
                None => Ok(None),
            },
            move |conn| {
                let page = players::list_players(conn, filter.0, Some(&st.search))?;
                Ok((true, page_body(&path, &query, &page)?))
            },
        )
        .await?;
    Ok(kept_answer(&req, &body, Visibility::Public))
}

/// Read a player (public).
///
/// The player's identity, club, country and linked account. Kept by each instance for anonymous
/// readers until the player changes.
#[utoipa::path(
    operation_id = "read_player",
    tag = "players",
    params(("id" = i64, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = PlayerOut),
        NotModified,
        InvalidToken,
        NoSuchPlayer,
    )
)]
#[get("/players/{id}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    if caller.0.is_some() {
        // Signed in: exact, on the primary.
        let body = state
            .run(move |conn| json_body(&players::read_player(conn, id)?, None))
            .await?;
        return Ok(kept_answer(&req, &body, Visibility::Public));
    }
    // From the search index's memory once it is current (no connection).
    let held = move |index: &_| match players::read_player_held(index, id) {
        Some(p) => json_body(&p, None).map(Some),
        None => Ok(None),
    };
    let body = state
        .run_kept_searched(
            format!("player p={id}"),
            Subject::Player(id),
            Fallback::Primary,
            held,
            move |conn| Ok((true, json_body(&players::read_player(conn, id)?, None)?)),
        )
        .await?;
    Ok(kept_answer(&req, &body, Visibility::Public))
}

/// Change a player (its account, a keeper of a pool it is rated in, an admin, or its creator
/// while the creator alone answers for it).
///
/// A partial update: absent fields stay, `null` clears an optional field. Rating pools that list
/// the player show the new name, club and country at once. A player linked to an account is
/// changed by that account, a keeper of a pool it is rated in (an API key needs `pools:write`
/// for that) or an admin; its creator's rights end at the link (now or before), at its first
/// rating, or once it has records in a tournament the creator does not organise.
#[utoipa::path(
    operation_id = "update_player",
    tag = "players",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Player id")),
    request_body = UpdatePlayer,
    responses(
        BodyErrors,
        (status = 200, description = "The changed player", body = PlayerOut),
        (status = 403, description = "Not yours to change: linked to another account, rated in a pool you do not keep, or created by someone else (a creator's rights end at the link, the first rating, or a record in another organiser's tournament)", body = Problem, content_type = "application/problem+json"),
        NoSuchPlayer,
        (status = 409, description = "The account is linked to another player already", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/players/{id}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<UpdatePlayer>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    let player = state
        .run(move |conn| players::update_player(conn, &caller, id, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(player))
}
