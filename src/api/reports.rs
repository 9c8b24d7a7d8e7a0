//! Results reported by the players: `/tournaments/{id}/rounds/{n}/tables/{t}/report`.

use actix_web::{get, post, web, HttpResponse};

use crate::api::extract::{Json, JsonOrNone, TablePath};
use crate::api::problem::BodyErrors;
use crate::api::problem::NoOrInvalidToken;
use crate::api::support::{entered_answer, private_json};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::play::reports::{self, ConfirmReport, DisputeReport, ReportOut};
use crate::services::play::scheduling::ScheduleOut;
use crate::services::running::results::{EnterResult, ResultWithHistory, TableRef};

/// Report my table's result (a player seated there).
///
/// The opponent then confirms it (it becomes the result, entered by me) or disputes it (a case
/// for the referee), within 48 hours (`answer_by`); after that the referee decides. A new report replaces a
/// pending one. Refused once the table has a result. It counts for nothing until confirmed.
#[utoipa::path(
    operation_id = "report_result",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body = EnterResult,
    responses(
        BodyErrors,
        (status = 201, description = "Reported; waiting for the opponent", body = ReportOut),
        (status = 403, description = "Not a player seated at this table", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament, round or table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The table already has a result", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/report")]
pub async fn report(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<EnterResult>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| reports::report(conn, &caller, at, body.0, now))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            "Location",
            format!(
                "/api/v1/tournaments/{}/rounds/{}/tables/{}/report",
                at.tournament, at.round, at.table
            ),
        ))
        .json(out))
}

/// Read my table's newest report (its seated players and the staff).
///
/// Pending, confirmed, disputed (with its case) or superseded; others get 404.
#[utoipa::path(
    operation_id = "read_report",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    responses(
        (status = 200, description = "The newest report", body = ReportOut),
        NoOrInvalidToken,
        (status = 404, description = "No report, or not yours to see", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/rounds/{n}/tables/{t}/report")]
pub async fn read(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let out = state
        .run(move |conn| reports::read(conn, &caller, at))
        .await?;
    Ok(private_json(&out))
}

/// Confirm the pending report (the opponent, a referee or an organiser).
///
/// The report becomes the table's result, entered by the reporting player; standings and
/// ratings follow as for any result. Name the report read with `report_id` (the body may be
/// left out, or `{}`): another report waiting now is refused (409 naming `report_id`, nothing
/// written), and so is a confirmation without it once the waiting report replaced or followed
/// an unsettled one (428 naming `report_id`), since the confirmer may have read that one.
#[utoipa::path(
    operation_id = "confirm_report",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body(content = Option<ConfirmReport>, description = "Optional: the report read", example = json!({"report_id": 11})),
    responses(
        BodyErrors,
        (status = 200, description = "The result with its history", body = ResultWithHistory),
        (status = 202, description = "A confirmed double crash in a self-scheduled round: no result stored; the game is open for scheduling again (a replay, seed 003 rule 3.3)", body = ScheduleOut),
        (status = 403, description = "Not the opponent (in a team round: a player of the other team), a referee or an organiser", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No pending report", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The table already has a result, `report_id` is not the report waiting, or the player answers after `answer_by` (the referee decides)", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "The waiting report replaced or followed another one: name it with `report_id`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/report/confirm")]
pub async fn confirm(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: JsonOrNone<ConfirmReport>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| reports::confirm(conn, &caller, at, body.0, now))
        .await?;
    Ok(entered_answer(out))
}

/// Dispute the pending report (the opponent).
///
/// Opens a case about the table's result for the referee; with `seats`, the case asks for that
/// result. The opponent is a seated player other than the reporter (in a team round, of the
/// other team); a report made with the table code may be disputed by any seated player, the
/// seat it names included. By the report's `answer_by` (409 naming it afterwards).
#[utoipa::path(
    operation_id = "dispute_report",
    tag = "results",
    security(("bearer" = [])),
    params(TablePath),
    request_body = DisputeReport,
    responses(
        BodyErrors,
        (status = 200, description = "Disputed; the report names the case", body = ReportOut),
        (status = 403, description = "Not the opponent", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No pending report", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "After the report's `answer_by`: the referee decides", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/report/dispute")]
pub async fn dispute(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<DisputeReport>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let now = state.clock.now();
    let out = state
        .run(move |conn| reports::dispute(conn, &caller, at, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}
