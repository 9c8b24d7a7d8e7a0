//! The service's own pages for the links in its messages (issue 40, item 2): confirm an
//! address, choose a new password, accept an invitation. Server-rendered and escaped (maud),
//! no script, a strict Content-Security-Policy, in English, Norwegian, Polish, German and
//! Traditional Chinese (`lang`, else `Accept-Language`).
//!
//! A link only shows a form: the step is taken by the form's POST, so a mail scanner that
//! opens every link spends no code. The POSTs call the same use cases as the JSON operations
//! and answer every error on the page, in its language, with the status the JSON operation
//! would give; nothing is written on a refused step. The pages are never cached, never framed,
//! and send no `Referer` (their address holds the code). Their POSTs count as sign-in calls
//! in the rate limits, and the invitation's password sign-in in the sign-in throttle.

mod labels;

use std::collections::HashMap;

use actix_web::http::header::{HeaderValue, CONTENT_SECURITY_POLICY, REFERRER_POLICY, VARY};
use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::api::problem::{LinkWithoutCodePage, TooManySignInCalls};
use crate::api::support::throttled_sign_in;
use crate::domain::accounts::Language;
use crate::error::ApiError;
use crate::runtime::state::AppState;
use crate::services::accounts::links::{INVITATION_PAGE, RESET_PAGE, VERIFY_PAGE};
use crate::services::accounts::reset::{self, ResetConfirm};
use crate::services::accounts::signup::{self, VerifyEmail};
use crate::services::invitations::invite::{self, AcceptInvitation, InvitationAccepted};
use crate::services::invitations::page::{self, InvitationPreview};
use labels::{labels, Labels};

/// What the pages allow: their own inline style, forms posting to themselves, nothing else.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
                      frame-ancestors 'none'; base-uri 'none'";

const STYLE: &str = "body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;\
background:#f6f6f4;color:#1b1b1b}main{max-width:32em;margin:2em auto;padding:1.5em;\
background:#fff;border-radius:6px}h1{font-size:1.4em;margin-top:0}label{display:block;\
margin:.8em 0 .2em}input[type=text],input[type=password]{width:100%;box-sizing:border-box;\
padding:.5em;font-size:1em}button{margin-top:1em;padding:.6em 1.2em;font-size:1em;\
background:#1f5fbf;color:#fff;border:0;border-radius:4px}.error{background:#fdecea;\
border-left:4px solid #c62828;padding:.6em}.done{background:#e8f5e9;border-left:4px solid \
#2e7d32;padding:.6em}fieldset{border:1px solid #ccc;margin-top:1em}dt{font-weight:bold}\
blockquote{white-space:pre-wrap;border-left:3px solid #ccc;margin:0;padding-left:.8em}\
.hint{color:#555;font-size:.9em}";

/// Registers the pages (outside `/api/v1`, in the OpenAPI document with their `text/html`
/// answers).
pub fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(verify_form)
        .service(verify_submit)
        .service(reset_form)
        .service(reset_submit)
        .service(invitation_form)
        .service(invitation_submit);
}

/// The form of `POST /account/verify-email` (the page's hidden fields).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct VerifyEmailForm {
    /// The link's code.
    #[schema(min_length = 1)]
    code: String,
    /// The page's language (`en`, `nb`, `pl`, `de`, `zh-Hant`; anything else: `Accept-Language`).
    lang: Option<String>,
}

/// The form of `POST /account/reset-password`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ResetPasswordForm {
    /// The link's code.
    #[schema(min_length = 1)]
    code: String,
    /// The page's language.
    lang: Option<String>,
    /// The new password.
    password: String,
    /// The new password again (must be the same).
    password_again: String,
}

/// The form of `POST /account/invitation`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct InvitationForm {
    /// The link's code.
    #[schema(min_length = 1)]
    code: String,
    /// The page's language.
    lang: Option<String>,
    /// `new` (the default) for a new account, `existing` to sign in to one.
    account: Option<String>,
    username: Option<String>,
    password: Option<String>,
    /// `yes` links the invited player to the account.
    consent: Option<String>,
}

/// The query of a mail's link (the three pages' `GET`).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct LinkQuery {
    /// The code of the link (a missing or empty one answers the incomplete-link page, 422)
    code: String,
    /// The page's language: `en`, `nb`, `pl`, `de` or `zh-Hant` (anything else: `Accept-Language`, else English)
    lang: Option<String>,
}

/// The fields of a query or a form, as given (a page reads what it knows and ignores the
/// rest; a body that is not a form reads as empty).
fn fields(raw: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(raw).into_owned().collect()
}

/// `lang` of the query or form, else the reader's `Accept-Language`, else English.
fn language(req: &HttpRequest, given: &HashMap<String, String>) -> Language {
    given
        .get("lang")
        .and_then(|l| Language::parse(l))
        .unwrap_or_else(|| {
            Language::from_accept_language(
                req.headers()
                    .get(actix_web::http::header::ACCEPT_LANGUAGE)
                    .and_then(|v| v.to_str().ok()),
            )
        })
}

fn page(l: &Labels, title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang=(l.code) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) " · " (l.service) }
                style { (PreEscaped(STYLE)) }
            }
            body { main { h1 { (title) } (body) } }
        }
    }
    .into_string()
}

fn answer(status: StatusCode, body: String) -> HttpResponse {
    let mut res = HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(body);
    let headers = res.headers_mut();
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(VARY, HeaderValue::from_static("Accept-Language"));
    res
}

/// What went wrong, in the page's language: the field at fault decides the words, the
/// service's own detail follows where it helps (a password's or a username's rule).
fn explained(l: &Labels, e: &ApiError) -> (StatusCode, String) {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let field_errors: Vec<(String, String)> = match e {
        ApiError::Validation(errors) => errors
            .iter()
            .map(|f| (f.field.clone(), f.message.clone()))
            .collect(),
        ApiError::ConflictAt(f) => vec![(f.field.clone(), f.message.clone())],
        _ => Vec::new(),
    };
    let words = if field_errors.iter().any(|(f, _)| f == "token") {
        l.bad_code.to_string()
    } else if let Some((_, m)) = field_errors.iter().find(|(f, _)| f == "password") {
        format!("{} ({m})", l.bad_password)
    } else if let Some((_, m)) = field_errors.iter().find(|(f, _)| f == "username") {
        format!("{} ({m})", l.bad_username)
    } else {
        match e {
            ApiError::Unauthorized(_) => l.wrong_login.to_string(),
            ApiError::TooManyRequests { .. } => l.too_many.to_string(),
            ApiError::Internal(_) | ApiError::Unavailable(_) => l.failed.to_string(),
            other => format!("{} ({other})", l.failed),
        }
    };
    (status, words)
}

fn error_box(words: &str) -> Markup {
    html! { p class="error" role="alert" { (words) } }
}

fn done_page(l: &Labels, title: &str, lines: &[String]) -> HttpResponse {
    let body = html! {
        div class="done" role="status" { @for line in lines { p { (line) } } }
    };
    answer(StatusCode::OK, page(l, title, body))
}

fn hidden(code: &str, lang: Language) -> Markup {
    html! {
        input type="hidden" name="code" value=(code);
        input type="hidden" name="lang" value=(lang.as_str());
    }
}

/// The code of a query or form, if it has one.
fn code_of(given: &HashMap<String, String>) -> Option<String> {
    given
        .get("code")
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
}

/// A link's query or a page's form, read the one way every page reads it: its fields, its
/// language and its code.
struct Form {
    given: HashMap<String, String>,
    lang: Language,
    l: Labels,
    code: String,
    title: &'static str,
}

impl Form {
    /// The fields of `raw` (a query string or a form body); without a code, the page saying
    /// the link is incomplete (422), titled `title`.
    fn read(
        req: &HttpRequest,
        raw: &[u8],
        title: fn(&Labels) -> &'static str,
    ) -> Result<Self, Box<HttpResponse>> {
        let given = fields(raw);
        let lang = language(req, &given);
        let l = labels(lang);
        let title = title(&l);
        match code_of(&given) {
            Some(code) => Ok(Self {
                given,
                lang,
                l,
                code,
                title,
            }),
            None => Err(Box::new(no_code(&l, title))),
        }
    }

    /// The page titled as the form, with `status`.
    fn page(&self, status: StatusCode, body: Markup) -> HttpResponse {
        answer(status, page(&self.l, self.title, body))
    }

    /// The error alone, as a page titled `title` with the error's status.
    fn error(&self, title: &str, e: &ApiError) -> HttpResponse {
        let (status, words) = explained(&self.l, e);
        answer(status, page(&self.l, title, error_box(&words)))
    }

    /// What a step's outcome answers: the done page with `done`'s lines, or the form again
    /// (`body` with the reason) with the error's status.
    fn settle<T>(
        &self,
        outcome: Result<T, ApiError>,
        done: impl FnOnce(T) -> Vec<String>,
        body: impl FnOnce(&Labels, &str, Language, Option<&str>) -> Markup,
    ) -> HttpResponse {
        match outcome {
            Ok(out) => done_page(&self.l, self.title, &done(out)),
            Err(e) => {
                let (status, words) = explained(&self.l, &e);
                self.page(status, body(&self.l, &self.code, self.lang, Some(&words)))
            }
        }
    }
}

/// The page a mail's link opens: its form, holding the link's code, in the link's language; or
/// the page saying the link is incomplete (422) when it lost its code. Opening it writes nothing.
fn link_form(
    req: &HttpRequest,
    title: fn(&Labels) -> &'static str,
    form: impl FnOnce(&Labels, &str, Language, Option<&str>) -> Markup,
) -> HttpResponse {
    match Form::read(req, req.query_string().as_bytes(), title) {
        Ok(f) => f.page(StatusCode::OK, form(&f.l, &f.code, f.lang, None)),
        Err(incomplete) => *incomplete,
    }
}

/// The page saying the link is incomplete (no code).
fn no_code(l: &Labels, title: &str) -> HttpResponse {
    answer(
        StatusCode::UNPROCESSABLE_ENTITY,
        page(l, title, error_box(l.no_code)),
    )
}

fn verify_body(l: &Labels, code: &str, lang: Language, error: Option<&str>) -> Markup {
    html! {
        @if let Some(e) = error { (error_box(e)) }
        p { (l.verify_intro) }
        form method="post" action=(VERIFY_PAGE) {
            (hidden(code, lang))
            button type="submit" { (l.verify_button) }
        }
    }
}

/// The page of the address-confirmation link: a button that confirms.
///
/// Opening the link changes nothing (a mail scanner spends no code): the button posts the form
/// to `POST /account/verify-email`. Never cached, never framed.
#[utoipa::path(
    operation_id = "page_verify_email",
    tag = "pages",
    params(LinkQuery),
    responses(
        (status = 200, description = "The page with the button that confirms the address", content_type = "text/html", body = String),
        LinkWithoutCodePage,
    )
)]
#[get("/account/verify-email")]
pub async fn verify_form(req: HttpRequest) -> HttpResponse {
    link_form(&req, |l| l.verify_title, verify_body)
}

/// Confirms the address (`POST /api/v1/auth/verify-email`'s use case).
///
/// The form of `GET /account/verify-email`. Every answer is a page in the form's language, with
/// the status the JSON operation would give; nothing is written on a refused step.
#[utoipa::path(
    operation_id = "page_confirm_email",
    tag = "pages",
    request_body(
        content = VerifyEmailForm,
        content_type = "application/x-www-form-urlencoded",
        example = json!({"code": "Zm9vYmFyYmF6cXV4", "lang": "en"}),
    ),
    responses(
        (status = 200, description = "The address is confirmed (a page)", content_type = "text/html", body = String),
        (status = 403, description = "Sign-up is closed or the account cannot be verified (the form again, with the reason)", content_type = "text/html", body = String),
        (status = 409, description = "The address is already confirmed or taken (the form again, with the reason)", content_type = "text/html", body = String),
        (status = 422, description = "A missing, wrong or expired code (the form again, with the reason)", content_type = "text/html", body = String),
        TooManySignInCalls,
    )
)]
#[post("/account/verify-email")]
pub async fn verify_submit(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> HttpResponse {
    let form = match Form::read(&req, &body, |l| l.verify_title) {
        Ok(form) => form,
        Err(incomplete) => return *incomplete,
    };
    let input = VerifyEmail {
        token: form.code.clone(),
    };
    let now = state.clock.now();
    let outcome = state
        .run(move |conn| signup::verify_email(conn, &input, now))
        .await;
    form.settle(
        outcome,
        |()| vec![form.l.verify_done.to_string()],
        verify_body,
    )
}

fn reset_body(l: &Labels, code: &str, lang: Language, error: Option<&str>) -> Markup {
    html! {
        @if let Some(e) = error { (error_box(e)) }
        form method="post" action=(RESET_PAGE) {
            (hidden(code, lang))
            label for="password" { (l.new_password) }
            input type="password" id="password" name="password" autocomplete="new-password"
                minlength="8" maxlength="256" required;
            label for="password_again" { (l.repeat_password) }
            input type="password" id="password_again" name="password_again"
                autocomplete="new-password" minlength="8" maxlength="256" required;
            p class="hint" { (l.password_hint) }
            button type="submit" { (l.reset_button) }
        }
    }
}

/// The page of the password-reset link: the new password, twice.
///
/// Opening the link changes nothing: the form posts to `POST /account/reset-password`. Never
/// cached, never framed, no `Referer`.
#[utoipa::path(
    operation_id = "page_reset_password",
    tag = "pages",
    params(LinkQuery),
    responses(
        (status = 200, description = "The form for the new password", content_type = "text/html", body = String),
        LinkWithoutCodePage,
    )
)]
#[get("/account/reset-password")]
pub async fn reset_form(req: HttpRequest) -> HttpResponse {
    link_form(&req, |l| l.reset_title, reset_body)
}

/// Sets the new password (`POST /api/v1/auth/password-reset/confirm`'s use case).
///
/// Two passwords that differ are refused before anything is asked of the service. Every answer
/// is a page in the form's language; nothing is written on a refused step.
#[utoipa::path(
    operation_id = "page_set_password",
    tag = "pages",
    request_body(
        content = ResetPasswordForm,
        content_type = "application/x-www-form-urlencoded",
        example = json!({"code": "Zm9vYmFyYmF6cXV4", "lang": "en", "password": "a long new passphrase", "password_again": "a long new passphrase"}),
    ),
    responses(
        (status = 200, description = "The password is set (a page)", content_type = "text/html", body = String),
        (status = 422, description = "A missing, wrong or expired code, passwords that differ or a password the rules refuse (the form again, with the reason)", content_type = "text/html", body = String),
        TooManySignInCalls,
    )
)]
#[post("/account/reset-password")]
pub async fn reset_submit(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> HttpResponse {
    let form = match Form::read(&req, &body, |l| l.reset_title) {
        Ok(form) => form,
        Err(incomplete) => return *incomplete,
    };
    let (l, code) = (&form.l, &form.code);
    let password = form.given.get("password").cloned().unwrap_or_default();
    if form.given.get("password_again") != Some(&password) {
        let again = reset_body(l, code, form.lang, Some(l.passwords_differ));
        return form.page(StatusCode::UNPROCESSABLE_ENTITY, again);
    }
    let input = ResetConfirm {
        token: code.clone(),
        password,
    };
    let now = state.clock.now();
    let outcome = state
        .run(move |conn| reset::confirm_reset(conn, &input, now))
        .await;
    form.settle(outcome, |()| vec![l.reset_done.to_string()], reset_body)
}

/// What the invitation is for, and the form that accepts it.
fn invitation_body(
    l: &Labels,
    code: &str,
    lang: Language,
    inv: &InvitationPreview,
    error: Option<&str>,
) -> Markup {
    let intro = match &inv.inviter {
        Some(who) => l
            .invites
            .replace("{inviter}", who)
            .replace("{tournament}", &inv.tournament),
        None => l.invited.replace("{tournament}", &inv.tournament),
    };
    let when = if inv.ends_on == inv.starts_on {
        inv.starts_on.to_string()
    } else {
        format!("{} – {}", inv.starts_on, inv.ends_on)
    };
    html! {
        @if let Some(e) = error { (error_box(e)) }
        p { (intro) }
        dl {
            dt { (l.when) } dd { (when) }
            @if let Some(v) = &inv.venue { dt { (l.venue) } dd { (v) } }
            @if let Some(p) = &inv.player { dt { (l.player) } dd { (p) } }
            dt { (l.sent_to) } dd { (inv.email) }
        }
        @if let Some(m) = inv.message.as_deref().filter(|m| !m.trim().is_empty()) {
            p { strong { (l.message) } }
            blockquote { (m) }
        }
        form method="post" action=(INVITATION_PAGE) {
            (hidden(code, lang))
            fieldset {
                label { input type="radio" name="account" value="new" checked; " " (l.new_account) }
                label { input type="radio" name="account" value="existing"; " " (l.existing_account) }
            }
            label for="username" { (l.username) }
            input type="text" id="username" name="username" autocomplete="username"
                maxlength="64" required;
            label for="password" { (l.password) }
            input type="password" id="password" name="password" autocomplete="current-password"
                maxlength="256" required;
            p class="hint" { (l.password_hint) }
            @if inv.player.is_some() {
                label { input type="checkbox" name="consent" value="yes" checked; " " (l.consent) }
            }
            button type="submit" { (l.accept_button) }
        }
    }
}

/// The page of the invitation link: what the invitation is for.
///
/// It shows how to accept it with a new account or the one the reader has; the form posts to
/// `POST /account/invitation`. Never cached, never framed.
#[utoipa::path(
    operation_id = "page_invitation",
    tag = "pages",
    params(LinkQuery),
    responses(
        (status = 200, description = "What the invitation is for, and the form that accepts it", content_type = "text/html", body = String),
        (status = 401, description = "The invitation cannot be read with this code (a page)", content_type = "text/html", body = String),
        (status = 403, description = "The invitation is not open to this reader (a page)", content_type = "text/html", body = String),
        (status = 404, description = "No such invitation (a page)", content_type = "text/html", body = String),
        (status = 409, description = "The invitation is used, revoked or expired (a page)", content_type = "text/html", body = String),
        (status = 422, description = "A missing or malformed code (a page)", content_type = "text/html", body = String),
    )
)]
#[get("/account/invitation")]
pub async fn invitation_form(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let form = match Form::read(&req, req.query_string().as_bytes(), |l| l.invitation_title) {
        Ok(form) => form,
        Err(incomplete) => return *incomplete,
    };
    let now = state.clock.now();
    let asked = form.code.clone();
    match state
        .run(move |conn| page::preview(conn, &asked, now))
        .await
    {
        Ok(inv) => {
            let body = invitation_body(&form.l, &form.code, form.lang, &inv, None);
            form.page(StatusCode::OK, body)
        }
        Err(e) => form.error(form.l.error_title, &e),
    }
}

/// Accepts the invitation (`POST /api/v1/auth/invitations/accept`'s use case).
///
/// With a new account, or signed in to an existing one with its password (counted by the
/// sign-in throttle as `POST /auth/token` counts it). Every answer is a page in the form's
/// language; nothing is written on a refused step.
#[utoipa::path(
    operation_id = "page_accept_invitation",
    tag = "pages",
    request_body(
        content = InvitationForm,
        content_type = "application/x-www-form-urlencoded",
        example = json!({"code": "Zm9vYmFyYmF6cXV4", "lang": "en", "account": "new", "username": "kari", "password": "a long new passphrase", "consent": "yes"}),
    ),
    responses(
        (status = 200, description = "The invitation is accepted (a page)", content_type = "text/html", body = String),
        (status = 401, description = "A wrong password for the existing account (the form again)", content_type = "text/html", body = String),
        (status = 403, description = "Sign-up is closed, or the invitation is not open to this account (the form again)", content_type = "text/html", body = String),
        (status = 404, description = "No such invitation (a page)", content_type = "text/html", body = String),
        (status = 409, description = "The invitation is used, revoked or expired, or the username is taken (a page or the form again)", content_type = "text/html", body = String),
        (status = 422, description = "A missing or wrong code, or a username or password the rules refuse (the form again)", content_type = "text/html", body = String),
        TooManySignInCalls,
    )
)]
#[post("/account/invitation")]
pub async fn invitation_submit(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> HttpResponse {
    let form = match Form::read(&req, &body, |l| l.invitation_title) {
        Ok(form) => form,
        Err(incomplete) => return *incomplete,
    };
    let now = state.clock.now();
    let asked = form.code.clone();
    let inv = match state
        .run(move |conn| page::preview(conn, &asked, now))
        .await
    {
        Ok(inv) => inv,
        Err(e) => return form.error(form.title, &e),
    };
    let outcome = accept(&req, &state, &form.given, &form.code, form.lang).await;
    let l = &form.l;
    let done = |done: InvitationAccepted| {
        let mut lines = vec![l
            .accepted
            .replace("{username}", &done.username)
            .replace("{tournament}", &inv.tournament)];
        if inv.player.is_some() {
            lines.push(
                match (done.linked, done.claim_id) {
                    (true, _) => l.linked,
                    (false, Some(_)) => l.link_waits,
                    (false, None) => l.not_linked,
                }
                .to_string(),
            );
        }
        lines.push(l.sign_in_now.to_string());
        lines
    };
    form.settle(outcome, done, |l, code, lang, error| {
        invitation_body(l, code, lang, &inv, error)
    })
}

/// The accepting itself: a new account, or the password sign-in of an existing one.
async fn accept(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    given: &HashMap<String, String>,
    code: &str,
    lang: Language,
) -> Result<InvitationAccepted, ApiError> {
    let username = given.get("username").cloned().unwrap_or_default();
    let password = given.get("password").cloned().unwrap_or_default();
    let input = AcceptInvitation {
        token: code.to_string(),
        consent_link_player: given.get("consent").is_some_and(|v| v == "yes"),
        username: None,
        password: None,
    };
    let mode = state.signup.mode;
    let now = state.clock.now();
    if given.get("account").map(String::as_str) != Some("existing") {
        let input = AcceptInvitation {
            username: Some(username),
            password: Some(password),
            ..input
        };
        let nobody = crate::auth::MaybeCaller(None);
        return state
            .run(move |conn| invite::accept(conn, mode, &nobody, &input, lang, now))
            .await;
    }
    throttled_sign_in(req, state, username, password, |name, password| {
        state.run(move |conn| {
            page::accept_with_password(conn, mode, &name, &password, &input, lang, now)
        })
    })
    .await
}
