//! Renders [`ApiError`] as an RFC 9457 problem document (`application/problem+json`), and the
//! response sets the OpenAPI document shares between operations.

use actix_web::http::{header, StatusCode};
use actix_web::{get, HttpResponse, ResponseError};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};

use crate::error::ApiError;

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(detail) = self {
            tracing::error!(%detail, "internal error");
        }
        let mut resp = HttpResponse::build(self.status_code());
        resp.content_type("application/problem+json");
        match self {
            Self::Unauthorized(_) => {
                resp.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"tourney\""));
            }
            Self::MethodNotAllowed { allow, .. } => {
                resp.insert_header((header::ALLOW, allow.as_str()));
            }
            Self::Unavailable(_) => {
                // The circuit probes the database again after a second.
                resp.insert_header((header::RETRY_AFTER, "1"));
            }
            Self::TooManyRequests { retry_after, .. } => {
                resp.insert_header((header::RETRY_AFTER, retry_after.to_string()));
            }
            _ => {}
        }
        resp.body(serde_json::to_string(&self.problem()).unwrap_or_default())
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        Self::Internal(e.to_string())
    }
}

fn problem_response(description: &str) -> RefOr<Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/problem+json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("Problem")))
                .build(),
        )
        .build()
        .into()
}

fn responses(list: &[(&str, &str)]) -> std::collections::BTreeMap<String, RefOr<Response>> {
    list.iter()
        .map(|(status, description)| (status.to_string(), problem_response(description)))
        .collect()
}

/// The answers every operation with a JSON body and a signed-in caller can give besides its
/// own: 400 malformed JSON, 401 not signed in, 413 body too large, 415 not JSON, 422 invalid
/// fields. Use it as `responses(BodyErrors, (status = 200, ...))`; an operation that lists one
/// of these statuses itself overrides the shared description.
pub struct BodyErrors;

impl utoipa::IntoResponses for BodyErrors {
    fn responses() -> std::collections::BTreeMap<String, RefOr<Response>> {
        responses(&[
            ("400", "Malformed JSON"),
            ("401", "Not signed in"),
            ("413", "Body too large"),
            ("415", "Not JSON"),
            ("422", "Invalid fields"),
        ])
    }
}

/// The answers of an operation without a body that needs a signed-in caller: 401 not signed
/// in, 422 invalid parameters.
pub struct AuthErrors;

impl utoipa::IntoResponses for AuthErrors {
    fn responses() -> std::collections::BTreeMap<String, RefOr<Response>> {
        responses(&[("401", "Not signed in"), ("422", "Invalid parameters")])
    }
}

/// One problem answer an operation lists, named once: `responses(NoSuchTournament, ...)` in an
/// operation's `#[utoipa::path]` stands for `(status = 404, description = "No such tournament",
/// body = Problem, content_type = "application/problem+json")`. An operation whose answer says
/// more than the shared wording writes its own line instead.
macro_rules! problem_answers {
    ($($(#[$doc:meta])* $name:ident => $status:literal, $description:literal;)+) => {$(
        $(#[$doc])*
        pub struct $name;

        impl utoipa::IntoResponses for $name {
            fn responses() -> std::collections::BTreeMap<String, RefOr<Response>> {
                responses(&[($status, $description)])
            }
        }
    )+};
}

problem_answers! {
    /// 401: the bearer token or key is not valid (or not given where one is needed).
    InvalidToken => "401", "Invalid token";
    /// 401: no credential at all.
    NotSignedIn => "401", "Not signed in";
    /// 401: no credential, or one that is not valid.
    NoOrInvalidToken => "401", "No or invalid token";
    /// 403: the operation is the admins'.
    NotAnAdmin => "403", "Not an admin";
    /// 403: the operation is the organisers'.
    NotAnOrganiser => "403", "Not an organiser";
    /// 403: the operation is this tournament's organisers'.
    NotThisOrganiser => "403", "Not an organiser of this tournament";
    /// 403: the operation is the tournament's organisers'.
    NotTheOrganiser => "403", "Not an organiser of the tournament";
    /// 403: the operation is the referees' and organisers'.
    NotARefereeOrOrganiser => "403", "Not a referee or organiser";
    /// 403: the operation is the admins' and the pool's keepers'.
    NotAKeeper => "403", "Not an admin or a keeper of this pool";
    /// 403: the operation is the game's players'.
    NotAPlayerOfTheGame => "403", "Not a player of this game";
    /// 404: no such tournament (or one the caller may not see).
    NoSuchTournament => "404", "No such tournament";
    /// 404: no such tournament or round.
    NoSuchRound => "404", "No such tournament or round";
    /// 404: no such tournament or case.
    NoSuchCase => "404", "No such tournament or case";
    /// 404: no such rating pool.
    NoSuchPool => "404", "No such pool";
    /// 404: no such pool or season.
    NoSuchSeason => "404", "No such pool or season";
    /// 404: no such player.
    NoSuchPlayer => "404", "No such player";
    /// 404: no such account.
    NoSuchAccount => "404", "No such account";
    /// 404: no such webhook among the caller's.
    NoSuchWebhook => "404", "No such webhook you manage";
    /// 404: no such self-scheduled game.
    NoSuchGame => "404", "No such self-scheduled game";
    /// 412: the resource changed since the caller read it (`If-Match`).
    ChangedSinceRead => "412", "Changed since you read it";
    /// 422: a path or query parameter is not valid.
    InvalidParameters => "422", "Invalid parameters";
    /// 428: a write that needs `If-Match` came without it.
    IfMatchRequired => "428", "No If-Match: send the version you read, or *";
    /// 429: a page's POST over the sign-in calls' rate limit.
    TooManySignInCalls => "429", "Too many sign-in calls from this address in the current minute; wait Retry-After seconds";
    /// 503: the instance has no mail set up.
    MailNotConfigured => "503", "This instance cannot send e-mail (SMTP_URL is not configured)";
}

/// The answer of an HTML page (`text/html`, a string): the page asked for, or the page that
/// says what went wrong, with its status.
fn page_response(description: &str) -> RefOr<Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "text/html",
            ContentBuilder::new()
                .schema(Some(<String as utoipa::PartialSchema>::schema()))
                .build(),
        )
        .build()
        .into()
}

/// The HTML pages' twin of [`problem_answers!`]: `responses(ThePage, ...)` in an operation's
/// `#[utoipa::path]` stands for `(status = 200, description = "The page", content_type =
/// "text/html", body = String)`. A page whose answer says more than the shared wording writes
/// its own line instead.
macro_rules! page_answers {
    ($($(#[$doc:meta])* $name:ident => $status:literal, $description:literal;)+) => {$(
        $(#[$doc])*
        pub struct $name;

        impl utoipa::IntoResponses for $name {
            fn responses() -> std::collections::BTreeMap<String, RefOr<Response>> {
                std::iter::once(($status.to_string(), page_response($description))).collect()
            }
        }
    )+};
}

page_answers! {
    /// 200: the page asked for.
    ThePage => "200", "The page";
    /// 404 (a page): no such public tournament.
    NoSuchPublicTournamentPage => "404", "No such public tournament (a page)";
    /// 404 (a page): no such published round.
    NoSuchPublishedRoundPage => "404", "No such published round (a page)";
    /// 409 (a page): standings asked of a team event.
    TeamEventPage => "409", "A team event: see the team standings (a page)";
    /// 422 (a page): an embedded page's query is not valid.
    EmbedParametersPage => "422", "An unknown language, theme or parameter, or a value out of range (a page)";
    /// 422 (a page): a printed page's query is not valid.
    PrintParametersPage => "422", "An unknown language or parameter (a page)";
    /// 422 (a page): a mail's link that lost its code.
    LinkWithoutCodePage => "422", "The link has no code (a page)";
    /// 429 (a page): too many wrong table codes.
    TooManyWrongCodesPage => "429", "Too many wrong codes (a page)";
}

/// The answer of a cached read that has not changed since the caller's `If-None-Match`.
pub struct NotModified;

impl utoipa::IntoResponses for NotModified {
    fn responses() -> std::collections::BTreeMap<String, RefOr<Response>> {
        let answer = ResponseBuilder::new().description("Not modified").build();
        std::iter::once(("304".to_string(), answer.into())).collect()
    }
}

/// The explanation of a problem type (the page its `type` URI names), as HTML for browsers or
/// as JSON (`Accept: application/json`).
///
/// Every `type` URI of a problem answer resolves here: what it means and what to do about it.
#[utoipa::path(
    operation_id = "explain_problem_type",
    tag = "operations",
    params(("kind" = String, Path, description = "The problem type, e.g. `validation`")),
    responses(
        (status = 200, description = "What the problem means and what to do", content(
            (ProblemType = "application/json"),
            (String = "text/html"),
        )),
        (status = 404, description = "No such problem type", body = crate::error::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/problems/{kind}")]
pub async fn explain(
    req: actix_web::HttpRequest,
    kind: actix_web::web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let kind = kind.into_inner();
    let (name, title, status, detail) = crate::error::PROBLEM_KINDS
        .iter()
        .find(|k| k.0 == kind)
        .copied()
        .ok_or_else(|| ApiError::NotFound(format!("no problem type {kind}")))?;
    let wants_json = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("json"));
    let mut resp = HttpResponse::Ok();
    // Kept a day by shared caches too: the answer depends on `Accept`, so a cache must not
    // give a browser's page to a client that asked for JSON, nor the other way round.
    resp.insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .insert_header((header::VARY, "Accept"));
    if wants_json {
        return Ok(resp.json(ProblemType {
            kind: format!("/problems/{name}"),
            title: title.into(),
            status,
            detail: detail.into(),
        }));
    }
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><h1>{title} ({status})</h1><p><code>/problems/{name}</code></p><p>{detail}</p>\
         <p>Errors are RFC 9457 problem details; see <a href=\"/docs/\">the API documentation</a>.</p></body></html>",
        detail = html_escape(detail),
    );
    Ok(resp.content_type("text/html; charset=utf-8").body(page))
}

/// A problem type explained.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ProblemType {
    /// The `type` URI problems of this kind carry.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// What it means and what to do.
    pub detail: String,
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
