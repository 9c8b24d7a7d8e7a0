//! The webhook delivery queue (see `services::integrations::webhooks`): outbox rows become deliveries, due
//! deliveries are claimed under a lease, and each attempt's outcome is recorded.

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::db::ids::WebhookId;
use crate::db::integrations::{self as store, ClaimedRow, Failure, Subject};
use crate::db::PgConnection;
use crate::domain::status::DeliveryStatus;
use crate::error::ApiError;
use crate::infra::metrics::QueueSample;
use crate::services::integrations::webhooks::{WebhookPolicy, RETRY_FOR};

/// How long a claimed delivery is held before another instance may try it (longer than one
/// attempt's 10-second timeout).
const LEASE: Duration = Duration::seconds(60);

/// Outbox rows an endpoint takes per run.
const BATCH: i64 = 500;

/// Turns the outbox rows after each endpoint's cursor into deliveries of the kinds it wants
/// (one per endpoint and event: the unique key makes a repeat a no-op), endpoint by endpoint,
/// each under a row lock other instances skip.
pub fn enqueue(conn: &mut PgConnection) -> Result<usize, ApiError> {
    let ids = store::live_endpoint_ids(conn)?;
    let mut queued = 0;
    for id in ids {
        queued += crate::db::transaction(conn, |conn| enqueue_one(conn, id))?;
    }
    Ok(queued)
}

/// The signed headers and the body as sent.
pub type Signed = (Vec<(&'static str, String)>, String);

fn enqueue_one(conn: &mut PgConnection, id: WebhookId) -> Result<usize, ApiError> {
    let Some(endpoint) = store::lock_cursor(conn, id)? else {
        return Ok(0);
    };
    let Some(subject) = endpoint.subject else {
        return Ok(0);
    };
    let events = store::outbox_after(conn, subject, endpoint.cursor, BATCH)?;
    let subject = match subject {
        Subject::Tournament(t) => serde_json::json!({"tournament_id": t}),
        Subject::Pool(p) => serde_json::json!({"pool_id": p}),
    };
    let Some(last) = events.last().map(|e| e.0) else {
        return Ok(0);
    };
    let mut queued = 0;
    for (event_id, kind, payload, at) in events {
        if !endpoint.kinds.contains(&kind) {
            continue;
        }
        let mut data = subject.clone();
        if let (Some(d), Some(p)) = (data.as_object_mut(), payload.as_object()) {
            d.extend(p.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let body = serde_json::json!({
            "type": kind,
            "timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "data": data,
        });
        queued += store::insert_delivery(conn, id, event_id, &kind, body)?;
    }
    store::set_cursor(conn, id, last)?;
    Ok(queued)
}

/// A delivery claimed for one attempt, with what it takes to send it.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub id: i64,
    pub endpoint_id: i64,
    /// The `webhook-id` (random, never repeated).
    pub message_id: String,
    pub url: String,
    pub secret: String,
    /// The secret a rotation replaced, while its overlap lasts.
    pub previous_secret: Option<String>,
    pub body: serde_json::Value,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
}

impl From<ClaimedRow> for Claimed {
    fn from(r: ClaimedRow) -> Self {
        Claimed {
            id: r.id.0,
            endpoint_id: r.endpoint_id.0,
            message_id: r.message_id,
            url: r.url,
            secret: r.secret,
            previous_secret: r.previous_secret,
            body: r.body,
            attempts: r.attempts,
            created_at: r.created_at,
        }
    }
}

impl Claimed {
    /// The headers of Standard Webhooks for sending this delivery at `now`: `webhook-id`,
    /// `webhook-timestamp` and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of
    /// `{id}.{timestamp}.{body}` keyed by the secret's bytes; during a rotation's overlap a
    /// second, space-separated `v1,` signature by the previous secret), with the body as sent.
    pub fn signed(&self, now: DateTime<Utc>) -> Result<Signed, ApiError> {
        let id = self.message_id.clone();
        let timestamp = now.timestamp().to_string();
        let body = self.body.to_string();
        let content = format!("{id}.{timestamp}.{body}");
        let signatures = std::iter::once(&self.secret)
            .chain(self.previous_secret.as_ref())
            .map(|secret| sign(secret, &content).map(|s| format!("v1,{s}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((
            vec![
                ("webhook-id", id),
                ("webhook-timestamp", timestamp),
                ("webhook-signature", signatures.join(" ")),
            ],
            body,
        ))
    }
}

/// The base64 HMAC-SHA256 of `content` keyed by a `whsec_` secret's bytes.
fn sign(secret: &str, content: &str) -> Result<String, ApiError> {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .map_err(|e| ApiError::Internal(format!("webhook secret: {e}")))?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key)
        .map_err(|e| ApiError::Internal(format!("webhook key: {e}")))?;
    mac.update(content.as_bytes());
    Ok(base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes()))
}

/// Claims up to `limit` due deliveries for this instance, of endpoints neither paused nor
/// deleted, at most `per_endpoint` of each counting those this instance is still waiting on
/// (`in_flight`: endpoint and how many; a delivery claimed past them would be counted an
/// attempt and leased without being sent): each is leased (its next attempt moved past the
/// lease) in one statement that skips rows another instance is claiming.
pub fn claim(
    conn: &mut PgConnection,
    limit: i64,
    per_endpoint: i64,
    in_flight: &[(i64, i64)],
) -> Result<Vec<Claimed>, ApiError> {
    let (endpoints, counts): (Vec<i64>, Vec<i64>) = in_flight.iter().copied().unzip();
    let lease = LEASE.num_seconds() as f64;
    let rows = store::claim(conn, limit, lease, per_endpoint, (&endpoints, &counts))?;
    Ok(rows.into_iter().map(Claimed::from).collect())
}

/// Removes the subscriptions deleted more than `KEPT_AFTER_DELETE` ago, with their delivery
/// logs (one statement), as of `now`.
pub fn purge_deleted(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, ApiError> {
    let cutoff = now - crate::services::integrations::webhooks::KEPT_AFTER_DELETE;
    Ok(store::purge_deleted_before(conn, cutoff)?)
}

/// Records an attempt: delivered on a 2xx; else the next attempt after an exponential backoff
/// (base, 6x, 24x, 120x, 360x, 720x, then every 2,160x base: 5 s ... 3 h), or failed once the
/// event is a day old; `now` is when the attempt ended.
pub fn record(
    conn: &mut PgConnection,
    delivery: &Claimed,
    outcome: Result<u16, String>,
    policy: &WebhookPolicy,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let target = (
        crate::db::ids::DeliveryId(delivery.id),
        WebhookId(delivery.endpoint_id),
    );
    crate::db::transaction(conn, |conn| {
        match outcome {
            Ok(status) if (200..300).contains(&status) => {
                store::delivered(conn, target, i32::from(status), now)?;
            }
            other => {
                let (status, error) = match other {
                    Ok(s) => (Some(i32::from(s)), format!("answered {s}")),
                    Err(e) => (None, e),
                };
                const STEPS: [i64; 7] = [1, 6, 24, 120, 360, 720, 2160];
                let step = STEPS[(delivery.attempts.max(1) as usize - 1).min(STEPS.len() - 1)];
                let next = now + Duration::seconds(policy.retry_base_secs * step);
                let gave_up = next > delivery.created_at + RETRY_FOR;
                let error: String = error.chars().take(500).collect();
                let then = if gave_up {
                    DeliveryStatus::Failed
                } else {
                    DeliveryStatus::Pending
                };
                let failure = Failure {
                    status,
                    error: &error,
                    at: now,
                    then,
                    next,
                };
                store::attempt_failed(conn, target, failure)?;
            }
        }
        Ok(())
    })
}

/// The queue as `GET /metrics` reports it: pending deliveries (due or waiting for a retry) and
/// the age of the oldest of them at `now`.
pub fn backlog(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<QueueSample, ApiError> {
    let (pending, oldest) = store::backlog(conn)?;
    let age = oldest.map_or(0.0, |t| (now - t).num_milliseconds().max(0) as f64 / 1000.0);
    Ok(QueueSample {
        pending,
        oldest_age_seconds: age,
    })
}
