//! Tournament archives (issue 32): `GET /tournaments/{id}/archive` and
//! `POST /tournament-imports`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use futures_util::StreamExt;

use crate::api::extract::{idempotency_key, parse};
use crate::api::problem::BodyErrors;
use crate::api::support::{cached_json, created_at, idempotent_answer, Visibility};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult, Problem};
use crate::infra::idempotency;
use crate::runtime::state::AppState;
use crate::services::archives::{self, ImportOut, ImportTournament, TournamentArchive};

/// The largest archive an import reads (an event's archive is a few hundred kilobytes).
pub const ARCHIVE_LIMIT: usize = 64 * 1024 * 1024;

/// Archive a tournament (its organisers and admins).
///
/// One versioned JSON document with everything the tournament holds: settings, staff,
/// registrations, teams, rounds with every draw attempt (seed, commitment, the engine's input),
/// every version of every result, penalties, withdrawals, cases with their parties, panel,
/// votes, remedies and history, self-scheduled games and reported results, and the players and
/// accounts they name. `digest` is the SHA-256 of the content in canonical JSON; an import
/// refuses an archive whose content does not match it. Read in one snapshot.
#[utoipa::path(
    operation_id = "archive_tournament",
    tag = "archives",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    responses(
        (status = 200, description = "The archive", body = TournamentArchive),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an organiser of this tournament", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/archive")]
pub async fn archive(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let out = state
        .run(move |conn| archives::tournament_archive(conn, &caller, id))
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Import a tournament archive (admins).
///
/// Recreates the tournament with new ids, in one transaction: players are mapped as
/// `player_map` says or created; accounts as `user_map` says, else matched by username, else
/// created disabled; the importer becomes an organiser; a pool named here applies its
/// acceptance rules. Before anything is written the archive is checked whole: its format and
/// version, its digest, every reference between its rows, and every draw, recomputed from its
/// seed and input with the seating engine. A problem names the part at fault
/// (`archive.digest`, `archive.content.results[3].round_id`, ...). Bodies up to 64 MiB.
#[utoipa::path(
    operation_id = "import_tournament",
    tag = "archives",
    security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = ImportTournament,
    responses(
        BodyErrors,
        (status = 201, description = "Imported", body = ImportOut),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The pool named refuses the request (`rating_status`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournament-imports")]
pub async fn import(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    mut payload: web::Payload,
) -> ApiResult<HttpResponse> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk =
            chunk.map_err(|e| ApiError::BadRequest(format!("cannot read the body: {e}")))?;
        if body.len() + chunk.len() > ARCHIVE_LIMIT {
            return Err(ApiError::PayloadTooLarge(format!(
                "an archive must be at most {ARCHIVE_LIMIT} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    let input: ImportTournament = parse(&body)?;
    let key = idempotency_key(&req, &input)?;
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |out: &ImportOut| {
                    created_at(format!("/api/v1/tournaments/{}", out.tournament_id), None)
                },
                |conn| archives::import_tournament(conn, &caller, input),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}
