//! `/me/games` and `/me/tournaments`: a player's own view.

use actix_web::{get, web, HttpRequest, HttpResponse};

use crate::api::extract::Query;
use crate::api::problem::AuthErrors;
use crate::api::support::{private_json, private_page, Page, PageParams};
use crate::auth::Caller;
use crate::error::ApiResult;
use crate::runtime::state::AppState;
use crate::services::play::me::{self, MyGames, MyTournament};

/// My games.
///
/// The games of the player linked to my account, in every tournament it is registered in:
/// `upcoming` (published rounds without a result yet, with opponents and, in Tantrix, colours)
/// and `past` (with the scores in force, newest first). Without a linked player both are empty.
#[utoipa::path(
    operation_id = "list_my_games",
    tag = "auth",
    security(("bearer" = [])),
    responses(
        AuthErrors,
        (status = 200, description = "My games", body = MyGames),
    )
)]
#[get("/me/games")]
pub async fn games(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let games = state.run(move |conn| me::my_games(conn, &caller)).await?;
    Ok(private_json(&games))
}

/// My tournaments.
///
/// Where my linked player is registered (with the registration's status) or I hold a staff
/// role, newest first, in the list envelope (with `Link`).
#[utoipa::path(
    operation_id = "list_my_tournaments",
    tag = "auth",
    security(("bearer" = [])),
    params(PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "My tournaments", body = Page<MyTournament>),
    )
)]
#[get("/me/tournaments")]
pub async fn tournaments(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let list = state
        .run(move |conn| me::my_tournaments(conn, &caller))
        .await?;
    Ok(private_page(&req, &Page::window(list, &page.0)?))
}
