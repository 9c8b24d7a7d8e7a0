//! Signed webhooks (issue 17, item 3), following the Standard Webhooks specification.
//!
//! Organisers subscribe a URL to a tournament's event kinds, admins to a rating pool's. The
//! outboxes are written in the same transaction as each change (`tournament_events`, and
//! `pool_events` by a trigger on a pool's leaderboard version), so a rolled-back change sends
//! nothing and a committed one is never lost. A job on every instance ([`enqueue`], [`claim`],
//! [`record`]) turns new outbox rows into one delivery per endpoint (unique per endpoint and
//! event), claims due deliveries under row locks other instances skip, and a lease (two instances never
//! send one delivery at once), signs and sends them, and retries failures with exponential
//! backoff for a day. A delivery that succeeded but whose answer was lost is sent again:
//! receivers de-duplicate with `webhook-id`, as the specification asks.

use std::net::IpAddr;
use std::sync::Arc;

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, StaffRole};
use crate::db::ids::{DeliveryId, PoolId, TournamentId, UserId, WebhookId};
use crate::db::integrations::{self as store, DeliveryRow, EndpointRow, Subject};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::access::load_for_staff;
pub use crate::services::integrations::webhook_dns::is_public;
use crate::services::integrations::webhook_dns::{Lookup, SystemLookup};
use crate::services::validate::{keyset_page, Check, CursorParams, Page, Start, COUNT_CAP};

/// The event kinds of a tournament an endpoint can subscribe to: every kind of its feed.
pub const TOURNAMENT_KINDS: [&str; 18] = crate::domain::events::LiveEventKind::NAMES;
/// The event kinds of a rating pool.
pub const POOL_KINDS: [&str; 3] = ["leaderboard_changed", "rating_requested", "rating_decided"];

/// How deliveries go out on this instance (set at start-up, never by a request).
#[derive(Debug, Clone)]
pub struct WebhookPolicy {
    /// Allow loopback and private targets (`TOURNEY_WEBHOOK_ALLOW_PRIVATE=1`; off by default
    /// against server-side request forgery).
    pub allow_private: bool,
    /// The first retry's delay; later ones grow to 3 hours (tests shorten it).
    pub retry_base_secs: i64,
    /// How target names are resolved, when subscribing and at each connection of a delivery
    /// (the system's resolver; tests answer from a table).
    pub lookup: Arc<dyn Lookup>,
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        WebhookPolicy {
            allow_private: false,
            retry_base_secs: 5,
            lookup: Arc::new(SystemLookup),
        }
    }
}

/// Retries stop this long after the event.
pub const RETRY_FOR: Duration = Duration::hours(24);

/// A target URL's host: an address written in it, or a name.
enum Host {
    Address(IpAddr),
    Name(String),
}

/// Takes a target URL apart: http or https, and its host. The reason when it is refused.
fn parse_target(url: &str) -> Result<Host, String> {
    // The URL parser drops tabs and line breaks silently: a URL that had them is refused, so
    // what is stored and shown is what is called.
    if url.chars().any(|c| c.is_control() || c == ' ') {
        return Err(
            "must not contain spaces, tabs, line breaks or other control characters".into(),
        );
    }
    let parsed = reqwest::Url::parse(url).map_err(|_| "not a valid URL".to_string())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err("must be an http or https URL".into());
    }
    let host = parsed
        .host_str()
        .ok_or_else(|| "must name a host".to_string())?;
    // The parser writes IPv4 addresses in their dotted form and IPv6 ones in brackets.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    Ok(match bare.parse::<IpAddr>() {
        Ok(ip) => Host::Address(ip),
        Err(_) => Host::Name(host.to_string()),
    })
}

const NOT_PUBLIC: &str = "points at a loopback, private or reserved address (allowed only with \
                          TOURNEY_WEBHOOK_ALLOW_PRIVATE=1)";

/// Checks a target URL when it is subscribed: http or https, and (unless private targets are
/// allowed) every address its host resolves to (by the policy's lookup) public. The reason
/// when it is refused.
pub fn check_target(url: &str, policy: &WebhookPolicy) -> Result<(), String> {
    let host = parse_target(url)?;
    if policy.allow_private {
        return Ok(());
    }
    let addresses: Vec<IpAddr> = match host {
        Host::Address(ip) => vec![ip],
        Host::Name(name) => policy
            .lookup
            .lookup(&name)
            .map_err(|_| format!("the host {name} does not resolve"))?,
    };
    if addresses.is_empty() || addresses.iter().any(|ip| !is_public(*ip)) {
        return Err(NOT_PUBLIC.into());
    }
    Ok(())
}

/// Checks a target URL before each attempt: http or https, and (unless private targets are
/// allowed) an address written in it public. A name is not looked up here: the delivery
/// client's resolver (`webhook_dns::CheckedResolver`) checks the addresses it connects to, at
/// each connection.
pub fn check_before_sending(url: &str, allow_private: bool) -> Result<(), String> {
    match parse_target(url)? {
        Host::Address(ip) if !allow_private && !is_public(ip) => Err(format!(
            "refused: the target {NOT_PUBLIC}; nothing was sent"
        )),
        _ => Ok(()),
    }
}

/// A new subscription.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://club.example/hooks/tourney", "kinds": ["result_entered", "standings_changed"]}))]
pub struct CreateWebhook {
    /// Where deliveries are POSTed (http or https, a public address).
    #[schema(min_length = 1, max_length = 2000)]
    pub url: String,
    /// Tournaments: any kind of the live feed (`LiveEventKind`); pools: leaderboard_changed,
    /// rating_requested (a tournament asks to be rated), rating_decided (accepted, refused or
    /// withdrawn). Each delivery's body is a `WebhookBody` of its kind.
    #[schema(min_items = 1, max_items = 17)]
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
    /// Paused: events still queue; nothing is sent until it is resumed (a delivery older than
    /// a day when it is resumed is tried once more, then `failed`).
    pub paused: bool,
    /// Until when the secret replaced by the last rotation still signs beside the new one.
    pub previous_secret_until: Option<DateTime<Utc>>,
    /// Why the last failed attempt failed (the status answered, a timeout, a refused
    /// connection, ...), and when.
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    /// The last successful delivery.
    pub last_delivered_at: Option<DateTime<Utc>>,
    /// The account that made it (`null` once that account is erased or deleted), so its
    /// managers can tell whose it is. Deliveries do not depend on that account: they go on
    /// while it is disabled or no longer staff, until the subscription is paused or deleted.
    pub created_by: Option<i64>,
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

pub(super) fn endpoint_out(r: EndpointRow) -> WebhookOut {
    WebhookOut {
        id: r.id.0,
        tournament_id: r.tournament_id.map(|t| t.0),
        pool_id: r.pool_id.map(|p| p.0),
        url: r.url,
        kinds: r.kinds,
        created_at: r.created_at,
        paused: r.paused,
        previous_secret_until: r.previous_secret_until,
        last_error: r.last_error,
        last_error_at: r.last_error_at,
        last_delivered_at: r.last_delivered_at,
        created_by: r.created_by.map(|u| u.0),
    }
}

/// Live subscriptions a tournament or a pool may have.
pub const MAX_PER_SUBJECT: i64 = 10;

/// How long a deleted subscription's delivery log stays readable.
pub const KEPT_AFTER_DELETE: Duration = Duration::days(30);

/// Where a subscription is made: a tournament or a pool.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    Tournament(i64),
    Pool(i64),
}

impl Scope {
    /// The store's subject of this scope.
    pub(super) fn subject(self) -> Subject {
        match self {
            Scope::Tournament(t) => Subject::Tournament(TournamentId(t)),
            Scope::Pool(p) => Subject::Pool(PoolId(p)),
        }
    }

    /// The scope of a stored subject.
    pub(super) fn of(subject: Subject) -> Scope {
        match subject {
            Subject::Tournament(t) => Scope::Tournament(t.0),
            Subject::Pool(p) => Scope::Pool(p.0),
        }
    }
}

/// Checks the caller may manage webhooks of `scope` (organisers of the tournament; admins and
/// the keepers of the pool).
pub(super) fn require_manager(
    conn: &mut PgConnection,
    caller: &Caller,
    scope: Scope,
) -> Result<(), ApiError> {
    match scope {
        Scope::Tournament(tid) => {
            load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
            Ok(())
        }
        Scope::Pool(pid) => crate::services::ratings::require_pool_keeper(conn, caller, pid),
    }
}

/// A new signing secret: `whsec_` and the base64 of 32 random bytes.
pub(super) fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Checks a target URL into `check`.
pub(super) fn check_url(check: &mut Check, url: &str, policy: &WebhookPolicy) {
    check.ensure(url.len() <= 2000, "url", "must be at most 2000 characters");
    if let Err(why) = check_target(url, policy) {
        check.fail("url", why);
    }
}

/// Checks the kinds named for `scope` into `check`; the kinds sorted, without repeats.
pub(super) fn check_kinds(check: &mut Check, scope: Scope, kinds: &[String]) -> Vec<String> {
    let allowed: &[&str] = match scope {
        Scope::Tournament(_) => &TOURNAMENT_KINDS,
        Scope::Pool(_) => &POOL_KINDS,
    };
    check.ensure(
        (1..=TOURNAMENT_KINDS.len()).contains(&kinds.len()),
        "kinds",
        format!("name 1 to {} event kinds", TOURNAMENT_KINDS.len()),
    );
    for (i, k) in kinds.iter().enumerate() {
        check.ensure(
            allowed.contains(&k.as_str()),
            &format!("kinds[{i}]"),
            format!("one of {}", allowed.join(", ")),
        );
    }
    let mut kinds = kinds.to_vec();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Subscribes a URL to event kinds of a tournament or pool, from the next event on.
pub fn create(
    conn: &mut PgConnection,
    caller: &Caller,
    scope: Scope,
    input: CreateWebhook,
    policy: &WebhookPolicy,
) -> Result<WebhookCreated, ApiError> {
    crate::db::transaction(conn, |conn| {
        require_manager(conn, caller, scope)?;
        let mut check = crate::services::validate::Check::new();
        check_url(&mut check, &input.url, policy);
        let kinds = check_kinds(&mut check, scope, &input.kinds);
        check.finish()?;
        let live = store::live_count(conn, scope.subject())?;
        if live >= MAX_PER_SUBJECT {
            return Err(ApiError::conflict_at(
                "url",
                format!("at most {MAX_PER_SUBJECT} subscriptions each; delete one first"),
            ));
        }
        let cursor = store::last_outbox_id(conn, scope.subject())?;
        let secret = new_secret();
        let row = store::insert_endpoint(
            conn,
            scope.subject(),
            (&input.url, &kinds, &secret),
            cursor.unwrap_or(0),
            UserId(caller.user_id),
        )?;
        Ok(WebhookCreated {
            secret,
            webhook: endpoint_out(row),
        })
    })
}

/// The subscriptions of a tournament or pool.
pub fn list(
    conn: &mut PgConnection,
    caller: &Caller,
    scope: Scope,
) -> Result<Vec<WebhookOut>, ApiError> {
    require_manager(conn, caller, scope)?;
    let rows = store::live_endpoints(conn, scope.subject())?;
    Ok(rows.into_iter().map(endpoint_out).collect())
}

/// Whether a deleted subscription counts (its delivery log stays readable for a while).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Deleted {
    Included,
    Excluded,
}

/// The endpoint `id`, if the caller manages it (else 404, saying nothing about others').
pub(super) fn managed(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    deleted: Deleted,
) -> Result<EndpointRow, ApiError> {
    let row = store::endpoint(conn, WebhookId(id), deleted == Deleted::Included)?;
    let none = || ApiError::NotFound(format!("no webhook {id}"));
    let row = row.ok_or_else(none)?;
    let scope = Scope::of(Subject::of(row.tournament_id, row.pool_id).ok_or_else(none)?);
    require_manager(conn, caller, scope).map_err(|e| match e {
        ApiError::Forbidden(_) => none(),
        other => other,
    })?;
    Ok(row)
}

/// Ends a subscription: nothing more is sent (deliveries still pending fail, saying so); its
/// delivery log stays readable for [`KEPT_AFTER_DELETE`], then the job removes both.
pub fn delete(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        store::delete_endpoint(conn, WebhookId(id), now)?;
        Ok(())
    })
}

pub(super) fn delivery_out(r: DeliveryRow) -> DeliveryOut {
    DeliveryOut {
        id: r.id.0,
        webhook_id: r.message_id,
        kind: r.kind,
        status: r.status.as_str().to_string(),
        attempts: r.attempts,
        next_attempt_at: r.next_attempt_at,
        last_status: r.last_status,
        last_error: r.last_error,
        created_at: r.created_at,
        delivered_at: r.delivered_at,
        body: r.body,
    }
}

/// The name deliveries' cursors are checked against; the scope is the endpoint.
const DELIVERIES: &str = "webhook-deliveries";

/// A page of an endpoint's deliveries, newest first (a deleted subscription's too, while its
/// log is kept): by keyset on the id (`cursor`: the last id shown; the page after it is the
/// older ones, so deliveries made meanwhile move nothing), counted to [`COUNT_CAP`].
pub fn deliveries(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    query: &CursorParams,
) -> Result<Page<DeliveryOut>, ApiError> {
    let scope = id.to_string();
    let (limit, start) = query.start::<i64>(DELIVERIES, &scope)?;
    managed(conn, caller, id, Deleted::Included)?;
    let (mut offset, mut first, mut after) = (0, false, None);
    match start {
        Start::Offset(o) => (offset, first) = (o, true),
        Start::After(last) => after = Some(DeliveryId(last)),
    }
    let endpoint = WebhookId(id);
    let rows = store::deliveries_page(conn, endpoint, after, limit + 1, offset)?;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || Ok(store::count_deliveries(conn, endpoint, COUNT_CAP + 1)?),
        DELIVERIES,
        &scope,
        |r| r.id.0,
        |r| Ok(delivery_out(r)),
    )
}

/// Queues a delivery again now (whatever became of it).
pub fn redeliver(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    delivery: i64,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        let n = store::requeue(conn, WebhookId(id), DeliveryId(delivery), now)?;
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
            "2001:db8::1",
            "2001:db8:ffff::8",
            "64:ff9b::a00:1",
            "64:ff9b::808:808",
            "64:ff9b:1::1",
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "::127.0.0.1",
            "::10.0.0.1",
            "::0.0.1.2",
            "198.18.0.1",
            "198.19.255.254",
            "240.0.0.1",
            "250.1.2.3",
            "192.0.0.8",
            "192.0.0.170",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "2001:4860:4860::8888",
            "::ffff:8.8.4.4",
            "::ffff:0:808:808",
            "198.17.255.1",
            "198.20.0.1",
            "192.0.1.1",
            "2001:db9::1",
            "2001:470::1",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    /// Each range on both sides of each of its boundaries: (address, public).
    const BOUNDARIES: &[(&str, bool)] = &[
        // 0.0.0.0/8 (this network)
        ("0.0.0.0", false),
        ("0.255.255.255", false),
        ("1.0.0.0", true),
        // 10/8
        ("9.255.255.255", true),
        ("10.0.0.0", false),
        ("10.255.255.255", false),
        ("11.0.0.0", true),
        // 100.64/10 (shared, CGNAT)
        ("100.63.255.255", true),
        ("100.64.0.0", false),
        ("100.127.255.255", false),
        ("100.128.0.0", true),
        // 127/8
        ("126.255.255.255", true),
        ("127.0.0.0", false),
        ("127.255.255.255", false),
        ("128.0.0.0", true),
        // 169.254/16
        ("169.253.255.255", true),
        ("169.254.0.0", false),
        ("169.254.169.254", false),
        ("169.254.255.255", false),
        ("169.255.0.0", true),
        // 172.16/12
        ("172.15.255.255", true),
        ("172.16.0.0", false),
        ("172.31.255.255", false),
        ("172.32.0.0", true),
        // 192.0.0/24 (IETF protocol assignments), 192.0.2/24 (documentation)
        ("191.255.255.255", true),
        ("192.0.0.0", false),
        ("192.0.0.255", false),
        ("192.0.1.0", true),
        ("192.0.1.255", true),
        ("192.0.2.0", false),
        ("192.0.2.255", false),
        ("192.0.3.0", true),
        // 192.168/16
        ("192.167.255.255", true),
        ("192.168.0.0", false),
        ("192.168.255.255", false),
        ("192.169.0.0", true),
        // 198.18/15 (benchmarking), 198.51.100/24 and 203.0.113/24 (documentation)
        ("198.17.255.255", true),
        ("198.18.0.0", false),
        ("198.19.255.255", false),
        ("198.20.0.0", true),
        ("198.51.99.255", true),
        ("198.51.100.0", false),
        ("198.51.100.255", false),
        ("198.51.101.0", true),
        ("203.0.112.255", true),
        ("203.0.113.0", false),
        ("203.0.113.255", false),
        ("203.0.114.0", true),
        // 224/4 (multicast) and above (240/4 reserved, broadcast)
        ("223.255.255.255", true),
        ("224.0.0.0", false),
        ("239.255.255.255", false),
        ("240.0.0.0", false),
        ("255.255.255.254", false),
        ("255.255.255.255", false),
        // :: (unspecified), ::1 (loopback), ::a.b.c.d (IPv4-compatible: by its IPv4 address)
        ("::", false),
        ("::1", false),
        ("::2", false),
        ("::127.0.0.1", false),
        ("::8.8.8.8", true),
        ("::255.255.255.255", false),
        // ::ffff:0:0/96 (IPv4-mapped) and ::ffff:0:0:0/96 (translated): by the IPv4 address;
        // the rest of ::/8 is reserved
        ("::1:0:0", false),
        ("::fffe:ffff:ffff", false),
        ("::ffff:0.0.0.0", false),
        ("::ffff:10.0.0.1", false),
        ("::ffff:127.0.0.1", false),
        ("::ffff:169.254.169.254", false),
        ("::ffff:8.8.8.8", true),
        ("::ffff:255.255.255.255", false),
        ("::1:0:0:0", false),
        ("::ffff:0:8.8.8.8", true),
        ("::ffff:0:127.0.0.1", false),
        ("::ffff:1:8.8.8.8", false),
        ("ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
        // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64: refused whatever they embed)
        ("64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("64:ff9b::", false),
        ("64:ff9b::808:808", false),
        ("64:ff9b::ffff:ffff", false),
        ("64:ff9b:1::", false),
        ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", false),
        // 100::/64 (discard-only)
        ("100::", false),
        ("100::ffff:ffff:ffff:ffff", false),
        ("100:0:0:1::", true),
        // 2001::/32 (Teredo)
        ("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("2001::", false),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", false),
        ("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("2001:1::", true),
        // 2001:db8::/32 (documentation)
        ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("2001:db8::", false),
        ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("2001:db9::", true),
        // 2002::/16 (6to4): by the IPv4 address in bits 16-47
        ("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("2002::", false),
        ("2002:7f00:1::1", false),
        ("2002:a00:1::", false),
        ("2002:a9fe:a9fe::", false),
        ("2002:c0a8:101::", false),
        ("2002:ac10::", false),
        ("2002:6440::", false),
        ("2002:808:808::", true),
        ("2002:808:808:ffff:ffff:ffff:ffff:ffff", true),
        ("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("2003::", true),
        // fc00::/7 (unique local)
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("fc00::", false),
        ("fd12::1", false),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("fe00::", true),
        // fe80::/10 (link local), fec0::/10 (site-local), ff00::/8 (multicast)
        ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("fe80::", false),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("fec0::", false),
        ("fec0::1", false),
        ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("ff00::", false),
        ("ff02::1", false),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
    ];

    #[test]
    fn every_range_is_judged_on_both_sides_of_its_boundaries() {
        let wrong: Vec<_> = BOUNDARIES
            .iter()
            .filter(|(ip, public)| is_public(ip.parse().unwrap()) != *public)
            .collect();
        assert!(wrong.is_empty(), "judged wrongly: {wrong:?}");
    }

    fn policy(allow_private: bool) -> WebhookPolicy {
        WebhookPolicy {
            allow_private,
            ..WebhookPolicy::default()
        }
    }

    fn check(url: &str, allow_private: bool) -> Result<(), String> {
        check_target(url, &policy(allow_private))
    }

    #[test]
    fn addresses_in_the_url_are_checked_before_each_attempt() {
        for private in [
            "http://127.0.0.1:8080/hook",
            "http://127.1/hook",
            "http://0x7f000001/hook",
            "http://10.0.0.1/hook",
            "http://169.254.169.254/latest/meta-data",
            "http://[::1]/hook",
            "http://[::ffff:127.0.0.1]/hook",
            "http://[2002:7f00:1::1]/hook",
            "http://[fec0::1]/hook",
        ] {
            let refused = check_before_sending(private, false).unwrap_err();
            assert!(refused.contains("nothing was sent"), "{private}: {refused}");
            assert!(check_before_sending(private, true).is_ok(), "{private}");
        }
        for passed in [
            "https://8.8.8.8/hook",
            "https://[2001:4860:4860::8888]/hook",
            // Names are the resolver's to check, at each connection.
            "https://hooks.example/hook",
        ] {
            assert!(check_before_sending(passed, false).is_ok(), "{passed}");
        }
        assert!(check_before_sending("file:///etc/passwd", true).is_err());
        assert!(check_before_sending("https://8.8.8.8/a\nb", true).is_err());
    }

    #[test]
    fn targets_are_http_and_public_unless_allowed() {
        assert!(check("https://8.8.8.8/hook", false).is_ok());
        assert!(check("http://127.0.0.1:8080/hook", false).is_err());
        assert!(check("http://127.0.0.1:8080/hook", true).is_ok());
        assert!(check("file:///etc/passwd", true).is_err());
        assert!(check("gopher://8.8.8.8/", false).is_err());
        assert!(check("http://[::1]/", false).is_err());
        for smuggled in [
            "https://8.8.8.8/hook\r\nX-Injected: 1",
            "https://8.8.8.8/ho\nok",
            "https://8.8.8.8/hook\r",
            "https://8.8.8.8/ho\tok",
            "https://8.8.8.8/ho ok",
            "https://8.8.8.8/\u{0}",
        ] {
            assert!(check(smuggled, true).is_err(), "{smuggled:?}");
            assert!(check(smuggled, false).is_err(), "{smuggled:?}");
        }
        assert!(check("http://[2001:db8::1]/", false).is_err());
        assert!(check("http://198.18.0.1/", false).is_err());
        assert!(check("http://[::ffff:0:7f00:1]/", false).is_err());
    }
}
