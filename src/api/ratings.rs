//! `/rating-pools`: rating lists, their leaderboards and seasons; `/players/{id}/ratings`: a
//! player's rating history (domain.md sections 9 and 10).

use actix_web::http::header;
use actix_web::{get, patch, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::BodyErrors;
use crate::api::problem::{
    ChangedSinceRead, IfMatchRequired, InvalidParameters, InvalidToken, NoSuchPlayer, NoSuchPool,
    NoSuchSeason, NotAnAdmin, NotModified, NotSignedIn,
};
use crate::api::support::{
    cached_body, cached_json, deprecated_form, etag_matches, etag_of_key, if_none_match, json_body,
    kept_answer, links_for, not_modified_answer, page_body, page_json, required_if_match,
    versioned_json, Page, PageParams, Visibility,
};
use crate::auth::{Caller, MaybeCaller};
use crate::domain::PlayerId;
use crate::error::{ApiError, ApiResult, Problem};
use crate::infra::csv;
use crate::infra::deprecation::CSV_ON_JSON_PATHS;
use crate::infra::kept::KeptBody;
use crate::infra::live::Subject;
use crate::runtime::state::AppState;
use crate::services::ratings::{
    self, CreatePool, HistoryQuery, ImportOut, ImportRatings, LeaderboardQuery, LeaderboardRowOut,
    LeaderboardSelection, LeagueOut, LeagueQuery, ListFormat, PoolFilter, PoolLogPage,
    PoolLogQuery, PoolOut, RatingChangeOut, RebuildOut, SeasonOut, SeasonStandingsOut, UpdatePool,
};

/// Create a rating pool (admins).
///
/// A pool holds one Elo rating list (for example the national Ashes list) fed by the tournaments
/// that name it. Answers 201 with `Location`.
#[utoipa::path(
    operation_id = "create_rating_pool",
    tag = "ratings",
    security(("bearer" = [])),
    request_body = CreatePool,
    responses(
        BodyErrors,
        (status = 201, description = "Created", body = PoolOut),
        NotAnAdmin,
        (status = 409, description = "A pool of that name exists", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/rating-pools")]
pub async fn create_pool(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreatePool>,
) -> ApiResult<HttpResponse> {
    let pool = state
        .run(move |conn| ratings::create_pool(conn, &caller, body.0))
        .await?;
    let id = pool.id;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/rating-pools/{id}")))
        .insert_header((header::ETAG, format!("\"{}\"", pool.version)))
        .json(ratings::pool_out(pool)?))
}

/// List rating pools (public).
///
/// In creation order; `q` searches names case-insensitively in every alphabet (best match
/// first), `sort=name` orders by name (by its UTF-8 bytes); those pages follow `cursor`. A page in the list envelope
/// with a `Link` header. Every anonymous page (a search, a page by cursor) is kept by each
/// instance under its query until a pool changes.
#[utoipa::path(
    operation_id = "list_rating_pools",
    tag = "ratings",
    params(PoolFilter),
    responses(
        (status = 200, description = "A page of pools", body = Page<PoolOut>),
        NotModified,
        InvalidToken,
        InvalidParameters,
    )
)]
#[get("/rating-pools")]
pub async fn list_pools(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    filter: Query<PoolFilter>,
) -> ApiResult<HttpResponse> {
    if caller.0.is_some() {
        // Exact, on the primary (the search index answers a search once it has every change
        // committed before it).
        let st = state.clone();
        let page = state
            .run(move |conn| ratings::list_pools(conn, filter.0, Some(&st.search)))
            .await?;
        return page_json(&req, &page, Visibility::Public);
    }
    // Every anonymous page (a search, a page by cursor) is kept per query until a pool changes;
    // misses tolerate replication lag (`docs/scaling.md`).
    let (path, query) = (req.path().to_string(), req.query_string().to_string());
    let st = state.clone();
    let body = state
        .run_kept_lagging(format!("pools?{query}"), Subject::Pools, move |conn| {
            let page = ratings::list_pools(conn, filter.0, Some(&st.search))?;
            Ok((true, page_body(&path, &query, &page)?))
        })
        .await?;
    Ok(kept_answer(&req, &body, Visibility::Public))
}

/// Read a rating pool (public).
///
/// The pool's parameters (K-factor table, initial rating, listing threshold), time zone and
/// seasons, with its `version` as a strong `ETag` (send it in `If-Match` to update).
#[utoipa::path(
    operation_id = "read_rating_pool",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id")),
    responses(
        (status = 200, description = "The pool", body = PoolOut),
        NotModified,
        InvalidToken,
        NoSuchPool,
    )
)]
#[get("/rating-pools/{id}")]
pub async fn read_pool(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let pool = state.run(move |conn| ratings::read_pool(conn, id)).await?;
    versioned_json(&req, &pool, pool.version, Visibility::Public)
}

/// Change a rating pool (admins).
///
/// New parameters recompute every rating of the pool in the same transaction.
#[utoipa::path(
    operation_id = "update_rating_pool",
    tag = "ratings",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Rating pool id"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,9}")$"#, description = "Required (428 without it): the version you read (its ETag), e.g. \"3\"; * overwrites whatever is current"),
    ),
    request_body = UpdatePool,
    responses(
        BodyErrors,
        (status = 200, description = "The changed pool", body = PoolOut),
        NotAnAdmin,
        NoSuchPool,
        (status = 409, description = "A pool of that name exists", body = Problem, content_type = "application/problem+json"),
        ChangedSinceRead,
        IfMatchRequired,
    )
)]
#[patch("/rating-pools/{id}")]
pub async fn update_pool(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<UpdatePool>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let expected = required_if_match(&req, "rating pool")?;
    let now = state.clock.now();
    let pool = state
        .run(move |conn| ratings::update_pool(conn, &caller, id, expected, body.0, now))
        .await?;
    let version = pool.version;
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, format!("\"{version}\"")))
        .json(ratings::pool_out(pool)?))
}

/// Import starting ratings into a pool (admins).
///
/// A pool that continues an existing list (the Norwegian Agricola list, the Polish Ashes
/// ranking) starts from it: each listed player's rating is the imported one from 00:00 of
/// `applies_from` in the pool's time zone, with the games the list credits them with counting
/// towards the listing threshold. The list takes its place in the pool's time order: games
/// played later are rated on top of it, earlier games before it, and the pool is recomputed
/// from that moment (a rebuild gives the same). Send the ratings as JSON entries or as CSV
/// text (`player_id,rating,games`).
#[utoipa::path(
    operation_id = "import_ratings",
    tag = "ratings",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id")),
    request_body = ImportRatings,
    responses(
        BodyErrors,
        (status = 201, description = "Imported; the pool is recomputed", body = ImportOut),
        NotAnAdmin,
        NoSuchPool,
    )
)]
#[post("/rating-pools/{id}/imports")]
pub async fn import(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<ImportRatings>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let out = state
        .run(move |conn| ratings::import_ratings(conn, &caller, id, body.0))
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// The lists imported into a pool (public).
///
/// Oldest first (by the moment each applies from), in the list envelope.
#[utoipa::path(
    operation_id = "list_rating_imports",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), PageParams),
    responses(
        (status = 200, description = "A page of imports", body = Page<ImportOut>),
        NotModified,
        InvalidToken,
        NoSuchPool,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/imports")]
pub async fn list_imports(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let page = state
        .run(move |conn| ratings::list_imports(conn, id, &page.0))
        .await?;
    page_json(&req, &page, Visibility::Public)
}

/// Rebuild a pool's ratings from scratch (admins).
///
/// Ratings are kept up to date incrementally as results change; this is the full recompute, for
/// repairs and checks.
#[utoipa::path(
    operation_id = "rebuild_rating_pool",
    tag = "ratings",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Rating pool id")),
    responses(
        (status = 200, description = "Rebuilt", body = RebuildOut),
        NotSignedIn,
        NotAnAdmin,
        NoSuchPool,
    )
)]
#[post("/rating-pools/{id}/rebuild")]
pub async fn rebuild(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let out = state
        .run(move |conn| ratings::rebuild(conn, &caller, id))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// The pool's leaderboard (public): rank, player, rating, games, last played and trend.
///
/// By default only established players (at least the pool's `min_games_listed` rated games);
/// `include_provisional` adds the others, flagged. Pages past the first follow the `next` link
/// (`cursor`, the last line's rating, games and player): every page costs the same, however deep;
/// `offset` reaches at most 10,000 lines. `total` is exact (`total_exact` is always true). The
/// whole list as CSV is `GET /rating-pools/{id}/leaderboard.csv`.
#[utoipa::path(
    operation_id = "read_leaderboard",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), LeaderboardQuery),
    responses(
        (status = 200, description = "A page of the leaderboard", body = Page<LeaderboardRowOut>),
        NotModified,
        InvalidToken,
        NoSuchSeason,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/leaderboard")]
pub async fn leaderboard(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
    query: Query<LeaderboardQuery>,
) -> ApiResult<HttpResponse> {
    // `?format=csv` and `Accept: text/csv` still answer the CSV here, as before the CSV had its
    // own operation (docs/decisions/csv-operations.md); the document names only the JSON.
    let csv = wants_csv(&req, query.0.format);
    let deprecated = query.0.format.is_some() || csv;
    let (who, metrics) = (caller.0.clone(), state.metrics.clone());
    let answer = leaderboard_answer(req, state, caller, id.into_inner(), query.0, csv).await?;
    Ok(deprecated_answer(
        deprecated,
        answer,
        who.as_ref(),
        &metrics,
    ))
}

/// The pool's whole leaderboard as CSV (public): every row whatever `limit`, `offset` and
/// `cursor` say (they are checked as for the JSON, so one query string serves both), the JSON's
/// field names as columns.
///
/// The same list, access rule and filters as `GET /rating-pools/{id}/leaderboard`.
#[utoipa::path(
    operation_id = "read_leaderboard_csv",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), LeaderboardQuery),
    responses(
        (status = 200, description = "The leaderboard, every row, as CSV", body = String, content_type = "text/csv"),
        NotModified,
        InvalidToken,
        NoSuchSeason,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/leaderboard.csv")]
pub async fn leaderboard_csv(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
    query: Query<LeaderboardQuery>,
) -> ApiResult<HttpResponse> {
    only_csv(query.0.format)?;
    leaderboard_answer(req, state, caller, id.into_inner(), query.0, true).await
}

/// The leaderboard in one representation, kept (anonymous) or exact (signed in).
async fn leaderboard_answer(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: i64,
    q: LeaderboardQuery,
    csv: bool,
) -> ApiResult<HttpResponse> {
    let sel = ratings::leaderboard_selection(&q, csv, id)?;
    let season = q.season;
    let if_none_match = if_none_match(&req);
    let boards = state.leaderboards.clone();
    // The ETag names the pool's versions and the query, so a matching If-None-Match is answered
    // after reading one row of `rating_pools`.
    let etag_of = move |sel: &LeaderboardSelection, pool_version: i32, lb_version: i64| {
        etag_of_key(&format!(
            "leaderboard/1 pool={id} version={pool_version} lb={lb_version} csv={csv} \
             min_games={:?} provisional={} country={:?} club={:?} season={season:?} limit={} \
             offset={} after={:?}",
            sel.filter.min_games,
            sel.filter.include_provisional,
            sel.country,
            sel.club.as_ref().map(|c| c.to_lowercase()),
            sel.limit,
            sel.offset,
            sel.after,
        ))
    };
    if caller.0.is_none() {
        // Anonymous: kept by the instance until a change to the pool is announced.
        let key = format!("leaderboard pool={id} csv={csv} q={}", req.query_string());
        let (path, query) = (req.path().to_string(), req.query_string().to_string());
        let (_, body) = state
            .run_kept(true, key, Subject::Pool(id), move |conn| {
                let (etag, page) =
                    ratings::leaderboard_page(conn, &boards, id, season, &sel, etag_of, |_| false)?;
                let page =
                    page.ok_or_else(|| ApiError::Internal("leaderboard without a page".into()))?;
                Ok((true, render_leaderboard(&page, etag, csv, &path, &query)?))
            })
            .await?;
        return Ok(kept_answer(&req, &body, Visibility::Public));
    }
    let (path, query) = (req.path().to_string(), req.query_string().to_string());
    let (etag, page) = state
        .run(move |conn| {
            ratings::leaderboard_page(conn, &boards, id, season, &sel, etag_of, |etag| {
                etag_matches(if_none_match.as_deref(), etag)
            })
        })
        .await?;
    let Some(page) = page else {
        return Ok(not_modified_answer(&etag, Visibility::Public));
    };
    let body = render_leaderboard(&page, etag, csv, &path, &query)?;
    Ok(kept_answer(&req, &body, Visibility::Public))
}

/// A leaderboard page as CSV (every row of the page) or JSON with its `Link` header.
fn render_leaderboard(
    page: &Page<LeaderboardRowOut>,
    etag: String,
    csv: bool,
    path: &str,
    query: &str,
) -> Result<KeptBody, ApiError> {
    if csv {
        let mut out = String::from(
            "rank,player_id,player_name,club,country,rating,games,provisional,last_played,trend_delta\n",
        );
        for r in &page.items {
            out.push_str(&format!(
                "{},{},{},{},{},{:.1},{},{},{},{:.1}\n",
                r.rank,
                r.player_id,
                csv::field(&r.player_name),
                csv::field(r.club.as_deref().unwrap_or("")),
                csv::field(r.country.as_deref().unwrap_or("")),
                r.rating,
                r.games,
                r.provisional,
                r.last_played.map(|t| t.to_rfc3339()).unwrap_or_default(),
                r.trend.delta,
            ));
        }
        return Ok(KeptBody {
            etag,
            content_type: "text/csv; charset=utf-8",
            body: out.into_bytes().into(),
            link: None,
        });
    }
    let body = serde_json::to_vec(page).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(KeptBody {
        etag,
        content_type: "application/json",
        body: body.into(),
        link: links_for(path, query, page),
    })
}

/// The pool's seasons (public).
///
/// In date order; each season's standings are read at 22:00 local time on its last day (seed 004
/// section 7).
#[utoipa::path(
    operation_id = "list_seasons",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), PageParams),
    responses(
        (status = 200, description = "The seasons in date order", body = Page<SeasonOut>),
        NotModified,
        InvalidToken,
        NoSuchPool,
    )
)]
#[get("/rating-pools/{id}/seasons")]
pub async fn list_seasons(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let seasons = state
        .run(move |conn| ratings::pool_seasons(conn, id))
        .await?;
    page_json(&req, &Page::window(seasons, &page.0)?, Visibility::Public)
}

/// A season's standings with every player's classification (public): ratings at 22:00 local time on the season's last day; classified = a tournament in every month of the season or at least five in it (seed 004 section 7).
///
/// In a league pool only tournaments that count for the league (announced 7 days ahead, at least 4
/// players) count.
#[utoipa::path(
    operation_id = "read_season_standings",
    tag = "ratings",
    params(
        ("id" = i64, Path, description = "Rating pool id"),
        ("season" = i64, Path, description = "Season number, 1-based", minimum = 1, maximum = 24),
    ),
    responses(
        (status = 200, description = "The standings", body = SeasonStandingsOut),
        NotModified,
        InvalidToken,
        NoSuchSeason,
    )
)]
#[get("/rating-pools/{id}/seasons/{season}")]
pub async fn read_season(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (id, number) = path.into_inner();
    let out = state
        .run(move |conn| ratings::season_standings_of(conn, id, number))
        .await?;
    cached_json(&req, &out, Visibility::Public)
}

/// The league table (public): for every player classified in every season of the pool, the average of their season ratings (each taken at 22:00 local time on the season's last day), ranked; the league winner first (seed 004 section 7).
///
/// Players not classified in every season are listed apart, in `others`, without a rank. A pool
/// without seasons has an empty table. As CSV: `GET /rating-pools/{id}/league.csv`.
#[utoipa::path(
    operation_id = "read_league_table",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), LeagueQuery),
    responses(
        (status = 200, description = "The league table", body = LeagueOut),
        NotModified,
        InvalidToken,
        NoSuchPool,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/league")]
pub async fn league(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
    query: Query<LeagueQuery>,
) -> ApiResult<HttpResponse> {
    // `?format=csv` and `Accept: text/csv` still answer the CSV here, as before the CSV had its
    // own operation (docs/decisions/csv-operations.md); the document names only the JSON.
    let csv = wants_csv(&req, query.0.format);
    let deprecated = query.0.format.is_some() || csv;
    let metrics = state.metrics.clone();
    let answer = league_answer(req, state, id.into_inner(), csv).await?;
    Ok(deprecated_answer(
        deprecated,
        answer,
        caller.0.as_ref(),
        &metrics,
    ))
}

/// The JSON list operations' CSV form is deprecated (`infra::deprecation::CSV_ON_JSON_PATHS`):
/// its answers carry the headers and are counted; other answers pass unchanged.
fn deprecated_answer(
    deprecated: bool,
    answer: HttpResponse,
    caller: Option<&Caller>,
    metrics: &crate::infra::metrics::Metrics,
) -> HttpResponse {
    if !deprecated {
        return answer;
    }
    deprecated_form(answer, &CSV_ON_JSON_PATHS, caller, metrics)
}

/// The league table as CSV (public): the ranked players, then the others with `rank` empty; a
/// rating and a classified column per season.
///
/// The same table and access rule as `GET /rating-pools/{id}/league`.
#[utoipa::path(
    operation_id = "read_league_table_csv",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), LeagueQuery),
    responses(
        (status = 200, description = "The league table as CSV", body = String, content_type = "text/csv"),
        NotModified,
        InvalidToken,
        NoSuchPool,
        InvalidParameters,
    )
)]
#[get("/rating-pools/{id}/league.csv")]
pub async fn league_csv(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
    query: Query<LeagueQuery>,
) -> ApiResult<HttpResponse> {
    only_csv(query.0.format)?;
    league_answer(req, state, id.into_inner(), true).await
}

/// The league table in one representation.
async fn league_answer(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: i64,
    csv: bool,
) -> ApiResult<HttpResponse> {
    let out = state.run(move |conn| ratings::league_of(conn, id)).await?;
    if csv {
        let n = out.seasons.len();
        let mut head = String::from("rank,player_id,player_name,average");
        for s in 1..=n {
            head.push_str(&format!(",season_{s}_rating,season_{s}_classified"));
        }
        head.push('\n');
        let mut body = head;
        for r in out.rows.iter().chain(&out.others) {
            body.push_str(&format!(
                "{},{},{},{}",
                r.rank.map(|k| k.to_string()).unwrap_or_default(),
                r.player_id,
                csv::field(&r.player_name),
                r.average.map(|a| format!("{a:.1}")).unwrap_or_default(),
            ));
            for (rating, classified) in r.season_ratings.iter().zip(&r.classified) {
                body.push_str(&format!(
                    ",{},{}",
                    rating.map(|x| format!("{x:.1}")).unwrap_or_default(),
                    classified
                ));
            }
            body.push('\n');
        }
        return Ok(cached_body(
            &req,
            "text/csv; charset=utf-8",
            body.into_bytes(),
            Visibility::Public,
        ));
    }
    cached_json(&req, &out, Visibility::Public)
}

/// A player's rating history (public): every change in every pool (or one), oldest first, with
/// the game that caused it.
///
/// Each change names its pool, tournament, round, opponent, expected score and K. A page in the
/// list envelope with a `Link` header.
#[utoipa::path(
    operation_id = "list_player_rating_changes",
    tag = "ratings",
    params(("id" = i64, Path, description = "Player id"), HistoryQuery),
    responses(
        (status = 200, description = "A page of changes", body = Page<RatingChangeOut>),
        NotModified,
        InvalidToken,
        NoSuchPlayer,
        InvalidParameters,
    )
)]
#[get("/players/{id}/ratings")]
pub async fn player_ratings(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
    query: Query<HistoryQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let page = state
        .run(move |conn| ratings::player_ratings(conn, PlayerId(id), query.0))
        .await?;
    page_json(&req, &page, Visibility::Public)
}

/// A pool's log (public, like every pool): every rating change the pool applied, in the order
/// it applied them (sequence, then player), for keepers who audit or mirror the list.
///
/// Each change names its player, kind, tournament, round and table (or imported list), the
/// result version rated, when it was rated, the ratings before and after and the games it
/// counts. Paged by `cursor` (follow the `next` link; a page costs the same at any depth),
/// `offset` within 10000; `total` counted to 1000 (`total_exact`). A recomputation (a corrected
/// result, an earlier round rated late, an import, new parameters, a rebuild) rewrites the log
/// from some sequence on: `log_rewrites` counts the rewrites and `log_rewritten_from` says
/// where the latest began, so a mirror reads again from there. Anonymous reads are kept by
/// each instance until the pool changes.
#[utoipa::path(
    operation_id = "list_pool_rating_changes",
    tag = "ratings",
    params(("id" = i64, Path, description = "Rating pool id"), PoolLogQuery),
    responses(
        (status = 200, description = "A page of the pool's log", body = PoolLogPage),
        NotModified,
        InvalidToken,
        NoSuchSeason,
        (status = 422, description = "Invalid parameters (a cursor of another list, pool or filter names `cursor`; `cursor` with `offset` names `offset`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/rating-pools/{id}/changes")]
pub async fn pool_changes(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
    query: Query<PoolLogQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let (path, query_string) = (req.path().to_string(), req.query_string().to_string());
    let key = format!("pool-changes pool={id} q={query_string}");
    let (_, body) = state
        .run_kept(caller.0.is_none(), key, Subject::Pool(id), move |conn| {
            let log = ratings::pool_changes(conn, id, query.0)?;
            let mut body = json_body(&log, None)?;
            body.link = links_for(&path, &query_string, &log.page);
            Ok((true, body))
        })
        .await?;
    Ok(kept_answer(&req, &body, Visibility::Public))
}

/// A `.csv` operation answers CSV only: `format=json` there is a contradiction, refused.
fn only_csv(format: Option<ListFormat>) -> ApiResult<()> {
    if format == Some(ListFormat::Json) {
        return Err(ApiError::field(
            "format",
            "the .csv operation answers CSV only",
        ));
    }
    Ok(())
}

fn wants_csv(req: &HttpRequest, format: Option<ListFormat>) -> bool {
    match format {
        Some(f) => f == ListFormat::Csv,
        None => req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/csv")),
    }
}
