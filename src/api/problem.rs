//! Renders [`ApiError`] as an RFC 9457 problem document (`application/problem+json`), and the
//! response sets the OpenAPI document shares between operations.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
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
