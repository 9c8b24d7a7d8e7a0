//! Tournament archives (issue 32): `GET /tournaments/{id}/archive` and
//! `POST /tournament-imports`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use futures_util::StreamExt;

use crate::api::extract::Json;
use crate::api::extract::{asker_first, idempotency_key, parse};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    NoSuchPool, NoSuchTournament, NotAnAdmin, NotModified, NotSignedIn, NotThisOrganiser,
};
use crate::api::support::{cached_json, created_at, idempotent_answer, Visibility};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult, Problem};
use crate::infra::idempotency;
use crate::runtime::state::AppState;
use crate::services::archives::{
    self, ArchiveKeyOut, BreakCheckout, CheckIn, CheckOut, CheckedOut, CheckoutOut, ImportPool,
    ImportTournament, PoolArchive, PoolImportOut, TournamentArchive, TournamentImportOut,
};

/// The largest archive an import reads (an event's archive is a few hundred kilobytes).
pub const ARCHIVE_LIMIT: usize = 64 * 1024 * 1024;

/// A body up to [`ARCHIVE_LIMIT`] bytes.
async fn read_archive(mut payload: web::Payload) -> Result<web::BytesMut, ApiError> {
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
    Ok(body)
}

/// Archive a tournament (its organisers and admins).
///
/// One versioned JSON document with everything the tournament holds: settings, staff,
/// registrations, teams, rounds with every draw attempt (seed, commitment, the engine's input),
/// every version of every result, penalties, withdrawals, cases with their parties, panel,
/// votes, remedies and history, self-scheduled games and reported results, and the players and
/// accounts they name. `digest` is the SHA-256 of the content in canonical JSON; an import
/// refuses an archive whose content does not match it. `signature` is this instance's Ed25519
/// signature of the format, version and digest (its key at `GET /archive-key`); an import
/// elsewhere refuses a bad signature and a key it does not trust. Read in one snapshot.
#[utoipa::path(
    operation_id = "archive_tournament",
    tag = "archives",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    responses(
        (status = 200, description = "The archive", body = TournamentArchive),
        NotModified,
        NotSignedIn,
        NotThisOrganiser,
        NoSuchTournament,
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
    let keys = state.archive_keys.clone();
    let now = state.clock.now();
    let out = state
        .run(move |conn| archives::tournament_archive(conn, &caller, id, &keys, now))
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Import a tournament archive (admins).
///
/// Recreates the tournament with new ids, in one transaction: players are mapped as
/// `player_map` says or created; accounts as `user_map` says, else created disabled (never
/// matched by username); the importer becomes an organiser; a pool named here applies its
/// acceptance rules. Before anything is written the archive is checked whole: its format and
/// version, its digest, its signature (by this instance's key, one of `ARCHIVE_TRUSTED_KEYS`,
/// or the `trust_key` named; an unsigned archive only with `accept_unsigned`), every reference
/// between its rows, every draw, recomputed from its seed and input with the seating
/// engine, every result, as the results route would take it against its round's draw and
/// the tournament's ruleset (never on a draft round, a correction with its reason), and every
/// case and vote as the case routes would store it (texts, evidence links, remedies and
/// reasons within their limits). The archive holds no more than the routes let a tournament
/// have (at most 50 rounds numbered 1, 2, ...; an appeals committee of at most three, none of
/// them its referee; seeding and settings within the routes' limits; at most 10,000 players,
/// 10,000 registrations and 1,000 cases), and `user_map` and
/// `player_map` never map two of its ids onto one account or player here. A problem names the
/// part at fault (`archive.signature.key`, `archive.content.results[3].round_id`,
/// `archive.content.results[0].seats[1].player`, `archive.content.rounds`,
/// `archive.content.players`, `archive.content.cases[0].evidence_links[2]`, `user_map.17`, ...).
/// Bodies up to 64 MiB.
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
        (status = 201, description = "Imported", body = TournamentImportOut),
        NotAnAdmin,
        (status = 409, description = "The pool named refuses the request (`rating_status`) or already holds this tournament, which would count twice (`rating_pool_id`)", body = Problem, content_type = "application/problem+json"),
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
    let keys = state.archive_keys.clone();
    let now = state.clock.now();
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |out: &TournamentImportOut| {
                    created_at(format!("/api/v1/tournaments/{}", out.tournament_id), None)
                },
                |conn| archives::import_tournament(conn, &caller, input, &keys, now),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// Check a tournament out to another instance (its organisers).
///
/// For a venue that plays offline: the answer holds the archive to import there
/// (`POST /tournament-imports` on the venue's instance). Until the tournament is checked back
/// in, it is read-only here: every write to it is refused with 409 on `tournament` naming where
/// it runs, and its reads show `checked_out_to`.
#[utoipa::path(
    operation_id = "check_out_tournament",
    tag = "archives",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = CheckOut,
    responses(
        BodyErrors,
        (status = 200, description = "Checked out", body = CheckedOut),
        NotThisOrganiser,
        NoSuchTournament,
        (status = 409, description = "Already checked out (`tournament`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/checkout")]
pub async fn check_out(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<CheckOut>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let keys = state.archive_keys.clone();
    let now = state.clock.now();
    let out = state
        .run(move |conn| archives::check_out(conn, &caller, id, body.0, &keys, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Check a tournament back in with its venue's archive (its organisers).
///
/// Replaces every row of the tournament here with the archive's (new ids; players mapped by
/// `player_map`, else created), in one transaction, when nothing changed here since the
/// check-out; 409 on `archive` naming what changed otherwise. The archive passes the import's
/// checks (digest, signature by a trusted key or the venue's `trust_key`, references, draws).
/// Accounts are mapped by `user_map` only (else created disabled), and only onto accounts the
/// checked-out archive named or onto the caller (422 on `user_map.<id>`). Its sizes, results,
/// cases and votes are held as on an import (422 naming the archive's field, e.g.
/// `archive.content.results[2].reason`). The archive is held
/// to what the organiser may change here: an accepted tournament's dates, time zone and
/// completed rounds' times of play move only for a keeper of its pool or an admin (409 naming
/// the archive's field), its status only by the steps taken by hand (409), its ruleset, ruleset
/// overrides and table size not at all (409), its other settings through a PATCH's own checks
/// (422 naming the archive's field), its appeals committee as an appointment here (at most
/// three, no referee among them: 422 on `archive.content.staff`, as on an import; once started,
/// no member appointed or dismissed: 409 on it), its national rank and announcement date stay. A person erased here
/// since the check-out must be mapped onto (422 on `player_map` or `user_map`) while the
/// check-in creates anyone, so their old name is never written back. Bodies up to 64 MiB.
#[utoipa::path(
    operation_id = "check_in_tournament",
    tag = "archives",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body(content = CheckIn, example = json!({"archive": {"format": "tourney.tournament-archive", "version": 2, "exported_at": "2026-11-22T20:00:00Z", "digest": "sha256:...", "signature": {"algorithm": "ed25519", "key": "3d40...", "value": "..."}, "content": {}}, "player_map": {"3": 17}, "user_map": {"2": 5}})),
    responses(
        BodyErrors,
        (status = 200, description = "Checked in", body = CheckoutOut),
        NotThisOrganiser,
        NoSuchTournament,
        (status = 409, description = "Not checked out (`tournament`), changed here since (`archive`), a change of time of an accepted tournament only its pool's keepers make (`archive.content.tournament.starts_on`, `.ends_on`, `.time_zone`, `archive.content.rounds[i].played_at`), a status not reached by the steps taken by hand (`archive.content.tournament.status`), a change of a setting fixed at creation (`archive.content.tournament.ruleset`, `.ruleset_overrides`, `.table_size`), or an appeals committee an appointment here would not make (`archive.content.staff`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/checkin")]
pub async fn check_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    payload: web::Payload,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    // A body that cannot be read is answered only to someone who takes part (issue 37, item 6).
    let read = async { parse::<CheckIn>(&read_archive(payload).await?) };
    let input = match read.await {
        Ok(input) => input,
        Err(e) => return Err(asker_first(&req, e).await),
    };
    let keys = state.archive_keys.clone();
    let now = state.clock.now();
    let out = state
        .run(move |conn| archives::check_in(conn, &caller, id, input, &keys, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// End a check-out (the tournament's organisers and admins).
///
/// With a reason: the tournament is writable here again. A later check-in is still accepted
/// if nothing changed here meanwhile.
#[utoipa::path(
    operation_id = "break_checkout",
    tag = "archives",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = BreakCheckout,
    responses(
        BodyErrors,
        (status = 200, description = "Broken", body = CheckoutOut),
        NotThisOrganiser,
        NoSuchTournament,
        (status = 409, description = "Not checked out, or already broken (`tournament`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/checkout/break")]
pub async fn break_checkout(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<BreakCheckout>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| archives::break_checkout(conn, &caller, id, body.0, now))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// Archive a rating pool (admins).
///
/// Its settings and seasons, its rating imports, the archives of the tournaments it accepted
/// and its rating log, in one versioned document with a digest, signed with this instance's
/// key (as a tournament archive).
#[utoipa::path(
    operation_id = "archive_pool",
    tag = "archives",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id")),
    responses(
        (status = 200, description = "The archive", body = PoolArchive),
        NotModified,
        NotSignedIn,
        NotAnAdmin,
        NoSuchPool,
    )
)]
#[get("/rating-pools/{id}/archive")]
pub async fn pool_archive(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let keys = state.archive_keys.clone();
    let now = state.clock.now();
    let out = state
        .run(move |conn| archives::pool_archive(conn, &caller, id, &keys, now))
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Import a rating pool archive (admins).
///
/// Recreates the pool (new ids) with its settings, seasons and rating imports, imports each of
/// its tournaments into it (accepted), and rebuilds its list from the same games, in one
/// transaction: the leaderboard equals the original. The pool archive's signature is checked
/// as on a tournament import; every tournament archive inside passes the tournament import's
/// other checks (`archive.content.tournaments[0].digest`, ...). Accounts are mapped by
/// `user_map` only, else created once for the whole archive. A pool of the same name here
/// (a second import) is 409 on `archive.content.pool.name`. Bodies up to 64 MiB.
#[utoipa::path(
    operation_id = "import_pool",
    tag = "archives",
    security(("bearer" = [])),
    request_body(content = ImportPool, example = json!({"archive": {"format": "tourney.pool-archive", "version": 2, "exported_at": "2026-11-22T20:00:00Z", "digest": "sha256:...", "signature": {"algorithm": "ed25519", "key": "3d40...", "value": "..."}, "content": {}}, "player_map": {"3": 17}})),
    responses(
        BodyErrors,
        (status = 201, description = "Imported", body = PoolImportOut),
        NotAnAdmin,
        (status = 409, description = "A pool of that name exists here, e.g. a second import of the same archive (`archive.content.pool.name`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/pool-imports")]
pub async fn import_pool(
    state: web::Data<AppState>,
    caller: Caller,
    payload: web::Payload,
) -> ApiResult<HttpResponse> {
    let input: ImportPool = parse(&read_archive(payload).await?)?;
    let keys = state.archive_keys.clone();
    let now = state.clock.now();
    let out = state
        .run(move |conn| archives::import_pool(conn, &caller, input, &keys, now))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/rating-pools/{}", out.pool_id)))
        .json(out))
}

/// This instance's public archive key.
///
/// The Ed25519 key this instance signs its archives with (64 hex digits). Another instance
/// imports them when an operator lists this key in its `ARCHIVE_TRUSTED_KEYS`, or an admin there
/// names it as `trust_key` with an import after comparing it with this answer.
#[utoipa::path(
    operation_id = "read_archive_key",
    tag = "archives",
    responses(
        (status = 200, description = "The key", body = ArchiveKeyOut),
        NotModified,
    )
)]
#[get("/archive-key")]
pub async fn archive_key(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    cached_json(&req, &state.archive_keys.public(), Visibility::Public)
}
