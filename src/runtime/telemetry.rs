//! Structured logs with `tracing`: one line per request (method, path, status, latency,
//! request id) plus the service's own events. `RUST_LOG` filters, `LOG_FORMAT=json` switches to
//! JSON lines.

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber (once; later calls are ignored, which tests rely on).
pub fn init(json: bool) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,actix_server=warn,actix_web=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
