//! Managing a webhook subscription (issue 30, item 5): read it, change its URL, kinds or pause,
//! rotate its secret with an overlap, ping it, and read one delivery.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::db::ids::{DeliveryId, WebhookId};
use crate::db::integrations as store;
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::integrations::webhooks::{
    check_kinds, check_url, delivery_out, endpoint_out, managed, new_secret, Deleted, DeliveryOut,
    Scope, WebhookOut, WebhookPolicy,
};
use crate::services::validate::Check;

/// The kind of a ping's delivery (it belongs to no event).
pub const PING: &str = "ping";

/// The longest overlap of a rotation, in hours (a week).
pub const MAX_OVERLAP_HOURS: i64 = 168;

/// The subscription `id` as shown (it exists: the caller checked).
fn load(conn: &mut PgConnection, id: i64) -> Result<WebhookOut, ApiError> {
    Ok(endpoint_out(store::endpoint_by_id(conn, WebhookId(id))?))
}

/// A subscription the caller manages (never its secret).
pub fn read(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<WebhookOut, ApiError> {
    Ok(endpoint_out(managed(conn, caller, id, Deleted::Excluded)?))
}

/// What to change of a subscription (absent fields stay).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"paused": true}))]
pub struct UpdateWebhook {
    /// A new target (http or https, a public address).
    #[schema(min_length = 1, max_length = 2000)]
    pub url: Option<String>,
    /// The kinds wanted from now on (as when subscribing).
    #[schema(min_items = 1, max_items = 17)]
    pub kinds: Option<Vec<String>>,
    /// Pause (events still queue) or resume.
    pub paused: Option<bool>,
}

/// Changes a subscription's URL, kinds or pause.
pub fn update(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: UpdateWebhook,
    policy: &WebhookPolicy,
) -> Result<WebhookOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let current = endpoint_out(managed(conn, caller, id, Deleted::Excluded)?);
        let scope = match (current.tournament_id, current.pool_id) {
            (Some(t), _) => Scope::Tournament(t),
            (_, Some(p)) => Scope::Pool(p),
            _ => return Err(ApiError::Internal(format!("webhook {id} has no subject"))),
        };
        let mut check = Check::new();
        if let Some(url) = &input.url {
            check_url(&mut check, url, policy);
        }
        let kinds = input
            .kinds
            .as_ref()
            .map(|k| check_kinds(&mut check, scope, k));
        check.finish()?;
        store::update_endpoint(
            conn,
            WebhookId(id),
            &input.url.unwrap_or(current.url),
            &kinds.unwrap_or(current.kinds),
            input.paused.unwrap_or(current.paused),
        )?;
        load(conn, id)
    })
}

/// How long the replaced secret keeps signing.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"overlap_hours": 24}))]
pub struct RotateSecret {
    /// Hours the old secret still signs beside the new one (0-168, default 24): deliveries
    /// carry both signatures meanwhile, so receivers switch without losing one.
    #[schema(minimum = 0, maximum = 168)]
    pub overlap_hours: Option<i64>,
}

/// A new secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct SecretRotated {
    /// The new `whsec_` secret.
    pub secret: String,
    /// Until when deliveries are signed with the old secret too.
    pub previous_secret_until: Option<DateTime<Utc>>,
    pub webhook: WebhookOut,
}

/// Replaces a subscription's secret; the old one signs beside it for the overlap (a rotation
/// during an overlap drops the oldest secret).
pub fn rotate_secret(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: RotateSecret,
    now: DateTime<Utc>,
) -> Result<SecretRotated, ApiError> {
    let hours = input.overlap_hours.unwrap_or(24);
    if !(0..=MAX_OVERLAP_HOURS).contains(&hours) {
        return Err(ApiError::field(
            "overlap_hours",
            format!("must be 0-{MAX_OVERLAP_HOURS}"),
        ));
    }
    crate::db::transaction(conn, |conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        let old = store::lock_secret(conn, WebhookId(id))?;
        let secret = new_secret();
        let until = (hours > 0).then(|| now + Duration::hours(hours));
        store::set_secret(conn, WebhookId(id), &secret, until.map(|u| (old, u)))?;
        Ok(SecretRotated {
            secret,
            previous_secret_until: until,
            webhook: load(conn, id)?,
        })
    })
}

/// Queues a `ping` delivery to the subscription now (paused or not, it is sent once its pause
/// ends); the delivery log shows how it went.
pub fn ping(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    now: DateTime<Utc>,
) -> Result<DeliveryOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        let body = serde_json::json!({
            "type": PING,
            "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "data": { "webhook": id },
        });
        let row = store::insert_unprompted(conn, WebhookId(id), PING, body)?;
        Ok(delivery_out(row))
    })
}

/// One delivery of a subscription the caller manages (a deleted one's too, while kept).
pub fn read_delivery(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    delivery: i64,
) -> Result<DeliveryOut, ApiError> {
    managed(conn, caller, id, Deleted::Included)?;
    let row = store::delivery(conn, WebhookId(id), DeliveryId(delivery))?;
    row.map(delivery_out)
        .ok_or_else(|| ApiError::NotFound(format!("no delivery {delivery}")))
}
