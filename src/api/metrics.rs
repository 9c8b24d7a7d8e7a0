//! `GET /metrics`: Prometheus text exposition of request counts, latency and the connection
//! pool. Counters live in memory per instance; scrape every instance.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use actix_web::{get, web, HttpResponse};

use crate::runtime::state::AppState;

/// Request counters of one instance.
#[derive(Debug)]
pub struct Metrics {
    /// Responses by status class: 1xx .. 5xx.
    by_class: [AtomicU64; 5],
    /// Sum of response latencies in microseconds.
    latency_micros: AtomicU64,
    started: Instant,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            by_class: Default::default(),
            latency_micros: AtomicU64::new(0),
            started: Instant::now(),
        }
    }
}

impl Metrics {
    /// Counts one answered request.
    pub fn record(&self, status: u16, elapsed: Duration) {
        let class = (status / 100).clamp(1, 5) as usize - 1;
        self.by_class[class].fetch_add(1, Ordering::Relaxed);
        self.latency_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    /// The Prometheus text format.
    pub fn render(&self, pool: r2d2::State) -> String {
        let mut out = String::new();
        out.push_str("# HELP tourney_http_requests_total HTTP responses by status class.\n");
        out.push_str("# TYPE tourney_http_requests_total counter\n");
        let mut total = 0;
        for (i, c) in self.by_class.iter().enumerate() {
            let n = c.load(Ordering::Relaxed);
            total += n;
            out.push_str(&format!(
                "tourney_http_requests_total{{class=\"{}xx\"}} {n}\n",
                i + 1
            ));
        }
        out.push_str(
            "# HELP tourney_http_request_duration_seconds_sum Total time spent answering.\n",
        );
        out.push_str("# TYPE tourney_http_request_duration_seconds_sum counter\n");
        out.push_str(&format!(
            "tourney_http_request_duration_seconds_sum {}\n",
            self.latency_micros.load(Ordering::Relaxed) as f64 / 1e6
        ));
        out.push_str("# TYPE tourney_http_request_duration_seconds_count counter\n");
        out.push_str(&format!(
            "tourney_http_request_duration_seconds_count {total}\n"
        ));
        out.push_str("# HELP tourney_db_pool_connections Open database connections.\n");
        out.push_str("# TYPE tourney_db_pool_connections gauge\n");
        out.push_str(&format!(
            "tourney_db_pool_connections {}\n",
            pool.connections
        ));
        out.push_str("# HELP tourney_db_pool_idle_connections Idle database connections.\n");
        out.push_str("# TYPE tourney_db_pool_idle_connections gauge\n");
        out.push_str(&format!(
            "tourney_db_pool_idle_connections {}\n",
            pool.idle_connections
        ));
        out.push_str("# TYPE tourney_uptime_seconds gauge\n");
        out.push_str(&format!(
            "tourney_uptime_seconds {}\n",
            self.started.elapsed().as_secs()
        ));
        out
    }
}

/// Prometheus metrics of this instance.
///
/// Request counts and latencies by route and status, in the Prometheus text format.
#[utoipa::path(
    operation_id = "read_metrics",
    tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain", body = String))
)]
#[get("/metrics")]
pub async fn metrics(
    state: web::Data<AppState>,
    metrics: web::Data<std::sync::Arc<Metrics>>,
) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.render(state.pool.state()))
}
