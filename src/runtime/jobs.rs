//! Background work every instance runs next to its HTTP workers, once a second: the deadlines
//! of self-scheduled games (`services::play::scheduling`), webhook deliveries
//! (`services::integrations::webhooks`) and the mail outbox (`services::accounts::outbox`). Several instances may run it at once: each game and each delivery is
//! taken under a row lock (or a lease) that the others skip.
//!
//! The jobs have their own connection (named `tourney-jobs` in `pg_stat_activity`), outside the
//! request pool: they never take a connection from a request, and their few small queries a
//! second do not grow with the number of clients.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::web;
use diesel::{Connection, PgConnection};

use crate::error::ApiError;
use crate::infra::mail::Outgoing;
use crate::runtime::state::AppState;
use crate::services::accounts::outbox;
use crate::services::integrations::webhook_queue;
use crate::services::integrations::webhook_queue::Claimed;
use crate::services::integrations::webhooks;
use crate::services::play::scheduling_deadlines;

/// How often the jobs run.
const TICK: Duration = Duration::from_secs(1);

/// Deliveries one instance sends per tick.
const SEND_PER_TICK: i64 = 50;

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

/// Spawns the jobs on the current actix runtime; they end with the runtime. Each tick that
/// completes is recorded in the metrics (its duration, and the time of the last success).
pub fn start(state: web::Data<AppState>) {
    let url = job_url(state.live.database_url());
    let conn: Shared = Arc::new(Mutex::new(None));
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .user_agent("tourney-webhooks/1")
        .build();
    state.metrics.job_started(DEADLINES);
    state.metrics.job_started(WEBHOOKS);
    if state.signup.mail.configured() {
        state.metrics.job_started(MAIL);
    }
    actix_web::rt::spawn(async move {
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
            let started = Instant::now();
            if deliver(&state, &url, &conn, client.as_ref().ok()).await {
                state.metrics.job_ticked(WEBHOOKS, started.elapsed());
            }
            let started = Instant::now();
            if state.signup.mail.configured() && send_mail(&state, &url, &conn).await {
                state.metrics.job_ticked(MAIL, started.elapsed());
            }
        }
    });
}

/// One tick of the webhook job: the outbox queued, due deliveries claimed and sent, each
/// outcome recorded (without an HTTP client, only the outbox is queued). Whether every step
/// was done (a receiver that fails is an outcome, not a failure of the job).
async fn deliver(
    state: &web::Data<AppState>,
    url: &str,
    conn: &Shared,
    client: Option<&reqwest::Client>,
) -> bool {
    let queued = on_connection(url, conn, webhook_queue::enqueue).await;
    let Some(client) = client else {
        return false;
    };
    let claimed = on_connection(url, conn, |c| webhook_queue::claim(c, SEND_PER_TICK)).await;
    let mut recorded = queued.is_some() && claimed.is_some();
    for delivery in claimed.unwrap_or_default() {
        let outcome = send(client, &delivery, state.webhooks.allow_private).await;
        let policy = state.webhooks.clone();
        recorded &= on_connection(url, conn, move |c| {
            webhook_queue::record(c, &delivery, outcome, &policy)
        })
        .await
        .is_some();
    }
    recorded
}

/// One attempt: the target checked again (its addresses may have changed since it was
/// subscribed), then the signed POST. The status answered, or why there was none.
async fn send(client: &reqwest::Client, d: &Claimed, allow_private: bool) -> Result<u16, String> {
    let url = d.url.clone();
    web::block(move || webhooks::check_target(&url, allow_private))
        .await
        .map_err(|e| e.to_string())??;
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
        .map_err(|e| e.to_string())
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
                id: m.id,
                to: m.to_address.clone(),
                subject: m.subject.clone(),
                body: m.body.clone(),
            })
            .await;
        if let Err(e) = &outcome {
            tracing::info!(mail = m.id, attempt = m.attempts, error = %e, "a message was not sent; it will be retried");
        }
        let base = mail.retry_base_secs;
        recorded &= on_connection(url, conn, move |c| outbox::record(c, &m, outcome, base))
            .await
            .is_some();
    }
    recorded
}
