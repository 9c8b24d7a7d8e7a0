//! Rate limits for every caller (issue 30, item 9): requests are counted in fixed one-minute
//! windows per class of operation, per credential (the bearer token or API key presented) and
//! per client address. Past a limit the answer is 429 with `Retry-After`; every counted answer
//! carries the IETF httpapi draft's `RateLimit-Policy` and `RateLimit` headers
//! (draft-ietf-httpapi-ratelimit-headers: `"read";q=1200;w=60` and `"read";r=1187;t=42`).
//! Counters live in this instance's memory (each instance counts its own share).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// The window of every limit.
pub const WINDOW: Duration = Duration::from_secs(60);

/// A class of operations with its own limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// GET and HEAD.
    Read,
    /// POST, PUT, PATCH, DELETE.
    Write,
    /// Sign-in, refresh and sign-out (`/api/v1/auth/...`), counted per address only.
    Auth,
}

impl Class {
    /// The class of a request.
    pub fn of(method: &str, path: &str) -> Self {
        if path.starts_with("/api/v1/auth/") {
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
}

impl Default for Limits {
    /// 1,200 reads, 300 writes per minute per credential (twice that per address); 60 sign-in
    /// calls per minute per address.
    fn default() -> Self {
        Limits {
            read: 1200,
            write: 300,
            auth: 60,
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
}

/// What a counted request learnt: the tightest of its counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub class: Class,
    /// The limit of the tightest counter.
    pub limit: u32,
    /// Requests left in its window (0 when refused).
    pub remaining: u32,
    /// Seconds until its window ends.
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

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    count: u32,
}

/// The counters, shared by every worker of the instance.
#[derive(Debug, Clone, Default)]
pub struct RateLimiter {
    limits: Limits,
    windows: Arc<Mutex<HashMap<String, Window>>>,
}

impl RateLimiter {
    pub fn new(limits: Limits) -> Self {
        RateLimiter {
            limits,
            windows: Arc::default(),
        }
    }

    /// Counts a request of `class` from `address`, presenting `credential` (the Authorization
    /// header's token, if any): the tightest counter's state, refused when one is used up (a
    /// refused request is not counted).
    pub fn count(&self, class: Class, address: &str, credential: Option<&str>) -> Verdict {
        let now = Instant::now();
        let mut keys = vec![(format!("{}:addr:{address}", class.name()), true)];
        if let (Some(c), false) = (credential, class == Class::Auth) {
            let digest = Sha256::digest(c.as_bytes());
            keys.push((
                format!("{}:cred:{}", class.name(), hex::encode(&digest[..12])),
                false,
            ));
        }
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() > 100_000 {
            windows.retain(|_, w| now.duration_since(w.started) < WINDOW);
        }
        let mut states = Vec::new();
        for (key, per_address) in &keys {
            let limit = self.limits.of(class, *per_address);
            let w = windows.entry(key.clone()).or_insert(Window {
                started: now,
                count: 0,
            });
            if now.duration_since(w.started) >= WINDOW {
                *w = Window {
                    started: now,
                    count: 0,
                };
            }
            let reset = (WINDOW - now.duration_since(w.started)).as_secs().max(1);
            states.push((key.clone(), limit, w.count, reset));
        }
        let refused = states.iter().any(|(_, limit, count, _)| count >= limit);
        if !refused {
            for (key, ..) in &states {
                if let Some(w) = windows.get_mut(key) {
                    w.count += 1;
                }
            }
        }
        let (_, limit, count, reset) = states
            .into_iter()
            .min_by_key(|(_, limit, count, _)| limit.saturating_sub(*count))
            .expect("the address is always counted");
        Verdict {
            class,
            limit,
            remaining: if refused {
                0
            } else {
                limit.saturating_sub(count + 1)
            },
            reset,
            refused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> RateLimiter {
        RateLimiter::new(Limits {
            read: 3,
            write: 2,
            auth: 2,
        })
    }

    #[test]
    fn classes_follow_method_and_path() {
        assert_eq!(Class::of("GET", "/api/v1/players"), Class::Read);
        assert_eq!(Class::of("HEAD", "/api/v1/players"), Class::Read);
        assert_eq!(Class::of("POST", "/api/v1/players"), Class::Write);
        assert_eq!(Class::of("DELETE", "/api/v1/webhooks/1"), Class::Write);
        assert_eq!(Class::of("POST", "/api/v1/auth/token"), Class::Auth);
    }

    #[test]
    fn a_credential_is_refused_past_its_limit_and_others_are_not() {
        let r = tiny();
        for left in [2, 1, 0] {
            let v = r.count(Class::Read, "10.0.0.1", Some("token-a"));
            assert!(!v.refused);
            assert_eq!((v.limit, v.remaining), (3, left));
        }
        let v = r.count(Class::Read, "10.0.0.1", Some("token-a"));
        assert!(v.refused && v.remaining == 0 && v.reset >= 1 && v.reset <= 60);
        assert_eq!(v.header(), format!("\"read\";r=0;t={}", v.reset));
        assert_eq!(v.policy_header(), "\"read\";q=3;w=60");
        // Another credential from the same address has its own count (the address allows 6).
        assert!(!r.count(Class::Read, "10.0.0.1", Some("token-b")).refused);
        // Writes are another class.
        assert!(!r.count(Class::Write, "10.0.0.1", Some("token-a")).refused);
    }

    #[test]
    fn an_address_is_limited_whatever_credentials_it_shows() {
        let r = tiny();
        for i in 0..6 {
            assert!(
                !r.count(Class::Read, "10.0.0.2", Some(&format!("t{i}")))
                    .refused
            );
        }
        let v = r.count(Class::Read, "10.0.0.2", Some("fresh"));
        assert!(v.refused);
        assert_eq!(v.limit, 6);
        assert!(!r.count(Class::Read, "10.0.0.3", None).refused);
        // Sign-ins count per address only.
        assert!(!r.count(Class::Auth, "10.0.0.4", Some("a")).refused);
        assert!(!r.count(Class::Auth, "10.0.0.4", Some("b")).refused);
        assert!(r.count(Class::Auth, "10.0.0.4", Some("c")).refused);
    }
}
