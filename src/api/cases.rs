//! Complaints, decisions and appeals: `/tournaments/{id}/cases`.
//!
//! A player, referee or organiser opens a case; the service computes the deciding panel from
//! the tournament's referees, its appeals committee and the case's parties
//! (`crate::domain::cases`), shows it, and recomputes it when parties are added. A referee
//! panel decides with one ruling (`/decision`); a committee panel votes (`/votes`) and the
//! majority decides. A party may appeal a referee's ruling within the tournament's appeal
//! window; the appeal's decision is final. Remedies (a corrected result, an annulled or added
//! penalty, a replayed table) are applied in the decision's transaction through the same
//! functions a referee uses, linked to the case. Every step is kept with its author and time.

use actix_web::{get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{idempotency_key, CasePath, Json, Query, TournamentPath};
use crate::api::problem::BodyErrors;
use crate::api::problem::{InvalidToken, NoSuchCase, NoSuchTournament, NotModified};
use std::collections::BTreeMap;

use crate::api::support::idempotent_answer;
use crate::api::support::{cached_json, page_json, Page, PageParams, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::domain::{CaseId, TournamentId};
use crate::error::{ApiResult, Problem};
use crate::infra::idempotency;
use crate::runtime::state::AppState;
use crate::services::cases::{self, AddParty, Appeal, CaseOut, CastVote, Decide, OpenCase};

/// Open a complaint (a player registered in the tournament, a referee or an organiser).
///
/// The complainant, the people named as respondents and, for a table or a result, the players
/// seated there become parties; the deciding panel is computed and shown.
#[utoipa::path(
    operation_id = "open_case",
    tag = "cases",
    security(("bearer" = [])),
    params(
        TournamentPath,
        ("Idempotency-Key" = Option<String>, Header, nullable = false, pattern = "^[!-~]{1,200}$", description = "Makes a retry safe: the same key and request get the first answer again"),
    ),
    request_body = OpenCase,
    responses(
        BodyErrors,
        (status = 201, description = "Opened; the case with its parties and panel", body = CaseOut),
        (status = 403, description = "Neither a registered player nor a referee or organiser", body = Problem, content_type = "application/problem+json"),
        NoSuchTournament,
        (status = 409, description = "Nobody who is not a party can decide the case, or a panel that votes would have fewer than three members who are not parties", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases")]
pub async fn open(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TournamentPath>,
    body: Json<OpenCase>,
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
                |conn| cases::open_case(conn, &caller, TournamentId(tid), body.0, now),
            )
        })
        .await?;
    Ok(idempotent_answer(answer))
}

/// The tournament's cases the caller may see: open cases only for their parties, the
/// referees, the organisers and the panel; decided cases for everyone (outcome and remedies
/// only, unless the caller is one of those).
///
/// Oldest first. Anonymous callers see decided cases only, without the complaint's text or
/// evidence.
#[utoipa::path(
    operation_id = "list_cases",
    tag = "cases",
    params(TournamentPath, PageParams),
    responses(
        (status = 200, description = "Cases, oldest first", body = Page<CaseOut>),
        NotModified,
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/cases")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let now = state.clock.now();
    let out = state
        .run(move |conn| cases::list_cases(conn, &caller, TournamentId(tid), &page.0, now))
        .await?;
    page_json(&req, &out, Visibility::Private)
}

/// One case (an open case is 404 for anyone but its parties, the referees, the organisers
/// and the panel).
///
/// The case with its complaint, evidence, parties, the deciding panel (referee or the three-member
/// appeals committee after conflict-of-interest exclusions), votes once cast, the decision,
/// remedies and the appeal.
#[utoipa::path(
    operation_id = "read_case",
    tag = "cases",
    params(
        CasePath,
    ),
    responses(
        (status = 200, description = "The case", body = CaseOut),
        NotModified,
        InvalidToken,
        NoSuchCase,
    )
)]
#[get("/tournaments/{id}/cases/{cid}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<CasePath>,
) -> ApiResult<HttpResponse> {
    let CasePath { id: tid, cid } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| cases::read_case(conn, &caller, TournamentId(tid), CaseId(cid), now))
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Add a party to an open case (a referee or an organiser of the tournament who is not a
/// party to it) before any vote is cast; the deciding panel is recomputed (409 if nobody would
/// be left to decide, or a panel that votes would have fewer than three members).
///
/// Parties cannot sit on the panel that decides the case (domain.md, appeals): adding one may
/// change who decides, so the parties themselves cannot. A `player_at_table` must be seated at
/// the case's table in the draw of its round.
#[utoipa::path(
    operation_id = "add_case_parties",
    tag = "cases",
    security(("bearer" = [])),
    params(
        CasePath,
    ),
    request_body = AddParty,
    responses(
        BodyErrors,
        (status = 200, description = "Added; the case with its new panel", body = CaseOut),
        (status = 403, description = "Not a referee or an organiser, or a party to the case", body = Problem, content_type = "application/problem+json"),
        NoSuchCase,
        (status = 409, description = "Decided, votes cast, already a party, nobody left to decide, or fewer than three left on a panel that votes", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields, or a player at the table who is not seated at the case's table (or a case about no table)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/parties")]
pub async fn add_parties(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CasePath>,
    body: Json<AddParty>,
) -> ApiResult<HttpResponse> {
    let CasePath { id: tid, cid } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| {
            cases::add_parties(conn, &caller, TournamentId(tid), CaseId(cid), body.0, now)
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// A referee's ruling on a case with a referee panel (any referee on the panel): uphold (apply the remedies asked for), dismiss, or order remedies.
///
/// The remedies are applied in the same transaction.
#[utoipa::path(
    operation_id = "decide_case",
    tag = "cases",
    security(("bearer" = [])),
    params(
        CasePath,
    ),
    request_body = Decide,
    responses(
        BodyErrors,
        (status = 200, description = "Decided; the case", body = CaseOut),
        (status = 403, description = "A party to the case, not on its panel, or no longer holding the role of their seat (dismissed)", body = Problem, content_type = "application/problem+json"),
        NoSuchCase,
        (status = 409, description = "Already decided, or a committee panel that votes", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields or a remedy that cannot be applied", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/decision")]
pub async fn decision(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CasePath>,
    body: Json<Decide>,
) -> ApiResult<HttpResponse> {
    let CasePath { id: tid, cid } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| {
            cases::decide_case(conn, &caller, TournamentId(tid), CaseId(cid), body.0, now)
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// A committee panel member's vote (each member once, with a reason).
///
/// When a choice has a majority of the panel the case is decided and its remedies applied in the
/// same transaction; when every member has voted without a majority the case is dismissed.
#[utoipa::path(
    operation_id = "vote_on_case",
    tag = "cases",
    security(("bearer" = [])),
    params(
        CasePath,
    ),
    request_body = CastVote,
    responses(
        BodyErrors,
        (status = 201, description = "Vote recorded; the case (decided if this vote made a majority)", body = CaseOut),
        (status = 403, description = "A party to the case, not on its panel, or no longer holding the role of their seat (dismissed)", body = Problem, content_type = "application/problem+json"),
        NoSuchCase,
        (status = 409, description = "Already voted, already decided, or a case the referee rules on alone", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields or a remedy that cannot be applied", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/votes")]
pub async fn vote(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CasePath>,
    body: Json<CastVote>,
) -> ApiResult<HttpResponse> {
    let CasePath { id: tid, cid } = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| cases::vote(conn, &caller, TournamentId(tid), CaseId(cid), body.0, now))
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// Appeal a referee's ruling to the appeals committee (a party of the case, within the tournament's `appeal_window_minutes` after the decision).
///
/// The parties carry over, the referee who ruled becomes a party (`official_appealed`), and the
/// appeal's panel is computed; its decision is final.
#[utoipa::path(
    operation_id = "appeal_case",
    tag = "cases",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("cid" = i64, Path, description = "The decided case"),
    ),
    request_body = Appeal,
    responses(
        BodyErrors,
        (status = 201, description = "The appeal, a new case", body = CaseOut),
        (status = 403, description = "Not a party to the case", body = Problem, content_type = "application/problem+json"),
        NoSuchCase,
        (status = 409, description = "Not appealable: not decided, an appeal itself, decided by a committee panel, already appealed, or the appeal window has closed; or fewer than three committee members free to decide it", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/cases/{cid}/appeal")]
pub async fn appeal(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<Appeal>,
) -> ApiResult<HttpResponse> {
    let (tid, cid) = path.into_inner();
    let now = state.clock.now();
    let out = state
        .run(move |conn| cases::appeal(conn, &caller, TournamentId(tid), CaseId(cid), body.0, now))
        .await?;
    Ok(HttpResponse::Created().json(out))
}
