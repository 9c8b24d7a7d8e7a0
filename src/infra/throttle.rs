//! Login throttling (OWASP authentication cheat sheet): failed sign-ins are counted over the
//! five minutes sliding to now (`infra::sliding`) per account *and* client address, per
//! address, and per account as a whole. (Until 1.4.3 the windows were fixed: a guesser could
//! use an account's ten tries at the end of one window and ten more at the start of the next.)
//!
//! - An account from one address: after [`PER_ACCOUNT_AND_ADDRESS`] failures that address is
//!   refused (429 with `Retry-After`) for that account until fewer than that lie within the last
//!   five minutes.
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
use crate::infra::sliding::Sliding;

/// Failed sign-ins allowed per account from one address within [`WINDOW`].
pub const PER_ACCOUNT_AND_ADDRESS: u32 = 10;
/// Failed sign-ins allowed per client address within [`WINDOW`].
pub const PER_ADDRESS: u32 = 50;
/// Failed sign-ins to an account (from anywhere) after which its sign-ins are slowed.
pub const ACCOUNT_SLOW_AFTER: u32 = 10;
/// The added wait per failure beyond [`ACCOUNT_SLOW_AFTER`].
pub const SLOW_STEP: Duration = Duration::from_millis(250);
/// The longest added wait.
pub const SLOW_MAX: Duration = Duration::from_secs(3);
/// The period failures are counted over.
pub const WINDOW: Duration = Duration::from_secs(300);

/// The most counters kept (three per failed sign-in at most): past it, moka's TinyLFU policy
/// drops the least used, so failures under countless names cost bounded memory.
pub const CAPACITY: u64 = 100_000;

/// One counter: the failures of the five minutes sliding to now (`infra::sliding`).
type Window = Sliding<{ WINDOW.as_secs() }>;

/// The failure counters, shared by every worker of the instance: a concurrent map (moka) whose
/// counters leave two windows after they were last used (by then they count nothing), with a
/// cap on their number. A sign-in
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
                .time_to_idle(2 * WINDOW)
                .build(),
        }
    }

    /// The counters kept now (after moka's pending evictions and expiries).
    pub fn counters(&self) -> u64 {
        self.windows.run_pending_tasks();
        self.windows.entry_count()
    }

    /// A counter as it stands at `now` (a copy, rolled on; none when it was never made).
    fn current(&self, key: &str, now: Instant) -> Option<Window> {
        let mut w = *self
            .windows
            .get(key)?
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        w.roll(now);
        Some(w)
    }

    /// 429 when the account from this address, or the address, has used up its failures within
    /// the last five minutes (`Retry-After`: until one more is allowed); else how long to wait before trying the password (zero unless the
    /// account is being slowed).
    pub fn check(&self, username: &str, address: &str) -> Result<Duration, ApiError> {
        self.check_at(Instant::now(), username, address)
    }

    /// [`LoginThrottle::check`] at `now`.
    fn check_at(&self, now: Instant, username: &str, address: &str) -> Result<Duration, ApiError> {
        for (key, limit) in [
            (pair_key(username, address), PER_ACCOUNT_AND_ADDRESS),
            (address_key(address), PER_ADDRESS),
        ] {
            if let Some(w) = self.current(&key, now).filter(|w| w.used(now) >= limit) {
                let wait = w.retry(now, limit);
                return Err(ApiError::TooManyRequests {
                    detail: format!("too many failed sign-ins; try again in {wait} seconds"),
                    retry_after: wait,
                });
            }
        }
        let failures = self
            .current(&account_key(username), now)
            .map_or(0, |w| w.used(now));
        Ok(slowdown(failures))
    }

    /// Counts a failed sign-in against the account from the address, the address and the
    /// account.
    pub fn failed(&self, username: &str, address: &str) {
        self.failed_at(Instant::now(), username, address);
    }

    /// [`LoginThrottle::failed`] at `now`.
    fn failed_at(&self, now: Instant, username: &str, address: &str) {
        for key in [
            pair_key(username, address),
            address_key(address),
            account_key(username),
        ] {
            let w = self
                .windows
                .get_with(key, || Arc::new(Mutex::new(Window::new(now))));
            let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
            w.roll(now);
            w.add(1);
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
        refused_at(t, Instant::now(), user, address)
    }

    #[test]
    fn an_address_guessing_one_account_is_refused_but_not_the_owner_elsewhere() {
        let t = LoginThrottle::default();
        for _ in 0..PER_ACCOUNT_AND_ADDRESS {
            assert_eq!(refused(&t, "kari", "10.0.0.1"), None);
            t.failed("kari", "10.0.0.1");
        }
        let wait = refused(&t, "KARI", "10.0.0.1").expect("this address is refused for kari");
        // Ten at once: allowed again once one of them weighs no more, a tenth into the next
        // window.
        assert!((300..=330).contains(&wait), "{wait}");
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

    fn refused_at(t: &LoginThrottle, at: Instant, user: &str, address: &str) -> Option<u64> {
        match t.check_at(at, user, address) {
            Err(ApiError::TooManyRequests { retry_after, .. }) => Some(retry_after),
            Err(other) => panic!("{other:?}"),
            Ok(_) => None,
        }
    }

    #[test]
    fn a_window_s_end_gives_a_guesser_no_second_ten() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        let secs = |s: u64| t0 + Duration::from_secs(s);
        // One guess opens the account's window (from this address), nine more in its last
        // second.
        t.failed_at(secs(0), "kari", "10.0.0.1");
        for _ in 1..PER_ACCOUNT_AND_ADDRESS {
            assert_eq!(refused_at(&t, secs(299), "kari", "10.0.0.1"), None);
            t.failed_at(secs(299), "kari", "10.0.0.1");
        }
        // Fixed windows allowed ten more a second later; the slide refuses until one of the
        // ten has left the five minutes: a tenth into the next window, at 330 s.
        assert_eq!(refused_at(&t, secs(299), "kari", "10.0.0.1"), Some(31));
        assert_eq!(refused_at(&t, secs(300), "kari", "10.0.0.1"), Some(30));
        assert_eq!(refused_at(&t, secs(329), "kari", "10.0.0.1"), Some(1));
        assert_eq!(refused_at(&t, secs(330), "kari", "10.0.0.1"), None);
        t.failed_at(secs(330), "kari", "10.0.0.1");
        // Then one guess for every tenth of five minutes that passes.
        assert_eq!(refused_at(&t, secs(330), "kari", "10.0.0.1"), Some(30));
        assert_eq!(refused_at(&t, secs(360), "kari", "10.0.0.1"), None);
        // The account is slowed by what lies within five minutes (9 of the first ten and the
        // eleventh at 330 s), and not once fewer than ten do.
        assert_eq!(
            t.check_at(secs(330), "kari", "10.0.0.2").unwrap(),
            SLOW_STEP
        );
        assert_eq!(
            t.check_at(secs(360), "kari", "10.0.0.2").unwrap(),
            Duration::ZERO
        );
    }

    #[test]
    fn an_address_s_fifty_slide_as_well() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        let secs = |s: u64| t0 + Duration::from_secs(s);
        for i in 0..PER_ADDRESS {
            t.failed_at(secs(290), &format!("user{i}"), "10.0.0.9");
        }
        // Fifty within five minutes: refused until one has left them, 290 + 6 s into the next.
        assert_eq!(refused_at(&t, secs(301), "someone", "10.0.0.9"), Some(295));
        assert_eq!(refused_at(&t, secs(595), "someone", "10.0.0.9"), Some(1));
        assert_eq!(refused_at(&t, secs(596), "someone", "10.0.0.9"), None);
        assert_eq!(refused_at(&t, secs(301), "someone", "10.0.0.8"), None);
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
