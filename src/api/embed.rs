//! Embeddable pages for club websites and hall screens (issue 17, item 4): server-rendered
//! HTML, readable without JavaScript, small, with table semantics, a light or dark theme and
//! the labels of every seed's community (English, Norwegian, Polish, German, Traditional
//! Chinese; `Accept-Language` when `lang` is not given). These pages, and only these, may be
//! framed by any site. An error is a small HTML page too (its status kept), never JSON inside
//! a frame.
//!
//! ```html
//! <iframe src="https://tourney.example/embed/tournaments/12/standings?lang=nb&theme=dark"
//!         title="Standings" width="100%" height="600" style="border:0"></iframe>
//! ```

pub mod print;
pub mod table;

use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::api::problem::{
    EmbedParametersPage, NoSuchPublicTournamentPage, NoSuchPublishedRoundPage, NotModified,
    TeamEventPage, ThePage,
};
use crate::api::support::{cached_body, Visibility};
use crate::error::ApiError;
use crate::runtime::state::AppState;
use crate::services::integrations::embed;

/// The labels' language: English, Norwegian (Bokmål), Polish, German (the Tantrix
/// community), Traditional Chinese (the Taiwan team league).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
pub enum Lang {
    #[default]
    #[serde(rename = "en")]
    En,
    #[serde(rename = "nb")]
    Nb,
    #[serde(rename = "pl")]
    Pl,
    #[serde(rename = "de")]
    De,
    #[serde(rename = "zh-Hant")]
    ZhHant,
}

impl Lang {
    /// The first language of an `Accept-Language` header the pages speak (by the header's
    /// order of preference), else English.
    pub fn from_accept_language(header: &str) -> Lang {
        let mut wanted: Vec<(f32, usize, &str)> = header
            .split(',')
            .enumerate()
            .filter_map(|(i, part)| {
                let mut pieces = part.trim().split(';');
                let tag = pieces.next()?.trim();
                let q = pieces
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .map_or(Some(1.0), |q| q.parse::<f32>().ok())?;
                (!tag.is_empty() && q > 0.0).then_some((q, i, tag))
            })
            .collect();
        wanted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        wanted
            .into_iter()
            .find_map(|(_, _, tag)| Lang::of_tag(tag))
            .unwrap_or_default()
    }

    /// The language a BCP 47 tag names, if the pages speak it.
    fn of_tag(tag: &str) -> Option<Lang> {
        let tag = tag.to_ascii_lowercase();
        let primary = tag.split('-').next().unwrap_or("");
        match primary {
            "en" => Some(Lang::En),
            "nb" | "no" | "nn" => Some(Lang::Nb),
            "pl" => Some(Lang::Pl),
            "de" => Some(Lang::De),
            // Traditional script, or the regions that write it.
            "zh" if ["hant", "tw", "hk", "mo"]
                .iter()
                .any(|s| tag.split('-').skip(1).any(|p| p == *s)) =>
            {
                Some(Lang::ZhHant)
            }
            _ => None,
        }
    }
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
    /// `en`, `nb`, `pl`, `de` or `zh-Hant`; without it, the first of these the reader's
    /// `Accept-Language` names, else `en`.
    pub lang: Option<Lang>,
    /// `light` (default), `dark` or `auto`.
    pub theme: Option<Theme>,
    /// Reload the page when the tournament's live feed announces a change (a few lines of
    /// script; none without it).
    pub live: Option<bool>,
    /// Post the page's height to the framing page (`window.parent.postMessage({type:
    /// "tourney:height", height}, "*")`) on load and on every resize, for an iframe that fits
    /// its content (a few lines of script; none without it).
    pub resize: Option<bool>,
    /// Leaderboard only: also list provisional players (fewer rated games than the pool's
    /// threshold), marked, as `include_provisional` does in the JSON (default false).
    pub include_provisional: Option<bool>,
    /// Leaderboard only: lines per page (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Leaderboard only: lines skipped.
    #[param(minimum = 0, maximum = 1000000)]
    pub offset: Option<i64>,
}

/// Registers the three pages, the printed pages and the table's report page (outside
/// `/api/v1`).
pub fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings).service(round).service(leaderboard);
    print::routes(cfg);
    table::routes(cfg);
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
    provisional: &'static str,
    unavailable: &'static str,
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
            provisional: "provisional",
            unavailable: "This page is not available",
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
            provisional: "foreløpig",
            unavailable: "Denne siden er ikke tilgjengelig",
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
            provisional: "tymczasowy",
            unavailable: "Ta strona jest niedostępna",
        },
        Lang::De => Labels {
            code: "de",
            standings: "Tabelle",
            round: "Runde",
            table: "Tisch",
            place: "Platz",
            player: "Spieler",
            points: "Punkte",
            seat: "Sitz",
            starts: "beginnt",
            colour: "Farbe",
            rating: "Wertung",
            games: "Partien",
            club: "Verein",
            rank: "Rang",
            after_round: "nach Runde",
            provisional: "vorläufig",
            unavailable: "Diese Seite ist nicht verfügbar",
        },
        Lang::ZhHant => Labels {
            code: "zh-Hant",
            standings: "排名",
            round: "輪",
            table: "桌",
            place: "名次",
            player: "選手",
            points: "積分",
            seat: "座位",
            starts: "先手",
            colour: "顏色",
            rating: "等級分",
            games: "對局數",
            club: "俱樂部",
            rank: "排名",
            after_round: "輪後",
            provisional: "暫定",
            unavailable: "此頁面無法顯示",
        },
    }
}

const STYLE: &str =
    "body{font:15px/1.4 system-ui,sans-serif;margin:0;padding:8px;background:#fff;color:#111}\
.dark{background:#121212;color:#eee}table{border-collapse:collapse;width:100%;margin-bottom:12px}\
caption{font-weight:600;text-align:left;padding:4px 0}th,td{padding:4px 8px;text-align:left;\
border-bottom:1px solid #8884}td.n{text-align:right}\
@media (prefers-color-scheme:dark){.auto{background:#121212;color:#eee}}";

/// The feed's kinds that change the standings page (every frame of the feed is named by its
/// kind, so the page listens to each by name: `onmessage` sees only unnamed frames).
pub const STANDINGS_KINDS: &[&str] = &[
    "standings_changed",
    "round_completed",
    "result_corrected",
    "withdrawal",
    "penalty",
    "penalty_annulled",
    "case_decided",
    "game_forfeited",
    "forfeit_reversed",
];
/// The feed's kinds that change a round's seating page.
pub const ROUND_KINDS: &[&str] = &[
    "round_published",
    "round_withdrawn",
    "replay_ordered",
    "case_decided",
];

/// A few lines that reload the page once when the tournament's feed names one of `kinds`.
fn live_script(tid: i64, kinds: &[&str]) -> String {
    let list = kinds
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(",");
    format!(
        "(function(){{var s=new EventSource('/api/v1/tournaments/{tid}/events'),d=false;\
         [{list}].forEach(function(k){{s.addEventListener(k,function(){{\
         if(!d){{d=true;s.close();location.reload()}}}})}})}})();"
    )
}

type Live = Option<(i64, &'static [&'static str])>;

/// "Round 3", "第3輪".
fn round_caption(l: &Labels, n: impl std::fmt::Display) -> String {
    if l.code == "zh-Hant" {
        format!("第{n}{}", l.round)
    } else {
        format!("{} {n}", l.round)
    }
}

/// "Table 2", "第2桌".
fn table_caption(l: &Labels, n: impl std::fmt::Display) -> String {
    if l.code == "zh-Hant" {
        format!("第{n}{}", l.table)
    } else {
        format!("{} {n}", l.table)
    }
}

/// "after round 3", "第3輪後".
fn after_round_caption(l: &Labels, n: impl std::fmt::Display) -> String {
    if l.code == "zh-Hant" {
        format!("第{n}{}", l.after_round)
    } else {
        format!("{} {n}", l.after_round)
    }
}

/// Posts the page's height to the framing page on load and on every resize (`resize=true`).
const RESIZE_SCRIPT: &str = "(function(){if(window.parent===window)return;function p(){\
window.parent.postMessage({type:'tourney:height',height:document.documentElement.scrollHeight},'*')}\
window.addEventListener('load',p);window.addEventListener('resize',p);\
if(window.ResizeObserver)new ResizeObserver(p).observe(document.body)})();";

/// How a page is shown.
struct Shown<'a> {
    l: &'a Labels,
    theme: Theme,
    live: Live,
    resize: bool,
}

fn page(shown: &Shown, title: &str, body: Markup) -> String {
    let class = match shown.theme {
        Theme::Light => "light",
        Theme::Dark => "dark",
        Theme::Auto => "auto",
    };
    html! {
        (DOCTYPE)
        html lang=(shown.l.code) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body class=(class) {
                main { (body) }
                @if let Some((tid, kinds)) = shown.live {
                    script { (PreEscaped(live_script(tid, kinds))) }
                }
                @if shown.resize {
                    script { (PreEscaped(RESIZE_SCRIPT)) }
                }
            }
        }
    }
    .into_string()
}

/// Any site may frame the pages; the language may come from `Accept-Language`.
fn embeddable(res: &mut HttpResponse) {
    use actix_web::http::header::{HeaderValue, CONTENT_SECURITY_POLICY, VARY};
    res.headers_mut().insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors *"),
    );
    res.headers_mut()
        .insert(VARY, HeaderValue::from_static("Accept-Language"));
}

fn answer(req: &HttpRequest, body: String) -> HttpResponse {
    let mut res = cached_body(
        req,
        "text/html; charset=utf-8",
        body.into_bytes(),
        Visibility::Public,
    );
    embeddable(&mut res);
    res
}

/// The query, read here (as every query is: 422 naming the parameter) so that a bad one is
/// answered as a page too.
async fn query_of(req: &HttpRequest) -> Result<EmbedQuery, ApiError> {
    use actix_web::FromRequest;
    let q = crate::api::extract::Query::<EmbedQuery>::extract(req)
        .await
        .map(|q| q.0)?;
    // The ranges hold on every page that is given them, as the document says.
    if q.limit.is_some_and(|l| !(1..=200).contains(&l)) {
        return Err(ApiError::field("limit", "must be 1-200"));
    }
    if q.offset.is_some_and(|o| !(0..=1_000_000).contains(&o)) {
        return Err(ApiError::field("offset", "must be 0-1000000"));
    }
    Ok(q)
}

/// `lang` (read on its own when the rest of the query is bad), else the reader's
/// `Accept-Language`, else English.
fn lang_of(req: &HttpRequest, q: Option<&EmbedQuery>) -> Lang {
    let asked = q.and_then(|q| q.lang).or_else(|| {
        form_urlencoded::parse(req.query_string().as_bytes())
            .find(|(k, _)| k == "lang")
            .and_then(|(_, v)| serde_json::from_value(serde_json::Value::from(v.as_ref())).ok())
    });
    asked.unwrap_or_else(|| {
        req.headers()
            .get(actix_web::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .map(Lang::from_accept_language)
            .unwrap_or_default()
    })
}

/// An id of the path (404 when it is not one).
fn path_id(req: &HttpRequest, name: &str) -> Result<i64, ApiError> {
    req.match_info()
        .get(name)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| ApiError::NotFound(format!("no such page ({name})")))
}

/// An error inside a frame: a small page in the reader's language with the status kept.
fn error_page(req: &HttpRequest, e: &ApiError) -> HttpResponse {
    let l = labels(lang_of(req, None));
    let problem = e.problem();
    let body = html! {
        (DOCTYPE)
        html lang=(l.code) {
            head {
                meta charset="utf-8";
                title { (l.unavailable) }
                style { (PreEscaped(STYLE)) }
            }
            body { main { p { strong { (l.unavailable) } } p { (problem.detail) } } }
        }
    }
    .into_string();
    let status = actix_web::http::StatusCode::from_u16(e.status())
        .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(body);
    embeddable(&mut res);
    res
}

/// The page, or its error as a page.
fn rendered(req: &HttpRequest, outcome: Result<HttpResponse, ApiError>) -> HttpResponse {
    outcome.unwrap_or_else(|e| error_page(req, &e))
}

/// Standings to embed (HTML).
///
/// The public standings after the last completed round, as a table. Any site may frame it. An
/// error is a small HTML page with its status.
#[utoipa::path(
    operation_id = "embed_standings",
    tag = "embed",
    params(("id" = i64, Path, description = "Tournament id"), EmbedQuery),
    responses(
        ThePage,
        NotModified,
        EmbedParametersPage,
        NoSuchPublicTournamentPage,
        TeamEventPage,
    )
)]
#[get("/embed/tournaments/{id}/standings")]
pub async fn standings(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let outcome = standings_page(&req, &state).await;
    rendered(&req, outcome)
}

async fn standings_page(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let q = query_of(req).await?;
    let id = path_id(req, "id")?;
    let p = state.run(move |conn| embed::standings(conn, id)).await?;
    let l = labels(lang_of(req, Some(&q)));
    let title = format!("{} – {}", p.tournament, l.standings);
    let body = html! {
        table {
            caption { (title) " (" (after_round_caption(&l, p.after_round)) ")" }
            thead { tr { th scope="col" { (l.place) } th scope="col" { (l.player) } th scope="col" { (l.points) } } }
            tbody {
                @for r in &p.rows {
                    tr { td.n { (r.place) } td { (r.player_name) } td.n { (r.tp) } }
                }
            }
        }
    };
    let shown = Shown {
        l: &l,
        theme: q.theme.unwrap_or_default(),
        live: q.live.unwrap_or(false).then_some((id, STANDINGS_KINDS)),
        resize: q.resize.unwrap_or(false),
    };
    Ok(answer(req, page(&shown, &title, body)))
}

/// A round's seating to embed (HTML), for the hall screen.
///
/// Every table with its players in seat order, the starting player and, in Tantrix, colours.
/// An error is a small HTML page with its status.
#[utoipa::path(
    operation_id = "embed_round",
    tag = "embed",
    params(("id" = i64, Path, description = "Tournament id"), ("n" = i32, Path, description = "Round number"), EmbedQuery),
    responses(
        ThePage,
        NotModified,
        EmbedParametersPage,
        NoSuchPublishedRoundPage,
    )
)]
#[get("/embed/tournaments/{id}/rounds/{n}")]
pub async fn round(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let outcome = round_page(&req, &state).await;
    rendered(&req, outcome)
}

async fn round_page(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let q = query_of(req).await?;
    let id = path_id(req, "id")?;
    let n = i32::try_from(path_id(req, "n")?)
        .map_err(|_| ApiError::NotFound("no such round".into()))?;
    let p = state.run(move |conn| embed::round(conn, id, n)).await?;
    let l = labels(lang_of(req, Some(&q)));
    let title = format!("{} – {}", p.tournament, round_caption(&l, p.round));
    let coloured = p
        .tables
        .iter()
        .any(|(_, seats)| seats.iter().any(|s| s.colour.is_some()));
    let body = html! {
        h1 style="font-size:1.2em" { (title) }
        @for (number, seats) in &p.tables {
            table {
                caption { (table_caption(&l, number)) }
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
    let shown = Shown {
        l: &l,
        theme: q.theme.unwrap_or_default(),
        live: q.live.unwrap_or(false).then_some((id, ROUND_KINDS)),
        resize: q.resize.unwrap_or(false),
    };
    Ok(answer(req, page(&shown, &title, body)))
}

/// A rating list page to embed (HTML).
///
/// The players the JSON leaderboard lists, in rank order, `limit` lines from `offset`:
/// established players, and with `include_provisional=true` the provisional ones too, marked.
/// An error is a small HTML page with its status.
#[utoipa::path(
    operation_id = "embed_leaderboard",
    tag = "embed",
    params(("id" = i64, Path, description = "Rating pool id"), EmbedQuery),
    responses(
        ThePage,
        NotModified,
        EmbedParametersPage,
        (status = 404, description = "No such rating pool (a page)", content_type = "text/html", body = String),
    )
)]
#[get("/embed/rating-pools/{id}/leaderboard")]
pub async fn leaderboard(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let outcome = leaderboard_page(&req, &state).await;
    rendered(&req, outcome)
}

async fn leaderboard_page(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let q = query_of(req).await?;
    let id = path_id(req, "id")?;
    let (limit, offset) = (q.limit.unwrap_or(50), q.offset.unwrap_or(0));
    if !(1..=200).contains(&limit) {
        return Err(ApiError::field("limit", "must be 1-200"));
    }
    if !(0..=1_000_000).contains(&offset) {
        return Err(ApiError::field("offset", "must be 0-1000000"));
    }
    let provisional = q.include_provisional.unwrap_or(false);
    let p = state
        .run(move |conn| embed::leaderboard(conn, id, limit, offset, provisional))
        .await?;
    let l = labels(lang_of(req, Some(&q)));
    let body = html! {
        table {
            caption { (p.pool) " – " (l.rating) }
            thead { tr {
                th scope="col" { (l.rank) } th scope="col" { (l.player) } th scope="col" { (l.club) }
                th scope="col" { (l.rating) } th scope="col" { (l.games) }
            } }
            tbody {
                @for line in &p.lines {
                    tr {
                        td.n { (line.rank) }
                        td {
                            (line.name) @if let Some(c) = &line.country { " (" (c) ")" }
                            @if line.provisional { " " small.provisional { "(" (l.provisional) ")" } }
                        }
                        td { @if let Some(c) = &line.club { (c) } }
                        td.n { (format!("{:.0}", line.rating)) }
                        td.n { (line.games) }
                    }
                }
            }
        }
    };
    let shown = Shown {
        l: &l,
        theme: q.theme.unwrap_or_default(),
        live: None,
        resize: q.resize.unwrap_or(false),
    };
    Ok(answer(req, page(&shown, &p.pool, body)))
}
