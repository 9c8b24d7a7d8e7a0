//! Login throttling: failed sign-ins are counted per account and per client address in a
//! fixed window; past the limit, sign-ins are refused with 429 and `Retry-After` until the
//! window ends (OWASP authentication cheat sheet). Counters live in this instance's memory:
//! behind a load balancer each instance counts its own share, which still bounds guessing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::ApiError;

/// Failed sign-ins allowed per account in one window.
pub const PER_ACCOUNT: u32 = 10;
/// Failed sign-ins allowed per client address in one window.
pub const PER_ADDRESS: u32 = 50;
/// The window.
pub const WINDOW: Duration = Duration::from_secs(300);

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    failures: u32,
}

/// The failure counters, shared by every worker of the instance.
#[derive(Debug, Clone, Default)]
pub struct LoginThrottle {
    windows: Arc<Mutex<HashMap<String, Window>>>,
}

impl LoginThrottle {
    /// 429 when the account or the address has used up its failures in the current window.
    pub fn check(&self, username: &str, address: &str) -> Result<(), ApiError> {
        let now = Instant::now();
        let windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        for (key, limit) in [
            (account_key(username), PER_ACCOUNT),
            (address_key(address), PER_ADDRESS),
        ] {
            if let Some(w) = windows.get(&key) {
                let elapsed = now.duration_since(w.started);
                if elapsed < WINDOW && w.failures >= limit {
                    let wait = (WINDOW - elapsed).as_secs().max(1);
                    return Err(ApiError::TooManyRequests {
                        detail: format!("too many failed sign-ins; try again in {wait} seconds"),
                        retry_after: wait,
                    });
                }
            }
        }
        Ok(())
    }

    /// Counts a failed sign-in against the account and the address.
    pub fn failed(&self, username: &str, address: &str) {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        // Old windows go, so the map stays as small as the recent failures.
        if windows.len() > 10_000 {
            windows.retain(|_, w| now.duration_since(w.started) < WINDOW);
        }
        for key in [account_key(username), address_key(address)] {
            let w = windows.entry(key).or_insert(Window {
                started: now,
                failures: 0,
            });
            if now.duration_since(w.started) >= WINDOW {
                *w = Window {
                    started: now,
                    failures: 0,
                };
            }
            w.failures += 1;
        }
    }

    /// A successful sign-in clears the account's failures (not the address's).
    pub fn succeeded(&self, username: &str) {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        windows.remove(&account_key(username));
    }
}

fn account_key(username: &str) -> String {
    format!("user:{}", username.to_lowercase())
}

fn address_key(address: &str) -> String {
    format!("addr:{address}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_is_refused_after_its_failures_and_cleared_by_a_success() {
        let t = LoginThrottle::default();
        for _ in 0..PER_ACCOUNT {
            assert!(t.check("kari", "10.0.0.1").is_ok());
            t.failed("kari", "10.0.0.1");
        }
        let Err(ApiError::TooManyRequests { retry_after, .. }) = t.check("KARI", "10.0.0.2") else {
            panic!("the account is throttled from any address");
        };
        assert!(retry_after > 0 && retry_after <= WINDOW.as_secs());
        assert!(t.check("ola", "10.0.0.2").is_ok());
        t.succeeded("kari");
        assert!(t.check("kari", "10.0.0.2").is_ok());
    }

    #[test]
    fn an_address_is_refused_after_its_failures_on_many_accounts() {
        let t = LoginThrottle::default();
        for i in 0..PER_ADDRESS {
            t.failed(&format!("user{i}"), "10.0.0.9");
        }
        assert!(t.check("someone", "10.0.0.9").is_err());
        assert!(t.check("someone", "10.0.0.8").is_ok());
    }
}
