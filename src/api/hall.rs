//! Results from the hall's tables with the result slips' codes, the organiser's queue of a
//! round's reports, and the link that opens a round's slips in a browser (issue 41).

use actix_web::{get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, RoundPath, TablePath};
use crate::api::problem::BodyErrors;
use crate::api::problem::NoOrInvalidToken;
use crate::api::problem::NoSuchRound;
use crate::api::support::{entered_answer, private_json, CodeGuard};
use crate::auth::Caller;
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::integrations::print::{self, SlipsLink};
use crate::services::play::hall::{self, CodeConfirm, CodeReport, ReportQueue};
use crate::services::play::reports::ReportOut;
use crate::services::play::scheduling::ScheduleOut;
use crate::services::running::results::{ResultWithHistory, TableRef};

/// Report a table's result with its code (anyone holding the result slip; no account).
///
/// The code on the table's slip, the seat the reporter holds and the result. The report waits
/// for the organiser or a referee (`POST .../report/confirm`), or a second holder of the code
/// (`.../code-report/confirm`), to confirm it. Refused, with nothing written: a code of another
/// table, round or draw (422 naming `code`; wrong codes are throttled per table and address,
/// 429), a reporter not seated there (422 `reporter`), a completed round (409 `round`), a table
/// with a result (409 `table`), a report already waiting (409 `code`: a rival cannot replace
/// it).
#[utoipa::path(
    operation_id = "report_result_with_code",
    tag = "results",
    params(TablePath),
    request_body = CodeReport,
    responses(
        BodyErrors,
        (status = 201, description = "Reported; waiting for confirmation", body = ReportOut),
        (status = 404, description = "No such tournament, published round or table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The round is completed, the table has a result, or a report already waits", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong codes for this table from this address, or from this address", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/code-report")]
pub async fn code_report(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<TablePath>,
    body: Json<CodeReport>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let (keys, now) = (state.hall.clone(), state.clock.now());
    let work = state.run(move |conn| hall::report(conn, &keys, at, body.0, now));
    let out = CodeGuard::around(&req, &state, at, work).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(out))
}

/// Confirm a table's waiting report with its code (a second holder of the slip).
///
/// The confirmer names the seat they hold, another than the reporter's: the report becomes the
/// table's result (entered in the organiser's name, its reason naming both seats). Refused,
/// with nothing written: a wrong code (422 `code`), a confirmer not seated there (422
/// `confirmer`) or the reporter's own seat or, in a team round, their partner's (409
/// `confirmer`), after the report's `answer_by` (409 `answer_by`), a completed round (409 `round`),
/// a table with a result (409 `table`), no report waiting (404). `report_id` names the report
/// read: another report waiting now (a seated player signed in replaced it) is refused (409
/// `report_id`), and so is a confirmation without it once the waiting report replaced or
/// followed an unsettled one (428 `report_id`).
#[utoipa::path(
    operation_id = "confirm_report_with_code",
    tag = "results",
    params(TablePath),
    request_body = CodeConfirm,
    responses(
        BodyErrors,
        (status = 200, description = "The result with its history", body = ResultWithHistory),
        (status = 202, description = "A confirmed double crash in a self-scheduled round: the game is open for scheduling again", body = ScheduleOut),
        (status = 404, description = "No such tournament, published round or table, or no report waiting", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The round is completed, the table has a result, the confirmer holds the reporter's seat (or their partner's), the report's `answer_by` has passed, or `report_id` is not the report waiting", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "The waiting report replaced or followed another one: name it with `report_id`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong codes", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/rounds/{n}/tables/{t}/code-report/confirm")]
pub async fn code_confirm(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<TablePath>,
    body: Json<CodeConfirm>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let (keys, now) = (state.hall.clone(), state.clock.now());
    let work = state.run(move |conn| hall::confirm(conn, &keys, at, body.0, now));
    Ok(entered_answer(
        CodeGuard::around(&req, &state, at, work).await?,
    ))
}

/// A round's queue of reports (organisers and referees).
///
/// The reports waiting for confirmation and the disputed ones (each with its case), beside the
/// tables still missing a result with no report: what to chase before drawing the next round.
#[utoipa::path(
    operation_id = "report_queue",
    tag = "results",
    security(("bearer" = [])),
    params(RoundPath),
    responses(
        (status = 200, description = "The queue", body = ReportQueue),
        NoOrInvalidToken,
        (status = 403, description = "Not an organiser or referee of the tournament", body = Problem, content_type = "application/problem+json"),
        NoSuchRound,
        (status = 409, description = "The round is a draft", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/rounds/{n}/report-queue")]
pub async fn queue(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<RoundPath>,
) -> ApiResult<HttpResponse> {
    let p = path.into_inner();
    let out = state
        .run(move |conn| hall::queue(conn, &caller, p.id, p.n))
        .await?;
    Ok(private_json(&out))
}

/// A link that opens a round's result slips in a browser (organisers and referees).
///
/// The slips carry the table codes, so their page wants a bearer token, which a browser's
/// address bar cannot send: this link opens them without one for 30 minutes, while the
/// account that took it is enabled and still an organiser or referee of the tournament (or an
/// admin). The codes report and confirm results, so an API key needs `results:write` (or
/// `tournaments:write`) here, not only `read`.
#[utoipa::path(
    operation_id = "slips_link",
    tag = "rounds",
    security(("bearer" = [])),
    params(RoundPath),
    responses(
        (status = 200, description = "The link", body = SlipsLink),
        NoOrInvalidToken,
        (status = 403, description = "Not an organiser or referee of the tournament, or an API key without `results:write` (the slips carry the table codes, which write results)", body = Problem, content_type = "application/problem+json"),
        NoSuchRound,
        (status = 409, description = "The round is a draft", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/rounds/{n}/slips-link")]
pub async fn slips_link(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<RoundPath>,
) -> ApiResult<HttpResponse> {
    let p = path.into_inner();
    let (keys, now) = (state.hall.clone(), state.clock.now());
    let out = state
        .run(move |conn| print::slips_link(conn, &keys, &caller, p.id, p.n, now))
        .await?;
    Ok(private_json(&out))
}
