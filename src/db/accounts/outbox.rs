//! The `mail_outbox` table: messages queued in the transaction of the change that causes them,
//! claimed under a lease by the background job, and their outcome.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Integer, Text, Timestamptz};
use diesel::PgConnection;

use crate::db::ids::{MailId, UserId};
use crate::db::schema::mail_outbox;

/// Queues a message (`kind`: what it is) for `to`, the account `user_id`'s.
pub fn insert(
    conn: &mut PgConnection,
    user_id: Option<UserId>,
    to: &str,
    subject: &str,
    body: &str,
    kind: &str,
) -> QueryResult<()> {
    diesel::insert_into(mail_outbox::table)
        .values((
            mail_outbox::user_id.eq(user_id),
            mail_outbox::to_address.eq(to),
            mail_outbox::subject.eq(subject),
            mail_outbox::body.eq(Some(body)),
            mail_outbox::kind.eq(kind),
        ))
        .execute(conn)
        .map(drop)
}

/// A message claimed for one attempt.
#[derive(Debug, Clone, QueryableByName)]
pub struct ClaimedMail {
    #[diesel(sql_type = BigInt)]
    pub id: MailId,
    #[diesel(sql_type = Text)]
    pub to_address: String,
    #[diesel(sql_type = Text)]
    pub subject: String,
    #[diesel(sql_type = Text)]
    pub body: String,
    /// The random part of the `Message-ID`.
    #[diesel(sql_type = Text)]
    pub message_id: String,
    #[diesel(sql_type = Integer)]
    pub attempts: i32,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
}

/// Claims up to `limit` messages due by the database's clock, each leased for `lease_secs` (its
/// next attempt moved past the lease, its attempts counted) in one statement that skips rows
/// another instance is claiming.
pub fn claim_due(
    conn: &mut PgConnection,
    limit: i64,
    lease_secs: f64,
) -> QueryResult<Vec<ClaimedMail>> {
    diesel::sql_query(
        "WITH due AS (
             SELECT id FROM mail_outbox
             WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
             ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
         )
         UPDATE mail_outbox m
         SET next_attempt_at = now() + make_interval(secs => $2), attempts = m.attempts + 1
         FROM due WHERE m.id = due.id
         RETURNING m.id, m.to_address, m.subject, m.body, m.message_id, m.attempts, m.created_at",
    )
    .bind::<BigInt, _>(limit)
    .bind::<Double, _>(lease_secs)
    .load(conn)
}

/// Records the message sent at `now`, its body emptied.
pub fn mark_sent(conn: &mut PgConnection, id: MailId, now: DateTime<Utc>) -> QueryResult<()> {
    diesel::update(mail_outbox::table.find(id))
        .set((
            mail_outbox::sent_at.eq(Some(now)),
            mail_outbox::last_error.eq(None::<String>),
            mail_outbox::body.eq(None::<String>),
        ))
        .execute(conn)
        .map(drop)
}

/// Records a failed attempt: the next one at `next`, with the error.
pub fn mark_retry(
    conn: &mut PgConnection,
    id: MailId,
    next: DateTime<Utc>,
    error: &str,
) -> QueryResult<()> {
    diesel::update(mail_outbox::table.find(id))
        .set((
            mail_outbox::next_attempt_at.eq(next),
            mail_outbox::last_error.eq(Some(error)),
        ))
        .execute(conn)
        .map(drop)
}

/// Records the message given up at `now` (its next attempt `next` as computed), with the
/// error, its body emptied.
pub fn mark_failed(
    conn: &mut PgConnection,
    id: MailId,
    next: DateTime<Utc>,
    now: DateTime<Utc>,
    error: &str,
) -> QueryResult<()> {
    diesel::update(mail_outbox::table.find(id))
        .set((
            mail_outbox::next_attempt_at.eq(next),
            mail_outbox::failed_at.eq(Some(now)),
            mail_outbox::last_error.eq(Some(error)),
            mail_outbox::body.eq(None::<String>),
        ))
        .execute(conn)
        .map(drop)
}
