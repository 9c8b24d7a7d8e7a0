//! Managing a webhook subscription (issue 30, item 5): read it, change its URL, kinds or pause,
//! rotate its secret with an overlap, ping it, and read one delivery.

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::db::schema::{webhook_deliveries, webhook_endpoints};
use crate::error::ApiError;
use crate::services::integrations::webhooks::{
    check_kinds, check_url, delivery_columns, delivery_out, endpoint_columns, endpoint_out,
    managed, new_secret, Deleted, DeliveryOut, DeliveryRow, EndpointRow, Scope, WebhookOut,
    WebhookPolicy,
};
use crate::services::validate::Check;

/// The kind of a ping's delivery (it belongs to no event).
pub const PING: &str = "ping";

/// The longest overlap of a rotation, in hours (a week).
pub const MAX_OVERLAP_HOURS: i64 = 168;

fn load(conn: &mut PgConnection, id: i64) -> Result<WebhookOut, ApiError> {
    let row: EndpointRow = webhook_endpoints::table
        .find(id)
        .select(endpoint_columns())
        .first(conn)?;
    Ok(endpoint_out(row))
}

/// A subscription the caller manages (never its secret).
pub fn read(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<WebhookOut, ApiError> {
    managed(conn, caller, id, Deleted::Excluded)?;
    load(conn, id)
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
    conn.transaction(|conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        let current = load(conn, id)?;
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
        diesel::update(webhook_endpoints::table.find(id))
            .set((
                webhook_endpoints::url.eq(input.url.unwrap_or(current.url)),
                webhook_endpoints::kinds.eq(kinds.unwrap_or(current.kinds)),
                webhook_endpoints::paused.eq(input.paused.unwrap_or(current.paused)),
            ))
            .execute(conn)?;
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
) -> Result<SecretRotated, ApiError> {
    let hours = input.overlap_hours.unwrap_or(24);
    if !(0..=MAX_OVERLAP_HOURS).contains(&hours) {
        return Err(ApiError::field(
            "overlap_hours",
            format!("must be 0-{MAX_OVERLAP_HOURS}"),
        ));
    }
    conn.transaction(|conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        let old: String = webhook_endpoints::table
            .find(id)
            .select(webhook_endpoints::secret)
            .for_update()
            .first(conn)?;
        let secret = new_secret();
        let until = (hours > 0).then(|| Utc::now() + Duration::hours(hours));
        diesel::update(webhook_endpoints::table.find(id))
            .set((
                webhook_endpoints::secret.eq(&secret),
                webhook_endpoints::previous_secret.eq(until.map(|_| old)),
                webhook_endpoints::previous_secret_until.eq(until),
            ))
            .execute(conn)?;
        Ok(SecretRotated {
            secret,
            previous_secret_until: until,
            webhook: load(conn, id)?,
        })
    })
}

/// Queues a `ping` delivery to the subscription now (paused or not, it is sent once its pause
/// ends); the delivery log shows how it went.
pub fn ping(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<DeliveryOut, ApiError> {
    conn.transaction(|conn| {
        managed(conn, caller, id, Deleted::Excluded)?;
        let now = Utc::now();
        let body = serde_json::json!({
            "type": PING,
            "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "data": { "webhook": id },
        });
        let row: DeliveryRow = diesel::insert_into(webhook_deliveries::table)
            .values((
                webhook_deliveries::endpoint_id.eq(id),
                webhook_deliveries::kind.eq(PING),
                webhook_deliveries::body.eq(body),
                webhook_deliveries::status.eq("pending"),
            ))
            .returning(delivery_columns())
            .get_result(conn)?;
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
    let row: Option<DeliveryRow> = webhook_deliveries::table
        .filter(webhook_deliveries::id.eq(delivery))
        .filter(webhook_deliveries::endpoint_id.eq(id))
        .select(delivery_columns())
        .first(conn)
        .optional()?;
    row.map(delivery_out)
        .ok_or_else(|| ApiError::NotFound(format!("no delivery {delivery}")))
}
