//! Print-ready pages for the hall (issue 41, item 1), made the embeds' way (escaped, no
//! script, the five languages by `lang` or `Accept-Language`) with print CSS: a round's
//! pairings by table and by name, one result slip per page for each table (its players in seat
//! order, colours and the starting player as the ruleset has them, blanks for the scores and the
//! ruleset's other fields, signatures, and a QR code that opens the table's report page beside
//! the table code), and the standings for the wall. The pairings and the standings are as
//! public as the tournament; the slips only for its organisers and referees (the codes are
//! credentials), with a bearer token or a link from `GET .../slips-link`. These pages are not
//! framed by other sites.

use actix_web::http::header::{HeaderValue, CONTENT_SECURITY_POLICY, REFERRER_POLICY, VARY};
use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::{labels, lang_of, path_id, round_caption, table_caption, Labels, Lang};
use crate::api::problem::{
    NoSuchPublicTournamentPage, NoSuchPublishedRoundPage, NotModified, PrintParametersPage,
    TeamEventPage, ThePage,
};
use crate::api::support::{cached_body, Visibility};
use crate::auth::MaybeCaller;
use crate::domain::scoring::Format;
use crate::error::ApiError;
use crate::runtime::state::AppState;
use crate::services::integrations::embed;
use crate::services::integrations::print::{self, SlipsAccess};

/// What the printed pages allow: their own style, nothing else (the QR codes are inline SVG).
pub(super) const POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

const STYLE: &str = "@page{size:A4;margin:12mm}\
body{font:11pt/1.35 system-ui,sans-serif;color:#000;background:#fff;margin:0}\
h1{font-size:15pt;margin:0 0 4mm}h2{font-size:13pt;margin:6mm 0 3mm}\
table{border-collapse:collapse;width:100%;table-layout:auto}\
th,td{border:1px solid #555;padding:1.5mm 2mm;text-align:left;vertical-align:top}\
td{overflow-wrap:break-word}th{white-space:nowrap}thead{display:table-header-group}tr{break-inside:avoid}\
td.n{text-align:right;white-space:nowrap}.byname{break-before:page}\
.slip{break-inside:avoid;break-after:page;padding:0 0 4mm}.slip:last-child{break-after:auto}\
.slip td.blank{height:11mm;min-width:18mm}.slip td.sign{width:30%}\
.slipfoot{display:flex;gap:6mm;align-items:center;margin-top:5mm}\
.qr svg{width:32mm;height:32mm;display:block}.code{font:700 16pt/1.2 ui-monospace,monospace;\
letter-spacing:.08em}.hint{font-size:9pt;color:#333}.box{display:inline-block;width:4mm;\
height:4mm;border:1px solid #000;vertical-align:middle;margin-right:2mm}\
@media screen{body{padding:8mm;max-width:190mm}.slip{border-bottom:1px dashed #000;margin-bottom:8mm}}";

/// The words of the printed pages the embeds' labels lack.
pub(super) struct Words {
    pub pairings: &'static str,
    pub by_table: &'static str,
    pub by_name: &'static str,
    pub slip: &'static str,
    pub score: &'static str,
    pub tiles: &'static str,
    pub wounds: &'static str,
    pub bonus: &'static str,
    pub minutes: &'static str,
    pub outcome: &'static str,
    pub double_crash: &'static str,
    pub signature: &'static str,
    pub code: &'static str,
    pub scan: &'static str,
}

pub(super) fn words(lang: Lang) -> Words {
    match lang {
        Lang::En => Words {
            pairings: "Pairings",
            by_table: "By table",
            by_name: "By name",
            slip: "Result slip",
            score: "Points",
            tiles: "Tiles",
            wounds: "Wounds dealt",
            bonus: "Bonus",
            minutes: "Time used (min)",
            outcome: "Win / draw / loss",
            double_crash: "Double crash",
            signature: "Signature",
            code: "Table code",
            scan: "Scan the code to report the result, or open this address and type the table code:",
        },
        Lang::Nb => Words {
            pairings: "Bordoppsett",
            by_table: "Etter bord",
            by_name: "Etter navn",
            slip: "Resultatlapp",
            score: "Poeng",
            tiles: "Brikker",
            wounds: "Sår påført",
            bonus: "Bonus",
            minutes: "Brukt tid (min)",
            outcome: "Seier / uavgjort / tap",
            double_crash: "Dobbelt krasj",
            signature: "Signatur",
            code: "Bordkode",
            scan: "Skann koden for å melde resultatet, eller åpne denne adressen og skriv inn bordkoden:",
        },
        Lang::Pl => Words {
            pairings: "Kojarzenia",
            by_table: "Według stołów",
            by_name: "Według nazwisk",
            slip: "Karta wyniku",
            score: "Punkty",
            tiles: "Kafelki",
            wounds: "Zadane rany",
            bonus: "Bonus",
            minutes: "Zużyty czas (min)",
            outcome: "Wygrana / remis / przegrana",
            double_crash: "Podwójny krach",
            signature: "Podpis",
            code: "Kod stołu",
            scan: "Zeskanuj kod, aby zgłosić wynik, albo otwórz ten adres i wpisz kod stołu:",
        },
        Lang::De => Words {
            pairings: "Paarungen",
            by_table: "Nach Tisch",
            by_name: "Nach Name",
            slip: "Ergebniszettel",
            score: "Punkte",
            tiles: "Steine",
            wounds: "Zugefügte Wunden",
            bonus: "Bonus",
            minutes: "Verbrauchte Zeit (min)",
            outcome: "Sieg / Remis / Niederlage",
            double_crash: "Doppelcrash",
            signature: "Unterschrift",
            code: "Tischcode",
            scan: "Code scannen, um das Ergebnis zu melden, oder diese Adresse öffnen und den Tischcode eingeben:",
        },
        Lang::ZhHant => Words {
            pairings: "對陣表",
            by_table: "依桌次",
            by_name: "依姓名",
            slip: "成績單",
            score: "分數",
            tiles: "牌數",
            wounds: "造成傷害",
            bonus: "加分",
            minutes: "用時（分鐘）",
            outcome: "勝／和／負",
            double_crash: "雙方崩潰",
            signature: "簽名",
            code: "桌號碼",
            scan: "掃描條碼回報成績，或開啟此網址並輸入桌號碼：",
        },
    }
}

/// Registers the printed pages (outside `/api/v1`).
pub fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(pairings).service(slips).service(standings);
}

/// The query of the public printed pages.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PrintQuery {
    /// `en`, `nb`, `pl`, `de` or `zh-Hant`; without it, the first of these the reader's
    /// `Accept-Language` names, else `en`.
    pub lang: Option<Lang>,
}

/// The query of the slips page.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SlipsQuery {
    /// `en`, `nb`, `pl`, `de` or `zh-Hant` (else `Accept-Language`, else `en`).
    pub lang: Option<Lang>,
    /// A link's expiry (seconds since 1970), with `by` and `key`: as `GET .../slips-link`
    /// gives them.
    pub until: Option<i64>,
    /// The account that took the link, with `until` and `key`.
    pub by: Option<i64>,
    /// A link's key, with `until` and `by`.
    #[param(max_length = 100)]
    pub key: Option<String>,
}

pub(super) fn printed(title: &str, l: &Labels, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang=(l.code) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    }
    .into_string()
}

fn headers(res: &mut HttpResponse) {
    res.headers_mut()
        .insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    res.headers_mut().insert(
        VARY,
        HeaderValue::from_static("Accept-Language, Authorization"),
    );
}

fn public_answer(req: &HttpRequest, body: String) -> HttpResponse {
    let mut res = cached_body(
        req,
        "text/html; charset=utf-8",
        body.into_bytes(),
        Visibility::Public,
    );
    headers(&mut res);
    res
}

/// A page of codes: never kept by a cache, and no `Referer` (its address may hold a key).
pub(super) fn private_answer(status: u16, body: String) -> HttpResponse {
    let status = actix_web::http::StatusCode::from_u16(status)
        .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(body);
    headers(&mut res);
    res.headers_mut()
        .insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    res
}

/// An error as a small page in the reader's language, its status kept.
pub(super) fn error_page(req: &HttpRequest, e: &ApiError) -> HttpResponse {
    let l = labels(lang_of(req, None));
    let problem = e.problem();
    let body = html! {
        main {
            p { strong { (l.unavailable) } }
            p { (problem.detail) }
        }
    };
    let mut res = private_answer(e.status(), printed(l.unavailable, &l, body));
    if let ApiError::TooManyRequests { retry_after, .. } = e {
        if let Ok(v) = HeaderValue::from_str(&retry_after.to_string()) {
            res.headers_mut()
                .insert(actix_web::http::header::RETRY_AFTER, v);
        }
    }
    res
}

async fn query<T: serde::de::DeserializeOwned + 'static>(req: &HttpRequest) -> Result<T, ApiError> {
    use actix_web::FromRequest;
    crate::api::extract::Query::<T>::extract(req)
        .await
        .map(|q| q.0)
}

fn round_number(req: &HttpRequest) -> Result<i32, ApiError> {
    i32::try_from(path_id(req, "n")?).map_err(|_| ApiError::NotFound("no such round".into()))
}

/// A round's pairings to print (HTML): by table, and by name.
///
/// Every table with its players in seat order (the starting player and, in Tantrix, colours
/// marked), then every player in name order with their table and seat, on a page of its own.
/// As public as the round. An error is a small HTML page with its status.
#[utoipa::path(
    operation_id = "print_pairings",
    tag = "print",
    params(("id" = i64, Path, description = "Tournament id"), ("n" = i32, Path, description = "Round number"), PrintQuery),
    responses(
        ThePage,
        NotModified,
        PrintParametersPage,
        NoSuchPublishedRoundPage,
    )
)]
#[get("/print/tournaments/{id}/rounds/{n}/pairings")]
pub async fn pairings(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let outcome = pairings_page(&req, &state).await;
    outcome.unwrap_or_else(|e| error_page(&req, &e))
}

async fn pairings_page(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let q: PrintQuery = query(req).await?;
    let id = path_id(req, "id")?;
    let n = round_number(req)?;
    let p = state.run(move |conn| embed::round(conn, id, n)).await?;
    let lang = q.lang.unwrap_or_else(|| lang_of(req, None));
    let (l, w) = (labels(lang), words(lang));
    let title = format!(
        "{} – {} – {}",
        p.tournament,
        round_caption(&l, p.round),
        w.pairings
    );
    let width = p.tables.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut by_name: Vec<(&str, u32, usize)> = p
        .tables
        .iter()
        .flat_map(|(t, seats)| {
            seats
                .iter()
                .enumerate()
                .map(move |(i, s)| (s.name.as_str(), *t, i + 1))
        })
        .collect();
    by_name.sort_by(|a, b| {
        a.0.to_lowercase()
            .cmp(&b.0.to_lowercase())
            .then(a.1.cmp(&b.1))
    });
    let body = html! {
        main {
            h1 { (title) }
            h2 { (w.by_table) }
            table.bytable {
                thead { tr {
                    th scope="col" { (l.table) }
                    @for i in 1..=width { th scope="col" { (l.seat) " " (i) } }
                } }
                tbody {
                    @for (number, seats) in &p.tables {
                        tr {
                            td.n { (number) }
                            @for s in seats {
                                td {
                                    (s.name)
                                    @if let Some(c) = s.colour { " (" (c.as_str()) ")" }
                                    @if s.starts { " – " (l.starts) }
                                }
                            }
                            @for _ in seats.len()..width { td {} }
                        }
                    }
                }
            }
            section.byname {
                h2 { (title) " – " (w.by_name) }
                table {
                    thead { tr { th scope="col" { (l.player) } th scope="col" { (l.table) } th scope="col" { (l.seat) } } }
                    tbody {
                        @for (name, table, seat) in &by_name {
                            tr { td { (name) } td.n { (table) } td.n { (seat) } }
                        }
                    }
                }
            }
        }
    };
    Ok(public_answer(req, printed(&title, &l, body)))
}

/// The ruleset's columns of a slip: the score's name and the other fields to fill in.
fn fields(format: Format, w: &Words) -> (&'static str, Vec<&'static str>) {
    match format {
        Format::MultiPlayer | Format::BridgeAgricola => (w.score, vec![w.bonus]),
        Format::Tantrix => (w.tiles, vec![w.minutes]),
        Format::Ashes => (w.wounds, vec![w.outcome]),
        Format::TeamDuplicate => (w.score, Vec::new()),
    }
}

/// The QR code of `url` as inline SVG (its XML declaration dropped).
fn qr_svg(url: &str) -> Result<String, ApiError> {
    let code = qrcode::QrCode::with_error_correction_level(url.as_bytes(), qrcode::EcLevel::M)
        .map_err(|e| ApiError::Internal(format!("QR code of {url}: {e}")))?;
    let svg = code
        .render::<qrcode::render::svg::Color>()
        .quiet_zone(true)
        .build();
    Ok(match svg.find("<svg") {
        Some(i) => svg[i..].to_string(),
        None => svg,
    })
}

/// Where the QR codes lead: `PUBLIC_BASE_URL`, else this service's address as the organiser's
/// browser reached it (their own request: nobody else's `Host` header gets on their slips).
fn base_url(req: &HttpRequest, state: &AppState) -> String {
    if let Some(base) = state.hall.public_base() {
        return base.to_string();
    }
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}

/// A round's result slips to print (HTML): one per table, each on its own page.
///
/// Round, table, the players in seat order with their colours or the starting player as the
/// ruleset has them, blank boxes for the scores and the ruleset's other fields, a signature
/// line per seat, and a QR code opening the table's report page beside the table code. Only
/// for the tournament's organisers and referees (a bearer token; an API key needs
/// `results:write`, as the codes write results), or a browser with a link from
/// `GET /api/v1/tournaments/{id}/rounds/{n}/slips-link` (valid 30 minutes, and only while the
/// account that took it is enabled and still an organiser or referee of the tournament, or an
/// admin: else it answers as a wrong link does). Never cached.
#[utoipa::path(
    operation_id = "print_slips",
    tag = "print",
    security(("bearer" = []), ()),
    params(("id" = i64, Path, description = "Tournament id"), ("n" = i32, Path, description = "Round number"), SlipsQuery),
    responses(
        ThePage,
        (status = 401, description = "No token and no link (a page)", content_type = "text/html", body = String),
        (status = 403, description = "Not an organiser or referee of the tournament, an API key without `results:write` (the codes write results), or a link that is wrong or expired, or whose taker is disabled, erased or no longer staff of the tournament (a page)", content_type = "text/html", body = String),
        (status = 404, description = "No such round (a page)", content_type = "text/html", body = String),
        (status = 409, description = "The round is a draft (a page)", content_type = "text/html", body = String),
        PrintParametersPage,
    )
)]
#[get("/print/tournaments/{id}/rounds/{n}/slips")]
pub async fn slips(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
) -> HttpResponse {
    let outcome = slips_page(&req, &state, caller).await;
    outcome.unwrap_or_else(|e| error_page(&req, &e))
}

async fn slips_page(
    req: &HttpRequest,
    state: &AppState,
    caller: MaybeCaller,
) -> Result<HttpResponse, ApiError> {
    let id = path_id(req, "id")?;
    let n = round_number(req)?;
    let q: SlipsQuery = query(req).await?;
    let access = match (caller.0, q.until, q.key) {
        (Some(c), _, _) => SlipsAccess::Caller(c),
        (None, Some(until), Some(key)) => SlipsAccess::Link {
            until,
            by: q.by,
            key,
        },
        (None, _, _) => SlipsAccess::Nobody,
    };
    let (keys, now) = (state.hall.clone(), state.clock.now());
    let p = state
        .run(move |conn| print::slips(conn, &keys, access, id, n, now))
        .await?;
    let lang = q.lang.unwrap_or_else(|| lang_of(req, None));
    let (l, w) = (labels(lang), words(lang));
    let (score, extra) = fields(p.ruleset.format, &w);
    let base = base_url(req, state);
    let mut drawn = Vec::with_capacity(p.slips.len());
    for s in &p.slips {
        let address = format!("{base}/hall/tournaments/{id}/rounds/{n}/tables/{}", s.table);
        let svg = qr_svg(&format!("{address}?code={}", s.code))?;
        drawn.push((s, address, svg));
    }
    let title = format!(
        "{} – {} – {}",
        p.tournament,
        round_caption(&l, p.round),
        w.slip
    );
    let body = html! {
        main {
            @for (s, address, svg) in &drawn {
                @let coloured = s.seats.iter().any(|x| x.colour.is_some());
                @let starting = s.seats.iter().any(|x| x.starts);
                section.slip {
                    h1 { (p.tournament) " – " (round_caption(&l, p.round)) " – " (table_caption(&l, s.table)) }
                    table {
                        thead { tr {
                            th scope="col" { (l.seat) } th scope="col" { (l.player) }
                            @if coloured { th scope="col" { (l.colour) } }
                            th scope="col" { (score) }
                            @for f in &extra { th scope="col" { (f) } }
                            th scope="col" { (w.signature) }
                        } }
                        tbody {
                            @for (i, x) in s.seats.iter().enumerate() {
                                tr {
                                    td.n { (i + 1) }
                                    td { (x.name) @if starting && x.starts { " (" (l.starts) ")" } }
                                    @if coloured { td { @if let Some(c) = x.colour { (c.as_str()) } } }
                                    td.blank {}
                                    @for _ in &extra { td.blank {} }
                                    td.blank.sign {}
                                }
                            }
                        }
                    }
                    @if p.ruleset.format == Format::Tantrix {
                        p { span.box {} (w.double_crash) }
                    }
                    div.slipfoot {
                        div.qr { (PreEscaped(svg)) }
                        div {
                            p { (w.code) ": " span.code { (s.code) } }
                            p.hint { (w.scan) br; (address) }
                        }
                    }
                }
            }
        }
    };
    Ok(private_answer(200, printed(&title, &l, body)))
}

/// The standings to print for the wall (HTML).
///
/// The public standings after the last completed round, as the embed shows them, with print
/// CSS (the header row repeated on every sheet). An error is a small HTML page with its status.
#[utoipa::path(
    operation_id = "print_standings",
    tag = "print",
    params(("id" = i64, Path, description = "Tournament id"), PrintQuery),
    responses(
        ThePage,
        NotModified,
        PrintParametersPage,
        NoSuchPublicTournamentPage,
        TeamEventPage,
    )
)]
#[get("/print/tournaments/{id}/standings")]
pub async fn standings(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let outcome = standings_page(&req, &state).await;
    outcome.unwrap_or_else(|e| error_page(&req, &e))
}

async fn standings_page(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let q: PrintQuery = query(req).await?;
    let id = path_id(req, "id")?;
    let p = state.run(move |conn| embed::standings(conn, id)).await?;
    let l = labels(q.lang.unwrap_or_else(|| lang_of(req, None)));
    let title = format!(
        "{} – {} ({})",
        p.tournament,
        l.standings,
        super::after_round_caption(&l, p.after_round)
    );
    let body = html! {
        main {
            h1 { (title) }
            table {
                thead { tr { th scope="col" { (l.place) } th scope="col" { (l.player) } th scope="col" { (l.points) } } }
                tbody {
                    @for r in &p.rows {
                        tr { td.n { (r.place) } td { (r.player_name) } td.n { (r.tp) } }
                    }
                }
            }
        }
    };
    Ok(public_answer(req, printed(&title, &l, body)))
}
