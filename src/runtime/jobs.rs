//! Background work every instance runs next to its HTTP workers, once a second: the deadlines
//! of self-scheduled games (`services::play::scheduling`), webhook deliveries
//! (`services::integrations::webhooks`) and the mail outbox (`services::accounts::outbox`). Several instances may run it at once: each game and each delivery is
//! taken under a row lock (or a lease) that the others skip.
//!
//! The jobs have their own connection (named `tourney-jobs` in `pg_stat_activity`), outside the
//! request pool: they never take a connection from a request, and their few small queries a
//! second do not grow with the number of clients.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::web;
use diesel::{Connection, PgConnection};

use crate::error::ApiError;
use crate::infra::mail::Outgoing;
use crate::runtime::state::AppState;
use crate::services::accounts::outbox;
use crate::services::integrations::webhook_dns::{CheckedResolver, Unreachable};
use crate::services::integrations::webhook_queue;
use crate::services::integrations::webhook_queue::Claimed;
use crate::services::integrations::webhooks;
use crate::services::play::scheduling_deadlines;

/// How often the jobs run.
const TICK: Duration = Duration::from_secs(1);

/// Messages one instance sends per tick.
const MAIL_PER_TICK: i64 = 20;

/// The `application_name` of the jobs' connection.
pub const APPLICATION_NAME: &str = "tourney-jobs";

fn job_url(url: &str) -> String {
    let joiner = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joiner}application_name={APPLICATION_NAME}")
}

type Shared = Arc<Mutex<Option<PgConnection>>>;

/// Runs `f` on the jobs' connection (made again after a failure) on a blocking thread.
async fn on_connection<T: Send + 'static>(
    url: &str,
    conn: &Shared,
    f: impl FnOnce(&mut PgConnection) -> Result<T, ApiError> + Send + 'static,
) -> Option<T> {
    let (url, conn) = (url.to_string(), conn.clone());
    web::block(move || {
        let mut slot = conn.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = PgConnection::establish(&url).ok();
        }
        let c = slot.as_mut()?;
        match f(c) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::debug!(error = %e, "a background job did not run this time");
                *slot = None;
                None
            }
        }
    })
    .await
    .ok()
    .flatten()
}

/// The jobs' names in the metrics (`tourney_job_lag_seconds{job=..}`).
pub const DEADLINES: &str = "deadlines";
pub const WEBHOOKS: &str = "webhooks";
pub const MAIL: &str = "mail";

/// Deliveries one instance has in flight at once.
pub const MAX_IN_FLIGHT: usize = 32;
/// Deliveries of one endpoint in flight at once: a receiver that never answers holds at most
/// these, never the others' turn.
pub const PER_ENDPOINT: usize = 2;
/// How long one attempt may take (connecting included) before it counts as failed.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// Spawns the jobs on the current actix runtime; they end with the runtime. The deadlines and
/// the webhooks run apart, each on its own connection: a slow receiver never delays a
/// deadline. Each tick that completes is recorded in the metrics (its duration, and the time
/// of the last success).
pub fn start(state: web::Data<AppState>) {
    let url = job_url(state.live.database_url());
    // Names resolve only through the checked resolver, at each connection (no proxy: it
    // would resolve them itself), and no redirect is followed.
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .timeout(ATTEMPT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(CheckedResolver::new(
            state.webhooks.lookup.clone(),
            state.webhooks.allow_private,
        )))
        .user_agent("tourney-webhooks/1")
        .build();
    state.metrics.job_started(DEADLINES);
    state.metrics.job_started(WEBHOOKS);
    let deadlines_state = state.clone();
    let deadlines_url = url.clone();
    if state.signup.mail.configured() {
        state.metrics.job_started(MAIL);
    }
    actix_web::rt::spawn(async move {
        let (state, url) = (deadlines_state, deadlines_url);
        let conn: Shared = Arc::new(Mutex::new(None));
        let mut tick = actix_web::rt::time::interval(TICK);
        loop {
            tick.tick().await;
            let now = state.clock.now();
            let started = Instant::now();
            let deadlines = on_connection(&url, &conn, move |c| {
                scheduling_deadlines::apply_deadlines(c, now)
            })
            .await;
            if deadlines.is_some() {
                state.metrics.job_ticked(DEADLINES, started.elapsed());
            }
        }
    });
    actix_web::rt::spawn(async move {
        let conn: Shared = Arc::new(Mutex::new(None));
        let flights = Flights::default();
        let mut tick = actix_web::rt::time::interval(TICK);
        loop {
            tick.tick().await;
            let started = Instant::now();
            if deliver(&state, &url, &conn, client.as_ref().ok(), &flights).await {
                state.metrics.job_ticked(WEBHOOKS, started.elapsed());
            }
            let started = Instant::now();
            if state.signup.mail.configured() && send_mail(&state, &url, &conn).await {
                state.metrics.job_ticked(MAIL, started.elapsed());
            }
        }
    });
}

/// The deliveries this instance is waiting on, per endpoint.
#[derive(Clone, Default)]
struct Flights(Arc<Mutex<HashMap<i64, usize>>>);

impl Flights {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn total(&self) -> usize {
        self.lock().values().sum()
    }

    /// The endpoints with deliveries in flight, and how many.
    fn in_flight(&self) -> Vec<(i64, i64)> {
        self.lock().iter().map(|(&e, &n)| (e, n as i64)).collect()
    }

    /// Takes a place for a delivery to `endpoint`, unless it has all its places.
    fn take(&self, endpoint: i64) -> bool {
        let mut map = self.lock();
        let n = map.entry(endpoint).or_insert(0);
        if *n >= PER_ENDPOINT {
            return false;
        }
        *n += 1;
        true
    }

    fn land(&self, endpoint: i64) {
        let mut map = self.lock();
        if let Some(n) = map.get_mut(&endpoint) {
            *n -= 1;
            if *n == 0 {
                map.remove(&endpoint);
            }
        }
    }
}

/// One tick of the webhook job: the outbox queued, old deleted subscriptions purged, due
/// deliveries claimed (as many as there are free places, at most [`PER_ENDPOINT`] per
/// endpoint) and each sent on its own task, which records its outcome on a connection of its
/// own: the tick never waits for a receiver. Whether every step was done (a receiver that
/// fails is an outcome, not a failure of the job).
async fn deliver(
    state: &web::Data<AppState>,
    url: &str,
    conn: &Shared,
    client: Option<&reqwest::Client>,
    flights: &Flights,
) -> bool {
    let queued = on_connection(url, conn, webhook_queue::enqueue).await;
    let purged = on_connection(url, conn, |c| {
        webhook_queue::purge_deleted(c, chrono::Utc::now())
    })
    .await;
    let Some(client) = client else {
        return false;
    };
    let free = MAX_IN_FLIGHT.saturating_sub(flights.total()) as i64;
    if free == 0 {
        return queued.is_some() && purged.is_some();
    }
    let in_flight = flights.in_flight();
    let claimed = on_connection(url, conn, move |c| {
        webhook_queue::claim(c, free, PER_ENDPOINT as i64, &in_flight)
    })
    .await;
    let recorded = queued.is_some() && purged.is_some() && claimed.is_some();
    for delivery in claimed.unwrap_or_default() {
        if !flights.take(delivery.endpoint_id) {
            // Not met: the claim counted what is in flight, and only this loop adds to it.
            // Its lease runs out and it is claimed again later.
            continue;
        }
        let (state, url, client, flights, conn) = (
            state.clone(),
            url.to_string(),
            client.clone(),
            flights.clone(),
            conn.clone(),
        );
        actix_web::rt::spawn(async move {
            let endpoint = delivery.endpoint_id;
            let outcome = send(&client, &delivery, state.webhooks.allow_private).await;
            let policy = state.webhooks.clone();
            // The job's connection: recording is one short transaction.
            on_connection(&url, &conn, move |c| {
                webhook_queue::record(c, &delivery, outcome, &policy, chrono::Utc::now())
            })
            .await;
            flights.land(endpoint);
        });
    }
    recorded
}

/// Why an attempt got no answer, with the causes beneath (`reqwest` says only "error sending
/// request" at the top); a target the resolver refused, as the resolver says it.
fn describe(e: &reqwest::Error) -> String {
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<Unreachable>() {
            return refused.to_string();
        }
        source = cause.source();
    }
    if e.is_timeout() {
        return format!(
            "no answer within {} s (timed out)",
            ATTEMPT_TIMEOUT.as_secs()
        );
    }
    let mut text = if e.is_connect() {
        "could not connect".to_string()
    } else {
        e.to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// One attempt: the target checked again (an address written in it here; the addresses a
/// name resolves to by the client's resolver, at the connection), then the signed POST. The
/// status answered, or why there was none.
async fn send(client: &reqwest::Client, d: &Claimed, allow_private: bool) -> Result<u16, String> {
    webhooks::check_before_sending(&d.url, allow_private)?;
    let (headers, body) = d.signed(chrono::Utc::now()).map_err(|e| e.to_string())?;
    let mut request = client
        .post(&d.url)
        .header("content-type", "application/json")
        .body(body);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    request
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map_err(|e| describe(&e))
}

/// One tick of the mail job: due messages claimed and sent one by one, each outcome recorded
/// at once (a message the server accepted is marked sent before the next is tried). Whether
/// every step was done (a refusing server is an outcome, not a failure of the job).
async fn send_mail(state: &web::Data<AppState>, url: &str, conn: &Shared) -> bool {
    let claimed = on_connection(url, conn, |c| outbox::claim(c, MAIL_PER_TICK)).await;
    let mut recorded = claimed.is_some();
    let mail = &state.signup.mail;
    for m in claimed.unwrap_or_default() {
        let outcome = mail
            .send(&Outgoing {
                id: m.id.0,
                unique: m.message_id.clone(),
                to: m.to_address.clone(),
                subject: m.subject.clone(),
                body: m.body.clone(),
            })
            .await;
        if let Err(e) = &outcome {
            tracing::info!(mail = m.id.0, attempt = m.attempts, error = %e, "a message was not sent; it will be retried");
        }
        let base = mail.retry_base_secs;
        recorded &= on_connection(url, conn, move |c| {
            outbox::record(c, &m, outcome, base, chrono::Utc::now())
        })
        .await
        .is_some();
    }
    recorded
}
