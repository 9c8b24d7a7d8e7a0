//! Login throttling (OWASP authentication cheat sheet): failed sign-ins are counted in a fixed
//! window per account *and* client address, per address, and per account as a whole.
//!
//! - An account from one address: after [`PER_ACCOUNT_AND_ADDRESS`] failures that address is
//!   refused (429 with `Retry-After`) for that account until the window ends.
//! - An address: after [`PER_ADDRESS`] failures on any accounts it is refused for every account.
//! - An account as a whole: after [`ACCOUNT_SLOW_AFTER`] failures from any addresses, every
//!   sign-in to it is slowed (an added wait growing by [`SLOW_STEP`] per failure up to
//!   [`SLOW_MAX`]), never refused: someone guessing from many addresses cannot lock its owner
//!   out, and each of those addresses still meets its own limits.
//!
//! Counters live in this instance's memory: behind a load balancer each instance counts its own
//! share, which still bounds guessing.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use moka::sync::Cache;

use crate::error::ApiError;

/// Failed sign-ins allowed per account from one address in one window.
pub const PER_ACCOUNT_AND_ADDRESS: u32 = 10;
/// Failed sign-ins allowed per client address in one window.
pub const PER_ADDRESS: u32 = 50;
/// Failed sign-ins to an account (from anywhere) after which its sign-ins are slowed.
pub const ACCOUNT_SLOW_AFTER: u32 = 10;
/// The added wait per failure beyond [`ACCOUNT_SLOW_AFTER`].
pub const SLOW_STEP: Duration = Duration::from_millis(250);
/// The longest added wait.
pub const SLOW_MAX: Duration = Duration::from_secs(3);
/// The window.
pub const WINDOW: Duration = Duration::from_secs(300);

/// The most counters kept (three per failed sign-in at most): past it, moka's TinyLFU policy
/// drops the least used, so failures under countless names cost bounded memory.
pub const CAPACITY: u64 = 100_000;

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    failures: u32,
}

/// The failure counters, shared by every worker of the instance: a concurrent map (moka) whose
/// counters leave one window after they were made, with a cap on their number. A sign-in
/// finds its counters by key and locks only those (issue 43: no scan, no lock over all).
#[derive(Clone)]
pub struct LoginThrottle {
    windows: Cache<String, Arc<Mutex<Window>>>,
}

impl Default for LoginThrottle {
    fn default() -> Self {
        LoginThrottle::with_capacity(CAPACITY)
    }
}

impl std::fmt::Debug for LoginThrottle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginThrottle")
            .field("counters", &self.windows.entry_count())
            .finish()
    }
}

impl LoginThrottle {
    /// A throttle keeping at most `capacity` counters.
    pub fn with_capacity(capacity: u64) -> Self {
        LoginThrottle {
            windows: Cache::builder()
                .max_capacity(capacity)
                .time_to_live(WINDOW)
                .build(),
        }
    }

    /// The counters kept now (after moka's pending evictions and expiries).
    pub fn counters(&self) -> u64 {
        self.windows.run_pending_tasks();
        self.windows.entry_count()
    }

    /// The current window of a counter, if any.
    fn current(&self, key: &str, now: Instant) -> Option<Window> {
        let w = self.windows.get(key)?;
        let w = *w.lock().unwrap_or_else(|e| e.into_inner());
        (now.saturating_duration_since(w.started) < WINDOW).then_some(w)
    }

    /// 429 when the account from this address, or the address, has used up its failures in
    /// the current window; else how long to wait before trying the password (zero unless the
    /// account is being slowed).
    pub fn check(&self, username: &str, address: &str) -> Result<Duration, ApiError> {
        let now = Instant::now();
        for (key, limit) in [
            (pair_key(username, address), PER_ACCOUNT_AND_ADDRESS),
            (address_key(address), PER_ADDRESS),
        ] {
            if let Some(w) = self.current(&key, now).filter(|w| w.failures >= limit) {
                let wait = WINDOW
                    .saturating_sub(now.saturating_duration_since(w.started))
                    .as_secs()
                    .max(1);
                return Err(ApiError::TooManyRequests {
                    detail: format!("too many failed sign-ins; try again in {wait} seconds"),
                    retry_after: wait,
                });
            }
        }
        let failures = self
            .current(&account_key(username), now)
            .map_or(0, |w| w.failures);
        Ok(slowdown(failures))
    }

    /// Counts a failed sign-in against the account from the address, the address and the
    /// account.
    pub fn failed(&self, username: &str, address: &str) {
        let now = Instant::now();
        for key in [
            pair_key(username, address),
            address_key(address),
            account_key(username),
        ] {
            let w = self.windows.get_with(key, || {
                Arc::new(Mutex::new(Window {
                    started: now,
                    failures: 0,
                }))
            });
            let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
            if now.saturating_duration_since(w.started) >= WINDOW {
                *w = Window {
                    started: now,
                    failures: 0,
                };
            }
            w.failures += 1;
        }
    }

    /// A successful sign-in clears the failures of the account from that address (not the
    /// address's, nor the account's as a whole: someone else's guessing goes on counting).
    pub fn succeeded(&self, username: &str, address: &str) {
        self.windows.invalidate(&pair_key(username, address));
    }
}

/// The added wait after `failures` failures of an account as a whole.
fn slowdown(failures: u32) -> Duration {
    if failures < ACCOUNT_SLOW_AFTER {
        return Duration::ZERO;
    }
    (SLOW_STEP * (failures - ACCOUNT_SLOW_AFTER + 1)).min(SLOW_MAX)
}

fn pair_key(username: &str, address: &str) -> String {
    format!("pair:{address}:{}", username.to_lowercase())
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

    fn refused(t: &LoginThrottle, user: &str, address: &str) -> Option<u64> {
        match t.check(user, address) {
            Err(ApiError::TooManyRequests { retry_after, .. }) => Some(retry_after),
            Err(other) => panic!("{other:?}"),
            Ok(_) => None,
        }
    }

    #[test]
    fn an_address_guessing_one_account_is_refused_but_not_the_owner_elsewhere() {
        let t = LoginThrottle::default();
        for _ in 0..PER_ACCOUNT_AND_ADDRESS {
            assert_eq!(refused(&t, "kari", "10.0.0.1"), None);
            t.failed("kari", "10.0.0.1");
        }
        let wait = refused(&t, "KARI", "10.0.0.1").expect("this address is refused for kari");
        assert!(wait > 0 && wait <= WINDOW.as_secs());
        // The owner, from her own address, is slowed, not refused.
        assert_eq!(refused(&t, "kari", "10.0.0.2"), None);
        assert_eq!(t.check("kari", "10.0.0.2").unwrap(), SLOW_STEP);
        // The guessing address may still sign in to other accounts.
        assert_eq!(refused(&t, "ola", "10.0.0.1"), None);
        assert_eq!(t.check("ola", "10.0.0.1").unwrap(), Duration::ZERO);
        // A success clears only its own address's count for the account.
        t.succeeded("kari", "10.0.0.1");
        assert_eq!(refused(&t, "kari", "10.0.0.1"), None);
        assert_eq!(t.check("kari", "10.0.0.2").unwrap(), SLOW_STEP);
    }

    #[test]
    fn guessing_from_many_addresses_slows_the_account_and_never_locks_it() {
        let t = LoginThrottle::default();
        for i in 0..ACCOUNT_SLOW_AFTER - 1 {
            t.failed("kari", &format!("10.1.0.{i}"));
        }
        assert_eq!(t.check("kari", "10.9.9.9").unwrap(), Duration::ZERO);
        t.failed("kari", "10.1.1.1");
        assert_eq!(t.check("kari", "10.9.9.9").unwrap(), SLOW_STEP);
        t.failed("kari", "10.1.1.2");
        assert_eq!(t.check("kari", "10.9.9.9").unwrap(), SLOW_STEP * 2);
        for i in 0..1000 {
            t.failed("kari", &format!("10.2.{}.{}", i / 250, i % 250));
        }
        assert_eq!(refused(&t, "kari", "10.9.9.9"), None);
        assert_eq!(t.check("kari", "10.9.9.9").unwrap(), SLOW_MAX);
        // Other accounts are not slowed.
        assert_eq!(t.check("ola", "10.9.9.9").unwrap(), Duration::ZERO);
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

    #[test]
    fn failures_under_countless_names_and_addresses_stay_under_the_cap() {
        let t = LoginThrottle::with_capacity(1_000);
        for i in 0..100_000u32 {
            t.failed(&format!("nobody{i}"), &format!("2001:db8::{i:x}"));
        }
        assert!(t.counters() <= 1_000, "{}", t.counters());
        // Counting goes on: an address guessing one account is refused.
        for _ in 0..PER_ACCOUNT_AND_ADDRESS * 4 {
            t.failed("kari", "10.0.0.1");
        }
        assert!(t.check("kari", "10.0.0.1").is_err());
    }
}
