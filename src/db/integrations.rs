//! Webhook subscriptions (`webhook_endpoints`), their deliveries (`webhook_deliveries`) and the
//! outboxes they read (`tournament_events`, `pool_events`): the queries of
//! `services::integrations`.

use chrono::{DateTime, Utc};
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Double, Integer, Jsonb, Nullable, Text, Timestamptz};
use diesel::PgConnection;

use crate::db::ids::{DeliveryId, PoolId, TournamentId, UserId, WebhookId};
use crate::db::schema::{pool_events, tournament_events, webhook_deliveries, webhook_endpoints};
use crate::domain::status::DeliveryStatus;

/// What a subscription is made on: a tournament or a rating pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Tournament(TournamentId),
    Pool(PoolId),
}

impl Subject {
    /// The subject of a row's (tournament, pool) columns; `None` when it names neither.
    pub fn of(tournament: Option<TournamentId>, pool: Option<PoolId>) -> Option<Subject> {
        match (tournament, pool) {
            (Some(t), _) => Some(Subject::Tournament(t)),
            (_, Some(p)) => Some(Subject::Pool(p)),
            _ => None,
        }
    }
}

/// A subscription as it is shown (never its secret).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
pub struct EndpointRow {
    pub id: WebhookId,
    pub tournament_id: Option<TournamentId>,
    pub pool_id: Option<PoolId>,
    pub url: String,
    pub kinds: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub paused: bool,
    pub previous_secret_until: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub last_delivered_at: Option<DateTime<Utc>>,
    /// The account that made it while that account lives: `None` once it is erased or deleted
    /// (the row then names its tombstone, which names nobody).
    #[diesel(select_expression = live_creator())]
    #[diesel(select_expression_type = SqlLiteral<Nullable<BigInt>>)]
    pub created_by: Option<UserId>,
}

/// `webhook_endpoints.created_by` while that account is not deleted (a tombstone), else null.
fn live_creator() -> SqlLiteral<Nullable<BigInt>> {
    diesel::dsl::sql(
        "(SELECT u.id FROM users u \
          WHERE u.id = webhook_endpoints.created_by AND u.deleted_at IS NULL)",
    )
}

/// One delivery as it is shown.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = webhook_deliveries)]
pub struct DeliveryRow {
    pub id: DeliveryId,
    pub kind: String,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// free-form: the webhook payload, sent as stored.
    pub body: serde_json::Value,
    pub message_id: String,
}

/// The live (not deleted) subscriptions of a subject.
fn live_of(subject: Subject) -> webhook_endpoints::BoxedQuery<'static, diesel::pg::Pg> {
    let q = webhook_endpoints::table
        .filter(webhook_endpoints::deleted_at.is_null())
        .into_boxed();
    match subject {
        Subject::Tournament(t) => q.filter(webhook_endpoints::tournament_id.eq(t)),
        Subject::Pool(p) => q.filter(webhook_endpoints::pool_id.eq(p)),
    }
}

/// How many live subscriptions the subject has.
pub fn live_count(conn: &mut PgConnection, subject: Subject) -> QueryResult<i64> {
    live_of(subject).count().get_result(conn)
}

/// The subject's live subscriptions, in order of id.
pub fn live_endpoints(conn: &mut PgConnection, subject: Subject) -> QueryResult<Vec<EndpointRow>> {
    live_of(subject)
        .order(webhook_endpoints::id)
        .select(EndpointRow::as_select())
        .load(conn)
}

/// The id of the subject's last outbox row (where a new subscription starts reading).
pub fn last_outbox_id(conn: &mut PgConnection, subject: Subject) -> QueryResult<Option<i64>> {
    match subject {
        Subject::Tournament(tid) => tournament_events::table
            .filter(tournament_events::tournament_id.eq(tid))
            .select(diesel::dsl::max(tournament_events::id))
            .first(conn),
        Subject::Pool(pid) => pool_events::table
            .filter(pool_events::pool_id.eq(pid))
            .select(diesel::dsl::max(pool_events::id))
            .first(conn),
    }
}

/// A new subscription of `subject`, reading its outbox after `cursor`.
pub fn insert_endpoint(
    conn: &mut PgConnection,
    subject: Subject,
    (url, kinds, secret): (&str, &[String], &str),
    cursor: i64,
    created_by: UserId,
) -> QueryResult<EndpointRow> {
    let (tid, pid) = match subject {
        Subject::Tournament(t) => (Some(t), None),
        Subject::Pool(p) => (None, Some(p)),
    };
    diesel::insert_into(webhook_endpoints::table)
        .values((
            webhook_endpoints::tournament_id.eq(tid),
            webhook_endpoints::pool_id.eq(pid),
            webhook_endpoints::url.eq(url),
            webhook_endpoints::kinds.eq(kinds),
            webhook_endpoints::secret.eq(secret),
            webhook_endpoints::cursor_id.eq(cursor),
            webhook_endpoints::created_by.eq(created_by),
        ))
        .returning(EndpointRow::as_returning())
        .get_result(conn)
}

/// The subscription `id` (a deleted one too, when `with_deleted`).
pub fn endpoint(
    conn: &mut PgConnection,
    id: WebhookId,
    with_deleted: bool,
) -> QueryResult<Option<EndpointRow>> {
    let mut q = webhook_endpoints::table
        .filter(webhook_endpoints::id.eq(id))
        .select(EndpointRow::as_select())
        .into_boxed();
    if !with_deleted {
        q = q.filter(webhook_endpoints::deleted_at.is_null());
    }
    q.first(conn).optional()
}

/// The subscription `id`, deleted or not.
pub fn endpoint_by_id(conn: &mut PgConnection, id: WebhookId) -> QueryResult<EndpointRow> {
    webhook_endpoints::table
        .find(id)
        .select(EndpointRow::as_select())
        .first(conn)
}

/// Marks the subscription deleted at `now` and fails its pending deliveries, saying so.
pub fn delete_endpoint(
    conn: &mut PgConnection,
    id: WebhookId,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(webhook_endpoints::table.find(id))
        .set(webhook_endpoints::deleted_at.eq(Some(now)))
        .execute(conn)?;
    diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::endpoint_id.eq(id))
            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending)),
    )
    .set((
        webhook_deliveries::status.eq(DeliveryStatus::Failed),
        webhook_deliveries::last_error.eq(Some("the subscription was deleted")),
    ))
    .execute(conn)?;
    Ok(())
}

/// A page of the subscription's deliveries, newest first: after the delivery `after` (a
/// keyset page) or from `offset`, up to `limit` rows.
pub fn deliveries_page(
    conn: &mut PgConnection,
    id: WebhookId,
    after: Option<DeliveryId>,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<DeliveryRow>> {
    let mut rows = webhook_deliveries::table
        .filter(webhook_deliveries::endpoint_id.eq(id))
        .into_boxed();
    if let Some(last) = after {
        rows = rows.filter(webhook_deliveries::id.lt(last));
    }
    rows.order(webhook_deliveries::id.desc())
        .limit(limit)
        .offset(offset)
        .select(DeliveryRow::as_select())
        .load(conn)
}

/// How many deliveries the subscription has, counted up to `cap`.
pub fn count_deliveries(conn: &mut PgConnection, id: WebhookId, cap: i64) -> QueryResult<i64> {
    Ok(webhook_deliveries::table
        .filter(webhook_deliveries::endpoint_id.eq(id))
        .select(webhook_deliveries::id)
        .limit(cap)
        .load::<i64>(conn)?
        .len() as i64)
}

/// Queues the subscription's delivery again at `now`; how many rows it moved (0: no such
/// delivery of this subscription).
pub fn requeue(
    conn: &mut PgConnection,
    id: WebhookId,
    delivery: DeliveryId,
    now: DateTime<Utc>,
) -> QueryResult<usize> {
    diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::id.eq(delivery))
            .filter(webhook_deliveries::endpoint_id.eq(id)),
    )
    .set((
        webhook_deliveries::status.eq(DeliveryStatus::Pending),
        webhook_deliveries::next_attempt_at.eq(now),
        webhook_deliveries::created_at.eq(now),
    ))
    .execute(conn)
}

/// Sets the subscription's URL, kinds and pause.
pub fn update_endpoint(
    conn: &mut PgConnection,
    id: WebhookId,
    url: &str,
    kinds: &[String],
    paused: bool,
) -> QueryResult<()> {
    diesel::update(webhook_endpoints::table.find(id))
        .set((
            webhook_endpoints::url.eq(url),
            webhook_endpoints::kinds.eq(kinds),
            webhook_endpoints::paused.eq(paused),
        ))
        .execute(conn)?;
    Ok(())
}

/// The subscription's secret, its row locked until the transaction ends.
pub fn lock_secret(conn: &mut PgConnection, id: WebhookId) -> QueryResult<String> {
    webhook_endpoints::table
        .find(id)
        .select(webhook_endpoints::secret)
        .for_update()
        .first(conn)
}

/// Sets the subscription's secret, and the one it replaces with how long it still signs.
pub fn set_secret(
    conn: &mut PgConnection,
    id: WebhookId,
    secret: &str,
    previous: Option<(String, DateTime<Utc>)>,
) -> QueryResult<()> {
    let (old, until) = previous.unzip();
    diesel::update(webhook_endpoints::table.find(id))
        .set((
            webhook_endpoints::secret.eq(secret),
            webhook_endpoints::previous_secret.eq(old),
            webhook_endpoints::previous_secret_until.eq(until),
        ))
        .execute(conn)?;
    Ok(())
}

/// A pending delivery of no event (a ping).
pub fn insert_unprompted(
    conn: &mut PgConnection,
    id: WebhookId,
    kind: &str,
    body: serde_json::Value,
) -> QueryResult<DeliveryRow> {
    diesel::insert_into(webhook_deliveries::table)
        .values((
            webhook_deliveries::endpoint_id.eq(id),
            webhook_deliveries::kind.eq(kind),
            webhook_deliveries::body.eq(body),
            webhook_deliveries::status.eq(DeliveryStatus::Pending),
        ))
        .returning(DeliveryRow::as_returning())
        .get_result(conn)
}

/// The subscription's delivery `delivery`.
pub fn delivery(
    conn: &mut PgConnection,
    id: WebhookId,
    delivery: DeliveryId,
) -> QueryResult<Option<DeliveryRow>> {
    webhook_deliveries::table
        .filter(webhook_deliveries::id.eq(delivery))
        .filter(webhook_deliveries::endpoint_id.eq(id))
        .select(DeliveryRow::as_select())
        .first(conn)
        .optional()
}

/// The ids of the live subscriptions.
pub fn live_endpoint_ids(conn: &mut PgConnection) -> QueryResult<Vec<WebhookId>> {
    webhook_endpoints::table
        .filter(webhook_endpoints::deleted_at.is_null())
        .select(webhook_endpoints::id)
        .load(conn)
}

/// A subscription's subject, kinds and outbox cursor, its row locked (`None` when another
/// instance holds it, or it is gone).
pub struct EndpointCursor {
    pub subject: Option<Subject>,
    pub kinds: Vec<String>,
    pub cursor: i64,
}

/// A subscription's (tournament, pool, kinds, cursor) columns.
type CursorColumns = (Option<TournamentId>, Option<PoolId>, Vec<String>, i64);

/// The subscription's cursor, locked; skipped when another instance holds it.
pub fn lock_cursor(conn: &mut PgConnection, id: WebhookId) -> QueryResult<Option<EndpointCursor>> {
    let row: Option<CursorColumns> = webhook_endpoints::table
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
    Ok(row.map(|(t, p, kinds, cursor)| EndpointCursor {
        subject: Subject::of(t, p),
        kinds,
        cursor,
    }))
}

/// One outbox row: (id, kind, payload, when).
pub type OutboxRow = (i64, String, serde_json::Value, DateTime<Utc>);

/// Up to `limit` outbox rows of the subject after `cursor`, in order of id.
pub fn outbox_after(
    conn: &mut PgConnection,
    subject: Subject,
    cursor: i64,
    limit: i64,
) -> QueryResult<Vec<OutboxRow>> {
    match subject {
        Subject::Tournament(t) => tournament_events::table
            .filter(tournament_events::tournament_id.eq(t))
            .filter(tournament_events::id.gt(cursor))
            .order(tournament_events::id)
            .limit(limit)
            .select((
                tournament_events::id,
                tournament_events::kind,
                tournament_events::payload,
                tournament_events::created_at,
            ))
            .load(conn),
        Subject::Pool(p) => pool_events::table
            .filter(pool_events::pool_id.eq(p))
            .filter(pool_events::id.gt(cursor))
            .order(pool_events::id)
            .limit(limit)
            .select((
                pool_events::id,
                pool_events::kind,
                pool_events::payload,
                pool_events::created_at,
            ))
            .load(conn),
    }
}

/// A pending delivery of outbox row `event_id` (a repeat is a no-op: unique per endpoint and
/// event); how many it added.
pub fn insert_delivery(
    conn: &mut PgConnection,
    id: WebhookId,
    event_id: i64,
    kind: &str,
    body: serde_json::Value,
) -> QueryResult<usize> {
    diesel::insert_into(webhook_deliveries::table)
        .values((
            webhook_deliveries::endpoint_id.eq(id),
            webhook_deliveries::event_id.eq(event_id),
            webhook_deliveries::kind.eq(kind),
            webhook_deliveries::body.eq(body),
            webhook_deliveries::status.eq(DeliveryStatus::Pending),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
}

/// Moves the subscription's outbox cursor.
pub fn set_cursor(conn: &mut PgConnection, id: WebhookId, cursor: i64) -> QueryResult<()> {
    diesel::update(webhook_endpoints::table.find(id))
        .set(webhook_endpoints::cursor_id.eq(cursor))
        .execute(conn)?;
    Ok(())
}

/// A delivery claimed for one attempt, with what it takes to send it.
#[derive(Debug, Clone, QueryableByName)]
pub struct ClaimedRow {
    #[diesel(sql_type = BigInt)]
    pub id: DeliveryId,
    #[diesel(sql_type = BigInt)]
    pub endpoint_id: WebhookId,
    #[diesel(sql_type = Text)]
    pub message_id: String,
    #[diesel(sql_type = Text)]
    pub url: String,
    #[diesel(sql_type = Text)]
    pub secret: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub previous_secret: Option<String>,
    #[diesel(sql_type = Jsonb)]
    /// free-form: the webhook payload, sent as stored.
    pub body: serde_json::Value,
    #[diesel(sql_type = Integer)]
    pub attempts: i32,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
}

/// Claims up to `limit` due deliveries of endpoints neither paused nor deleted, at most
/// `per_endpoint` of each endpoint counting those already in flight (`in_flight`: endpoints
/// and how many): each is leased for `lease_secs` (its next attempt moved past the lease,
/// its attempts counted) in one statement that skips rows another instance is claiming.
pub fn claim(
    conn: &mut PgConnection,
    limit: i64,
    lease_secs: f64,
    per_endpoint: i64,
    in_flight: (&[i64], &[i64]),
) -> QueryResult<Vec<ClaimedRow>> {
    diesel::sql_query(
        "WITH flying AS (
             SELECT * FROM unnest($4::bigint[], $5::bigint[]) AS f(endpoint_id, n)
         ), ranked AS (
             SELECT d.id, d.endpoint_id,
                    row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.id) AS n
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE d.status = 'pending' AND d.next_attempt_at <= now()
               AND NOT e.paused AND e.deleted_at IS NULL
         ), due AS (
             SELECT d.id FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
             LEFT JOIN flying f ON f.endpoint_id = r.endpoint_id
             WHERE r.n <= $3 - coalesce(f.n, 0)
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
    .bind::<Double, _>(lease_secs)
    .bind::<BigInt, _>(per_endpoint)
    .bind::<Array<BigInt>, _>(in_flight.0)
    .bind::<Array<BigInt>, _>(in_flight.1)
    .load(conn)
}

/// Removes the subscriptions deleted before `cutoff`, with their delivery logs (one
/// statement); how many.
pub fn purge_deleted_before(conn: &mut PgConnection, cutoff: DateTime<Utc>) -> QueryResult<usize> {
    diesel::delete(webhook_endpoints::table.filter(webhook_endpoints::deleted_at.lt(cutoff)))
        .execute(conn)
}

/// Records a delivery that was answered with a success `status` at `now`.
pub fn delivered(
    conn: &mut PgConnection,
    (delivery, endpoint): (DeliveryId, WebhookId),
    status: i32,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::update(webhook_deliveries::table.find(delivery))
        .set((
            webhook_deliveries::status.eq(DeliveryStatus::Delivered),
            webhook_deliveries::delivered_at.eq(Some(now)),
            webhook_deliveries::last_status.eq(Some(status)),
            webhook_deliveries::last_error.eq(None::<String>),
        ))
        .execute(conn)?;
    diesel::update(webhook_endpoints::table.find(endpoint))
        .set(webhook_endpoints::last_delivered_at.eq(Some(now)))
        .execute(conn)?;
    Ok(())
}

/// How a failed attempt is recorded: the status answered (none without an answer), why it
/// failed, when, what becomes of the delivery and when it is tried next.
pub struct Failure<'a> {
    pub status: Option<i32>,
    pub error: &'a str,
    pub at: DateTime<Utc>,
    pub then: DeliveryStatus,
    pub next: DateTime<Utc>,
}

/// Records a failed attempt on the delivery and its endpoint.
pub fn attempt_failed(
    conn: &mut PgConnection,
    (delivery, endpoint): (DeliveryId, WebhookId),
    f: Failure<'_>,
) -> QueryResult<()> {
    diesel::update(webhook_deliveries::table.find(delivery))
        .set((
            webhook_deliveries::status.eq(f.then),
            webhook_deliveries::next_attempt_at.eq(f.next),
            webhook_deliveries::last_status.eq(f.status),
            webhook_deliveries::last_error.eq(Some(f.error)),
        ))
        .execute(conn)?;
    diesel::update(webhook_endpoints::table.find(endpoint))
        .set((
            webhook_endpoints::last_error.eq(Some(f.error)),
            webhook_endpoints::last_error_at.eq(Some(f.at)),
        ))
        .execute(conn)?;
    Ok(())
}

/// The pending deliveries (due or waiting for a retry): how many, and when the oldest was
/// made.
pub fn backlog(conn: &mut PgConnection) -> QueryResult<(i64, Option<DateTime<Utc>>)> {
    use diesel::dsl::{count_star, min};
    webhook_deliveries::table
        .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending))
        .select((count_star(), min(webhook_deliveries::created_at)))
        .first(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_statuses_keep_their_stored_names() {
        for (s, name) in [
            (DeliveryStatus::Pending, "pending"),
            (DeliveryStatus::Delivered, "delivered"),
            (DeliveryStatus::Failed, "failed"),
        ] {
            assert_eq!(s.as_str(), name);
            assert_eq!(DeliveryStatus::parse(name), Some(s));
        }
        assert_eq!(DeliveryStatus::parse("sent"), None);
    }

    #[test]
    fn a_subject_is_its_tournament_else_its_pool() {
        let (t, p) = (TournamentId(3), PoolId(4));
        assert_eq!(Subject::of(Some(t), None), Some(Subject::Tournament(t)));
        assert_eq!(Subject::of(None, Some(p)), Some(Subject::Pool(p)));
        assert_eq!(Subject::of(None, None), None);
    }
}
