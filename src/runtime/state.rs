//! What every handler can reach: the database pool, the token keys and the leaderboard cache.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::auth::JwtKeys;

use crate::db::{DbConn, DbPool};
use crate::error::ApiError;
use crate::infra::charge;
use crate::infra::kept::{self, KeptBody, Slots};
use crate::infra::live::Subject;
use crate::infra::search::SearchIndex;
use crate::infra::throttle::LoginThrottle;
use crate::services::accounts::auth::AccountCache;
use crate::services::ratings::leaderboard::LeaderboardCache;

/// No answer from the search index's memory (the reads that are not searches).
type NotHeld = fn(&SearchIndex) -> Result<Option<KeptBody>, ApiError>;

/// Shared application state, cloned into every worker.
#[derive(Clone)]
pub struct AppState {
    pub pool: DbPool,
    /// A pool on a streaming replica (`DATABASE_READ_URL`) for the reads that tolerate
    /// replication lag ([`AppState::run_lagging`]); `None`: they use `pool`.
    pub replica: Option<DbPool>,
    pub jwt: JwtKeys,
    /// The current leaderboards of the most recently read rating pools (shared by every
    /// worker; checked against the database's versions on every request).
    pub leaderboards: LeaderboardCache,
    /// Failed sign-ins per account and client address (this instance's).
    pub login_throttle: LoginThrottle,
    /// Requests per class, credential and address (this instance's).
    pub rate_limits: crate::infra::ratelimit::RateLimiter,
    /// The accounts behind recently used tokens (role and existence, re-read every 2 s).
    pub accounts: AccountCache,
    /// Open while the database is unreachable: requests get 503 at once instead of each
    /// waiting the pool's checkout timeout.
    pub circuit: DbCircuit,
    /// The live feed's fan-out: committed events from the instance's one LISTEN connection.
    pub live: crate::infra::live::LiveHub,
    /// The standings bodies this instance served, kept while their tournament is unchanged.
    pub standings: crate::infra::standings_cache::StandingsCache,
    /// Public reads kept while no change to their tournament is announced (served without
    /// the database).
    pub kept: crate::infra::kept::KeptReads,
    /// The search index of the registry's names (issue 42), current with `live`'s
    /// announcements; PostgreSQL answers until it has been built.
    pub search: crate::infra::search::SearchIndex,
    /// The clock scheduling deadlines run on (the system clock; tests move it forward).
    pub clock: crate::services::play::scheduling::Clock,
    /// How webhook deliveries go out (private targets, retry delays).
    pub webhooks: crate::services::integrations::webhooks::WebhookPolicy,
    /// The instance's metrics registry, rendered by `GET /metrics`.
    pub metrics: crate::infra::metrics::Metrics,
    /// Sign-up mode, e-mail and the sign-up throttle (issue 29).
    pub signup: SignupSetup,
    /// The key archives are signed with and the keys whose archives import here (issue 37).
    pub archive_keys: crate::services::archives::ArchiveKeys,
    /// The key of the result slips' table codes and of the links to the slips (issue 41).
    pub hall: crate::auth::table_codes::HallKeys,
}

/// Who may sign up here, how mail goes out, and the throttle on sign-ups and reset requests.
#[derive(Clone, Debug, Default)]
pub struct SignupSetup {
    /// `SIGNUP_MODE` (default `closed`).
    pub mode: crate::domain::accounts::SignupMode,
    /// The SMTP transport of `SMTP_URL` and `MAIL_FROM`, if configured.
    pub mail: crate::infra::mail::Mail,
    /// Where the links in the messages lead (`PUBLIC_BASE_URL`, `MAIL_LINK_*`).
    pub links: crate::services::accounts::links::MailLinks,
    /// Sign-ups and password-reset requests, counted like failed sign-ins: per address asked
    /// for and per client address (this instance's).
    pub throttle: LoginThrottle,
}

/// A pooled connection: 503 when none comes within the checkout timeout. Only a failure to
/// reach the database opens the circuit; a pool that is merely busy (every connection in use
/// for the whole timeout, under load) answers this request 503 and leaves the others alone.
fn checkout(pool: &DbPool, circuit: &DbCircuit) -> Result<DbConn, ApiError> {
    let conn = pool.get().map_err(|e| checkout_failed(circuit, e))?;
    circuit.reset();
    Ok(conn)
}

fn checkout_failed(circuit: &DbCircuit, e: r2d2::Error) -> ApiError {
    // r2d2 appends the last connection error to its timeout message when connecting failed.
    if e.to_string() != "timed out waiting for connection" {
        circuit.trip();
    }
    ApiError::from(e)
}

/// A circuit breaker in front of the pool. When the database cannot be reached or a connection
/// is lost, it opens for [`DbCircuit::OPEN_FOR`]: every request is answered 503
/// (`Retry-After: 1`) without touching the pool. After that, one request at a time probes the database (the others keep
/// failing fast until the probe succeeds), and the first success closes it.
#[derive(Clone, Default)]
pub struct DbCircuit {
    /// Milliseconds since the Unix epoch until which the circuit stays open (0: closed).
    open_until: Arc<AtomicU64>,
}

impl DbCircuit {
    /// How long the circuit stays open after a failure before the next probe.
    pub const OPEN_FOR: Duration = Duration::from_secs(1);

    fn now_ms() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }

    /// Ok when a request may use the database: the circuit is closed, or this request is the
    /// one probe let through after the open period (it reserves the next period for itself).
    pub fn admit(&self) -> Result<(), ApiError> {
        let until = self.open_until.load(Ordering::Acquire);
        if until == 0 {
            return Ok(());
        }
        let now = Self::now_ms();
        if now >= until {
            let next = now + Self::OPEN_FOR.as_millis() as u64;
            if self
                .open_until
                .compare_exchange(until, next, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Ok(());
            }
        }
        Err(ApiError::Unavailable(
            "the database is not reachable; retry shortly".into(),
        ))
    }

    /// After a failure to reach the database: open (again) for [`Self::OPEN_FOR`].
    pub fn trip(&self) {
        let next = Self::now_ms() + Self::OPEN_FOR.as_millis() as u64;
        self.open_until.store(next, Ordering::Release);
    }

    /// After the database answered: closed.
    pub fn reset(&self) {
        if self.open_until.load(Ordering::Acquire) != 0 {
            self.open_until.store(0, Ordering::Release);
        }
    }

    /// Whether the circuit is open now.
    pub fn is_open(&self) -> bool {
        let until = self.open_until.load(Ordering::Acquire);
        until != 0 && Self::now_ms() < until
    }

    /// Watches one use of the database: a lost database opens the circuit, anything else
    /// (success or an ordinary error) closes it.
    pub fn observe<T>(&self, r: Result<T, ApiError>) -> Result<T, ApiError> {
        match &r {
            Err(ApiError::Unavailable(_)) => self.trip(),
            _ => self.reset(),
        }
        r
    }
}

/// Where a kept read the search index does not answer is made
/// ([`AppState::run_kept_searched`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// On the replica when there is one, as [`AppState::run_kept_lagging`] reads (the
    /// registry's lists).
    Replica,
    /// On the primary, as [`AppState::run_kept`] reads (a player's profile).
    Primary,
}

impl AppState {
    /// A pooled connection; 503 when the database cannot be reached (at once while the
    /// circuit is open).
    pub fn conn(&self) -> Result<DbConn, ApiError> {
        self.circuit.admit()?;
        checkout(&self.pool, &self.circuit)
    }

    /// Readiness: whether the database answers a trivial query, within half a second (a
    /// health checker must not wait the pool's checkout timeout).
    pub async fn ready(&self) -> Result<(), ApiError> {
        self.circuit.admit()?;
        let pool = self.pool.clone();
        let circuit = self.circuit.clone();
        actix_web::web::block(move || {
            let mut conn = pool
                .get_timeout(Duration::from_millis(500))
                .map_err(|e| checkout_failed(&circuit, e))?;
            circuit.observe(crate::services::health::database_answers(&mut conn))
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
    }

    /// A read of `subject` that this instance may keep under `key`: for an anonymous caller
    /// (`anonymous`), the kept body while no change to the subject has been announced
    /// since it was kept (no connection is taken); else `f` on a connection, one rebuild per key
    /// at a time and a few in all (`infra::kept`), its answer kept when `f` says it is
    /// public. Signed-in callers always get `f`'s exact answer. Returns whether the answer is
    /// public, and the answer.
    pub async fn run_kept<F>(
        &self,
        anonymous: bool,
        key: String,
        subject: Subject,
        f: F,
    ) -> Result<(bool, KeptBody), ApiError>
    where
        F: FnOnce(&mut DbConn) -> Result<(bool, KeptBody), ApiError> + Send + 'static,
    {
        if !anonymous {
            return self.run(f).await;
        }
        let held = None::<NotHeld>;
        self.kept_read(key, subject, false, Slots::Rebuild, held, f)
            .await
    }

    /// An anonymous read of `subject` kept under `key` as [`AppState::run_kept`] keeps it, that
    /// tolerates replication lag: rebuilt on the replica when there is one
    /// ([`AppState::run_lagging`]) and then kept for [`kept::KEEP_LAGGING`] at most, since the
    /// replica may not yet show the change that moved the subject's generation. Without a
    /// replica, exactly as `run_kept`. For the anonymous pages of the registry's lists.
    pub async fn run_kept_lagging<F>(
        &self,
        key: String,
        subject: Subject,
        f: F,
    ) -> Result<KeptBody, ApiError>
    where
        F: FnOnce(&mut DbConn) -> Result<(bool, KeptBody), ApiError> + Send + 'static,
    {
        let held = None::<NotHeld>;
        Ok(self
            .kept_read(key, subject, true, Slots::Rebuild, held, f)
            .await?
            .1)
    }

    /// An anonymous read kept as [`AppState::run_kept_lagging`] keeps it, answered from the
    /// search index's memory on this thread (`held`: no connection, no blocking thread) once
    /// the index has applied every change committed before the request
    /// (`SearchIndex::current`), else (or where `held` declines) by `f` in a search slot,
    /// where `fallback` says: a search or a page of a list, or a registry row the index holds
    /// whole (a player's profile).
    pub async fn run_kept_searched<H, F>(
        &self,
        key: String,
        subject: Subject,
        fallback: Fallback,
        held: H,
        f: F,
    ) -> Result<KeptBody, ApiError>
    where
        H: FnOnce(&SearchIndex) -> Result<Option<KeptBody>, ApiError>,
        F: FnOnce(&mut DbConn) -> Result<(bool, KeptBody), ApiError> + Send + 'static,
    {
        let (slots, held) = if self.search.built() {
            (Slots::Held, Some(held))
        } else {
            (Slots::Rebuild, None)
        };
        let lagging = fallback == Fallback::Replica;
        Ok(self
            .kept_read(key, subject, lagging, slots, held, f)
            .await?
            .1)
    }

    async fn kept_read<H, F>(
        &self,
        key: String,
        subject: Subject,
        lagging: bool,
        slots: Slots,
        held: Option<H>,
        f: F,
    ) -> Result<(bool, KeptBody), ApiError>
    where
        H: FnOnce(&SearchIndex) -> Result<Option<KeptBody>, ApiError>,
        F: FnOnce(&mut DbConn) -> Result<(bool, KeptBody), ApiError> + Send + 'static,
    {
        // Only public answers are kept.
        if let Some(kept) = self.kept.fresh(&key, self.live.generation(subject)) {
            self.metrics.kept_read(true);
            return Ok((true, kept));
        }
        if slots == Slots::Held {
            self.kept.missed(&key);
        }
        let mut flight = self.kept.flight(&key, slots).await;
        // Whoever held the flight before may have kept it meanwhile.
        let generation = self.live.generation(subject);
        if let Some(kept) = self.kept.fresh(&key, generation) {
            self.metrics.kept_read(true);
            return Ok((true, kept));
        }
        self.metrics.kept_read(false);
        if let Some(held) = held {
            if self.search.current().await {
                let (held, spent) = charge::claimed(|| held(&self.search));
                charge::to_request(spent);
                if let Some(body) = held? {
                    // Answered in memory: kept only once asked again (most typed names are
                    // read once, and keeping each cost a tenth of its answer).
                    self.kept.keep_if_asked_again(key, generation, body.clone());
                    return Ok((true, body));
                }
            }
            self.kept.slot(&mut flight, Slots::Search).await;
        }
        let on_replica = lagging && self.replica.is_some();
        let (public, body) = if on_replica {
            self.run_lagging(f).await?
        } else {
            self.run(f).await?
        };
        if public {
            let until = on_replica.then(|| std::time::Instant::now() + kept::KEEP_LAGGING);
            self.kept.keep_until(key, generation, body.clone(), until);
        }
        Ok((public, body))
    }

    /// Runs the read `f` on the replica when there is one (`DATABASE_READ_URL`), else as
    /// [`AppState::run`]. Only for reads that tolerate replication lag: anonymous reads that
    /// are not kept (a kept body is tagged with the primary's generation, so it must be read
    /// from the primary) and that no writer waits to see (`docs/scaling.md`). A replica that
    /// cannot be reached sends the read to the primary.
    pub async fn run_lagging<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConn) -> Result<T, ApiError> + Send + 'static,
    {
        let Some(replica) = self.replica.clone() else {
            return self.run(f).await;
        };
        let attempt = actix_web::web::block(move || match replica.get() {
            Ok(mut conn) => Ok(charge::claimed(|| f(&mut conn))),
            Err(e) => Err((f, e)),
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
        match attempt {
            Ok((answer, spent)) => {
                charge::to_request(spent);
                answer
            }
            Err((f, e)) => {
                tracing::warn!(error = %e, "the read replica is not reachable; reading from the primary");
                self.run(f).await
            }
        }
    }

    /// Runs `f` with a connection on the blocking thread pool (diesel is synchronous), outside
    /// any transaction (reads that need no consistent snapshot, and work that opens its own).
    pub async fn run<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConn) -> Result<T, ApiError> + Send + 'static,
    {
        self.circuit.admit()?;
        let pool = self.pool.clone();
        let circuit = self.circuit.clone();
        let (answer, spent) = actix_web::web::block(move || {
            let mut conn = match checkout(&pool, &circuit) {
                Ok(conn) => conn,
                Err(e) => return (Err(e), Duration::ZERO),
            };
            // A search the read made is charged to its request (`infra::charge`).
            charge::claimed(|| circuit.observe(f(&mut conn)))
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
        charge::to_request(spent);
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 15, item 8: while the database is unreachable, requests fail at once; after the
    /// open period exactly one request probes it; a success closes the circuit.
    #[test]
    fn the_circuit_opens_probes_once_and_closes() {
        let c = DbCircuit::default();
        assert!(c.admit().is_ok());
        let lost: Result<(), ApiError> = Err(ApiError::Unavailable("down".into()));
        assert!(c.observe(lost).is_err());
        assert!(c.is_open());
        assert!(matches!(c.admit(), Err(ApiError::Unavailable(_))));
        std::thread::sleep(DbCircuit::OPEN_FOR + Duration::from_millis(50));
        assert!(c.admit().is_ok(), "one probe goes through");
        assert!(c.admit().is_err(), "the others still fail fast");
        // An ordinary error means the database answered.
        let answered: Result<(), ApiError> = Err(ApiError::NotFound("no such player".into()));
        let _ = c.observe(answered);
        assert!(!c.is_open());
        assert!(c.admit().is_ok());
    }
}
