//! Standings: `GET /tournaments/{id}/standings` (JSON) and `GET /tournaments/{id}/standings.csv`
//! (CSV; two operations so that generated clients keep the representations apart). Each instance keeps the
//! rendered body: for anonymous readers until a change to the tournament is announced
//! (`infra::kept`, no database work on a hit), for signed-in readers while the stamp of the
//! tournament's inputs is unchanged (`services::running::standings::read_kept` over `infra::standings_cache`: exact, one small query).

use actix_web::{get, http::header, web, HttpRequest, HttpResponse};

use crate::api::extract::{Query, TournamentPath};
use crate::api::problem::{InvalidParameters, InvalidToken, NoSuchTournament, NotModified};
use crate::api::support::{
    cached_json, deprecated_form, etag_matches, etag_of_key, if_none_match, kept_answer,
    not_modified_answer, tagged_body, Visibility,
};
use crate::auth::MaybeCaller;
use crate::domain::scoring::Purpose;
use crate::error::{ApiError, ApiResult, Problem};
use crate::infra::deprecation::CSV_ON_JSON_PATHS;
use crate::infra::kept::KeptBody;
use crate::infra::live::Subject;
use crate::runtime::state::AppState;
use crate::services::ratings::ListFormat;
use crate::services::running::standings::{
    self as table, StandingsOut, StandingsPurpose, StandingsQuery, TeamStandingsOut,
};

/// The standings after a round, with every tie-break value and the TP per round (public).
///
/// Ranked by the purpose's tie-break order (final, qualification or seeding; seed 000). The same
/// table as CSV is `GET /tournaments/{id}/standings.csv`.
#[utoipa::path(
    operation_id = "read_standings",
    tag = "standings",
    params(TournamentPath, StandingsQuery),
    responses(
        (status = 200, description = "The standings, best first", body = StandingsOut),
        NotModified,
        InvalidToken,
        NoSuchTournament,
        (status = 409, description = "This format has no standings table (team matches)", body = Problem, content_type = "application/problem+json"),
        InvalidParameters,
    )
)]
#[get("/tournaments/{id}/standings")]
pub async fn standings(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    query: Query<StandingsQuery>,
) -> ApiResult<HttpResponse> {
    let q = query.0;
    // `?format=csv` and `Accept: text/csv` still answer the CSV here, as before the CSV had its
    // own operation (docs/decisions/csv-operations.md); the document names only the JSON.
    let wants_csv = matches!(q.format, Some(ListFormat::Csv))
        || (q.format.is_none()
            && req
                .headers()
                .get(header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|a| a.contains("text/csv")));
    // A deprecated form (infra::deprecation::CSV_ON_JSON_PATHS): answered as before, with its
    // Deprecation and Sunset headers, and counted per credential.
    let deprecated = q.format.is_some() || wants_csv;
    let who = caller.0.clone();
    let metrics = state.metrics.clone();
    let answer = answer(req, state, caller, path.into_inner().id, q, wants_csv).await?;
    if !deprecated {
        return Ok(answer);
    }
    Ok(deprecated_form(
        answer,
        &CSV_ON_JSON_PATHS,
        who.as_ref(),
        &metrics,
    ))
}

/// The standings as CSV (public): one line per player, every row, the JSON's field names as
/// columns.
///
/// The same table, access rule and parameters as `GET /tournaments/{id}/standings`.
#[utoipa::path(
    operation_id = "read_standings_csv",
    tag = "standings",
    params(TournamentPath, StandingsQuery),
    responses(
        (status = 200, description = "The standings, best first, as CSV", body = String, content_type = "text/csv"),
        NotModified,
        InvalidToken,
        NoSuchTournament,
        (status = 409, description = "This format has no standings table (team matches)", body = Problem, content_type = "application/problem+json"),
        InvalidParameters,
    )
)]
#[get("/tournaments/{id}/standings.csv")]
pub async fn standings_csv(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    query: Query<StandingsQuery>,
) -> ApiResult<HttpResponse> {
    let q = query.0;
    if q.format == Some(ListFormat::Json) {
        return Err(ApiError::field(
            "format",
            "the .csv operation answers CSV only",
        ));
    }
    answer(req, state, caller, path.into_inner().id, q, true).await
}

/// The standings in one representation, kept (anonymous) or exact (signed in).
async fn answer(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    tid: i64,
    q: StandingsQuery,
    wants_csv: bool,
) -> ApiResult<HttpResponse> {
    if q.after_round.is_some_and(|n| n > 1000) {
        return Err(ApiError::field("after_round", "must be at most 1000"));
    }
    let purpose = Purpose::from(q.purpose.unwrap_or(StandingsPurpose::Final));
    let content_type = if wants_csv {
        "text/csv; charset=utf-8"
    } else {
        "application/json"
    };
    let cache = state.standings.clone();
    if caller.0.is_none() {
        // Anonymous: kept by the instance until a change to the tournament is announced.
        let key = format!(
            "standings t={tid} after={:?} purpose={purpose:?} csv={wants_csv}",
            q.after_round
        );
        let (public, body) = state
            .run_kept(true, key, Subject::Tournament(tid), move |conn| {
                let read = table::read_kept(
                    conn,
                    &cache,
                    &caller,
                    tid,
                    q.after_round,
                    purpose,
                    wants_csv,
                    etag_of_key,
                    |_| false,
                )?;
                let body = read
                    .body
                    .ok_or_else(|| ApiError::Internal("standings read without a body".into()))?;
                Ok((
                    read.public,
                    KeptBody {
                        etag: read.etag,
                        content_type,
                        body,
                        link: None,
                    },
                ))
            })
            .await?;
        return Ok(kept_answer(&req, &body, Visibility::public_if(public)));
    }
    // Signed in: exact, and a revalidation is answered before any body is built.
    let if_none_match = if_none_match(&req);
    let read = state
        .run(move |conn| {
            table::read_kept(
                conn,
                &cache,
                &caller,
                tid,
                q.after_round,
                purpose,
                wants_csv,
                etag_of_key,
                |etag| etag_matches(if_none_match.as_deref(), etag),
            )
        })
        .await?;
    let vis = Visibility::public_if(read.public);
    let Some(body) = read.body else {
        return Ok(not_modified_answer(&read.etag, vis));
    };
    Ok(tagged_body(&read.etag, content_type, body.to_vec(), vis))
}

/// The team standings of a 2v2 team duplicate event (public once published).
///
/// Seed 002: two teams play a best of three (two wins take it; a game 3 only at 1-1), more teams a
/// knockout, ranked by the round a team went out in (the semi-final losers share third). `decided`
/// says the event is over. Other formats rank players: see the standings.
#[utoipa::path(
    operation_id = "read_team_standings",
    tag = "standings",
    params(TournamentPath),
    responses(
        (status = 200, description = "The teams, best first", body = TeamStandingsOut),
        NotModified,
        InvalidToken,
        NoSuchTournament,
        (status = 409, description = "Not a team event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/team-standings")]
pub async fn team_standings(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let (public, out) = state
        .run(move |conn| table::team_standings(conn, &caller, tid))
        .await?;
    cached_json(&req, &out, Visibility::public_if(public))
}
