//! The instance's metrics, in one registry (`prometheus-client`), rendered by `GET /metrics`
//! in the Prometheus text format (0.0.4). Counters and histograms live in memory per instance:
//! scrape every instance.
//!
//! - `tourney_http_requests_total` and `tourney_http_request_duration_seconds` (histogram), by
//!   `method`, matched `route` pattern (`/api/v1/tournaments/{id}`, never the raw path;
//!   `unmatched` when no route matched) and status `class` (`2xx` ..);
//! - `tourney_db_pool_connections`, `tourney_db_pool_idle_connections`: the pool, sampled at
//!   scrape time;
//! - `tourney_kept_reads_total` by `outcome` (`hit`: a kept public body was served, `miss`: it
//!   was rebuilt on a connection), see `infra::kept`;
//! - `tourney_cache_reads_total` by `cache` (`public`: the kept public bodies, `standings`: the
//!   staff standings cache) and `outcome` (`hit`, `miss`), `tourney_cache_evictions_total` (a
//!   body the byte budget pushed out, one at a time), and sampled at scrape time
//!   `tourney_cache_bytes`, `tourney_cache_entries` and `tourney_cache_budget_bytes`, by `cache`;
//! - `tourney_webhook_queue_pending` and `tourney_webhook_queue_oldest_age_seconds`: sampled at
//!   scrape time from the delivery queue;
//! - `tourney_job_lag_seconds` (since the job last completed a tick, sampled at scrape time),
//!   `tourney_job_last_success_timestamp_seconds` and `tourney_job_tick_duration_seconds`
//!   (histogram), by `job`;
//! - `tourney_deprecated_requests_total` by `form` (`infra::deprecation`) and `credential`
//!   (`user:<id>`, `key:<id>` or `anonymous`; ids, never a token): who still uses a deprecated
//!   form before its sunset. One series per credential that used one, so it stays small;
//! - `tourney_uptime_seconds`.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The `Content-Type` of what [`Metrics::render`] writes.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// The `route` of a request no route matched (a 404 of the fallback).
pub const UNMATCHED: &str = "unmatched";

/// Latency buckets in seconds, from a kept read (well under a millisecond) to a slow rebuild.
const LATENCY_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// A gauge holding seconds.
type Seconds = Gauge<f64, AtomicU64>;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    class: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    cache: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheOutcomeLabels {
    cache: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeprecatedLabels {
    form: &'static str,
    credential: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    job: &'static str,
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// The request pool's state (r2d2's `Pool::state()`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolSample {
    pub connections: u32,
    pub idle_connections: u32,
}

/// What the webhook queue holds now (`services::integrations::webhook_queue::backlog`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QueueSample {
    /// Deliveries not yet delivered nor given up.
    pub pending: i64,
    /// Seconds since the oldest of them was queued (0 when none is).
    pub oldest_age_seconds: f64,
}

/// The counters one cache counts into (clones count into the same; `Default`: counters of
/// their own, registered nowhere).
#[derive(Clone, Debug, Default)]
pub struct CacheMeter {
    pub hits: Counter,
    pub misses: Counter,
    pub evictions: Counter,
}

/// What a cache holds, sampled at scrape time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheSample {
    /// `public` or `standings`.
    pub cache: &'static str,
    /// The weight kept (bytes, with each entry's overhead).
    pub bytes: u64,
    pub entries: u64,
    /// The configured budget in bytes.
    pub budget: u64,
}

/// The registry and its metric families (cheap to clone: every clone counts into the same).
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RequestLabels, Histogram, fn() -> Histogram>,
    pool_connections: Gauge,
    pool_idle: Gauge,
    kept: Family<OutcomeLabels, Counter>,
    cache_reads: Family<CacheOutcomeLabels, Counter>,
    cache_evictions: Family<CacheLabels, Counter>,
    cache_bytes: Family<CacheLabels, Gauge>,
    cache_entries: Family<CacheLabels, Gauge>,
    cache_budget: Family<CacheLabels, Gauge>,
    queue_pending: Gauge,
    queue_oldest: Seconds,
    job_lag: Family<JobLabels, Seconds>,
    job_last_success: Family<JobLabels, Seconds>,
    job_duration: Family<JobLabels, Histogram, fn() -> Histogram>,
    deprecated: Family<DeprecatedLabels, Counter>,
    /// Reads charged beyond one for a request's search time (`infra::charge`).
    charged_reads: Counter,
    /// When each job last completed a tick (`None`: not yet since it started).
    jobs: Arc<Mutex<BTreeMap<&'static str, Option<Instant>>>>,
    uptime: Gauge,
    started: Instant,
}

impl Default for Metrics {
    fn default() -> Self {
        let m = Self {
            // Replaced below, once the families are registered.
            registry: Arc::new(Registry::default()),
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
            pool_connections: Gauge::default(),
            pool_idle: Gauge::default(),
            kept: Family::default(),
            cache_reads: Family::default(),
            cache_evictions: Family::default(),
            cache_bytes: Family::default(),
            cache_entries: Family::default(),
            cache_budget: Family::default(),
            queue_pending: Gauge::default(),
            queue_oldest: Seconds::default(),
            job_lag: Family::default(),
            job_last_success: Family::default(),
            job_duration: Family::new_with_constructor(latency_histogram),
            deprecated: Family::default(),
            charged_reads: Counter::default(),
            jobs: Default::default(),
            uptime: Gauge::default(),
            started: Instant::now(),
        };
        let mut registry = Registry::with_prefix("tourney");
        m.register(&mut registry);
        Self {
            registry: Arc::new(registry),
            ..m
        }
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// `2xx` for 200 ..; anything outside 100..=599 counts in the nearest class.
fn status_class(status: u16) -> &'static str {
    match status {
        ..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// The methods the service answers; anything else is `other` (the label stays bounded).
fn method_label(method: &str) -> &'static str {
    const KNOWN: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    KNOWN.into_iter().find(|m| *m == method).unwrap_or("other")
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Metrics {
    fn register(&self, r: &mut Registry) {
        r.register(
            "http_requests",
            "HTTP answers by method, matched route pattern and status class",
            self.requests.clone(),
        );
        r.register(
            "http_request_duration_seconds",
            "Time to answer, by method, matched route pattern and status class",
            self.latency.clone(),
        );
        r.register(
            "db_pool_connections",
            "Open database connections of the request pool",
            self.pool_connections.clone(),
        );
        r.register(
            "db_pool_idle_connections",
            "Idle database connections of the request pool",
            self.pool_idle.clone(),
        );
        r.register(
            "kept_reads",
            "Anonymous public reads: hit when a kept body was served, miss when it was rebuilt",
            self.kept.clone(),
        );
        r.register(
            "cache_reads",
            "Lookups of a kept-bodies cache (public, standings): hit or miss",
            self.cache_reads.clone(),
        );
        r.register(
            "cache_evictions",
            "Bodies a cache's byte budget pushed out (public, standings)",
            self.cache_evictions.clone(),
        );
        r.register(
            "cache_bytes",
            "Bytes a cache keeps now, each entry with its overhead (public, standings)",
            self.cache_bytes.clone(),
        );
        r.register(
            "cache_entries",
            "Bodies a cache keeps now (public, standings)",
            self.cache_entries.clone(),
        );
        r.register(
            "cache_budget_bytes",
            "The configured byte budget of a cache (public, standings)",
            self.cache_budget.clone(),
        );
        r.register(
            "webhook_queue_pending",
            "Webhook deliveries waiting to be delivered (pending)",
            self.queue_pending.clone(),
        );
        r.register(
            "webhook_queue_oldest_age_seconds",
            "Age of the oldest pending webhook delivery (0 when none is pending)",
            self.queue_oldest.clone(),
        );
        r.register(
            "job_lag_seconds",
            "Seconds since the background job last completed a tick (since start if never)",
            self.job_lag.clone(),
        );
        r.register(
            "job_last_success_timestamp_seconds",
            "Unix time the background job last completed a tick (0 if never)",
            self.job_last_success.clone(),
        );
        r.register(
            "job_tick_duration_seconds",
            "Time a completed tick of the background job took",
            self.job_duration.clone(),
        );
        r.register(
            "deprecated_requests",
            "Requests in a deprecated form, by form and credential (user:<id>, key:<id>, anonymous)",
            self.deprecated.clone(),
        );
        r.register(
            "rate_limit_charged_reads",
            "Reads charged to callers' rate limits beyond one a request, for the processor time their searches took",
            self.charged_reads.clone(),
        );
        r.register(
            "uptime_seconds",
            "Seconds since this instance started",
            self.uptime.clone(),
        );
    }

    /// Counts one answered request: `route` is the matched pattern (`None`: no route matched).
    pub fn request(&self, method: &str, route: Option<String>, status: u16, elapsed: Duration) {
        let labels = RequestLabels {
            method: method_label(method),
            route: route.unwrap_or_else(|| UNMATCHED.to_string()),
            class: status_class(status),
        };
        self.latency
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
        self.requests.get_or_create(&labels).inc();
    }

    /// Counts one request in the deprecated `form` by `credential`
    /// (`infra::deprecation::credential_label`).
    pub fn deprecated_request(&self, form: &'static str, credential: String) {
        self.deprecated
            .get_or_create(&DeprecatedLabels { form, credential })
            .inc();
    }

    /// Counts `n` reads charged beyond a request's one for its search time.
    pub fn charged_reads(&self, n: u32) {
        self.charged_reads.inc_by(u64::from(n));
    }

    /// Counts one anonymous public read: `hit` when a kept body was served.
    pub fn kept_read(&self, hit: bool) {
        let outcome = if hit { "hit" } else { "miss" };
        self.kept.get_or_create(&OutcomeLabels { outcome }).inc();
        self.cache_reads
            .get_or_create(&CacheOutcomeLabels {
                cache: "public",
                outcome,
            })
            .inc();
    }

    /// The counters of the cache named `cache`: hits and misses in `tourney_cache_reads_total`
    /// (the public cache's are counted by [`Self::kept_read`]), evictions in
    /// `tourney_cache_evictions_total`.
    pub fn cache_meter(&self, cache: &'static str) -> CacheMeter {
        let reads = |outcome| {
            self.cache_reads
                .get_or_create(&CacheOutcomeLabels { cache, outcome })
                .clone()
        };
        CacheMeter {
            hits: reads("hit"),
            misses: reads("miss"),
            evictions: self
                .cache_evictions
                .get_or_create(&CacheLabels { cache })
                .clone(),
        }
    }

    /// Names a background job, so its lag shows from the start (before its first tick).
    pub fn job_started(&self, job: &'static str) {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.entry(job).or_insert(None);
        let _ = self.job_last_success.get_or_create(&JobLabels { job });
    }

    /// Records a tick of `job` that completed, having taken `took`.
    pub fn job_ticked(&self, job: &'static str, took: Duration) {
        let labels = JobLabels { job };
        self.job_duration
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
        self.job_last_success.get_or_create(&labels).set(unix_now());
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.insert(job, Some(Instant::now()));
    }

    /// The Prometheus text format, with the samples taken at scrape time: the pool's state,
    /// the webhook queue (`None`: it could not be read now, the last sample stays) and the
    /// caches.
    pub fn render(
        &self,
        pool: PoolSample,
        queue: Option<QueueSample>,
        caches: &[CacheSample],
    ) -> String {
        for c in caches {
            let labels = CacheLabels { cache: c.cache };
            let gauge = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
            self.cache_bytes.get_or_create(&labels).set(gauge(c.bytes));
            self.cache_entries
                .get_or_create(&labels)
                .set(gauge(c.entries));
            self.cache_budget
                .get_or_create(&labels)
                .set(gauge(c.budget));
            let _ = self.cache_evictions.get_or_create(&labels);
        }
        self.pool_connections.set(i64::from(pool.connections));
        self.pool_idle.set(i64::from(pool.idle_connections));
        if let Some(q) = queue {
            self.queue_pending.set(q.pending);
            self.queue_oldest.set(q.oldest_age_seconds);
        }
        {
            let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            for (job, last) in jobs.iter() {
                let since = last.unwrap_or(self.started).elapsed().as_secs_f64();
                self.job_lag.get_or_create(&JobLabels { job }).set(since);
            }
        }
        self.uptime
            .set(i64::try_from(self.started.elapsed().as_secs()).unwrap_or(i64::MAX));
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_methods_stay_bounded() {
        assert_eq!(status_class(204), "2xx");
        assert_eq!(status_class(304), "3xx");
        assert_eq!(status_class(404), "4xx");
        assert_eq!(status_class(503), "5xx");
        assert_eq!(status_class(42), "1xx");
        assert_eq!(status_class(999), "5xx");
        assert_eq!(method_label("PATCH"), "PATCH");
        assert_eq!(method_label("BREW"), "other");
    }

    #[test]
    fn renders_every_family_in_the_text_format() {
        let m = Metrics::default();
        let route = Some("/api/v1/tournaments/{id}".to_string());
        m.request("GET", route.clone(), 200, Duration::from_millis(3));
        m.request("GET", route, 200, Duration::from_millis(30));
        m.request("BREW", None, 404, Duration::from_micros(100));
        m.kept_read(false);
        m.kept_read(true);
        m.job_started("deadlines");
        m.job_started("webhooks");
        m.job_ticked("webhooks", Duration::from_millis(2));
        let pool = PoolSample {
            connections: 4,
            idle_connections: 3,
        };
        let queue = QueueSample {
            pending: 2,
            oldest_age_seconds: 7.5,
        };
        let standings = m.cache_meter("standings");
        standings.hits.inc();
        standings.evictions.inc_by(3);
        let caches = [CacheSample {
            cache: "standings",
            bytes: 2048,
            entries: 2,
            budget: 4096,
        }];
        let text = m.render(pool, Some(queue), &caches);
        let labels = r#"method="GET",route="/api/v1/tournaments/{id}",class="2xx""#;
        for line in [
            format!("tourney_http_requests_total{{{labels}}} 2"),
            format!("tourney_http_request_duration_seconds_count{{{labels}}} 2"),
            format!("tourney_http_request_duration_seconds_bucket{{{labels},le=\"0.005\"}} 1"),
            r#"tourney_http_requests_total{method="other",route="unmatched",class="4xx"} 1"#.into(),
            "tourney_db_pool_connections 4".into(),
            "tourney_db_pool_idle_connections 3".into(),
            r#"tourney_kept_reads_total{outcome="hit"} 1"#.into(),
            r#"tourney_kept_reads_total{outcome="miss"} 1"#.into(),
            r#"tourney_cache_reads_total{cache="public",outcome="hit"} 1"#.into(),
            r#"tourney_cache_reads_total{cache="standings",outcome="hit"} 1"#.into(),
            r#"tourney_cache_reads_total{cache="standings",outcome="miss"} 0"#.into(),
            r#"tourney_cache_evictions_total{cache="standings"} 3"#.into(),
            r#"tourney_cache_bytes{cache="standings"} 2048"#.into(),
            r#"tourney_cache_entries{cache="standings"} 2"#.into(),
            r#"tourney_cache_budget_bytes{cache="standings"} 4096"#.into(),
            "tourney_webhook_queue_pending 2".into(),
            "tourney_webhook_queue_oldest_age_seconds 7.5".into(),
            r#"tourney_job_tick_duration_seconds_count{job="webhooks"} 1"#.into(),
            r#"tourney_job_last_success_timestamp_seconds{job="deadlines"} 0.0"#.into(),
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
        }
        assert!(text.contains(r#"tourney_job_lag_seconds{job="deadlines"}"#));
        assert!(text.contains("# TYPE tourney_http_request_duration_seconds histogram"));
        // A scrape that could not read the queue keeps the last sample.
        assert!(m
            .render(pool, None, &[])
            .contains("tourney_webhook_queue_pending 2"));
    }
}
