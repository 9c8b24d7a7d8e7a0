//! Self-scheduled games: `/tournaments/{id}/rounds/{n}/tables/{t}/schedule`.

use actix_web::{get, post, web, HttpResponse};

use crate::api::extract::{Json, Query, TablePath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{NoOrInvalidToken, NoSuchGame, NotAPlayerOfTheGame};
use crate::api::support::private_json;
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::play::scheduling::{self, Accept, Note, Propose, ScheduleOut};
use crate::services::play::scheduling_deadlines;
use crate::services::running::results::TableRef;

/// How a schedule is shown.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ShowIn {
    /// An IANA time zone to show the times in (default: the tournament's).
    #[param(example = "America/New_York", max_length = 64)]
    pub time_zone: Option<String>,
}

/// Read a self-scheduled game (its players and the staff).
///
/// Its state, the proposed and agreed times (in UTC and in `time_zone`), whose answer to a
/// proposal is awaited and until when (5 days, then the leader is told; 2 more, then that player
/// forfeits), whose chance of rule 8.4 is used, and the thread of every step. A game nobody has
/// proposed anything for waits on nobody; the leader is told of it 48 hours before the round's
/// deadline.
#[utoipa::path(
    operation_id = "read_schedule",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath, ShowIn),
    responses(
        (status = 200, description = "The game's schedule", body = ScheduleOut),
        NoOrInvalidToken,
        (status = 404, description = "No such self-scheduled game, or not yours to see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown time zone", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/rounds/{n}/tables/{t}/schedule")]
pub async fn read(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    show: Query<ShowIn>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let zone = show.0.time_zone;
    let out = state
        .run(move |conn| scheduling::read(conn, &caller, at, zone))
        .await?;
    Ok(private_json(&out))
}

/// Propose times for my game, or counter-propose (a player of the game).
///
/// 1 to 5 instants before the round's deadline. The opponent then has 5 days to accept one or
/// counter-propose.
#[utoipa::path(
    operation_id = "propose_times",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body = Propose,
    responses(
        BodyErrors,
        (status = 200, description = "Proposed", body = ScheduleOut),
        NotAPlayerOfTheGame,
        NoSuchGame,
        (status = 409, description = "Not your turn, the game is agreed or forfeited, its table has a result or its round is completed", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/schedule/proposals")]
pub async fn propose(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<Propose>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| scheduling::propose(conn, &caller, at, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Accept one of the proposed times (the player whose answer is awaited).
///
/// The game is agreed at that time; nobody's answer is awaited any more. A proposed time that
/// has passed is refused (422 naming `time`): propose new times instead.
#[utoipa::path(
    operation_id = "accept_time",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body = Accept,
    responses(
        BodyErrors,
        (status = 200, description = "Agreed", body = ScheduleOut),
        NotAPlayerOfTheGame,
        NoSuchGame,
        (status = 409, description = "No proposal awaits your answer, or the table has a result or the round is completed", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/schedule/accept")]
pub async fn accept(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<Accept>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| scheduling::accept(conn, &caller, at, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// I missed the agreed time: reschedule (rule 8.4).
///
/// From 15 minutes after the agreed time (before that it is not missed: 409 naming
/// `agreed_time`) to 24 hours after it; each player has one such chance per match and three per
/// tournament. The game is open again, waiting on nobody: either player proposes new times.
#[utoipa::path(
    operation_id = "report_missed_time",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body = Note,
    responses(
        BodyErrors,
        (status = 200, description = "Open again; propose new times", body = ScheduleOut),
        NotAPlayerOfTheGame,
        NoSuchGame,
        (status = 409, description = "Nothing agreed, too late, no reschedule left, or the table has a result or the round is completed", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/schedule/missed")]
pub async fn missed(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<Note>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| scheduling::missed(conn, &caller, at, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Reverse an automatic forfeit (the leader: an organiser or referee), with a reason.
///
/// The forfeit's result is withdrawn (a completed round opens again and the ratings follow) and
/// the game is open again, waiting on nobody: either player proposes times.
#[utoipa::path(
    operation_id = "reinstate_game",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body = Note,
    responses(
        BodyErrors,
        (status = 200, description = "Reinstated", body = ScheduleOut),
        (status = 403, description = "Not an organiser or referee", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "Not forfeited, or its result was corrected since", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/schedule/reinstate")]
pub async fn reinstate(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<Note>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| scheduling_deadlines::reinstate(conn, &caller, at, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}
