//! `/tournaments`: create, configure, publish and staff a tournament.

use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, Json, Query, TournamentPath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    ChangedSinceRead, IfMatchRequired, InvalidParameters, InvalidToken, NoSuchTournament,
    NotModified, NotSignedIn, NotThisOrganiser,
};

use crate::api::support::{created_at, idempotent_answer};
use crate::api::support::{
    json_body, kept_answer, page_body, page_json, required_if_match, Page, PageParams, Visibility,
};
use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::domain::status::TournamentStatus;
use crate::domain::{TournamentId, UserId};
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::infra::live::Subject;
use crate::runtime::state::AppState;
use crate::services::access::load_visible;
use crate::services::cases;
use crate::services::running::tournament_list::{self, TournamentFilter};
use crate::services::running::tournaments::{
    self, AppointStaff, CreateTournament, StaffOut, TournamentOut, UpdateTournament,
};

/// Create a tournament (any signed-in user; the caller becomes its organiser).
///
/// The tournament starts as a draft seen only by its staff. Answers 201 with `Location`; send an
/// `Idempotency-Key` to retry safely.
#[utoipa::path(
    operation_id = "create_tournament",
    tag = "tournaments",
    security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = CreateTournament,
    responses(
        BodyErrors,
        (status = 201, description = "Created, in status draft", body = TournamentOut),
    )
)]
#[post("/tournaments")]
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreateTournament>,
) -> ApiResult<HttpResponse> {
    let key = idempotency_key(&req, &body.0)?;
    let now = state.clock.now();
    let answer = state
        .run(move |conn| {
            idempotency::once(
                conn,
                caller.user_id,
                key.as_ref(),
                201,
                |t: &TournamentOut| {
                    created_at(
                        format!("/api/v1/tournaments/{}", t.id),
                        Some(i64::from(t.version)),
                    )
                },
                |conn| {
                    tournaments::create_tournament(conn, &caller, body.0, now)
                        .and_then(TournamentOut::try_from)
                },
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// List tournaments: published ones for everyone, plus your own drafts when signed in.
///
/// Newest first, in the list envelope with a `Link` header; filter by `status` and search names
/// with `q`. Every anonymous page is kept by each instance under its query until a
/// tournament is added, changed or removed.
#[utoipa::path(
    operation_id = "list_tournaments",
    tag = "tournaments",
    params(TournamentFilter),
    responses(
        (status = 200, description = "A page of tournaments", body = Page<TournamentOut>),
        NotModified,
        InvalidToken,
        InvalidParameters,
    )
)]
#[get("/tournaments")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    filter: Query<TournamentFilter>,
) -> ApiResult<HttpResponse> {
    if caller.0.is_some() {
        // Signed-in callers see their drafts and their writes: exact, on the primary (the
        // search index answers a search once it has every change committed before it).
        let st = state.clone();
        let page = state
            .run(move |conn| {
                tournament_list::list_tournaments(conn, &caller, filter.0, Some(&st.search))
            })
            .await?;
        return page_json(&req, &page, Visibility::Private);
    }
    // Every anonymous page (a search, filters, a page by cursor) is kept per query until a
    // tournament changes; misses tolerate replication lag (`docs/scaling.md`).
    let (path, query) = (req.path().to_string(), req.query_string().to_string());
    let st = state.clone();
    let body = state
        .run_kept_lagging(
            format!("tournaments?{query}"),
            Subject::Tournaments,
            move |conn| {
                // The search index answers a search once it is current (`infra::search`).
                let page =
                    tournament_list::list_tournaments(conn, &caller, filter.0, Some(&st.search))?;
                Ok((true, page_body(&path, &query, &page)?))
            },
        )
        .await?;
    Ok(kept_answer(&req, &body, Visibility::Public))
}

/// Read a tournament (public once published).
///
/// With its `version` as a strong `ETag`; send it in `If-Match` to update the tournament.
#[utoipa::path(
    operation_id = "read_tournament",
    tag = "tournaments",
    params(TournamentPath),
    responses(
        (status = 200, description = "The tournament; `ETag` carries its version", body = TournamentOut),
        NotModified,
        InvalidToken,
        (status = 404, description = "No such tournament (or a draft you may not see)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let anonymous = caller.0.is_none();
    let (public, body) = state
        .run_kept(
            anonymous,
            format!("tournament t={id}"),
            Subject::Tournament(id),
            move |conn| {
                let t = TournamentOut::try_from(load_visible(conn, &caller, id)?)?;
                let etag = format!("\"{}\"", t.version);
                Ok((
                    t.status != TournamentStatus::Draft,
                    json_body(&t, Some(etag))?,
                ))
            },
        )
        .await?;
    Ok(kept_answer(&req, &body, Visibility::public_if(public)))
}

/// Change a tournament (its organisers and admins).
///
/// Send `If-Match: "<version>"` to make sure nobody changed it in between (412 otherwise).
#[utoipa::path(
    operation_id = "update_tournament",
    tag = "tournaments",
    security(("bearer" = [])),
    params(
        TournamentPath,
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,9}")$"#, description = "Required (428 without it): the version you read (its ETag), e.g. \"3\"; * overwrites whatever is current"),
    ),
    request_body = UpdateTournament,
    responses(
        BodyErrors,
        (status = 200, description = "The changed tournament", body = TournamentOut),
        NotThisOrganiser,
        NoSuchTournament,
        (status = 409, description = "A status change the tournament's state does not allow", body = Problem, content_type = "application/problem+json"),
        ChangedSinceRead,
        IfMatchRequired,
    )
)]
#[patch("/tournaments/{id}")]
pub async fn update(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<UpdateTournament>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let expected = required_if_match(&req, "tournament")?;
    let now = state.clock.now();
    let t = state
        .run(move |conn| tournaments::update_tournament(conn, &caller, id, expected, body.0, now))
        .await?;
    let version = t.version;
    Ok(HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{version}\"")))
        .json(TournamentOut::try_from(t)?))
}

/// The tournament's staff: organisers, referees and the appeals committee (public once
/// published).
///
/// Organisers, referees and appeals committee members with the account each role belongs to, in the
/// list envelope.
#[utoipa::path(
    operation_id = "list_staff",
    tag = "tournaments",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "The staff", body = Page<StaffOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/staff")]
pub async fn list_staff(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let (public, staff) = state
        .run(move |conn| tournaments::list_staff(conn, &caller, id, &page.0))
        .await?;
    page_json(&req, &staff, Visibility::public_if(public))
}

/// Appoint an organiser, a referee or an appeals committee member (organisers).
///
/// The committee has at most three members, and a referee cannot sit on the committee of the same
/// tournament (the committee hears appeals against the referee). The committee is appointed
/// before the tournament: once a round is drawn or the tournament runs, it no longer changes
/// (409 naming `role`). Appointing a referee or a committee member recomputes the deciding panel
/// of every open case.
#[utoipa::path(
    operation_id = "appoint_staff",
    tag = "tournaments",
    security(("bearer" = [])),
    params(TournamentPath),
    request_body = AppointStaff,
    responses(
        BodyErrors,
        (status = 201, description = "Appointed", body = Page<StaffOut>),
        NotThisOrganiser,
        NoSuchTournament,
        (status = 409, description = "Already appointed, committee full, a conflict of roles, or the appeals committee once the tournament started (`role`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/staff")]
pub async fn appoint(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<AppointStaff>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner().id;
    let staff = state
        .run(move |conn| tournaments::appoint(conn, &caller, id, body.0, cases::after_staff_change))
        .await?;
    Ok(HttpResponse::Created().json(Page::whole(staff)))
}

/// Remove an appointment (organisers).
///
/// The last organiser cannot be removed, nor an appeals committee member once a round is drawn
/// or the tournament runs. Dismissing a referee or a committee member recomputes the deciding
/// panel of every open case.
#[utoipa::path(
    operation_id = "dismiss_staff",
    tag = "tournaments",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("user_id" = i64, Path, description = "The appointed user"),
        ("role" = StaffRole, Path, description = "The role to remove"),
    ),
    responses(
        (status = 204, description = "Removed"),
        NotSignedIn,
        NotThisOrganiser,
        (status = 404, description = "No such tournament or appointment", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The last organiser, or an appeals committee member once the tournament started (`role`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/tournaments/{id}/staff/{user_id}/{role}")]
pub async fn dismiss(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64, StaffRole)>,
) -> ApiResult<HttpResponse> {
    let (id, user_id, role) = path.into_inner();
    state
        .run(move |conn| {
            let appointment = (TournamentId(id), UserId(user_id), role);
            tournaments::dismiss(conn, &caller, appointment, cases::after_staff_change)
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
