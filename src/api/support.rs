//! Small pieces every resource uses: pagination, cached public reads, `If-Match`, and
//! field validation.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, FieldError};

/// `?limit=&offset=` on every list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageParams {
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0).
    #[param(minimum = 0, maximum = 1000000000, example = 0)]
    pub offset: Option<i64>,
}

impl PageParams {
    /// The checked `(limit, offset)`.
    pub fn resolve(&self) -> Result<(i64, i64), ApiError> {
        let limit = self.limit.unwrap_or(50);
        let offset = self.offset.unwrap_or(0);
        let mut errors = Vec::new();
        if !(1..=200).contains(&limit) {
            errors.push(FieldError::new("limit", "must be between 1 and 200"));
        }
        if !(0..=1_000_000_000).contains(&offset) {
            errors.push(FieldError::new(
                "offset",
                "must be between 0 and 1000000000",
            ));
        }
        if errors.is_empty() {
            Ok((limit, offset))
        } else {
            Err(ApiError::Validation(errors))
        }
    }
}

/// One page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// How many items the whole list holds.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// Who may cache a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Anyone may see it: shared caches may keep it briefly.
    Public,
    /// Only this caller sees it.
    Private,
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

/// The version an `If-Match` header names (`"3"` or `W/"3"`), if any; 412 when it names
/// something that is not a version of ours.
pub fn if_match_version(req: &HttpRequest) -> Result<Option<i32>, ApiError> {
    let Some(v) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let malformed = || {
        ApiError::Validation(vec![FieldError::new(
            "If-Match",
            r#"must be a version in quotes, such as "3" (or W/"3")"#,
        )])
    };
    let s = v.to_str().map_err(|_| malformed())?;
    let digits = s
        .strip_prefix("W/")
        .unwrap_or(s)
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .filter(|d| (1..=9).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(malformed)?;
    digits.parse::<i32>().map(Some).map_err(|_| malformed())
}

/// The JSON Schema pattern of an `If-Match` header: one version, as sent in `ETag`.
pub const IF_MATCH_PATTERN: &str = r#"^(W/)?"[0-9]{1,9}"$"#;

/// Collects field errors, then answers them all at once.
#[derive(Debug, Default)]
pub struct Check {
    errors: Vec<FieldError>,
}

impl Check {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an error.
    pub fn fail(&mut self, field: &str, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Adds an error unless `ok`.
    pub fn ensure(&mut self, ok: bool, field: &str, message: impl Into<String>) {
        if !ok {
            self.fail(field, message);
        }
    }

    /// A required text: trimmed, 1..=max characters, no control characters. Returns it trimmed.
    pub fn text(&mut self, field: &str, value: &str, max: usize) -> String {
        // Length and characters are checked on the value as sent (what the schema states);
        // surrounding spaces are then trimmed off.
        let v = value.trim();
        if v.is_empty() {
            self.fail(field, "must not be empty");
        } else if value.chars().count() > max {
            self.fail(field, format!("must be at most {max} characters"));
        } else if value.chars().any(char::is_control) {
            self.fail(field, "must not contain control characters");
        }
        v.to_string()
    }

    /// An optional text: absent means none; when present it must be a valid [`Check::text`]
    /// (null, not a blank string, clears a field).
    pub fn optional_text(
        &mut self,
        field: &str,
        value: Option<&str>,
        max: usize,
    ) -> Option<String> {
        Some(self.text(field, value?, max))
    }

    /// A search text ([`SEARCH_PATTERN`]): blank means no filter.
    pub fn search_text(&mut self, field: &str, value: Option<&str>, max: usize) -> Option<String> {
        let value = value?;
        if value.trim().is_empty() && !value.chars().any(char::is_control) {
            return None;
        }
        Some(self.text(field, value, max))
    }

    /// An integer within `min..=max`.
    pub fn range(&mut self, field: &str, value: i64, min: i64, max: i64) {
        if !(min..=max).contains(&value) {
            self.fail(field, format!("must be between {min} and {max}"));
        }
    }

    /// Ok, or 422 with every error collected.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(self.errors))
        }
    }
}

/// The JSON Schema pattern of [`Check::text`]: not blank, no control characters.
pub const TEXT_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$";

/// The JSON Schema pattern of an optional search text: blank means no filter.
pub const SEARCH_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*$";

/// The JSON Schema pattern of a country code.
pub const COUNTRY_PATTERN: &str = "^[A-Za-z]{2}$";

/// An ISO 3166-1 alpha-2 country code ([`COUNTRY_PATTERN`]), stored upper case.
pub fn check_country(check: &mut Check, field: &str, value: Option<&str>) -> Option<String> {
    let v = value?;
    let upper = v.to_ascii_uppercase();
    if upper.len() != 2 || !upper.bytes().all(|b| b.is_ascii_uppercase()) {
        check.fail(
            field,
            "must be an ISO 3166-1 alpha-2 country code such as NO or PL",
        );
    }
    Some(upper)
}
