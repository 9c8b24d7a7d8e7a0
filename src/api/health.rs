//! `GET /healthz` and `GET /readyz` (both name the version), and `GET /changelog`.

use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;

/// A health answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: String,
    /// The service's version: semantic versioning, the OpenAPI document's `info.version`
    /// (what changed between versions: `GET /changelog`).
    #[schema(example = "1.0.0")]
    pub version: String,
}

impl Health {
    fn ok() -> Self {
        Self {
            status: "ok".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The changelog
///
/// CHANGELOG.md in Keep a Changelog form: what changed in the API in each version, what is
/// deprecated and until when. Deprecated answers link here (`rel="deprecation"`).
#[utoipa::path(
    operation_id = "read_changelog",
    tag = "operations",
    responses((status = 200, description = "The changelog in Markdown", content_type = "text/markdown", body = String))
)]
#[get("/changelog")]
pub async fn changelog() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-cache"))
        .content_type("text/markdown; charset=utf-8")
        .body(include_str!("../../CHANGELOG.md"))
}

/// Liveness: the process is up and answering.
///
/// Answers 200 without touching the database; for load balancers and process supervisors.
#[utoipa::path(
    operation_id = "check_liveness",
    tag = "operations",
    responses((status = 200, description = "Up", body = Health))
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(Health::ok())
}

/// Readiness: the database answers a query.
///
/// Answers 200 when a database connection could be checked out and answered, 503 with `Retry-After`
/// otherwise.
#[utoipa::path(
    operation_id = "check_readiness",
    tag = "operations",
    responses(
        (status = 200, description = "Ready", body = Health),
        (status = 503, description = "The database is unreachable", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    state.ready().await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(Health::ok()))
}

/// `GET /bench/static?bytes=N` (only with `TOURNEY_BENCH_ROUTES=1`, never in the document): a
/// JSON body of N bytes built once and served from memory, the "static body of the same size"
/// that `scripts/standings_load.py` compares the kept reads with.
pub async fn bench_static(query: web::Query<BenchStatic>) -> HttpResponse {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static BODIES: OnceLock<Mutex<HashMap<usize, web::Bytes>>> = OnceLock::new();
    let n = query.bytes.clamp(2, 16 << 20);
    let body = BODIES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(n)
        .or_insert_with(|| {
            let mut b = vec![b' '; n];
            b[0] = b'"';
            b[n - 1] = b'"';
            web::Bytes::from(b)
        })
        .clone();
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body)
}

#[derive(serde::Deserialize)]
pub struct BenchStatic {
    bytes: usize,
}
