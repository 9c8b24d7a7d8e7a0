//! The webhook delivery queue (see `services::integrations::webhooks`): outbox rows become deliveries, due
//! deliveries are claimed under a lease, and each attempt's outcome is recorded.

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Jsonb, Text, Timestamptz};
use diesel::PgConnection;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::db::schema::{pool_events, tournament_events, webhook_deliveries, webhook_endpoints};
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
    let ids: Vec<i64> = webhook_endpoints::table
        .filter(webhook_endpoints::deleted_at.is_null())
        .select(webhook_endpoints::id)
        .load(conn)?;
    let mut queued = 0;
    for id in ids {
        queued += conn.transaction(|conn| enqueue_one(conn, id))?;
    }
    Ok(queued)
}

type Outbox = (i64, String, serde_json::Value, DateTime<Utc>);

/// An endpoint's subject, kinds and cursor: (tournament, pool, kinds, cursor).
type EndpointCursor = (Option<i64>, Option<i64>, Vec<String>, i64);

/// The signed headers and the body as sent.
pub type Signed = (Vec<(&'static str, String)>, String);

fn enqueue_one(conn: &mut PgConnection, id: i64) -> Result<usize, ApiError> {
    let endpoint: Option<EndpointCursor> = webhook_endpoints::table
        .find(id)
        .select((
            webhook_endpoints::tournament_id,
            webhook_endpoints::pool_id,
            webhook_endpoints::kinds,
            webhook_endpoints::cursor_id,
        ))
        .for_update()
        .skip_locked()
        .first(conn)
        .optional()?;
    let Some((tid, pid, kinds, cursor)) = endpoint else {
        return Ok(0);
    };
    let (events, subject): (Vec<Outbox>, serde_json::Value) = match (tid, pid) {
        (Some(t), _) => (
            tournament_events::table
                .filter(tournament_events::tournament_id.eq(t))
                .filter(tournament_events::id.gt(cursor))
                .order(tournament_events::id)
                .limit(BATCH)
                .select((
                    tournament_events::id,
                    tournament_events::kind,
                    tournament_events::payload,
                    tournament_events::created_at,
                ))
                .load(conn)?,
            serde_json::json!({"tournament_id": t}),
        ),
        (_, Some(p)) => (
            pool_events::table
                .filter(pool_events::pool_id.eq(p))
                .filter(pool_events::id.gt(cursor))
                .order(pool_events::id)
                .limit(BATCH)
                .select((
                    pool_events::id,
                    pool_events::kind,
                    pool_events::payload,
                    pool_events::created_at,
                ))
                .load(conn)?,
            serde_json::json!({"pool_id": p}),
        ),
        _ => return Ok(0),
    };
    let Some(last) = events.last().map(|e| e.0) else {
        return Ok(0);
    };
    let mut queued = 0;
    for (event_id, kind, payload, at) in events {
        if !kinds.contains(&kind) {
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
        queued += diesel::insert_into(webhook_deliveries::table)
            .values((
                webhook_deliveries::endpoint_id.eq(id),
                webhook_deliveries::event_id.eq(event_id),
                webhook_deliveries::kind.eq(&kind),
                webhook_deliveries::body.eq(body),
                webhook_deliveries::status.eq("pending"),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
    }
    diesel::update(webhook_endpoints::table.find(id))
        .set(webhook_endpoints::cursor_id.eq(last))
        .execute(conn)?;
    Ok(queued)
}

/// A delivery claimed for one attempt, with what it takes to send it.
#[derive(Debug, Clone, QueryableByName)]
pub struct Claimed {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = BigInt)]
    pub endpoint_id: i64,
    /// The `webhook-id` (random, never repeated).
    #[diesel(sql_type = Text)]
    pub message_id: String,
    #[diesel(sql_type = Text)]
    pub url: String,
    #[diesel(sql_type = Text)]
    pub secret: String,
    /// The secret a rotation replaced, while its overlap lasts.
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub previous_secret: Option<String>,
    #[diesel(sql_type = Jsonb)]
    pub body: serde_json::Value,
    #[diesel(sql_type = Integer)]
    pub attempts: i32,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
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

impl Claimed {}

/// Claims up to `limit` due deliveries for this instance, at most `per_endpoint` of each
/// endpoint and none of the endpoints in `busy` (this instance is still waiting on them), of
/// endpoints neither paused nor deleted: each is leased (its next attempt moved past the
/// lease) in one statement that skips rows another instance is claiming.
pub fn claim(
    conn: &mut PgConnection,
    limit: i64,
    per_endpoint: i64,
    busy: &[i64],
) -> Result<Vec<Claimed>, ApiError> {
    Ok(diesel::sql_query(
        "WITH ranked AS (
             SELECT d.id, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.id) AS n
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE d.status = 'pending' AND d.next_attempt_at <= now()
               AND NOT e.paused AND e.deleted_at IS NULL AND d.endpoint_id <> ALL($4)
         ), due AS (
             SELECT d.id FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
             WHERE r.n <= $3
             ORDER BY d.id LIMIT $1 FOR UPDATE OF d SKIP LOCKED
         ), leased AS (
             UPDATE webhook_deliveries d
             SET next_attempt_at = now() + make_interval(secs => $2), attempts = d.attempts + 1
             FROM due WHERE d.id = due.id
             RETURNING d.id, d.endpoint_id, d.message_id, d.body, d.attempts, d.created_at
         )
         SELECT l.id, l.endpoint_id, l.message_id, e.url, e.secret,
                CASE WHEN e.previous_secret_until > now() THEN e.previous_secret END
                    AS previous_secret,
                l.body, l.attempts, l.created_at
         FROM leased l JOIN webhook_endpoints e ON e.id = l.endpoint_id
         ORDER BY l.id",
    )
    .bind::<BigInt, _>(limit)
    .bind::<diesel::sql_types::Double, _>(LEASE.num_seconds() as f64)
    .bind::<BigInt, _>(per_endpoint)
    .bind::<diesel::sql_types::Array<BigInt>, _>(busy)
    .load(conn)?)
}

/// Removes the subscriptions deleted more than `KEPT_AFTER_DELETE` ago, with their delivery
/// logs (one statement).
pub fn purge_deleted(conn: &mut PgConnection) -> Result<usize, ApiError> {
    Ok(diesel::delete(
        webhook_endpoints::table.filter(
            webhook_endpoints::deleted_at
                .lt(Utc::now() - crate::services::integrations::webhooks::KEPT_AFTER_DELETE),
        ),
    )
    .execute(conn)?)
}

/// Records an attempt: delivered on a 2xx; else the next attempt after an exponential backoff
/// (base, 6x, 24x, 120x, 360x, 720x, then every 2,160x base: 5 s ... 3 h), or failed once the
/// event is a day old.
pub fn record(
    conn: &mut PgConnection,
    delivery: &Claimed,
    outcome: Result<u16, String>,
    policy: &WebhookPolicy,
) -> Result<(), ApiError> {
    conn.transaction(|conn| {
        let now = Utc::now();
        let target = webhook_deliveries::table.find(delivery.id);
        match outcome {
            Ok(status) if (200..300).contains(&status) => {
                diesel::update(target)
                    .set((
                        webhook_deliveries::status.eq("delivered"),
                        webhook_deliveries::delivered_at.eq(Some(now)),
                        webhook_deliveries::last_status.eq(Some(i32::from(status))),
                        webhook_deliveries::last_error.eq(None::<String>),
                    ))
                    .execute(conn)?;
                diesel::update(webhook_endpoints::table.find(delivery.endpoint_id))
                    .set(webhook_endpoints::last_delivered_at.eq(Some(now)))
                    .execute(conn)?;
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
                diesel::update(target)
                    .set((
                        webhook_deliveries::status.eq(if gave_up { "failed" } else { "pending" }),
                        webhook_deliveries::next_attempt_at.eq(next),
                        webhook_deliveries::last_status.eq(status),
                        webhook_deliveries::last_error.eq(Some(&error)),
                    ))
                    .execute(conn)?;
                diesel::update(webhook_endpoints::table.find(delivery.endpoint_id))
                    .set((
                        webhook_endpoints::last_error.eq(Some(&error)),
                        webhook_endpoints::last_error_at.eq(Some(now)),
                    ))
                    .execute(conn)?;
            }
        }
        Ok(())
    })
}

/// The queue as `GET /metrics` reports it: pending deliveries (due or waiting for a retry) and
/// the age of the oldest of them.
pub fn backlog(conn: &mut PgConnection) -> Result<QueueSample, ApiError> {
    use diesel::dsl::{count_star, min};
    let (pending, oldest): (i64, Option<DateTime<Utc>>) = webhook_deliveries::table
        .filter(webhook_deliveries::status.eq("pending"))
        .select((count_star(), min(webhook_deliveries::created_at)))
        .first(conn)?;
    let age = oldest.map_or(0.0, |t| {
        (Utc::now() - t).num_milliseconds().max(0) as f64 / 1000.0
    });
    Ok(QueueSample {
        pending,
        oldest_age_seconds: age,
    })
}
