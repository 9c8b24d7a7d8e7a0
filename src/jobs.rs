//! Background work every instance runs next to its HTTP workers: the deadlines of
//! self-scheduled games (`services::scheduling`), checked once a second. Several instances may
//! run it at once: each game is taken under a row lock that skips games another holds.
//!
//! The job has its own connection (named `tourney-jobs` in `pg_stat_activity`), outside the
//! request pool: it never takes a connection from a request, and its one small query a second
//! does not grow with the number of clients.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::web;
use diesel::{Connection, PgConnection};

use crate::services::scheduling;
use crate::state::AppState;

/// How often the deadlines are checked.
const TICK: Duration = Duration::from_secs(1);

/// The `application_name` of the jobs' connection.
pub const APPLICATION_NAME: &str = "tourney-jobs";

fn job_url(url: &str) -> String {
    let joiner = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joiner}application_name={APPLICATION_NAME}")
}

/// Spawns the deadline job on the current actix runtime; it ends with the runtime.
pub fn start(state: web::Data<AppState>) {
    let url = job_url(state.live.database_url());
    let conn: Arc<Mutex<Option<PgConnection>>> = Arc::new(Mutex::new(None));
    actix_web::rt::spawn(async move {
        let mut tick = actix_web::rt::time::interval(TICK);
        loop {
            tick.tick().await;
            let now = state.clock.now();
            let (url, conn) = (url.clone(), conn.clone());
            let done = web::block(move || {
                let mut slot = conn.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none() {
                    *slot = PgConnection::establish(&url).ok();
                }
                let Some(c) = slot.as_mut() else {
                    return;
                };
                if let Err(e) = scheduling::apply_deadlines(c, now) {
                    tracing::debug!(error = %e, "scheduling deadlines not applied this time");
                    // A broken connection is made again on the next tick.
                    *slot = None;
                }
            })
            .await;
            if done.is_err() {
                tracing::debug!("the scheduling job's worker thread failed");
            }
        }
    });
}
