//! Machinery the use cases lean on that is no use case itself: the live listener that turns
//! PostgreSQL notifications into generations and feeds (`live`), the public bodies kept per
//! instance (`kept`) and the staff standings cache (`standings_cache`), the instance's metrics
//! registry (`metrics`), what a request's search cost its rate limit (`charge`), the search index of the registry's names (`search`), the deprecated forms and their headers (`deprecation`), the sign-in
//! throttle and the sliding count it shares with the rate limiter (`sliding`), idempotency keys and CSV fields. Nothing here
//! imports a service or the HTTP layer.

pub mod charge;
pub mod clients;
pub mod clock;
pub mod csv;
pub mod deprecation;
pub mod idempotency;
pub mod kept;
pub mod live;
pub mod mail;
pub mod metrics;
pub mod ratelimit;
pub mod rfc3339;
pub mod search;
pub mod sliding;
pub mod standings_cache;
pub mod throttle;
