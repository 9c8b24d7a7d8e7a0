//! The mail outbox (issue 29): a message is written here in the transaction of the change that
//! causes it, so it exists exactly when the change does; the background job claims due messages
//! under a lease (rows another instance is claiming are skipped), sends them and records the
//! outcome, retrying with backoff for a day as webhook deliveries do.
//!
//! Nothing is sent twice: a claimed message is leased for longer than an SMTP conversation may
//! take, and `sent_at` is written as soon as the server has accepted it; only a crash between
//! the server's acceptance and that write (a few milliseconds) could send a message again, and
//! every copy then carries the same `Message-ID` (the row's id and a random part of its own,
//! so messages sent after a restore, whose row ids repeat, never share one).
//!
//! A message's body holds codes (verification, reset, invitation) in clear text only until it
//! is sent or given up: the same statement that records it as done empties the body (issue 37,
//! item 1); recipient, subject, kind, times, attempts and the last error stay for operators.

use chrono::{DateTime, Duration, Utc};

use crate::db::accounts::outbox as store;
use crate::db::ids::UserId;
use crate::db::PgConnection;
use crate::domain::accounts::Language;
use crate::error::ApiError;
use crate::services::accounts::mail_text::{render, Mail};

pub use crate::db::accounts::outbox::ClaimedMail;

/// How long a claimed message is held before another instance may try it (longer than one
/// SMTP conversation's 20-second timeout).
const LEASE: Duration = Duration::seconds(60);

/// How long a message is retried before it is given up.
pub const RETRY_FOR: Duration = Duration::days(1);

/// Queues `mail` in `language` for `to` (the account `user_id`'s), in the change's
/// transaction: inside the caller's transaction.
pub fn queue(
    conn: &mut PgConnection,
    user_id: Option<i64>,
    to: &str,
    language: Language,
    mail: &Mail<'_>,
) -> Result<(), ApiError> {
    let text = render(language, mail);
    store::insert(
        conn,
        user_id.map(UserId),
        to,
        &text.subject,
        &text.body,
        mail.kind(),
    )?;
    Ok(())
}

/// Claims up to `limit` due messages for this instance, each leased (its next attempt moved
/// past the lease, its attempts counted) in one statement that skips rows another instance is
/// claiming.
pub fn claim(conn: &mut PgConnection, limit: i64) -> Result<Vec<ClaimedMail>, ApiError> {
    Ok(store::claim_due(conn, limit, LEASE.num_seconds() as f64)?)
}

/// Records an attempt made at `now` (one statement): sent, its body emptied; else the next
/// attempt after an exponential backoff (base, 6x, 24x, 120x, 360x, 720x, then every 2,160x
/// base), or given up once the message is a day old (its body emptied too: its code can no
/// longer arrive).
pub fn record(
    conn: &mut PgConnection,
    mail: &ClaimedMail,
    outcome: Result<(), String>,
    retry_base_secs: i64,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    match outcome {
        Ok(()) => store::mark_sent(conn, mail.id, now)?,
        Err(error) => {
            const STEPS: [i64; 7] = [1, 6, 24, 120, 360, 720, 2160];
            let step = STEPS[(mail.attempts.max(1) as usize - 1).min(STEPS.len() - 1)];
            let next = now + Duration::seconds(retry_base_secs * step);
            let gave_up = next > mail.created_at + RETRY_FOR;
            let error: String = error.chars().take(500).collect();
            if gave_up {
                store::mark_failed(conn, mail.id, next, now, &error)?;
            } else {
                store::mark_retry(conn, mail.id, next, &error)?;
            }
        }
    }
    Ok(())
}
