//! One error type for the services and the HTTP API. The HTTP layer renders it as RFC 9457
//! problem details (`application/problem+json`, see `crate::api::problem`); nothing here
//! knows about HTTP frameworks, so services can return it.
//!
//! Which variant to use where:
//! - input the caller can fix: [`ApiError::Validation`] (422, with the fields at fault),
//!   [`ApiError::BadRequest`] (400, malformed syntax), [`ApiError::UnsupportedMediaType`];
//! - who the caller is: [`ApiError::Unauthorized`] (401, no or bad credentials) versus
//!   [`ApiError::Forbidden`] (403, known caller without the role);
//! - state: [`ApiError::NotFound`], [`ApiError::Conflict`] (409, e.g. a duplicate name or a
//!   step that the resource's state does not allow), [`ApiError::PreconditionFailed`] (412,
//!   stale `If-Match`);
//! - our fault: [`ApiError::Internal`] (500, logged with detail, answered without it) and
//!   [`ApiError::Unavailable`] (503, the database is unreachable).
//!
//! Every kind has a stable `type` (`/problems/<kind>`) documented in `docs/API-DESIGN.md`.

use serde::Serialize;
use utoipa::ToSchema;

/// One field at fault in a request.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct FieldError {
    /// The field, as a JSON path into the request (`name`, `tables[2].scores[0]`) or the name
    /// of a query or path parameter.
    #[schema(example = "name")]
    pub field: String,
    /// What is wrong with it.
    #[schema(example = "must be at most 200 characters")]
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// An RFC 9457 problem details document.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A stable identifier of the kind of problem.
    #[serde(rename = "type")]
    #[schema(example = "/problems/validation")]
    pub kind: String,
    /// A short summary of the kind.
    #[schema(example = "Invalid request")]
    pub title: String,
    /// The HTTP status.
    #[schema(example = 422)]
    pub status: u16,
    /// What went wrong in this case, for a human.
    #[schema(example = "name: must be at most 200 characters")]
    pub detail: String,
    /// The fields at fault: for validation problems, for a conflict with the state of one
    /// field (`rating_status`, say), and for a step that must name what it read (428,
    /// `report_id`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
}

/// Every problem `type` the service sends, with its title, status and what to do about it:
/// `GET /problems/{kind}` serves this as the page the `type` URI names.
pub const PROBLEM_KINDS: &[(&str, &str, u16, &str)] = &[
    ("bad-request", "Malformed request", 400, "The request could not be read: the body is not valid JSON, or a header or path is malformed. Fix the syntax and send it again."),
    ("validation", "Invalid request", 422, "The request was read but some fields are invalid. `errors` lists each field at fault (a JSON path such as `seats[2].score`, or a query or header name) with what is wrong. Nothing was written."),
    ("unsupported-media-type", "Unsupported media type", 415, "Send the body as JSON with `Content-Type: application/json`."),
    ("request-timeout", "Request timeout", 408, "The request head did not arrive within the server's time limit (5 s); the connection is closed. Send the whole request at once."),
    ("header-too-large", "Request head too large", 431, "The request line and headers are over 32 KiB, or there are more than 96 headers. Shorten the path or query, or send fewer or smaller headers (cookies count)."),
    ("payload-too-large", "Request body too large", 413, "The body is over 256 KiB."),
    ("unauthorized", "Authentication required", 401, "Sign in with `POST /api/v1/auth/token` and send `Authorization: Bearer <token>`; a token that is invalid or expired is refused too."),
    ("forbidden", "Not allowed", 403, "You are signed in but your role does not allow this (admin, or organiser, referee or appeals committee of the tournament)."),
    ("not-found", "Not found", 404, "No such resource, or one you may not see (a draft tournament is visible to its staff only)."),
    ("method-not-allowed", "Method not allowed", 405, "The resource exists but not with this method; `Allow` lists the methods it takes."),
    ("conflict", "Conflict", 409, "The resource's state does not allow this step (for example a round that is still a draft), or it already exists. Read it again and decide."),
    ("precondition-failed", "Precondition failed", 412, "`If-Match` names a version that is no longer current: someone changed the resource since you read it. Read it again, reapply your change, and send the new version."),
    ("precondition-required", "Precondition required", 428, "This resource is versioned: send `If-Match` with the version you read (its `ETag`). Where `errors` names a field instead (`report_id`), send that field with the id of what you read."),
    ("too-many-requests", "Too many requests", 429, "Too many failed sign-ins, sign-ups or password-reset requests for this account or address or from this client. Wait the `Retry-After` seconds."),
    ("unavailable", "Service unavailable", 503, "The database cannot be reached right now: retry after the `Retry-After` seconds. Or the operation needs e-mail (sign-up, password reset) and this instance has no SMTP server configured (`SMTP_URL`): ask its operator."),
    ("internal", "Internal server error", 500, "Our fault. It has been logged with the request id (`X-Request-Id`); retrying may help."),
];

/// Everything a handler can answer instead of success.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{}", summarise(.0))]
    Validation(Vec<FieldError>),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{detail}")]
    MethodNotAllowed { detail: String, allow: String },
    #[error("{0}")]
    Conflict(String),
    /// A conflict with the state of one field of the resource (`rating_status`, say): 409 with
    /// the field named in `errors` and the state in the message.
    #[error("{}: {}", .0.field, .0.message)]
    ConflictAt(FieldError),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("{0}")]
    PreconditionRequired(String),
    /// 428 naming the field that says which version the caller read (`report_id`): the step
    /// is refused without it because what it applies to may have changed since.
    #[error("{}: {}", .0.field, .0.message)]
    PreconditionRequiredAt(FieldError),
    #[error("{detail}")]
    TooManyRequests { detail: String, retry_after: u64 },
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

fn summarise(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}: {}", e.field, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl ApiError {
    /// A validation problem with one field at fault.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Validation(vec![FieldError::new(field, message)])
    }

    /// 409: the state of `field` does not allow the step (`message` says what it is).
    pub fn conflict_at(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::ConflictAt(FieldError::new(field, message))
    }

    /// 428: `field` must say which version the caller read (`message` says why).
    pub fn precondition_required_at(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::PreconditionRequiredAt(FieldError::new(field, message))
    }

    fn kind_and_title(&self) -> (&'static str, &'static str) {
        match self {
            Self::BadRequest(_) => ("bad-request", "Malformed request"),
            Self::Validation(_) => ("validation", "Invalid request"),
            Self::UnsupportedMediaType(_) => ("unsupported-media-type", "Unsupported media type"),
            Self::PayloadTooLarge(_) => ("payload-too-large", "Request body too large"),
            Self::Unauthorized(_) => ("unauthorized", "Authentication required"),
            Self::Forbidden(_) => ("forbidden", "Not allowed"),
            Self::NotFound(_) => ("not-found", "Not found"),
            Self::MethodNotAllowed { .. } => ("method-not-allowed", "Method not allowed"),
            Self::Conflict(_) | Self::ConflictAt(_) => ("conflict", "Conflict"),
            Self::PreconditionFailed(_) => ("precondition-failed", "Precondition failed"),
            Self::PreconditionRequired(_) | Self::PreconditionRequiredAt(_) => {
                ("precondition-required", "Precondition required")
            }
            Self::TooManyRequests { .. } => ("too-many-requests", "Too many requests"),
            Self::Unavailable(_) => ("unavailable", "Service unavailable"),
            Self::Internal(_) => ("internal", "Internal server error"),
        }
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest(_) => 400,
            Self::Validation(_) => 422,
            Self::UnsupportedMediaType(_) => 415,
            Self::PayloadTooLarge(_) => 413,
            Self::Unauthorized(_) => 401,
            Self::Forbidden(_) => 403,
            Self::NotFound(_) => 404,
            Self::MethodNotAllowed { .. } => 405,
            Self::Conflict(_) | Self::ConflictAt(_) => 409,
            Self::PreconditionFailed(_) => 412,
            Self::PreconditionRequired(_) | Self::PreconditionRequiredAt(_) => 428,
            Self::TooManyRequests { .. } => 429,
            Self::Unavailable(_) => 503,
            Self::Internal(_) => 500,
        }
    }

    /// The problem document for this error.
    pub fn problem(&self) -> Problem {
        let (kind, title) = self.kind_and_title();
        let detail = match self {
            Self::Internal(_) => "an internal error occurred; it has been logged".to_string(),
            other => other.to_string(),
        };
        Problem {
            kind: format!("/problems/{kind}"),
            title: title.to_string(),
            status: self.status(),
            detail,
            errors: match self {
                Self::Validation(errors) => errors.clone(),
                Self::ConflictAt(e) | Self::PreconditionRequiredAt(e) => vec![e.clone()],
                _ => Vec::new(),
            },
        }
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(e: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind, Error};
        if connection_lost(&e) {
            // The detail (host names, socket paths) goes to the log, not to the caller.
            tracing::warn!(error = %e, "database connection lost");
            return Self::Unavailable("the database connection was lost; retry shortly".into());
        }
        match e {
            Error::NotFound => Self::NotFound("no such resource".into()),
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
                if matches!(
                    info.constraint_name(),
                    Some("users_username_key" | "users_username_lower_key")
                ) =>
            {
                Self::conflict_at("username", "that username is taken")
            }
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                Self::Conflict(match info.constraint_name() {
                    Some("players_user_id_key") => {
                        "that user account is already linked to another player".to_string()
                    }
                    _ => "that resource already exists".to_string(),
                })
            }
            Error::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, info) => {
                Self::Validation(vec![FieldError::new(
                    info.column_name().unwrap_or("reference"),
                    "refers to something that does not exist",
                )])
            }
            // The check-out guard (migration 2026-12-03-000001): the tournament runs elsewhere.
            Error::DatabaseError(_, info) if info.message() == "checked_out" => Self::conflict_at(
                "tournament",
                format!(
                    "the tournament is checked out to {}: it is read-only here until it is \
                     checked back in",
                    info.details().unwrap_or("another instance")
                ),
            ),
            Error::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
                Self::Conflict("a concurrent change got there first; retry".into())
            }
            other => Self::Internal(with_sources(&other)),
        }
    }
}

/// An error's message followed by its sources' (a row field that failed to read names its
/// column, and its source the value stored there).
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        out.push_str(": ");
        out.push_str(&s.to_string());
        next = s.source();
    }
    out
}

/// Whether a database error says the connection went away under the request (the server
/// restarted or shut down, an administrator ended the session, the network dropped): the
/// database is unreachable, not the request wrong, so the answer is 503, not 500.
pub fn connection_lost(e: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    match e {
        Error::DatabaseError(
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
            _,
        )
        | Error::BrokenTransactionManager => true,
        Error::DatabaseError(_, info) => {
            let m = info.message();
            // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, and
            // libpq's own words for a dead socket.
            [
                "terminating connection",
                "server closed the connection",
                "no connection to the server",
                "connection to server",
                "the database system is shutting down",
                "the database system is starting up",
                "could not receive data from server",
            ]
            .iter()
            .any(|w| m.contains(w))
        }
        _ => false,
    }
}

impl From<r2d2::Error> for ApiError {
    fn from(e: r2d2::Error) -> Self {
        // The detail (socket paths, host names) goes to the log, not to the caller.
        tracing::warn!(error = %e, "database pool");
        Self::Unavailable("the database is not reachable; retry shortly".into())
    }
}

/// The result of a service function or a handler.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod connection_tests {
    use super::*;
    use diesel::result::{DatabaseErrorKind, Error};

    fn db(kind: DatabaseErrorKind, message: &str) -> Error {
        Error::DatabaseError(kind, Box::new(message.to_string()))
    }

    /// Issue 15, item 8: a connection lost under a request is 503 (retry), not 500.
    #[test]
    fn a_lost_connection_is_unavailable_not_internal() {
        for e in [
            db(DatabaseErrorKind::ClosedConnection, "closed"),
            db(
                DatabaseErrorKind::UnableToSendCommand,
                "no connection to the server",
            ),
            db(
                DatabaseErrorKind::Unknown,
                "terminating connection due to administrator command",
            ),
            db(
                DatabaseErrorKind::Unknown,
                "server closed the connection unexpectedly",
            ),
            Error::BrokenTransactionManager,
        ] {
            let text = e.to_string();
            assert!(
                matches!(ApiError::from(e), ApiError::Unavailable(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn other_database_errors_keep_their_meaning() {
        assert!(matches!(
            ApiError::from(db(DatabaseErrorKind::UniqueViolation, "duplicate key")),
            ApiError::Conflict(_)
        ));
        assert!(matches!(
            ApiError::from(db(DatabaseErrorKind::Unknown, "division by zero")),
            ApiError::Internal(_)
        ));
    }
}
