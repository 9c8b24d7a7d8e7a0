//! Rate limits for every caller (issue 30, item 9): requests are counted over a sliding minute
//! per class of operation, per credential (the bearer token or API key presented) and per client
//! address. Past a limit the answer is 429 with `Retry-After`; every counted answer
//! carries the IETF httpapi draft's `RateLimit-Policy` and `RateLimit` headers
//! (draft-ietf-httpapi-ratelimit-headers: `"read";q=1200;w=60` and `"read";r=1187;t=42`).
//! Counters live in this instance's memory (each instance counts its own share).
//!
//! The minute slides (the sliding window counter): a counter keeps the count of its current
//! one-minute window and of the window before, and a request counts what the current window
//! holds plus the share of the window before still inside the last sixty seconds (all of it at
//! the window's start, none at its end). Fixed windows let a caller spend its limit at the end
//! of one window and again at the start of the next (twice the limit within a second), and a
//! flood of costly searches spend its whole charge at every minute's start; over a sliding
//! minute a caller that used up its limit gets it back as the minute passes, and a charge
//! beyond the limit (`RateLimiter::charge`) weighs on the next window too.
//!
//! Only a credential known to be one has its own counter (issue 43): the middleware passes a
//! bearer token whose signature holds, or an API key this instance has found live, as
//! [`Credential::Known`]; anything else counts on its address like an anonymous request, so a
//! flood of made-up tokens from one address is one counter, refused at the address's limit.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use moka::sync::Cache;
use sha2::{Digest, Sha256};

use crate::infra::clients::{self, Proxies};
use crate::infra::sliding::Sliding;

/// The window of every limit.
pub const WINDOW: Duration = Duration::from_secs(60);

/// A class of operations with its own limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// GET and HEAD.
    Read,
    /// POST, PUT, PATCH, DELETE, and the reports with a table code (`POST /hall/...`,
    /// `.../code-report`): a hall's phones share the venue's one address, and guessing a code
    /// is bounded by the wrong-code throttle (`infra::throttle`), not by this count.
    Write,
    /// Sign-in, refresh and sign-out (`/api/v1/auth/...`) and the steps of the account pages
    /// (`POST /account/...`: a password, a code), counted per address only.
    Auth,
}

impl Class {
    /// The class of a request.
    pub fn of(method: &str, path: &str) -> Self {
        let write = !matches!(method, "GET" | "HEAD" | "OPTIONS");
        if path.starts_with("/api/v1/auth/") || (write && path.starts_with("/account/")) {
            Class::Auth
        } else if matches!(method, "GET" | "HEAD" | "OPTIONS") {
            Class::Read
        } else {
            Class::Write
        }
    }

    /// The policy's name in the headers.
    pub fn name(self) -> &'static str {
        match self {
            Class::Read => "read",
            Class::Write => "write",
            Class::Auth => "auth",
        }
    }
}

/// Requests allowed per window: per credential, and per address (a credential's callers may
/// share an address, and an address's anonymous callers share its count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub read: u32,
    pub write: u32,
    pub auth: u32,
    /// The search time (µs of processor time) that costs a read one more (`infra::charge`);
    /// 0: every request costs one.
    pub search_micros: u32,
}

impl Default for Limits {
    /// 1,200 reads, 300 writes per minute per credential (twice that per address); 60 sign-in
    /// calls per minute per address; one read more for every millisecond a search took.
    fn default() -> Self {
        Limits {
            read: 1200,
            write: 300,
            auth: 60,
            search_micros: 1000,
        }
    }
}

impl Limits {
    /// The limit of a class per credential (`per_address`: per address).
    pub fn of(&self, class: Class, per_address: bool) -> u32 {
        match (class, per_address) {
            (Class::Read, false) => self.read,
            (Class::Read, true) => self.read.saturating_mul(2),
            (Class::Write, false) => self.write,
            (Class::Write, true) => self.write.saturating_mul(2),
            (Class::Auth, _) => self.auth,
        }
    }

    /// The search time that costs one more read (zero: none does).
    pub fn per_read(&self) -> Duration {
        Duration::from_micros(u64::from(self.search_micros))
    }
}

/// What a counted request learnt: the tightest of its counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub class: Class,
    /// The limit of the tightest counter.
    pub limit: u32,
    /// Requests left over the last minute (0 when refused).
    pub remaining: u32,
    /// Seconds until its window ends; when refused, seconds until a request is allowed again
    /// (`Retry-After`).
    pub reset: u64,
    /// Refused: the limit was reached.
    pub refused: bool,
}

impl Verdict {
    /// `RateLimit-Policy`: `"<class>";q=<limit>;w=<window seconds>`.
    pub fn policy_header(&self) -> String {
        format!(
            "\"{}\";q={};w={}",
            self.class.name(),
            self.limit,
            WINDOW.as_secs()
        )
    }

    /// `RateLimit`: `"<class>";r=<remaining>;t=<seconds to reset>`.
    pub fn header(&self) -> String {
        format!(
            "\"{}\";r={};t={}",
            self.class.name(),
            self.remaining,
            self.reset
        )
    }
}

/// What a request shows to be counted by, beyond its address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential<'a> {
    /// A credential known to be one (an access token whose signature and claims hold, an API
    /// key this instance has found live): it has its own counter.
    Known(&'a str),
    /// None, or one not known to be genuine (made up, expired, an API key not yet seen live):
    /// counted on the address alone, as an anonymous caller. Made-up tokens mint no counters.
    Unknown,
}

/// The most counters kept (two per client and class at most): past it, moka's TinyLFU policy
/// drops the least used, so a flood from many addresses costs bounded memory (about 150 bytes
/// a counter: some 30 MB).
pub const CAPACITY: u64 = 200_000;

impl<'a> Credential<'a> {
    /// The credential of an `Authorization` header (`Bearer <token>`): known when `genuine`
    /// vouches for the token (cheaply: a signature, a set in memory, never the database).
    pub fn of(authorization: Option<&'a str>, genuine: impl FnOnce(&str) -> bool) -> Self {
        let token = authorization
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim)
            .filter(|t| !t.is_empty());
        match token {
            Some(t) if genuine(t) => Credential::Known(t),
            _ => Credential::Unknown,
        }
    }
}

/// What a counter counts: an address or a credential (by its digest), in one class.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Address(Class, Box<str>),
    Credential(Class, [u8; 16]),
}

/// One counter: the requests of the minute sliding to now (`infra::sliding`).
type Window = Sliding<{ WINDOW.as_secs() }>;

/// The counters, shared by every worker of the instance: a concurrent map (moka) whose
/// counters leave two windows after they were last used (by then they count nothing), with a
/// cap on their number. A count finds
/// its one or two counters by key and locks only those: no scan, no lock over all of them.
#[derive(Clone)]
pub struct RateLimiter {
    limits: Limits,
    windows: Cache<Key, Arc<Mutex<Window>>>,
    /// The reverse proxies whose `X-Forwarded-For` names the client (`infra::clients`).
    proxies: Proxies,
}

impl Default for RateLimiter {
    fn default() -> Self {
        RateLimiter::new(Limits::default())
    }
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("limits", &self.limits)
            .field("counters", &self.windows.entry_count())
            .finish()
    }
}

impl RateLimiter {
    pub fn new(limits: Limits) -> Self {
        RateLimiter::with_capacity(limits, CAPACITY)
    }

    /// A limiter keeping at most `capacity` counters.
    pub fn with_capacity(limits: Limits, capacity: u64) -> Self {
        RateLimiter {
            limits,
            windows: Cache::builder()
                .max_capacity(capacity)
                .time_to_idle(2 * WINDOW)
                .build(),
            proxies: Proxies::default(),
        }
    }

    /// This limiter, believing `proxies` about their clients (`TRUSTED_PROXIES`).
    pub fn trusting(self, proxies: Proxies) -> Self {
        RateLimiter { proxies, ..self }
    }

    /// The address a request from `peer` with `forwarded_for` (`X-Forwarded-For`) is counted
    /// by: its client's (`infra::clients`).
    pub fn address(&self, peer: Option<std::net::IpAddr>, forwarded_for: Option<&str>) -> String {
        clients::client(peer, forwarded_for, &self.proxies)
            .map(clients::key)
            .unwrap_or_default()
    }

    /// The counters kept now (after moka's pending evictions and expiries).
    pub fn counters(&self) -> u64 {
        self.windows.run_pending_tasks();
        self.windows.entry_count()
    }

    /// The limits this limiter counts by.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Counts a request of `class` from `address`, presenting `credential`: the tightest
    /// counter's state, refused when one is used up (a refused request is not counted).
    pub fn count(&self, class: Class, address: &str, credential: Credential<'_>) -> Verdict {
        self.count_on(&Counted::new(class, address, credential))
    }

    /// Counts a request on its counters ([`RateLimiter::count`]).
    pub fn count_on(&self, counted: &Counted) -> Verdict {
        self.add(counted, 1, true)
    }

    /// Charges a request already counted and answered `extra` more (a search that cost more
    /// than a read, `infra::charge`): never refused, its counters may pass their limit, and
    /// its caller's next request is refused until they reset. The tightest counter's state.
    pub fn charge(&self, counted: &Counted, extra: u32) -> Verdict {
        self.add(counted, extra, false)
    }

    /// Adds `n` to every counter of `counted`: only if none is used up when `refusing`.
    fn add(&self, counted: &Counted, n: u32, refusing: bool) -> Verdict {
        self.add_at(Instant::now(), counted, n, refusing)
    }

    /// [`RateLimiter::add`] at `now`.
    fn add_at(&self, now: Instant, counted: &Counted, n: u32, refusing: bool) -> Verdict {
        let class = counted.class;
        let counters: Vec<(Arc<Mutex<Window>>, u32)> = counted
            .keys
            .iter()
            .map(|(key, per_address)| {
                let w = self
                    .windows
                    .get_with_by_ref(key, || Arc::new(Mutex::new(Window::new(now))));
                (w, self.limits.of(class, *per_address))
            })
            .collect();
        // Always the address first, then the credential: no two counts wait on each other.
        let mut windows: Vec<_> = counters
            .iter()
            .map(|(w, _)| w.lock().unwrap_or_else(|e| e.into_inner()))
            .collect();
        let mut states = Vec::with_capacity(windows.len());
        for (w, (_, limit)) in windows.iter_mut().zip(&counters) {
            w.roll(now);
            let used = w.used(now);
            let reset = if refusing && used >= *limit {
                w.retry(now, *limit)
            } else {
                w.left(now).as_secs().max(1)
            };
            states.push((*limit, used, reset));
        }
        let refused = refusing && states.iter().any(|(limit, used, _)| used >= limit);
        if !refused {
            for w in windows.iter_mut() {
                w.add(n);
            }
        }
        drop(windows);
        // The tightest counter; when refused, the one refusing longest.
        let (limit, used, reset) = if refused {
            states
                .into_iter()
                .filter(|(limit, used, _)| used >= limit)
                .max_by_key(|(_, _, reset)| *reset)
        } else {
            states
                .into_iter()
                .min_by_key(|(limit, used, _)| limit.saturating_sub(*used))
        }
        .expect("the address is always counted");
        Verdict {
            class,
            limit,
            remaining: if refused {
                0
            } else {
                limit.saturating_sub(used.saturating_add(n))
            },
            reset,
            refused,
        }
    }
}

/// The counters one request is counted on (its address's, and its credential's when known),
/// kept to charge it after its answer ([`RateLimiter::charge`]).
#[derive(Debug, Clone)]
pub struct Counted {
    class: Class,
    keys: Vec<(Key, bool)>,
}

impl Counted {
    pub fn new(class: Class, address: &str, credential: Credential<'_>) -> Self {
        Counted {
            class,
            keys: keys(class, address, credential),
        }
    }

    pub fn class(&self) -> Class {
        self.class
    }
}

/// The counters a request is counted on, with whether each is an address's: its address's, and
/// its credential's when the credential is known (never for sign-in calls).
fn keys(class: Class, address: &str, credential: Credential<'_>) -> Vec<(Key, bool)> {
    let mut keys = vec![(Key::Address(class, address.into()), true)];
    if let (Credential::Known(c), false) = (credential, class == Class::Auth) {
        let digest = Sha256::digest(c.as_bytes());
        let mut id = [0u8; 16];
        id.copy_from_slice(&digest[..16]);
        keys.push((Key::Credential(class, id), false));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> RateLimiter {
        RateLimiter::new(Limits {
            read: 3,
            write: 2,
            auth: 2,
            search_micros: 1000,
        })
    }

    #[test]
    fn classes_follow_method_and_path() {
        assert_eq!(Class::of("GET", "/api/v1/players"), Class::Read);
        assert_eq!(Class::of("HEAD", "/api/v1/players"), Class::Read);
        assert_eq!(Class::of("POST", "/api/v1/players"), Class::Write);
        assert_eq!(Class::of("DELETE", "/api/v1/webhooks/1"), Class::Write);
        assert_eq!(Class::of("POST", "/api/v1/auth/token"), Class::Auth);
        assert_eq!(Class::of("POST", "/account/reset"), Class::Auth);
        // Reports with a table code are writes (a hall shares one address; the wrong-code
        // throttle bounds guessing).
        assert_eq!(
            Class::of("POST", "/hall/tournaments/1/rounds/1/tables/1"),
            Class::Write
        );
        assert_eq!(
            Class::of(
                "POST",
                "/api/v1/tournaments/1/rounds/1/tables/1/code-report"
            ),
            Class::Write
        );
        assert_eq!(
            Class::of("GET", "/hall/tournaments/1/rounds/1/tables/1"),
            Class::Read
        );
    }

    #[test]
    fn a_credential_is_refused_past_its_limit_and_others_are_not() {
        let r = tiny();
        for left in [2, 1, 0] {
            let v = r.count(Class::Read, "10.0.0.1", Credential::Known("token-a"));
            assert!(!v.refused);
            assert_eq!((v.limit, v.remaining), (3, left));
        }
        let v = r.count(Class::Read, "10.0.0.1", Credential::Known("token-a"));
        assert!(v.refused && v.remaining == 0 && v.reset >= 1 && v.reset == 80);
        assert_eq!(v.header(), format!("\"read\";r=0;t={}", v.reset));
        assert_eq!(v.policy_header(), "\"read\";q=3;w=60");
        // Another credential from the same address has its own count (the address allows 6).
        assert!(
            !r.count(Class::Read, "10.0.0.1", Credential::Known("token-b"))
                .refused
        );
        // Writes are another class.
        assert!(
            !r.count(Class::Write, "10.0.0.1", Credential::Known("token-a"))
                .refused
        );
    }

    #[test]
    fn a_costly_read_is_charged_after_its_answer_on_every_counter() {
        let r = tiny();
        let a = Counted::new(Class::Read, "10.0.0.9", Credential::Known("token-a"));
        assert_eq!(a.class(), Class::Read);
        assert_eq!(r.count_on(&a).remaining, 2);
        // Charged nothing more: as it was.
        let v = r.charge(&a, 0);
        assert!(!v.refused);
        assert_eq!((v.limit, v.remaining), (3, 2));
        // Charged one more: one read left of the credential's three.
        let v = r.charge(&a, 1);
        assert!(!v.refused);
        assert_eq!((v.limit, v.remaining), (3, 1));
        // Charged past the limit: the answer stands (never refused), nothing is left, and the
        // next read is refused.
        let v = r.charge(&a, 5);
        assert!(!v.refused);
        assert_eq!(v.remaining, 0);
        assert!(r.count_on(&a).refused);
        // The address was charged too (2 + 5 + 1 of its 6): another credential from it is
        // refused, an anonymous caller from it as well.
        assert!(
            r.count(Class::Read, "10.0.0.9", Credential::Known("token-b"))
                .refused
        );
        assert!(
            r.count(Class::Read, "10.0.0.9", Credential::Unknown)
                .refused
        );
        // Other addresses and classes are untouched.
        assert!(
            !r.count(Class::Read, "10.0.0.8", Credential::Unknown)
                .refused
        );
        assert!(
            !r.count(Class::Write, "10.0.0.9", Credential::Known("token-a"))
                .refused
        );
        // A huge charge saturates.
        let b = Counted::new(Class::Read, "10.0.0.7", Credential::Unknown);
        assert_eq!(r.charge(&b, u32::MAX).remaining, 0);
        assert!(r.count_on(&b).refused);
    }

    #[test]
    fn the_search_time_of_a_read_is_set_in_microseconds() {
        assert_eq!(Limits::default().per_read(), Duration::from_millis(1));
        let off = Limits {
            search_micros: 0,
            ..Limits::default()
        };
        assert!(off.per_read().is_zero());
    }

    #[test]
    fn an_address_is_limited_whatever_credentials_it_shows() {
        let r = tiny();
        for i in 0..6 {
            assert!(
                !r.count(Class::Read, "10.0.0.2", Credential::Known(&format!("t{i}")))
                    .refused
            );
        }
        let v = r.count(Class::Read, "10.0.0.2", Credential::Known("fresh"));
        assert!(v.refused);
        assert_eq!(v.limit, 6);
        assert!(
            !r.count(Class::Read, "10.0.0.3", Credential::Unknown)
                .refused
        );
        // Sign-ins count per address only.
        assert!(
            !r.count(Class::Auth, "10.0.0.4", Credential::Known("a"))
                .refused
        );
        assert!(
            !r.count(Class::Auth, "10.0.0.4", Credential::Known("b"))
                .refused
        );
        assert!(
            r.count(Class::Auth, "10.0.0.4", Credential::Known("c"))
                .refused
        );
    }

    #[test]
    fn only_a_vouched_bearer_token_is_a_known_credential() {
        let yes = |_: &str| true;
        let no = |_: &str| false;
        assert_eq!(
            Credential::of(Some("Bearer abc"), yes),
            Credential::Known("abc")
        );
        assert_eq!(
            Credential::of(Some("bearer  abc "), yes),
            Credential::Known("abc")
        );
        assert_eq!(Credential::of(Some("Bearer abc"), no), Credential::Unknown);
        assert_eq!(Credential::of(Some("Basic abc"), yes), Credential::Unknown);
        assert_eq!(Credential::of(Some("Bearer  "), yes), Credential::Unknown);
        assert_eq!(Credential::of(None, yes), Credential::Unknown);
        // Only the token is shown to the judge.
        assert_eq!(
            Credential::of(Some("Bearer tk_1"), |t| t == "tk_1"),
            Credential::Known("tk_1")
        );
    }

    #[test]
    fn made_up_credentials_count_on_their_address_as_anonymous_callers() {
        let r = tiny();
        for i in 0..6 {
            let v = r.count(Class::Read, "10.0.0.5", Credential::Unknown);
            assert!(!v.refused, "{i}");
            assert_eq!(v.limit, 6);
        }
        let v = r.count(Class::Read, "10.0.0.5", Credential::Unknown);
        assert!(v.refused);
        assert_eq!(v.policy_header(), "\"read\";q=6;w=60");
        // A known credential from that address is refused too (the address is used up), but
        // its own counter was never touched: elsewhere it has its 3.
        assert!(
            r.count(Class::Read, "10.0.0.5", Credential::Known("k"))
                .refused
        );
        let v = r.count(Class::Read, "10.0.0.6", Credential::Known("k"));
        assert_eq!((v.refused, v.limit, v.remaining), (false, 3, 2));
        // Another address is untouched.
        let v = r.count(Class::Read, "10.0.0.7", Credential::Unknown);
        assert_eq!((v.refused, v.remaining), (false, 5));
    }

    #[test]
    fn millions_of_made_up_credentials_keep_one_counter_and_one_key_per_count() {
        let r = RateLimiter::new(Limits::default());
        let known = "the one real token";
        let mut refused = 0u32;
        // All at one instant: the count slides, so a loop spread over more than a minute on a
        // slow machine would let a varying number more through.
        let t0 = Instant::now();
        for i in 0..2_000_000u32 {
            let header = format!("Bearer made-up-{i:x}");
            let credential = Credential::of(Some(&header), |t| t == known);
            assert_eq!(credential, Credential::Unknown);
            // The work of one count: the counters it touches, found by key (no scan).
            assert_eq!(keys(Class::Read, "10.6.6.6", credential).len(), 1);
            let counted = Counted::new(Class::Read, "10.6.6.6", credential);
            refused += u32::from(r.add_at(t0, &counted, 1, true).refused);
        }
        // All on the address's counter, which allowed its 2,400.
        assert_eq!(2_000_000 - refused, 2_400);
        assert_eq!(r.counters(), 1);
        // A real credential still has its own counter beside it.
        let header = format!("Bearer {known}");
        let credential = Credential::of(Some(&header), |t| t == known);
        assert_eq!(keys(Class::Read, "10.0.0.1", credential).len(), 2);
        let v = r.count(Class::Read, "10.0.0.1", credential);
        assert_eq!((v.refused, v.limit, v.remaining), (false, 1200, 1199));
        assert_eq!(r.counters(), 3);
    }

    #[test]
    fn counters_from_countless_addresses_stay_under_the_cap() {
        let r = RateLimiter::with_capacity(Limits::default(), 1_000);
        for i in 0..200_000u32 {
            let address = format!("2001:db8::{:x}:{:x}", i >> 16, i & 0xffff);
            assert!(!r.count(Class::Read, &address, Credential::Unknown).refused);
        }
        assert!(r.counters() <= 1_000, "{}", r.counters());
        // Counting goes on as before.
        for _ in 0..2_400 {
            assert!(
                !r.count(Class::Read, "10.0.0.1", Credential::Unknown)
                    .refused
            );
        }
        assert!(
            r.count(Class::Read, "10.0.0.1", Credential::Unknown)
                .refused
        );
    }

    /// One credential's read at `secs` seconds after `t0` on `r`.
    fn read_at(r: &RateLimiter, t0: Instant, secs: u64) -> Verdict {
        let a = Counted::new(Class::Read, "10.0.0.1", Credential::Known("token-a"));
        r.add_at(t0 + Duration::from_secs(secs), &a, 1, true)
    }

    #[test]
    fn the_minute_slides_a_limit_used_up_comes_back_as_it_passes() {
        let r = tiny();
        let t0 = Instant::now();
        for left in [2, 1, 0] {
            assert_eq!(read_at(&r, t0, 0).remaining, left);
        }
        // Used up: the window's 3 weigh in full until it ends, then as they leave the minute.
        // Retry-After: one read is allowed once 3 weigh 2 (a third into the next window).
        let v = read_at(&r, t0, 0);
        assert!(v.refused);
        assert_eq!(v.reset, 80);
        assert!(read_at(&r, t0, 59).refused);
        // The next window's start gives no new limit at once (fixed windows did: twice the limit
        // within a second at the boundary).
        assert!(read_at(&r, t0, 60).refused);
        assert!(read_at(&r, t0, 79).refused);
        let v = read_at(&r, t0, 80);
        assert!(!v.refused);
        assert_eq!((v.remaining, v.reset), (0, 40));
        // One more a third of a minute later.
        let v = read_at(&r, t0, 80);
        assert!(v.refused);
        assert_eq!(v.reset, 20);
        assert!(read_at(&r, t0, 99).refused);
        assert!(!read_at(&r, t0, 100).refused);
        // Two windows on, nothing is carried: the whole limit again.
        for left in [2, 1, 0] {
            assert_eq!(read_at(&r, t0, 240).remaining, left);
        }
    }

    #[test]
    fn a_charge_past_the_limit_weighs_on_the_next_window() {
        let r = tiny();
        let t0 = Instant::now();
        let a = Counted::new(Class::Read, "10.0.0.1", Credential::Known("token-a"));
        assert!(!r.add_at(t0, &a, 1, true).refused);
        // A costly search charged 5 more: 6 of 3.
        assert_eq!(r.add_at(t0, &a, 5, false).remaining, 0);
        // 6 weigh 2 or less once two thirds of the next window have passed: 100 s.
        let v = read_at(&r, t0, 30);
        assert!(v.refused);
        assert_eq!(v.reset, 70);
        assert!(read_at(&r, t0, 61).refused);
        assert!(read_at(&r, t0, 99).refused);
        assert!(!read_at(&r, t0, 100).refused);
    }

    #[test]
    fn retry_after_is_when_a_request_is_allowed_again_whatever_came_before() {
        // Histories of reads and charges at random moments over some minutes: whenever a read
        // is refused, the same read after its `Retry-After` (and nothing else) is allowed.
        let mut rng = crate::domain::rng::DrawRng::from_seed([7; 32]);
        let mut next = move |n: u64| rng.below(n);
        for _ in 0..120 {
            let t0 = Instant::now();
            let a = Counted::new(Class::Read, "10.0.0.1", Credential::Known("token-a"));
            // (when, how many, whether it may be refused): replayed on a limiter of its own
            // for each refusal, so that the probe changes nothing that follows.
            let mut history: Vec<(Duration, u32, bool)> = Vec::new();
            let mut at = Duration::ZERO;
            for _ in 0..40 {
                at += Duration::from_millis(next(15_000));
                let step = if next(5) == 0 {
                    (at, next(4) as u32, false)
                } else {
                    (at, 1, true)
                };
                history.push(step);
                let replay = tiny();
                let mut last = None;
                for &(when, n, refusing) in &history {
                    last = Some(replay.add_at(t0 + when, &a, n, refusing));
                }
                let v = last.expect("a step was replayed");
                if v.refused {
                    let later = t0 + at + Duration::from_secs(v.reset);
                    assert!(
                        !replay.add_at(later, &a, 1, true).refused,
                        "retry after {v:?}"
                    );
                }
            }
        }
    }
}
