//! `Idempotency-Key`: a retried write answers what the first one answered.
//!
//! The first request with a key stores its answer (status and body) under (user, key) in the
//! same transaction as the write. A retry of the same request (same method, path and body)
//! gets that answer again without writing; a different request with a used key is refused.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::db::idempotency as store;
use crate::db::ids::UserId;
use crate::db::running::IdempotencyRow;
use crate::db::PgConnection;
use crate::error::ApiError;

/// The JSON Schema pattern of an `Idempotency-Key` header.
pub const KEY_PATTERN: &str = "^[!-~]{1,200}$";

/// A key and the fingerprint of the request it came with.
#[derive(Debug, Clone)]
pub struct Key {
    pub key: String,
    pub request_hash: String,
    /// When the request came (the caller's clock).
    pub received_at: DateTime<Utc>,
}

impl Key {
    /// A key for a request: `fingerprint` is what identifies the request (method, path and
    /// body); only its SHA-256 is kept. `received_at`: when the request came.
    pub fn new(key: String, fingerprint: &[u8], received_at: DateTime<Utc>) -> Self {
        use sha2::{Digest, Sha256};
        Self {
            key,
            request_hash: hex::encode(Sha256::digest(fingerprint)),
            received_at,
        }
    }
}

/// An answer as the HTTP layer chose it (status, headers) with its body: what a first
/// request answered and a retry with the same key gets again.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    /// Header names and values (stored as a JSON object; rows stored before headers were
    /// kept hold `{}`).
    pub headers: BTreeMap<String, String>,
    pub body: serde_json::Value,
}

/// The stored answer to an earlier request with this key, if any; 422 when the key was used
/// for a different request.
///
/// Takes a transaction-scoped advisory lock on (user, key) first: a retry sent while the first
/// request is still in flight waits for it to commit and then gets its answer, instead of
/// racing it and failing on the version it has just written (IETF Idempotency-Key draft:
/// never a false failure).
fn replay(conn: &mut PgConnection, user_id: i64, key: &Key) -> Result<Option<Answer>, ApiError> {
    store::lock(conn, UserId(user_id), &key.key)?;
    let row = store::stored(conn, UserId(user_id), &key.key)?;
    match row {
        None => Ok(None),
        Some(r) if r.request_hash == key.request_hash => {
            let stored = |e: serde_json::Error| {
                ApiError::Internal(format!("stored answer to Idempotency-Key {}: {e}", r.key))
            };
            let body = serde_json::from_str(&r.body).map_err(stored)?;
            let headers = serde_json::from_value(r.headers.clone()).map_err(stored)?;
            let status = u16::try_from(r.status).map_err(|e| {
                ApiError::Internal(format!("stored status of Idempotency-Key {}: {e}", r.key))
            })?;
            Ok(Some(Answer {
                status,
                headers,
                body,
            }))
        }
        Some(_) => Err(ApiError::field(
            "Idempotency-Key",
            "this key was used for a different request",
        )),
    }
}

/// Stores the answer to the request with this key (`now` fills the row; the stored time is
/// the database's default).
fn keep(
    conn: &mut PgConnection,
    user_id: i64,
    key: &Key,
    answer: &Answer,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    store::store(
        conn,
        &IdempotencyRow {
            user_id: UserId(user_id),
            key: key.key.clone(),
            request_hash: key.request_hash.clone(),
            status: i32::from(answer.status),
            body: answer.body.to_string(),
            headers: serde_json::to_value(&answer.headers)
                .map_err(|e| ApiError::Internal(e.to_string()))?,
            created_at: now,
        },
    )?;
    Ok(())
}

/// Runs a write once per `Idempotency-Key`, in one transaction with the stored answer: a retry
/// (or a parallel copy) of the same request gets the first answer again without writing;
/// without a key the write simply runs. `status` and `headers` are what the HTTP layer answers
/// for the write's output. The write's own transaction, if it opens one, nests as a savepoint.
pub fn once<T: serde::Serialize>(
    conn: &mut PgConnection,
    user_id: i64,
    key: Option<&Key>,
    status: u16,
    headers: impl FnOnce(&T) -> BTreeMap<String, String>,
    write: impl FnOnce(&mut PgConnection) -> Result<T, ApiError>,
) -> Result<Answer, ApiError> {
    once_answering(conn, user_id, key, |out| (status, headers(out)), write)
}

/// [`once`] for a write whose status depends on what it did (`answer` gives the status and the
/// headers for the write's output).
pub fn once_answering<T: serde::Serialize>(
    conn: &mut PgConnection,
    user_id: i64,
    key: Option<&Key>,
    answer: impl FnOnce(&T) -> (u16, BTreeMap<String, String>),
    write: impl FnOnce(&mut PgConnection) -> Result<T, ApiError>,
) -> Result<Answer, ApiError> {
    crate::db::transaction(conn, |conn| {
        if let Some(k) = key {
            if let Some(answer) = replay(conn, user_id, k)? {
                return Ok(answer);
            }
        }
        let out = write(conn)?;
        let (status, headers) = answer(&out);
        let answer = Answer {
            status,
            headers,
            body: serde_json::to_value(&out).map_err(|e| ApiError::Internal(e.to_string()))?,
        };
        if let Some(k) = key {
            keep(conn, user_id, k, &answer, k.received_at)?;
        }
        Ok(answer)
    })
}
