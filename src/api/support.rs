//! Small HTTP pieces every resource uses: cached public reads (`ETag`, `Cache-Control`, 304)
//! and `If-Match`. Field validation and pagination live in `crate::services::validate`.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{ApiError, FieldError};
use crate::infra::idempotency::Answer;
use crate::infra::kept::KeptBody;
pub use crate::services::validate::{
    check_country, Check, CursorParams, Page, PageParams, COUNTRY_PATTERN, SEARCH_PATTERN,
    TEXT_PATTERN,
};
use std::collections::BTreeMap;

/// Who may cache a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Anyone may see it: shared caches may keep it briefly.
    Public,
    /// Only this caller sees it.
    Private,
}

impl Visibility {
    /// Public when `public`, else private to the caller.
    pub fn public_if(public: bool) -> Self {
        if public {
            Self::Public
        } else {
            Self::Private
        }
    }
}

/// The strong ETag of a body.
pub fn etag_of(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    format!("\"{}\"", hex::encode(&digest[..16]))
}

fn matches_any(header_value: &str, etag: &str) -> bool {
    header_value
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == etag)
}

/// Answers a read with `ETag` and `Cache-Control`, or 304 when `If-None-Match` matches.
pub fn cached_body(
    req: &HttpRequest,
    content_type: &str,
    body: Vec<u8>,
    vis: Visibility,
) -> HttpResponse {
    let etag = etag_of(&body);
    not_modified(req, &etag, vis).unwrap_or_else(|| tagged_body(&etag, content_type, body, vis))
}

/// A strong ETag derived from what determines a body (e.g. a version and the query) rather
/// than from the body itself, so a 304 can be answered before the body is built.
pub fn etag_of_key(key: &str) -> String {
    etag_of(key.as_bytes())
}

fn cache_headers(resp: &mut actix_web::HttpResponseBuilder, etag: &str, vis: Visibility) {
    let cache = match vis {
        Visibility::Public => "public, max-age=5, must-revalidate",
        Visibility::Private => "private, no-cache",
    };
    resp.insert_header((header::ETAG, etag.to_string()))
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::VARY, "Authorization, Accept"));
}

/// A JSON body ready to keep, tagged `etag` (or, without one, with its own digest).
pub fn json_body<T: Serialize>(value: &T, etag: Option<String>) -> Result<KeptBody, ApiError> {
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(KeptBody {
        etag: etag.unwrap_or_else(|| etag_of(&body)),
        content_type: "application/json",
        body: body.into(),
        link: None,
    })
}

/// The answer for a rendered body: 304 when `If-None-Match` names its ETag.
pub fn kept_answer(req: &HttpRequest, kept: &KeptBody, vis: Visibility) -> HttpResponse {
    not_modified(req, &kept.etag, vis).unwrap_or_else(|| {
        let mut resp = HttpResponse::Ok();
        cache_headers(&mut resp, &kept.etag, vis);
        if let Some(link) = &kept.link {
            resp.insert_header((header::LINK, link.as_str()));
        }
        resp.content_type(kept.content_type)
            .body(actix_web::web::Bytes::from_owner(kept.body.clone()))
    })
}

/// The request's `If-None-Match` header, if any (owned, to hand to a database closure).
pub fn if_none_match(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Whether an `If-None-Match` value names `etag` (or is `*`).
pub fn etag_matches(if_none_match: Option<&str>, etag: &str) -> bool {
    if_none_match.is_some_and(|v| matches_any(v, etag))
}

/// The 304 answer for `etag`.
pub fn not_modified_answer(etag: &str, vis: Visibility) -> HttpResponse {
    let mut resp = HttpResponse::NotModified();
    cache_headers(&mut resp, etag, vis);
    resp.finish()
}

/// The 304 answer when `If-None-Match` names `etag` (or `*`); `None` otherwise.
pub fn not_modified(req: &HttpRequest, etag: &str, vis: Visibility) -> Option<HttpResponse> {
    etag_matches(if_none_match(req).as_deref(), etag).then(|| not_modified_answer(etag, vis))
}

/// A 200 answer with the given `ETag` and `Cache-Control`.
pub fn tagged_body(etag: &str, content_type: &str, body: Vec<u8>, vis: Visibility) -> HttpResponse {
    let mut resp = HttpResponse::Ok();
    cache_headers(&mut resp, etag, vis);
    resp.content_type(content_type).body(body)
}

/// [`cached_body`] for a JSON value.
pub fn cached_json<T: Serialize>(
    req: &HttpRequest,
    value: &T,
    vis: Visibility,
) -> Result<HttpResponse, ApiError> {
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(cached_body(req, "application/json", body, vis))
}

/// What an `If-Match` header asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfMatch {
    /// No header.
    Absent,
    /// `*`: whatever version is current (RFC 9110: the resource exists).
    Any,
    /// `"3"` (or `W/"3"`): that version, as served in `ETag`.
    Version(i32),
}

/// The request's `If-Match`: absent, `*`, or a version in quotes; 422 naming the header when it
/// is something else.
pub fn if_match(req: &HttpRequest) -> Result<IfMatch, ApiError> {
    let Some(v) = req.headers().get(header::IF_MATCH) else {
        return Ok(IfMatch::Absent);
    };
    let malformed = || {
        ApiError::Validation(vec![FieldError::new(
            "If-Match",
            r#"must be * or a version in quotes, such as "3" (or W/"3")"#,
        )])
    };
    let s = v.to_str().map_err(|_| malformed())?.trim();
    if s == "*" {
        return Ok(IfMatch::Any);
    }
    let digits = s
        .strip_prefix("W/")
        .unwrap_or(s)
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .filter(|d| (1..=9).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(malformed)?;
    digits
        .parse::<i32>()
        .map(IfMatch::Version)
        .map_err(|_| malformed())
}

/// The version an update of a versioned resource must match: `If-Match` is required (428
/// without it); `*` matches any current version (`None`).
pub fn required_if_match(req: &HttpRequest, what: &str) -> Result<Option<i32>, ApiError> {
    match if_match(req)? {
        IfMatch::Absent => Err(ApiError::PreconditionRequired(format!(
            "send If-Match with the version of the {what} you read (its ETag), or * to overwrite"
        ))),
        IfMatch::Any => Ok(None),
        IfMatch::Version(v) => Ok(Some(v)),
    }
}

/// The JSON Schema pattern of an `If-Match` header: `*`, or one version as sent in `ETag`.
pub const IF_MATCH_PATTERN: &str = r#"^(\*|(W/)?"[0-9]{1,9}")$"#;

/// A read of a versioned resource: its strong `ETag` is the version, the same value `If-Match`
/// takes on its update; 304 when `If-None-Match` names it.
pub fn versioned_json<T: Serialize>(
    req: &HttpRequest,
    value: &T,
    version: i32,
    vis: Visibility,
) -> Result<HttpResponse, ApiError> {
    let etag = format!("\"{version}\"");
    if let Some(answer) = not_modified(req, &etag, vis) {
        return Ok(answer);
    }
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(tagged_body(&etag, "application/json", body, vis))
}

/// The RFC 8288 `Link` header of a page: `next` and `prev` (where they exist), with the
/// request's other query parameters kept.
pub fn page_links<T>(req: &HttpRequest, page: &Page<T>) -> Option<String> {
    links_for(req.path(), req.query_string(), page)
}

/// [`page_links`] for a request's path and query string. A keyset list's `next` carries its
/// cursor; a page reached by cursor has no `prev` (its offset is unknown).
pub fn links_for<T>(path: &str, query_string: &str, page: &Page<T>) -> Option<String> {
    let (next, prev) = page.neighbours();
    let by_cursor = query_string.split('&').any(|p| p.starts_with("cursor="));
    let kept: Vec<String> = query_string
        .split('&')
        .filter(|p| {
            !p.is_empty()
                && !p.starts_with("limit=")
                && !p.starts_with("offset=")
                && !p.starts_with("cursor=")
        })
        .map(str::to_string)
        .collect();
    let link = |extra: String, limit: i64, rel: &str| {
        let mut query = kept.clone();
        query.push(format!("limit={limit}"));
        query.push(extra);
        format!("<{path}?{}>; rel=\"{rel}\"", query.join("&"))
    };
    let next = match &page.next_cursor {
        Some(c) => Some(link(format!("cursor={c}"), page.limit, "next")),
        None => next.map(|(o, l)| link(format!("offset={o}"), l, "next")),
    };
    let prev = prev
        .filter(|_| !by_cursor)
        .map(|(o, l)| link(format!("offset={o}"), l, "prev"));
    let links: Vec<String> = [next, prev].into_iter().flatten().collect();
    (!links.is_empty()).then(|| links.join(", "))
}

/// A page of a list read at `path` with the query string `query` as a body to keep, its `Link`
/// header with it (issue 31, item 3).
pub fn page_body<T: Serialize>(
    path: &str,
    query: &str,
    page: &Page<T>,
) -> Result<KeptBody, ApiError> {
    let mut body = json_body(page, None)?;
    body.link = links_for(path, query, page);
    Ok(body)
}

/// A page of a list as JSON ([`cached_json`]) with its `Link` header.
pub fn page_json<T: Serialize>(
    req: &HttpRequest,
    page: &Page<T>,
    vis: Visibility,
) -> Result<HttpResponse, ApiError> {
    let mut answer = cached_json(req, page, vis)?;
    with_links(req, page, &mut answer);
    Ok(answer)
}

/// A page of a list only its caller sees (never cached), with its `Link` header.
pub fn private_page<T: Serialize>(req: &HttpRequest, page: &Page<T>) -> HttpResponse {
    let mut answer = HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(page);
    with_links(req, page, &mut answer);
    answer
}

/// Adds a page's `Link` header to an answer.
pub fn with_links<T>(req: &HttpRequest, page: &Page<T>, answer: &mut HttpResponse) {
    if let Some(links) = page_links(req, page) {
        if let Ok(v) = header::HeaderValue::from_str(&links) {
            answer.headers_mut().insert(header::LINK, v);
        }
    }
}

/// The response to a write run through `infra::idempotency::once`: the status and headers the
/// handler chose for the write's output (or, for a retry, the first request's), and its body.
pub fn idempotent_answer(answer: Answer) -> HttpResponse {
    let status = actix_web::http::StatusCode::from_u16(answer.status)
        .unwrap_or(actix_web::http::StatusCode::OK);
    let mut response = HttpResponse::build(status);
    for (name, value) in &answer.headers {
        response.insert_header((name.as_str(), value.as_str()));
    }
    response.json(answer.body)
}

/// A JSON answer for the caller alone, never kept by a cache.
pub fn private_json<T: Serialize>(value: &T) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(value)
}

/// The answer to an entered result: 200 with the result and its version as `ETag`, or 202 with
/// the game opened for scheduling again (a confirmed double crash, seed 003 rule 3.3).
pub fn entered_answer(out: crate::services::play::replays::Entered) -> HttpResponse {
    use crate::services::play::replays::Entered;
    match out {
        Entered::Stored(out) => HttpResponse::Ok()
            .insert_header(("ETag", format!("\"{}\"", out.current.version)))
            .json(out),
        Entered::Replay(schedule) => HttpResponse::Accepted().json(schedule),
    }
}

/// The headers of a created resource: its `Location`, and its `ETag` when it is versioned.
pub fn created_at(location: String, version: Option<i64>) -> BTreeMap<String, String> {
    let mut headers = BTreeMap::from([("Location".to_string(), location)]);
    if let Some(v) = version {
        headers.insert("ETag".to_string(), format!("\"{v}\""));
    }
    headers
}

/// Answers a request made in the deprecated form `d` as such (docs/API-DESIGN.md, "Deprecation
/// and sunset"): `Deprecation`, `Sunset` and a `Link` to the changelog on the answer, and one
/// more in `tourney_deprecated_requests_total` for the caller's credential (its user or key
/// id; `anonymous` without a token).
pub fn deprecated_form(
    mut answer: HttpResponse,
    d: &crate::infra::deprecation::Deprecation,
    caller: Option<&crate::auth::roles::Caller>,
    metrics: &crate::infra::metrics::Metrics,
) -> HttpResponse {
    let credential = crate::infra::deprecation::credential_label(
        caller.map(|c| c.user_id),
        caller.and_then(|c| c.key.as_ref().map(|k| k.key_id)),
    );
    metrics.deprecated_request(d.form, credential);
    let headers = answer.headers_mut();
    for (name, value) in [
        ("deprecation", d.deprecation_header()),
        ("sunset", d.sunset_header()),
        ("link", d.link_header()),
    ] {
        if let Ok(value) = header::HeaderValue::from_str(&value) {
            headers.append(header::HeaderName::from_static(name), value);
        }
    }
    answer
}

/// The throttle of failed table codes around one use case (per table and address, and per
/// address): refused with 429 once used up; a wrong code counts.
pub struct CodeGuard {
    throttle: crate::infra::throttle::LoginThrottle,
    key: String,
    from: String,
}

impl CodeGuard {
    pub async fn check(
        req: &HttpRequest,
        state: &crate::runtime::state::AppState,
        at: crate::services::running::results::TableRef,
    ) -> Result<Self, ApiError> {
        let guard = CodeGuard {
            throttle: state.login_throttle.clone(),
            key: crate::services::play::hall::throttle_key(at),
            from: client_address(req),
        };
        let slowed = guard
            .throttle
            .check(&guard.key, &guard.from)
            .map_err(|e| match e {
                ApiError::TooManyRequests { retry_after, .. } => ApiError::TooManyRequests {
                    detail: format!(
                        "too many wrong table codes; try again in {retry_after} seconds"
                    ),
                    retry_after,
                },
                other => other,
            })?;
        if !slowed.is_zero() {
            actix_web::rt::time::sleep(slowed).await;
        }
        Ok(guard)
    }

    /// Runs a use case behind the guard: refused before it starts once the table's or the
    /// address's wrong codes are used up, and a wrong code counted after it.
    pub async fn around<T>(
        req: &HttpRequest,
        state: &crate::runtime::state::AppState,
        at: crate::services::running::results::TableRef,
        work: impl std::future::Future<Output = Result<T, ApiError>>,
    ) -> Result<T, ApiError> {
        let guard = Self::check(req, state, at).await?;
        guard.counted(work.await)
    }

    /// Counts the outcome: a wrong code is a failure.
    pub fn counted<T>(self, outcome: Result<T, ApiError>) -> Result<T, ApiError> {
        if outcome
            .as_ref()
            .is_err_and(crate::services::play::hall::is_wrong_code)
        {
            self.throttle.failed(&self.key, &self.from);
        }
        outcome
    }
}

/// A use case that asks for the account's password, under the sign-in throttle: refused with
/// 429 (or slowed) before it starts as a sign-in would be, and a wrong password (a validation
/// error naming the guard's field) counted after it as a failed sign-in (`DELETE /me`,
/// `POST /me/password`, `PATCH /me` with an address, `POST /me/api-keys` with a password).
pub struct PasswordGuard {
    throttle: crate::infra::throttle::LoginThrottle,
    username: String,
    from: String,
    field: &'static str,
}

impl PasswordGuard {
    pub async fn check(
        req: &HttpRequest,
        state: &crate::runtime::state::AppState,
        username: &str,
        field: &'static str,
    ) -> Result<Self, ApiError> {
        let guard = PasswordGuard {
            throttle: state.login_throttle.clone(),
            username: username.to_string(),
            from: client_address(req),
            field,
        };
        let slowed = guard.throttle.check(&guard.username, &guard.from)?;
        if !slowed.is_zero() {
            actix_web::rt::time::sleep(slowed).await;
        }
        Ok(guard)
    }

    /// Counts the outcome: a validation error naming the guard's field is a failed sign-in.
    pub fn counted<T>(self, outcome: Result<T, ApiError>) -> Result<T, ApiError> {
        if let Err(ApiError::Validation(fields)) = &outcome {
            if fields.iter().any(|f| f.field == self.field) {
                self.throttle.failed(&self.username, &self.from);
            }
        }
        outcome
    }
}

/// The address a request is counted by: its client's, as the middleware found it (behind a
/// trusted proxy, from `X-Forwarded-For`; an IPv6 client by its /64: `infra::clients`);
/// empty when the connection does not say.
pub fn client_address(req: &HttpRequest) -> String {
    use crate::infra::clients::{key, ClientAddress};
    use actix_web::HttpMessage;
    if let Some(ClientAddress(address)) = req.extensions().get::<ClientAddress>() {
        return address.clone();
    }
    req.peer_addr().map(|a| key(a.ip())).unwrap_or_default()
}

/// A password sign-in under the sign-in throttle (`POST /auth/token`, and the invitation page's
/// existing account): slowed while the account is guessed at from elsewhere, never locked; a
/// username or password over its length is a wrong password without asking `sign_in`; a
/// failure counts against the account and the address, a success clears them. `sign_in` gets
/// the username and the password and answers `None` for wrong ones.
pub async fn throttled_sign_in<T, F>(
    req: &HttpRequest,
    state: &crate::runtime::state::AppState,
    username: String,
    password: String,
    sign_in: impl FnOnce(String, String) -> F,
) -> Result<T, ApiError>
where
    F: std::future::Future<Output = Result<Option<T>, ApiError>>,
{
    let address = client_address(req);
    let throttle = &state.login_throttle;
    let slowed = throttle.check(&username, &address)?;
    if !slowed.is_zero() {
        actix_web::rt::time::sleep(slowed).await;
    }
    let wrong = || ApiError::Unauthorized("wrong username or password".into());
    if username.len() > 64 || password.len() > 256 {
        throttle.failed(&username, &address);
        return Err(wrong());
    }
    match sign_in(username.clone(), password).await? {
        Some(done) => {
            throttle.succeeded(&username, &address);
            Ok(done)
        }
        None => {
            throttle.failed(&username, &address);
            Err(wrong())
        }
    }
}
