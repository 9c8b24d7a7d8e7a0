//! `GET /metrics`: the instance's metrics registry (`infra::metrics`) in the Prometheus text
//! format. Counters live in memory per instance; scrape every instance.

use actix_web::{get, web, HttpResponse};

use crate::infra::metrics::PoolSample;
use crate::runtime::state::AppState;
use crate::services::integrations::webhook_queue;

/// Prometheus metrics of this instance.
///
/// Request counts and latencies by route and status, in the Prometheus text format.
#[utoipa::path(
    operation_id = "read_metrics",
    tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain", body = String))
)]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    // Sampled now. While the database cannot be read the scrape still answers, with the
    // queue's last sample (the pool gauges show the outage).
    let now = state.clock.now();
    let queue = match state.run(move |c| webhook_queue::backlog(c, now)).await {
        Ok(sample) => Some(sample),
        Err(e) => {
            tracing::debug!(error = %e, "metrics: the webhook queue could not be read");
            None
        }
    };
    let pool = state.pool.state();
    let pool = PoolSample {
        connections: pool.connections,
        idle_connections: pool.idle_connections,
    };
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .content_type(crate::infra::metrics::CONTENT_TYPE)
        .body(state.metrics.render(
            pool,
            queue,
            &[
                state.kept.sample(),
                state.standings.sample(),
                state.search.sample(),
            ],
        ))
}
