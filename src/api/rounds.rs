//! Rounds and their draws: `/tournaments/{id}/rounds`.
//!
//! The organiser creates the next round; the service draws it with the seating engine from a
//! fresh random seed and publishes the SHA-256 commitment of that seed at once. While the round
//! is a draft it can be redrawn (every draw is kept); publishing reveals the seed, and
//! `GET .../draws` gives each draw's input, seed and output so anyone can recompute it with the
//! same engine.

use actix_web::{get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, Json, Query, RoundPath, TournamentPath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    InvalidParameters, InvalidToken, NoSuchRound, NoSuchTournament, NotAnOrganiser, NotModified,
    NotSignedIn, NotThisOrganiser,
};
use std::collections::BTreeMap;

use crate::api::support::idempotent_answer;
use crate::api::support::{json_body, kept_answer, page_json, Page, PageParams, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::infra::live::Subject;
use crate::runtime::state::AppState;
use crate::services::running::cup::{self, CupMatchOut};
use crate::services::running::round_withdrawal::{self, WithdrawRound};
use crate::services::running::rounds::{self, CreateRound, DrawRecord, RoundOut, UpdateRound};
use crate::services::running::snapshot::TeamMatchResult;

/// Create and draw the next round (organisers).
///
/// The previous round must be completed; a withdrawn last round (`.../withdraw`) is drawn
/// again in its place, with the method and options now given. The method must seat tables the
/// tournament's rules score (tables of 2 for Tantrix and Ashes, 3-4 for Agricola, team matches
/// for team duplicate, bridge groups only for Bridge-Agricola): otherwise 422 on `method`
/// naming the methods the rules allow.
///
/// A team duplicate round is drawn from the teams: a team one of whose players has withdrawn
/// or stopped sits out; 409 on `registrations` while a confirmed player in play is in no team,
/// 409 on `teams` while a team member has no confirmed registration or fewer than two teams
/// can play, each saying what the organiser must fix.
#[utoipa::path(
    operation_id = "create_round",
    tag = "rounds",
    security(("bearer" = [])),
    params(
        TournamentPath,
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = CreateRound,
    responses(
        BodyErrors,
        (status = 201, description = "Drawn, as a draft", body = RoundOut),
        NotAnOrganiser,
        NoSuchTournament,
        (status = 409, description = "The tournament is not open or running, the previous round is not completed, or a team event's teams cannot be drawn (`registrations`, `teams`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields, or the method does not fit the rules or cannot seat these players (`method`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds")]
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<CreateRound>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let key = idempotency_key(&req, &body.0)?;
    let now = state.clock.now();
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |_| BTreeMap::new(),
                |conn| rounds::create_round(conn, &caller, tid, body.0, now),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// Redraw a draft round with a new seed (organisers).
///
/// The earlier draw stays in the history.
#[utoipa::path(
    operation_id = "redraw_round",
    tag = "rounds",
    security(("bearer" = [])),
    params(
        RoundPath,
    ),
    responses(
        (status = 200, description = "Redrawn", body = RoundOut),
        NotSignedIn,
        NotAnOrganiser,
        NoSuchRound,
        (status = 409, description = "The round is published", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The method no longer fits the rules or cannot seat these players (`method`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/redraw")]
pub async fn redraw(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<RoundPath>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let out = state
        .run(move |conn| rounds::redraw(conn, &caller, tid, number))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Publish a draft round (organisers): players see their tables and the seed is revealed.
///
/// After publishing, the draw cannot be redrawn and results may be entered; anyone can check the
/// revealed seed against the commitment.
#[utoipa::path(
    operation_id = "publish_round",
    tag = "rounds",
    security(("bearer" = [])),
    params(
        RoundPath,
    ),
    responses(
        (status = 200, description = "Published", body = RoundOut),
        NotSignedIn,
        NotAnOrganiser,
        NoSuchRound,
        (status = 409, description = "Already published", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/publish")]
pub async fn publish(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<RoundPath>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| rounds::publish(conn, &caller, tid, number, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Withdraw a round that has no result yet (organisers).
///
/// The way out of a draw that should not stand: the round goes back to a draft that must be
/// drawn again before it is published (`POST .../rounds` draws it again with any method and
/// options; `.../redraw` with the same method). Every draw stays in `.../draws` (a published
/// draw's seed stays revealed) and the reason in the round's `withdrawals`; a published round's
/// withdrawal goes to the live feed and webhooks as `round_withdrawn`. Only the last round, and
/// only while no table has a result or a reported result and no penalty or case names the
/// round (409 naming `round`).
#[utoipa::path(
    operation_id = "withdraw_round",
    tag = "rounds",
    security(("bearer" = [])),
    params(RoundPath),
    request_body = WithdrawRound,
    responses(
        BodyErrors,
        (status = 200, description = "Withdrawn: the round is a draft to be drawn again", body = RoundOut),
        NotAnOrganiser,
        NoSuchRound,
        (status = 409, description = "A later round exists, the round has a result, a reported result, a penalty or a case, or it is withdrawn already (`round`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/withdraw")]
pub async fn withdraw(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<RoundPath>,
    body: Json<WithdrawRound>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| round_withdrawal::withdraw(conn, &caller, tid, number, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// The rounds of a tournament (drafts only for its staff).
///
/// In round order, each with its draw, effective weight and seed commitment, in the list envelope.
#[utoipa::path(
    operation_id = "list_rounds",
    tag = "rounds",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "Rounds in number order", body = Page<RoundOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/rounds")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let (public, out) = state
        .run(move |conn| rounds::list_rounds(conn, &caller, tid, &page.0))
        .await?;
    page_json(&req, &out, Visibility::public_if(public))
}

/// A round: its draw, report and seed commitment (drafts only for the tournament's staff).
///
/// The draw shows every table's seats (seat 1 first), starting players, bridge groups, byes,
/// placement groups and team matches, and the report of what the method could not satisfy.
#[utoipa::path(
    operation_id = "read_round",
    tag = "rounds",
    params(
        RoundPath,
    ),
    responses(
        (status = 200, description = "The round", body = RoundOut),
        NotModified,
        InvalidToken,
        NoSuchRound,
    )
)]
#[get("/tournaments/{id}/rounds/{n}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<RoundPath>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let anonymous = caller.0.is_none();
    let key = format!("round t={tid} n={number}");
    let (public, body) = state
        .run_kept(anonymous, key, Subject::Tournament(tid), move |conn| {
            let (public, out) = rounds::read_round(conn, &caller, tid, number)?;
            Ok((public, json_body(&out, None)?))
        })
        .await?;
    Ok(kept_answer(&req, &body, Visibility::public_if(public)))
}

/// Change when a round was played, or extend a self-scheduled round's deadline (organisers).
///
/// Ratings follow the time each game was played, not when its result was entered: a round's
/// time is the one stated here (or at creation), else the moment its last result arrived, held
/// within the tournament's playing days (00:00 on the first day to 22:00 on the last). Moving a
/// completed round recomputes its rating pool from the earlier of the two times; `null` goes
/// back to the derived time. `self_scheduled_until` extends a self-scheduled round's deadline
/// (later than now and than the current one), e.g. when the leader is told of games nobody has
/// scheduled (`unscheduled_games`).
#[utoipa::path(
    operation_id = "update_round",
    tag = "rounds",
    security(("bearer" = [])),
    params(
        RoundPath,
    ),
    request_body = UpdateRound,
    responses(
        BodyErrors,
        (status = 200, description = "The changed round", body = RoundOut),
        NotThisOrganiser,
        NoSuchRound,
        (status = 409, description = "The deadline of a completed round cannot move", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/tournaments/{id}/rounds/{n}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<RoundPath>,
    body: Json<UpdateRound>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| rounds::update_round(conn, &caller, tid, number, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Every draw made for a round, with its input and seed once the round is published, so the
/// draw can be recomputed and checked against the commitment.
///
/// In attempt order, in the list envelope. The seeds of drafts stay hidden until the round is
/// published.
#[utoipa::path(
    operation_id = "list_round_draws",
    tag = "rounds",
    params(
        RoundPath,
        PageParams,
    ),
    responses(
        (status = 200, description = "The draws, first first", body = Page<DrawRecord>),
        NotModified,
        InvalidToken,
        NoSuchRound,
    )
)]
#[get("/tournaments/{id}/rounds/{n}/draws")]
pub async fn draws(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<RoundPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let out = state
        .run(move |conn| rounds::draw_records(conn, &caller, tid, number, &page.0))
        .await?;
    page_json(&req, &out, Visibility::Private)
}

/// The team matches of a round (2v2 duplicate) with their outcomes: the six compared values,
/// the step that decided, or the lot for a full tie.
///
/// In match order, in the list envelope (seed 002; domain.md section 7).
#[utoipa::path(
    operation_id = "list_round_matches",
    tag = "rounds",
    params(
        RoundPath,
        PageParams,
    ),
    responses(
        (status = 200, description = "The matches of the round", body = Page<TeamMatchResult>),
        NotModified,
        InvalidToken,
        NoSuchRound,
    )
)]
#[get("/tournaments/{id}/rounds/{n}/matches")]
pub async fn matches(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<RoundPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let (public, out) = state
        .run(move |conn| rounds::team_matches(conn, &caller, tid, number))
        .await?;
    page_json(
        &req,
        &Page::window(out, &page.0)?,
        Visibility::public_if(public),
    )
}

/// The cup matches of a knockout round (Tantrix): per match its games' tables, TP, games won
/// and tiles, the winner and what decided it, or that 5-minute play-off games must.
///
/// A knockout round with option `games_per_match` N seats match k at tables (k-1)N+1 to kN.
/// The match goes to more TP, then more games won, then more tiles, then the winner of the
/// 5-minute play-off games (recorded as `playoff_winner` on a game's result) (seed 003,
/// Tie-Breaks 1). Only winners are seated in the next knockout round. In match order, in the
/// list envelope; empty for a round that is not a knockout.
#[utoipa::path(
    operation_id = "list_cup_matches",
    tag = "rounds",
    params(
        RoundPath,
        PageParams,
    ),
    responses(
        (status = 200, description = "The cup matches of the round", body = Page<CupMatchOut>),
        NotModified,
        InvalidToken,
        NoSuchRound,
        InvalidParameters,
    )
)]
#[get("/tournaments/{id}/rounds/{n}/cup-matches")]
pub async fn cup_matches(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<RoundPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let RoundPath { id: tid, n: number } = path.into_inner();
    let (public, all) = state
        .run(move |conn| cup::read_cup_matches(conn, &caller, tid, number))
        .await?;
    page_json(
        &req,
        &Page::window(all, &page.0)?,
        Visibility::public_if(public),
    )
}
