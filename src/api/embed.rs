//! Embeddable pages for club websites and hall screens (issue 17, item 4): server-rendered
//! HTML, readable without JavaScript, small, with table semantics, a light or dark theme and
//! English, Norwegian or Polish labels. These pages, and only these, may be framed by any site.
//!
//! ```html
//! <iframe src="https://tourney.example/embed/tournaments/12/standings?lang=nb&theme=dark"
//!         title="Standings" width="100%" height="600" style="border:0"></iframe>
//! ```

use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::api::extract::Query;
use crate::api::support::{cached_body, Visibility};
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::integrations::embed;

/// The labels' language.
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Nb,
    Pl,
}

/// The colour theme (`auto` follows the reader's system).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    Light,
    Dark,
    Auto,
}

/// How an embedded page is shown.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EmbedQuery {
    /// `en` (default), `nb` or `pl`.
    pub lang: Option<Lang>,
    /// `light` (default), `dark` or `auto`.
    pub theme: Option<Theme>,
    /// Reload the page when the tournament's live feed announces a change (a few lines of
    /// script; none without it).
    pub live: Option<bool>,
    /// Leaderboard only: lines per page (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Leaderboard only: lines skipped.
    #[param(minimum = 0, maximum = 1000000)]
    pub offset: Option<i64>,
}

/// Registers the three pages (outside `/api/v1`).
pub fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings).service(round).service(leaderboard);
}

struct Labels {
    code: &'static str,
    standings: &'static str,
    round: &'static str,
    table: &'static str,
    place: &'static str,
    player: &'static str,
    points: &'static str,
    seat: &'static str,
    starts: &'static str,
    colour: &'static str,
    rating: &'static str,
    games: &'static str,
    club: &'static str,
    rank: &'static str,
    after_round: &'static str,
}

fn labels(lang: Lang) -> Labels {
    match lang {
        Lang::En => Labels {
            code: "en",
            standings: "Standings",
            round: "Round",
            table: "Table",
            place: "Place",
            player: "Player",
            points: "Points",
            seat: "Seat",
            starts: "starts",
            colour: "Colour",
            rating: "Rating",
            games: "Games",
            club: "Club",
            rank: "Rank",
            after_round: "after round",
        },
        Lang::Nb => Labels {
            code: "nb",
            standings: "Resultatliste",
            round: "Runde",
            table: "Bord",
            place: "Plass",
            player: "Spiller",
            points: "Poeng",
            seat: "Sete",
            starts: "starter",
            colour: "Farge",
            rating: "Rating",
            games: "Partier",
            club: "Klubb",
            rank: "Plass",
            after_round: "etter runde",
        },
        Lang::Pl => Labels {
            code: "pl",
            standings: "Klasyfikacja",
            round: "Runda",
            table: "Stół",
            place: "Miejsce",
            player: "Gracz",
            points: "Punkty",
            seat: "Miejsce przy stole",
            starts: "zaczyna",
            colour: "Kolor",
            rating: "Ranking",
            games: "Partie",
            club: "Klub",
            rank: "Pozycja",
            after_round: "po rundzie",
        },
    }
}

const STYLE: &str =
    "body{font:15px/1.4 system-ui,sans-serif;margin:0;padding:8px;background:#fff;color:#111}\
.dark{background:#121212;color:#eee}table{border-collapse:collapse;width:100%;margin-bottom:12px}\
caption{font-weight:600;text-align:left;padding:4px 0}th,td{padding:4px 8px;text-align:left;\
border-bottom:1px solid #8884}td.n{text-align:right}\
@media (prefers-color-scheme:dark){.auto{background:#121212;color:#eee}}";

fn page(l: &Labels, theme: Theme, title: &str, live: Option<i64>, body: Markup) -> String {
    let class = match theme {
        Theme::Light => "light",
        Theme::Dark => "dark",
        Theme::Auto => "auto",
    };
    html! {
        (DOCTYPE)
        html lang=(l.code) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body class=(class) {
                main { (body) }
                @if let Some(tid) = live {
                    script {
                        (PreEscaped(format!(
                            "new EventSource('/api/v1/tournaments/{tid}/events').onmessage=function(e){{\
                             try{{var k=JSON.parse(e.data).kind;if(/^(standings_changed|round_published|result_entered|result_corrected)$/.test(k))location.reload()}}catch(_){{}}}};"
                        )))
                    }
                }
            }
        }
    }
    .into_string()
}

fn answer(req: &HttpRequest, body: String) -> HttpResponse {
    let mut res = cached_body(
        req,
        "text/html; charset=utf-8",
        body.into_bytes(),
        Visibility::Public,
    );
    res.headers_mut().insert(
        actix_web::http::header::CONTENT_SECURITY_POLICY,
        actix_web::http::header::HeaderValue::from_static("frame-ancestors *"),
    );
    res
}

/// Standings to embed (HTML).
///
/// The public standings after the last completed round, as a table. Any site may frame it.
#[utoipa::path(
    operation_id = "embed_standings",
    tag = "embed",
    params(("id" = i64, Path, description = "Tournament id"), EmbedQuery),
    responses(
        (status = 200, description = "The page", content_type = "text/html", body = String),
        (status = 304, description = "Not modified"),
        (status = 422, description = "An unknown language, theme or parameter, or a value out of range", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such public tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A team event: see the team standings", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/embed/tournaments/{id}/standings")]
pub async fn standings(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    q: Query<EmbedQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let p = state.run(move |conn| embed::standings(conn, id)).await?;
    let l = labels(q.0.lang.unwrap_or_default());
    let title = format!("{} – {}", p.tournament, l.standings);
    let body = html! {
        table {
            caption { (title) " (" (l.after_round) " " (p.after_round) ")" }
            thead { tr { th scope="col" { (l.place) } th scope="col" { (l.player) } th scope="col" { (l.points) } } }
            tbody {
                @for r in &p.rows {
                    tr { td.n { (r.place) } td { (r.player_name) } td.n { (r.tp) } }
                }
            }
        }
    };
    let live = q.0.live.unwrap_or(false).then_some(id);
    Ok(answer(
        &req,
        page(&l, q.0.theme.unwrap_or_default(), &title, live, body),
    ))
}

/// A round's seating to embed (HTML), for the hall screen.
///
/// Every table with its players in seat order, the starting player and, in Tantrix, colours.
#[utoipa::path(
    operation_id = "embed_round",
    tag = "embed",
    params(("id" = i64, Path, description = "Tournament id"), ("n" = i32, Path, description = "Round number"), EmbedQuery),
    responses(
        (status = 200, description = "The page", content_type = "text/html", body = String),
        (status = 304, description = "Not modified"),
        (status = 422, description = "An unknown language, theme or parameter, or a value out of range", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such published round", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/embed/tournaments/{id}/rounds/{n}")]
pub async fn round(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(i64, i32)>,
    q: Query<EmbedQuery>,
) -> ApiResult<HttpResponse> {
    let (id, n) = path.into_inner();
    let p = state.run(move |conn| embed::round(conn, id, n)).await?;
    let l = labels(q.0.lang.unwrap_or_default());
    let title = format!("{} – {} {}", p.tournament, l.round, p.round);
    let coloured = p
        .tables
        .iter()
        .any(|(_, seats)| seats.iter().any(|s| s.colour.is_some()));
    let body = html! {
        h1 style="font-size:1.2em" { (title) }
        @for (number, seats) in &p.tables {
            table {
                caption { (l.table) " " (number) }
                thead { tr {
                    th scope="col" { (l.seat) } th scope="col" { (l.player) }
                    @if coloured { th scope="col" { (l.colour) } }
                } }
                tbody {
                    @for (i, s) in seats.iter().enumerate() {
                        tr {
                            td.n { (i + 1) }
                            td { (s.name) @if s.starts { " (" (l.starts) ")" } }
                            @if coloured { td { @if let Some(c) = s.colour { (c.as_str()) } } }
                        }
                    }
                }
            }
        }
    };
    let live = q.0.live.unwrap_or(false).then_some(id);
    Ok(answer(
        &req,
        page(&l, q.0.theme.unwrap_or_default(), &title, live, body),
    ))
}

/// A rating list page to embed (HTML).
///
/// Everyone with a rated game, in rank order, `limit` lines from `offset`.
#[utoipa::path(
    operation_id = "embed_leaderboard",
    tag = "embed",
    params(("id" = i64, Path, description = "Rating pool id"), EmbedQuery),
    responses(
        (status = 200, description = "The page", content_type = "text/html", body = String),
        (status = 304, description = "Not modified"),
        (status = 422, description = "An unknown language, theme or parameter, or a value out of range", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such rating pool", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/embed/rating-pools/{id}/leaderboard")]
pub async fn leaderboard(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    q: Query<EmbedQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let (limit, offset) = (q.0.limit.unwrap_or(50), q.0.offset.unwrap_or(0));
    if !(1..=200).contains(&limit) {
        return Err(crate::error::ApiError::field("limit", "must be 1-200"));
    }
    if !(0..=1_000_000).contains(&offset) {
        return Err(crate::error::ApiError::field("offset", "must be 0-1000000"));
    }
    let p = state
        .run(move |conn| embed::leaderboard(conn, id, limit, offset))
        .await?;
    let l = labels(q.0.lang.unwrap_or_default());
    let body = html! {
        table {
            caption { (p.pool) }
            thead { tr {
                th scope="col" { (l.rank) } th scope="col" { (l.player) } th scope="col" { (l.club) }
                th scope="col" { (l.rating) } th scope="col" { (l.games) }
            } }
            tbody {
                @for line in &p.lines {
                    tr {
                        td.n { (line.rank) }
                        td { (line.name) @if let Some(c) = &line.country { " (" (c) ")" } }
                        td { @if let Some(c) = &line.club { (c) } }
                        td.n { (format!("{:.0}", line.rating)) }
                        td.n { (line.games) }
                    }
                }
            }
        }
    };
    Ok(answer(
        &req,
        page(&l, q.0.theme.unwrap_or_default(), &p.pool, None, body),
    ))
}
