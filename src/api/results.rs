//! Table results: `/tournaments/{id}/rounds/{n}/tables/{t}/result`.
//!
//! Every version of a result is kept with who entered it, when and why; reads show the latest.
//! Writes name the version they replace in `If-Match` (412 when it is no longer current, 428
//! when a result exists and none is named), and may carry an `Idempotency-Key` so a retried
//! request is not applied twice. A round is completed when all its tables have results.

use actix_web::{get, put, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, Json, TablePath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{InvalidToken, NotARefereeOrOrganiser, NotModified};
use std::collections::BTreeMap;

use crate::api::support::idempotent_answer;
use crate::api::support::{if_match, versioned_json, IfMatch, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::runtime::state::AppState;
use crate::services::play::replays::{self, Entered};
use crate::services::play::scheduling::ScheduleOut;
use crate::services::running::results::{
    self, EnterResult, Precondition, ResultWithHistory, TableRef,
};

/// Enter or correct a table's result (referees and organisers).
///
/// The first entry needs no precondition; a correction needs `If-Match` with the version in force
/// (the `ETag` of the result) and a `reason`, and keeps every earlier version. Standings and the
/// ratings fed by the tournament follow at once.
///
/// In a self-scheduled round a double crash (`double_crash: true`) is replayed, not scored 23:23
/// (seed 003, rule 3.3): no result is stored, and the answer is 202 with the game's schedule,
/// open again (no agreed time, waiting on nobody) with a `replay` message in its thread. Once
/// the table has a result, a double crash is refused with 409 naming `double_crash`.
#[utoipa::path(
    operation_id = "enter_result",
    tag = "results",
    security(("bearer" = [])),
    params(
        TablePath,
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,9}")$"#, description = "The version being corrected, e.g. \"1\" (* for whatever is current); required once a result exists"),
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = EnterResult,
    responses(
        BodyErrors,
        (status = 200, description = "Stored; the result with its history", body = ResultWithHistory),
        (status = 202, description = "A double crash in a self-scheduled round: no result stored; the game is open for scheduling again (a replay)", body = ScheduleOut),
        NotARefereeOrOrganiser,
        (status = 404, description = "No such tournament, round or table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The round is still a draft, or a double crash in a self-scheduled round whose table has a result (`double_crash`)", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match names a version that is not current", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid result", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "A result exists: name its version in If-Match", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/tournaments/{id}/rounds/{n}/tables/{t}/result")]
pub async fn enter(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TablePath>,
    body: Json<EnterResult>,
) -> ApiResult<HttpResponse> {
    let expected = if_match(&req)?;
    let key = idempotency_key(&req, &body.0)?;
    let at = TableRef::from(path.into_inner());
    let precondition = match expected {
        IfMatch::Absent => Precondition::IfMatch(None),
        IfMatch::Any => Precondition::AnyVersion,
        IfMatch::Version(v) => Precondition::IfMatch(Some(v)),
    };
    let now = state.clock.now();
    let answer = state
        .run(move |conn| {
            idempotency::once_answering(
                conn,
                caller.user_id,
                key.as_ref(),
                |out: &Entered| match out {
                    Entered::Stored(r) => (
                        200,
                        BTreeMap::from([(
                            "ETag".to_string(),
                            format!("\"{}\"", r.current.version),
                        )]),
                    ),
                    Entered::Replay(_) => (202, BTreeMap::new()),
                },
                |conn| replays::enter_result(conn, &caller, at, &body.0, precondition, now),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// A table's result with every version.
///
/// In Bridge-Agricola, results of a round that is not completed are shown only to the tournament's
/// staff (players at other tables hold the same cards).
#[utoipa::path(
    operation_id = "read_result",
    tag = "results",
    params(TablePath),
    responses(
        (status = 200, description = "The result and its versions; the `ETag` is the version in force, as `If-Match` takes it", body = ResultWithHistory),
        NotModified,
        InvalidToken,
        (status = 404, description = "No such tournament, round, table or result", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/rounds/{n}/tables/{t}/result")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TablePath>,
) -> ApiResult<HttpResponse> {
    let at = TableRef::from(path.into_inner());
    let out = state
        .run(move |conn| results::read(conn, &caller, at))
        .await?;
    // The version is the ETag, as the write answers it and `If-Match` takes it.
    let version = out.current.version;
    versioned_json(&req, &out, version, Visibility::Private)
}
