//! The table's report page the slip's QR code opens (issue 41, item 2): a form, no script, in the
//! five languages. With the table code (from the QR code's address, or typed) it shows the
//! table's players and either a form to report the result, naming the seat the reporter holds,
//! or the report waiting with a form to confirm it from another seat. The POST calls the same
//! use cases as `POST .../code-report` and `.../code-report/confirm`; a refusal is answered on
//! the page with the JSON operation's status and nothing written. Failed codes count in the
//! sign-in throttle (per table and address, and per address). Never cached, never framed, no
//! `Referer` (the address holds the code).

use std::collections::HashMap;

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use maud::{html, Markup};

use super::print::{error_page, printed, private_answer, words as print_words};
use super::{labels, path_id, round_caption, table_caption, Labels, Lang};
use crate::api::problem::{ThePage, TooManyWrongCodesPage};
use crate::domain::scoring::Format;
use crate::error::ApiError;
use crate::runtime::state::AppState;
use crate::services::play::hall::{self, CodeConfirm, CodeReport, TableView};
use crate::services::play::replays::Entered;
use crate::services::running::results::{ResultSeat, SeatOutcome, TableRef};

struct Words {
    report: &'static str,
    code_prompt: &'static str,
    open: &'static str,
    i_hold: &'static str,
    send: &'static str,
    waiting: &'static str,
    confirm: &'static str,
    wrong_hint: &'static str,
    reported: &'static str,
    confirmed: &'static str,
    has_result: &'static str,
    closed: &'static str,
    win: &'static str,
    draw: &'static str,
    loss: &'static str,
    back: &'static str,
}

fn words(lang: Lang) -> Words {
    match lang {
        Lang::En => Words {
            report: "Report the result",
            code_prompt: "The table code on the result slip",
            open: "Open",
            i_hold: "I am",
            send: "Report",
            waiting: "This result was reported and waits for confirmation",
            confirm: "Confirm it",
            wrong_hint: "If it is wrong, do not confirm it: tell the organiser.",
            reported: "Reported. Another player at the table, or the organiser, confirms it.",
            confirmed: "Confirmed: this is the table's result.",
            has_result: "This table has its result.",
            closed: "This round is completed.",
            win: "win",
            draw: "draw",
            loss: "loss",
            back: "Back to the table",
        },
        Lang::Nb => Words {
            report: "Meld resultatet",
            code_prompt: "Bordkoden på resultatlappen",
            open: "Åpne",
            i_hold: "Jeg er",
            send: "Meld",
            waiting: "Dette resultatet er meldt og venter på bekreftelse",
            confirm: "Bekreft",
            wrong_hint: "Er det feil, ikke bekreft: si fra til arrangøren.",
            reported: "Meldt. En annen spiller ved bordet, eller arrangøren, bekrefter det.",
            confirmed: "Bekreftet: dette er bordets resultat.",
            has_result: "Dette bordet har sitt resultat.",
            closed: "Denne runden er avsluttet.",
            win: "seier",
            draw: "uavgjort",
            loss: "tap",
            back: "Tilbake til bordet",
        },
        Lang::Pl => Words {
            report: "Zgłoś wynik",
            code_prompt: "Kod stołu z karty wyniku",
            open: "Otwórz",
            i_hold: "Jestem",
            send: "Zgłoś",
            waiting: "Ten wynik zgłoszono i czeka na potwierdzenie",
            confirm: "Potwierdź",
            wrong_hint: "Jeśli jest błędny, nie potwierdzaj: powiedz organizatorowi.",
            reported: "Zgłoszono. Potwierdza go inny gracz przy stole albo organizator.",
            confirmed: "Potwierdzono: to jest wynik stołu.",
            has_result: "Ten stół ma już wynik.",
            closed: "Ta runda jest zakończona.",
            win: "wygrana",
            draw: "remis",
            loss: "przegrana",
            back: "Wróć do stołu",
        },
        Lang::De => Words {
            report: "Ergebnis melden",
            code_prompt: "Der Tischcode auf dem Ergebniszettel",
            open: "Öffnen",
            i_hold: "Ich bin",
            send: "Melden",
            waiting: "Dieses Ergebnis wurde gemeldet und wartet auf Bestätigung",
            confirm: "Bestätigen",
            wrong_hint: "Ist es falsch, nicht bestätigen: der Turnierleitung sagen.",
            reported:
                "Gemeldet. Ein anderer Spieler am Tisch oder die Turnierleitung bestätigt es.",
            confirmed: "Bestätigt: das ist das Ergebnis des Tisches.",
            has_result: "Dieser Tisch hat sein Ergebnis.",
            closed: "Diese Runde ist abgeschlossen.",
            win: "Sieg",
            draw: "Remis",
            loss: "Niederlage",
            back: "Zurück zum Tisch",
        },
        Lang::ZhHant => Words {
            report: "回報成績",
            code_prompt: "成績單上的桌號碼",
            open: "開啟",
            i_hold: "我是",
            send: "回報",
            waiting: "此成績已回報，等待確認",
            confirm: "確認",
            wrong_hint: "如有錯誤，請勿確認，並告知主辦單位。",
            reported: "已回報。由同桌另一位選手或主辦單位確認。",
            confirmed: "已確認：這是本桌的成績。",
            has_result: "本桌已有成績。",
            closed: "本輪已結束。",
            win: "勝",
            draw: "和",
            loss: "負",
            back: "回到本桌",
        },
    }
}

/// Registers the table's page.
pub fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(table_page).service(table_submit);
}

/// The page's query: the code (from the QR code) and the language.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TableQuery {
    /// The table code; without it the page asks for it.
    #[param(max_length = 40)]
    pub code: Option<String>,
    /// `en`, `nb`, `pl`, `de` or `zh-Hant` (any other value, or none: `Accept-Language`, else
    /// `en`).
    pub lang: Option<String>,
}

fn table_ref(req: &HttpRequest) -> Result<TableRef, ApiError> {
    let n = |name| {
        i32::try_from(path_id(req, name)?).map_err(|_| ApiError::NotFound("no such table".into()))
    };
    Ok(TableRef {
        tournament: path_id(req, "id")?,
        round: n("n")?,
        table: n("t")?,
    })
}

fn fields_of(raw: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(raw).into_owned().collect()
}

fn language(req: &HttpRequest, given: &HashMap<String, String>) -> Lang {
    given
        .get("lang")
        .and_then(|l| serde_json::from_value(serde_json::Value::from(l.as_str())).ok())
        .unwrap_or_else(|| super::lang_of(req, None))
}

/// The table's report page (HTML form).
///
/// Opened from a result slip's QR code (`?code=…`) or with the code typed in: the table's
/// players and a form to report the result, or the report waiting and a form to confirm it
/// from another seat. Without a code, a form asking for it. A wrong code is a 422 page and
/// counts in the throttle (429 page with `Retry-After` once used up). Never cached.
#[utoipa::path(
    operation_id = "table_report_page",
    tag = "print",
    params(("id" = i64, Path, description = "Tournament id"), ("n" = i32, Path, description = "Round number"), ("t" = i32, Path, description = "Table number"), TableQuery),
    responses(
        ThePage,
        (status = 404, description = "No such published round or table (a page)", content_type = "text/html", body = String),
        (status = 422, description = "Not this table's code, or an unknown language (a page)", content_type = "text/html", body = String),
        TooManyWrongCodesPage,
    )
)]
#[get("/hall/tournaments/{id}/rounds/{n}/tables/{t}")]
pub async fn table_page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let outcome = show(&req, &state).await;
    outcome.unwrap_or_else(|e| error_page(&req, &e))
}

async fn show(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let at = table_ref(req)?;
    let given = fields_of(req.query_string().as_bytes());
    let lang = language(req, &given);
    let (l, w) = (labels(lang), words(lang));
    let title = format!(
        "{} – {}",
        round_caption(&l, at.round),
        table_caption(&l, at.table)
    );
    let Some(code) = given.get("code").filter(|c| !c.trim().is_empty()).cloned() else {
        return Ok(private_answer(
            200,
            printed(&title, &l, code_form(&w, lang, &title)),
        ));
    };
    let (keys, typed) = (state.hall.clone(), code.clone());
    let work = state.run(move |conn| hall::view(conn, &keys, at, &typed));
    let view = crate::api::support::CodeGuard::around(req, state, at, work).await?;
    let body = table_body(&view, &code, lang, &l, &w);
    Ok(private_answer(200, printed(&title, &l, body)))
}

fn code_form(w: &Words, lang: Lang, title: &str) -> Markup {
    html! {
        main {
            h1 { (title) " – " (w.report) }
            form method="get" {
                input type="hidden" name="lang" value=(lang_code(lang));
                label for="code" { (w.code_prompt) }
                input #code type="text" name="code" autocomplete="off" required maxlength="40";
                button type="submit" { (w.open) }
            }
        }
    }
}

fn lang_code(lang: Lang) -> &'static str {
    labels(lang).code
}

fn table_body(v: &TableView, code: &str, lang: Lang, l: &Labels, w: &Words) -> Markup {
    let pw = print_words(lang);
    let (score, extra) = match v.ruleset.format {
        Format::MultiPlayer | Format::BridgeAgricola => (pw.score, Some(pw.bonus)),
        Format::Tantrix => (pw.tiles, Some(pw.minutes)),
        Format::Ashes => (pw.wounds, Some(pw.outcome)),
        Format::TeamDuplicate => (pw.score, None),
    };
    let name = |p: i64| {
        v.seats
            .iter()
            .find(|(id, _)| *id == p)
            .map(|(_, n)| n.clone())
            .unwrap_or_default()
    };
    html! {
        main {
            h1 { (v.tournament) " – " (round_caption(l, v.round)) " – " (table_caption(l, v.table)) }
            @if v.closed {
                p { strong { (w.closed) } }
            } @else if v.done {
                p { strong { (w.has_result) } }
            } @else if let Some(r) = &v.pending {
                h2 { (w.waiting) }
                table {
                    thead { tr { th scope="col" { (l.player) } th scope="col" { (score) } } }
                    tbody {
                        @for s in &r.seats {
                            tr { td { (name(s.player_id)) } td.n { (s.score) } }
                        }
                    }
                }
                p { (l.player) ": " (name(r.reported_by_player)) }
                form method="post" {
                    input type="hidden" name="code" value=(code);
                    input type="hidden" name="lang" value=(lang_code(lang));
                    input type="hidden" name="action" value="confirm";
                    input type="hidden" name="report_id" value=(r.id);
                    label for="confirmer" { (w.i_hold) }
                    select #confirmer name="confirmer" required {
                        @for (id, n) in &v.seats {
                            @if *id != r.reported_by_player { option value=(id) { (n) } }
                        }
                    }
                    button type="submit" { (w.confirm) }
                }
                p.hint { (w.wrong_hint) }
            } @else {
                h2 { (w.report) }
                form method="post" {
                    input type="hidden" name="code" value=(code);
                    input type="hidden" name="lang" value=(lang_code(lang));
                    input type="hidden" name="action" value="report";
                    label for="reporter" { (w.i_hold) }
                    select #reporter name="reporter" required {
                        @for (id, n) in &v.seats { option value=(id) { (n) } }
                    }
                    table {
                        thead { tr {
                            th scope="col" { (l.player) } th scope="col" { (score) }
                            @if let Some(e) = extra { th scope="col" { (e) } }
                        } }
                        tbody {
                            @for (id, n) in &v.seats {
                                tr {
                                    td { label for=(format!("score.{id}")) { (n) } }
                                    td { input id=(format!("score.{id}")) type="number" name=(format!("score.{id}")) required min="-1000" max="10000" inputmode="numeric"; }
                                    @if extra.is_some() { td { (extra_input(v.ruleset.format, *id, w)) } }
                                }
                            }
                        }
                    }
                    @if v.ruleset.format == Format::Tantrix {
                        p { label { input type="checkbox" name="double_crash" value="true"; " " (pw.double_crash) } }
                    }
                    button type="submit" { (w.send) }
                }
            }
        }
    }
}

fn extra_input(format: Format, id: i64, w: &Words) -> Markup {
    match format {
        Format::Tantrix => html! {
            input type="number" name=(format!("minutes.{id}")) min="0" max="1440" inputmode="numeric";
        },
        Format::Ashes => html! {
            select name=(format!("outcome.{id}")) {
                option value="" {}
                option value="win" { (w.win) }
                option value="draw" { (w.draw) }
                option value="loss" { (w.loss) }
            }
        },
        _ => html! {
            input type="number" name=(format!("bonus.{id}")) min="0" max="1000" inputmode="numeric";
        },
    }
}

/// Sends the table's report form (HTML).
///
/// `action=report` (with `code`, `reporter` and per player `score.{id}`, and as the ruleset has
/// them `bonus.{id}`, `minutes.{id}`, `outcome.{id}`, `double_crash`) reports the result as
/// `POST .../code-report` does; `action=confirm` (with `code`, `confirmer` and the page's
/// `report_id`, the report it showed) confirms the report waiting as `.../code-report/confirm`
/// does: if another report waits by then, 409 naming `report_id`. Every refusal is a page with the JSON
/// operation's status, naming the field; nothing is written.
#[utoipa::path(
    operation_id = "table_report_submit",
    tag = "print",
    params(("id" = i64, Path, description = "Tournament id"), ("n" = i32, Path, description = "Round number"), ("t" = i32, Path, description = "Table number")),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The form's fields", example = "action=confirm&code=K7M2QX9PLR&confirmer=12&report_id=10"),
    responses(
        (status = 201, description = "Reported (a page)", content_type = "text/html", body = String),
        (status = 200, description = "Confirmed: the table's result (a page)", content_type = "text/html", body = String),
        (status = 404, description = "No such published round or table, or no report waiting (a page)", content_type = "text/html", body = String),
        (status = 409, description = "The round is completed, the table has a result, a report already waits, the confirmer is the reporter, or the report shown is no longer the one waiting (a page)", content_type = "text/html", body = String),
        (status = 428, description = "No `report_id` and the waiting report replaced or followed another one (a page)", content_type = "text/html", body = String),
        (status = 422, description = "Not this table's code, or a field at fault (a page naming it)", content_type = "text/html", body = String),
        TooManyWrongCodesPage,
    )
)]
#[post("/hall/tournaments/{id}/rounds/{n}/tables/{t}")]
pub async fn table_submit(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> HttpResponse {
    let outcome = submit(&req, &state, &body).await;
    outcome.unwrap_or_else(|e| error_page(&req, &e))
}

async fn submit(req: &HttpRequest, state: &AppState, raw: &[u8]) -> Result<HttpResponse, ApiError> {
    let at = table_ref(req)?;
    let given = fields_of(raw);
    let lang = language(req, &given);
    let (l, w) = (labels(lang), words(lang));
    let code = given.get("code").cloned().unwrap_or_default();
    let guard = crate::api::support::CodeGuard::check(req, state, at).await?;
    let (keys, now) = (state.hall.clone(), state.clock.now());
    let title = format!(
        "{} – {}",
        round_caption(&l, at.round),
        table_caption(&l, at.table)
    );
    let back = format!(
        "/hall/tournaments/{}/rounds/{}/tables/{}?lang={}&code={}",
        at.tournament,
        at.round,
        at.table,
        lang_code(lang),
        form_urlencoded::byte_serialize(code.as_bytes()).collect::<String>()
    );
    let (status, done) = if given.get("action").map(String::as_str) == Some("confirm") {
        let confirmer = number(&given, "confirmer")?.unwrap_or(0);
        let report_id = number(&given, "report_id")?;
        let input = CodeConfirm {
            code,
            confirmer,
            report_id,
        };
        let out = guard.counted(
            state
                .run(move |conn| hall::confirm(conn, &keys, at, input, now))
                .await,
        );
        let _: Entered = out?;
        (200, w.confirmed)
    } else {
        let input = report_of(&given, &scored(raw), code)?;
        guard.counted(
            state
                .run(move |conn| hall::report(conn, &keys, at, input, now))
                .await,
        )?;
        (201, w.reported)
    };
    let body = html! {
        main {
            h1 { (title) }
            p { strong { (done) } }
            p { a href=(back) { (w.back) } }
        }
    };
    Ok(private_answer(status, printed(&title, &l, body)))
}

/// A whole number of the form (`None` when left empty); 422 naming the field otherwise.
fn number(given: &HashMap<String, String>, field: &str) -> Result<Option<i64>, ApiError> {
    match given.get(field).map(|v| v.trim()).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| ApiError::field(field, format!("“{v}” is not a whole number"))),
    }
}

/// The players of the form's `score.{id}` fields, in the form's (seat) order, each once.
fn scored(raw: &[u8]) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for (k, _) in form_urlencoded::parse(raw) {
        if let Some(id) = k.strip_prefix("score.").and_then(|i| i.parse().ok()) {
            if !ids.contains(&id) {
                ids.push(id);
            }
            // A table seats at most 8: past 9 the report is refused anyway.
            if ids.len() > 8 {
                break;
            }
        }
    }
    ids
}

/// The report a form holds: every `score.{id}` given, with its seat's other fields.
fn report_of(
    given: &HashMap<String, String>,
    ids: &[i64],
    code: String,
) -> Result<CodeReport, ApiError> {
    let reporter = number(given, "reporter")?
        .ok_or_else(|| ApiError::field("reporter", "say which player you are"))?;
    let mut seats = Vec::with_capacity(ids.len());
    for &id in ids {
        let score = number(given, &format!("score.{id}"))?
            .ok_or_else(|| ApiError::field(format!("score.{id}"), "a score is needed"))?;
        let outcome = match given.get(&format!("outcome.{id}")).map(String::as_str) {
            None | Some("") => None,
            Some("win") => Some(SeatOutcome::Win),
            Some("draw") => Some(SeatOutcome::Draw),
            Some("loss") => Some(SeatOutcome::Loss),
            Some(_) => {
                return Err(ApiError::field(
                    format!("outcome.{id}"),
                    "win, draw or loss",
                ))
            }
        };
        seats.push(ResultSeat {
            player_id: id,
            score,
            bonus: number(given, &format!("bonus.{id}"))?,
            penalty: None,
            time_used_secs: number(given, &format!("minutes.{id}"))?.map(|m| m.saturating_mul(60)),
            forfeit: None,
            outcome,
        });
    }
    Ok(CodeReport {
        code,
        reporter,
        seats,
        double_crash: given.get("double_crash").map(|v| v == "true" || v == "on"),
    })
}
