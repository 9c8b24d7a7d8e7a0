//! Withdrawals, voluntary-round opt-outs, penalties and sanctions:
//! `/tournaments/{id}/withdrawals`, `/tournaments/{id}/penalties`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, Json, Query, TournamentPath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{InvalidToken, NoSuchTournament, NotModified};
use std::collections::BTreeMap;

use crate::api::support::idempotent_answer;
use crate::api::support::{page_json, Page, PageParams, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::domain::TournamentId;
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::runtime::state::AppState;
use crate::services::running::conduct::{
    self, AnnulPenalty, PenaltyOut, RecordPenalty, RecordWithdrawal, WithdrawalOut,
};

/// Record a withdrawal or a voluntary-round opt-out (organisers and referees; a player may
/// opt out of a voluntary round themselves).
///
/// A withdrawal takes effect from the given round: the player is left out of later draws, keeps the
/// results already played and is shown as withdrawn in the standings. An opt-out skips one
/// voluntary round only (domain.md section 3). A round's kind is known only when it is drawn:
/// an opt-out of a round then drawn mandatory (any kind but `voluntary`) becomes a withdrawal
/// from it at the draw, as not playing a mandatory game is withdrawing (seed 000), with the
/// `withdrawal` event. In a team duplicate tournament a player does not opt out alone (409 on
/// `kind`): the team plays with its four players. Send an `Idempotency-Key` to retry safely.
#[utoipa::path(
    operation_id = "record_withdrawal",
    tag = "conduct",
    security(("bearer" = [])),
    params(TournamentPath),
    request_body = RecordWithdrawal,
    responses(
        BodyErrors,
        (status = 201, description = "Recorded", body = WithdrawalOut),
        (status = 403, description = "Not an organiser or referee", body = Problem, content_type = "application/problem+json"),
        NoSuchTournament,
        (status = 409, description = "Already withdrawn, or a player's own opt-out in a team tournament (`kind`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/withdrawals")]
pub async fn withdraw(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<RecordWithdrawal>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let out = state
        .run(move |conn| conduct::record_withdrawal(conn, &caller, tid, body.0))
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// Withdrawals and opt-outs of a tournament.
///
/// In the order they were recorded, with the round each takes effect from. Public once the
/// tournament is published.
#[utoipa::path(
    operation_id = "list_withdrawals",
    tag = "conduct",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "In the order recorded", body = Page<WithdrawalOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/withdrawals")]
pub async fn list_withdrawals(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let out = state
        .run(move |conn| conduct::list_withdrawals(conn, &caller, tid, &page.0))
        .await?;
    page_json(&req, &out, Visibility::Private)
}

/// Record a penalty or sanction (referees and organisers).
///
/// Points penalties are subtracted from the player's game total at that table; warnings,
/// disqualifications and other sanctions are recorded and shown. The standings change at once. Send
/// an `Idempotency-Key` to retry safely. An official does not penalise a game they played
/// (403 when the round and table named are one their own player sits at).
#[utoipa::path(
    operation_id = "record_penalty",
    tag = "conduct",
    security(("bearer" = [])),
    params(
        TournamentPath,
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = RecordPenalty,
    responses(
        BodyErrors,
        (status = 201, description = "Recorded", body = PenaltyOut),
        (status = 403, description = "Not a referee or organiser, or the game named is one the caller's own player played", body = Problem, content_type = "application/problem+json"),
        NoSuchTournament,
        (status = 409, description = "The player has already withdrawn", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/penalties")]
pub async fn penalise(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<RecordPenalty>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let key = idempotency_key(&req, &body.0)?;
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |_| BTreeMap::new(),
                |conn| conduct::penalise(conn, &caller, tid, body.0),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// Penalties and sanctions of a tournament (annulled ones included, marked).
///
/// In the order they were recorded. Public once the tournament is published.
#[utoipa::path(
    operation_id = "list_penalties",
    tag = "conduct",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "In the order recorded", body = Page<PenaltyOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/penalties")]
pub async fn list_penalties(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let out = state
        .run(move |conn| conduct::list_penalties(conn, &caller, tid, &page.0))
        .await?;
    page_json(&req, &out, Visibility::Private)
}

/// Annul a penalty (referees and organisers); the penalty stays listed with who annulled it, when and why.
///
/// Annulling a removal lifts the withdrawal if its round is not drawn yet. Nobody annuls a
/// penalty given to their own player (403): another referee or organiser does, or a case.
#[utoipa::path(
    operation_id = "annul_penalty",
    tag = "conduct",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("pid" = i64, Path, description = "Penalty id"),
    ),
    request_body = AnnulPenalty,
    responses(
        BodyErrors,
        (status = 200, description = "Annulled", body = PenaltyOut),
        (status = 403, description = "Not a referee or organiser, or the penalty was given to the caller's own player", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or penalty", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already annulled, or the removal has taken effect", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/penalties/{pid}/annul")]
pub async fn annul(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<AnnulPenalty>,
) -> ApiResult<HttpResponse> {
    let (tid, pid) = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| conduct::annul(conn, &caller, TournamentId(tid), pid, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}
