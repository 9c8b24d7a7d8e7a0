//! The server's clock: the system clock, which tests move forward to play days in seconds. The
//! handlers read it and hand the time down (`services` never read a clock of their own).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

/// The server's clock for deadlines and stamps. It is the system clock; tests move it forward
/// to play days in seconds.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    offset_secs: Arc<AtomicI64>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + Duration::seconds(self.offset_secs.load(Ordering::Relaxed))
    }

    /// Moves the clock forward (tests).
    pub fn advance(&self, by: Duration) {
        self.offset_secs
            .fetch_add(by.num_seconds(), Ordering::Relaxed);
    }
}
