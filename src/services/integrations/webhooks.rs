//! Signed webhooks (issue 17, item 3), following the Standard Webhooks specification.
//!
//! Organisers subscribe a URL to a tournament's event kinds, admins to a rating pool's. The
//! outboxes are written in the same transaction as each change (`tournament_events`, and
//! `pool_events` by a trigger on a pool's leaderboard version), so a rolled-back change sends
//! nothing and a committed one is never lost. A job on every instance ([`enqueue`], [`claim`],
//! [`record`]) turns new outbox rows into one delivery per endpoint (unique per endpoint and
//! event), claims due deliveries with `FOR UPDATE SKIP LOCKED` and a lease (two instances never
//! send one delivery at once), signs and sends them, and retries failures with exponential
//! backoff for a day. A delivery that succeeded but whose answer was lost is sent again:
//! receivers de-duplicate with `webhook-id`, as the specification asks.

use std::net::{IpAddr, ToSocketAddrs};

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, StaffRole};
use crate::db::schema::{pool_events, tournament_events, webhook_deliveries, webhook_endpoints};
use crate::error::ApiError;
use crate::services::access::load_for_staff;

/// The event kinds of a tournament an endpoint can subscribe to.
pub const TOURNAMENT_KINDS: [&str; 10] = [
    "round_published",
    "result_entered",
    "result_corrected",
    "standings_changed",
    "case_decided",
    "result_reported",
    "schedule_overdue",
    "game_forfeited",
    "rating_status_changed",
    "unscheduled_games",
];
/// The event kinds of a rating pool.
pub const POOL_KINDS: [&str; 3] = ["leaderboard_changed", "rating_requested", "rating_decided"];

/// How deliveries go out on this instance.
#[derive(Debug, Clone)]
pub struct WebhookPolicy {
    /// Allow loopback and private targets (`TOURNEY_WEBHOOK_ALLOW_PRIVATE=1`; off by default
    /// against server-side request forgery).
    pub allow_private: bool,
    /// The first retry's delay; later ones grow to 3 hours (tests shorten it).
    pub retry_base_secs: i64,
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        WebhookPolicy {
            allow_private: false,
            retry_base_secs: 5,
        }
    }
}

/// Retries stop this long after the event.
pub const RETRY_FOR: Duration = Duration::hours(24);

/// Whether an address is on the public internet (not loopback, private, link-local, shared,
/// unspecified, broadcast, multicast or documentation space).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1])))
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80)
        }
    }
}

/// Checks a target URL: http or https, and (unless private targets are allowed) every address
/// its host resolves to public. The reason when it is refused.
pub fn check_target(url: &str, allow_private: bool) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|_| "not a valid URL".to_string())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err("must be an http or https URL".into());
    }
    let host = parsed
        .host_str()
        .ok_or_else(|| "must name a host".to_string())?;
    if allow_private {
        return Ok(());
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => (host, port)
            .to_socket_addrs()
            .map_err(|_| format!("the host {host} does not resolve"))?
            .map(|a| a.ip())
            .collect(),
    };
    if addresses.is_empty() || addresses.iter().any(|ip| !is_public(*ip)) {
        return Err(
            "points at a loopback, private or reserved address (allowed only with \
             TOURNEY_WEBHOOK_ALLOW_PRIVATE=1)"
                .into(),
        );
    }
    Ok(())
}

/// A new subscription.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://club.example/hooks/tourney", "kinds": ["result_entered", "standings_changed"]}))]
pub struct CreateWebhook {
    /// Where deliveries are POSTed (http or https, a public address).
    #[schema(min_length = 1, max_length = 2000)]
    pub url: String,
    /// Tournaments: round_published, result_entered, result_corrected, standings_changed,
    /// case_decided, result_reported, schedule_overdue, game_forfeited, rating_status_changed,
    /// unscheduled_games;
    /// pools: leaderboard_changed, rating_requested (a tournament asks to be rated),
    /// rating_decided (accepted, refused or withdrawn).
    #[schema(min_items = 1, max_items = 10)]
    pub kinds: Vec<String>,
}

/// A subscription (never its secret).
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookOut {
    pub id: i64,
    pub tournament_id: Option<i64>,
    pub pool_id: Option<i64>,
    pub url: String,
    pub kinds: Vec<String>,
    pub created_at: DateTime<Utc>,
}

/// A subscription just made: its signing secret is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookCreated {
    /// `whsec_` and the base64 of 32 random bytes: verify `webhook-signature` with it.
    pub secret: String,
    pub webhook: WebhookOut,
}

/// One delivery of one event to one endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryOut {
    pub id: i64,
    /// Sent as `webhook-id`; the same on every retry.
    pub webhook_id: String,
    pub kind: String,
    /// `pending`, `delivered` or `failed` (no success within a day).
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    #[schema(value_type = Object)]
    pub body: serde_json::Value,
}

type EndpointRow = (
    i64,
    Option<i64>,
    Option<i64>,
    String,
    Vec<String>,
    DateTime<Utc>,
);

fn endpoint_out(r: EndpointRow) -> WebhookOut {
    WebhookOut {
        id: r.0,
        tournament_id: r.1,
        pool_id: r.2,
        url: r.3,
        kinds: r.4,
        created_at: r.5,
    }
}

/// Where a subscription is made: a tournament or a pool.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    Tournament(i64),
    Pool(i64),
}

/// Checks the caller may manage webhooks of `scope` (organisers of the tournament; admins and
/// the keepers of the pool).
fn require_manager(conn: &mut PgConnection, caller: &Caller, scope: Scope) -> Result<(), ApiError> {
    match scope {
        Scope::Tournament(tid) => {
            load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
            Ok(())
        }
        Scope::Pool(pid) => crate::services::ratings::require_pool_keeper(conn, caller, pid),
    }
}

/// Subscribes a URL to event kinds of a tournament or pool, from the next event on.
pub fn create(
    conn: &mut PgConnection,
    caller: &Caller,
    scope: Scope,
    input: CreateWebhook,
    policy: &WebhookPolicy,
) -> Result<WebhookCreated, ApiError> {
    conn.transaction(|conn| {
        require_manager(conn, caller, scope)?;
        let allowed: &[&str] = match scope {
            Scope::Tournament(_) => &TOURNAMENT_KINDS,
            Scope::Pool(_) => &POOL_KINDS,
        };
        let mut check = crate::services::validate::Check::new();
        check.ensure(
            input.url.len() <= 2000,
            "url",
            "must be at most 2000 characters",
        );
        if let Err(why) = check_target(&input.url, policy.allow_private) {
            check.fail("url", why);
        }
        check.ensure(
            (1..=TOURNAMENT_KINDS.len()).contains(&input.kinds.len()),
            "kinds",
            format!("name 1 to {} event kinds", TOURNAMENT_KINDS.len()),
        );
        for (i, k) in input.kinds.iter().enumerate() {
            check.ensure(
                allowed.contains(&k.as_str()),
                &format!("kinds[{i}]"),
                format!("one of {}", allowed.join(", ")),
            );
        }
        check.finish()?;
        let mut kinds = input.kinds.clone();
        kinds.sort();
        kinds.dedup();
        let cursor: Option<i64> = match scope {
            Scope::Tournament(tid) => tournament_events::table
                .filter(tournament_events::tournament_id.eq(tid))
                .select(diesel::dsl::max(tournament_events::id))
                .first(conn)?,
            Scope::Pool(pid) => pool_events::table
                .filter(pool_events::pool_id.eq(pid))
                .select(diesel::dsl::max(pool_events::id))
                .first(conn)?,
        };
        let bytes: [u8; 32] = rand::random();
        let secret = format!(
            "whsec_{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        );
        let (tid, pid) = match scope {
            Scope::Tournament(t) => (Some(t), None),
            Scope::Pool(p) => (None, Some(p)),
        };
        let row: EndpointRow = diesel::insert_into(webhook_endpoints::table)
            .values((
                webhook_endpoints::tournament_id.eq(tid),
                webhook_endpoints::pool_id.eq(pid),
                webhook_endpoints::url.eq(&input.url),
                webhook_endpoints::kinds.eq(&kinds),
                webhook_endpoints::secret.eq(&secret),
                webhook_endpoints::cursor_id.eq(cursor.unwrap_or(0)),
                webhook_endpoints::created_by.eq(caller.user_id),
            ))
            .returning(endpoint_columns())
            .get_result(conn)?;
        Ok(WebhookCreated {
            secret,
            webhook: endpoint_out(row),
        })
    })
}

#[allow(clippy::type_complexity)]
fn endpoint_columns() -> (
    webhook_endpoints::id,
    webhook_endpoints::tournament_id,
    webhook_endpoints::pool_id,
    webhook_endpoints::url,
    webhook_endpoints::kinds,
    webhook_endpoints::created_at,
) {
    (
        webhook_endpoints::id,
        webhook_endpoints::tournament_id,
        webhook_endpoints::pool_id,
        webhook_endpoints::url,
        webhook_endpoints::kinds,
        webhook_endpoints::created_at,
    )
}

/// The subscriptions of a tournament or pool.
pub fn list(
    conn: &mut PgConnection,
    caller: &Caller,
    scope: Scope,
) -> Result<Vec<WebhookOut>, ApiError> {
    require_manager(conn, caller, scope)?;
    let q = webhook_endpoints::table
        .order(webhook_endpoints::id)
        .select(endpoint_columns());
    let rows: Vec<EndpointRow> = match scope {
        Scope::Tournament(t) => q
            .filter(webhook_endpoints::tournament_id.eq(t))
            .load(conn)?,
        Scope::Pool(p) => q.filter(webhook_endpoints::pool_id.eq(p)).load(conn)?,
    };
    Ok(rows.into_iter().map(endpoint_out).collect())
}

/// The endpoint `id`, if the caller manages it (else 404, saying nothing about others').
fn managed(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<(), ApiError> {
    let row: Option<(Option<i64>, Option<i64>)> = webhook_endpoints::table
        .find(id)
        .select((webhook_endpoints::tournament_id, webhook_endpoints::pool_id))
        .first(conn)
        .optional()?;
    let none = || ApiError::NotFound(format!("no webhook {id}"));
    let scope = match row.ok_or_else(none)? {
        (Some(t), _) => Scope::Tournament(t),
        (_, Some(p)) => Scope::Pool(p),
        _ => return Err(none()),
    };
    require_manager(conn, caller, scope).map_err(|e| match e {
        ApiError::Forbidden(_) => none(),
        other => other,
    })
}

/// Removes a subscription and its delivery log.
pub fn delete(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<(), ApiError> {
    conn.transaction(|conn| {
        managed(conn, caller, id)?;
        diesel::delete(webhook_endpoints::table.find(id)).execute(conn)?;
        Ok(())
    })
}

type DeliveryRow = (
    i64,
    String,
    String,
    i32,
    DateTime<Utc>,
    Option<i32>,
    Option<String>,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    serde_json::Value,
);

fn delivery_out(r: DeliveryRow) -> DeliveryOut {
    DeliveryOut {
        id: r.0,
        webhook_id: webhook_id(r.0),
        kind: r.1,
        status: r.2,
        attempts: r.3,
        next_attempt_at: r.4,
        last_status: r.5,
        last_error: r.6,
        created_at: r.7,
        delivered_at: r.8,
        body: r.9,
    }
}

/// The `webhook-id` of a delivery.
pub fn webhook_id(delivery: i64) -> String {
    format!("msg_{delivery}")
}

/// The newest 100 deliveries of an endpoint.
pub fn deliveries(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
) -> Result<Vec<DeliveryOut>, ApiError> {
    managed(conn, caller, id)?;
    let rows: Vec<DeliveryRow> = webhook_deliveries::table
        .filter(webhook_deliveries::endpoint_id.eq(id))
        .order(webhook_deliveries::id.desc())
        .limit(100)
        .select((
            webhook_deliveries::id,
            webhook_deliveries::kind,
            webhook_deliveries::status,
            webhook_deliveries::attempts,
            webhook_deliveries::next_attempt_at,
            webhook_deliveries::last_status,
            webhook_deliveries::last_error,
            webhook_deliveries::created_at,
            webhook_deliveries::delivered_at,
            webhook_deliveries::body,
        ))
        .load(conn)?;
    Ok(rows.into_iter().map(delivery_out).collect())
}

/// Queues a delivery again now (whatever became of it).
pub fn redeliver(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    delivery: i64,
) -> Result<(), ApiError> {
    conn.transaction(|conn| {
        managed(conn, caller, id)?;
        let n = diesel::update(
            webhook_deliveries::table
                .filter(webhook_deliveries::id.eq(delivery))
                .filter(webhook_deliveries::endpoint_id.eq(id)),
        )
        .set((
            webhook_deliveries::status.eq("pending"),
            webhook_deliveries::next_attempt_at.eq(Utc::now()),
            webhook_deliveries::created_at.eq(Utc::now()),
        ))
        .execute(conn)?;
        if n == 0 {
            return Err(ApiError::NotFound(format!("no delivery {delivery}")));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fd12::1",
            "fe80::1",
            "ff02::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "2001:4860:4860::8888",
            "::ffff:8.8.4.4",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn targets_are_http_and_public_unless_allowed() {
        assert!(check_target("https://8.8.8.8/hook", false).is_ok());
        assert!(check_target("http://127.0.0.1:8080/hook", false).is_err());
        assert!(check_target("http://127.0.0.1:8080/hook", true).is_ok());
        assert!(check_target("file:///etc/passwd", true).is_err());
        assert!(check_target("gopher://8.8.8.8/", false).is_err());
        assert!(check_target("http://[::1]/", false).is_err());
    }
}
