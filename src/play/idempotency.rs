//! `Idempotency-Key`: a retried write answers what the first one answered.
//!
//! The first request with a key stores its answer (status and body) under (user, key) in the
//! same transaction as the write. A retry of the same request (same method, path and body)
//! gets that answer again without writing; a different request with a used key is refused.

use actix_web::{http::header::HeaderName, HttpRequest};
use diesel::prelude::*;
use diesel::PgConnection;
use sha2::{Digest, Sha256};

use crate::db::running::IdempotencyRow;
use crate::db::schema::idempotency_keys;
use crate::error::ApiError;

/// The JSON Schema pattern of an `Idempotency-Key` header.
pub const KEY_PATTERN: &str = "^[!-~]{1,200}$";

/// A key and the fingerprint of the request it came with.
#[derive(Debug, Clone)]
pub struct Key {
    pub key: String,
    pub request_hash: String,
}

/// Reads the `Idempotency-Key` header (visible ASCII, 1-200 characters), if any.
pub fn key_of(req: &HttpRequest, body: &impl serde::Serialize) -> Result<Option<Key>, ApiError> {
    let Some(v) = req
        .headers()
        .get(HeaderName::from_static("idempotency-key"))
    else {
        return Ok(None);
    };
    let key = v
        .to_str()
        .ok()
        .filter(|k| (1..=200).contains(&k.len()) && k.bytes().all(|b| (b'!'..=b'~').contains(&b)))
        .ok_or_else(|| {
            ApiError::field(
                "Idempotency-Key",
                "must be 1-200 visible ASCII characters, e.g. a UUID",
            )
        })?
        .to_string();
    let mut h = Sha256::new();
    h.update(req.method().as_str());
    h.update(b" ");
    h.update(req.path());
    h.update(b"\n");
    h.update(serde_json::to_vec(body).map_err(|e| ApiError::Internal(e.to_string()))?);
    Ok(Some(Key {
        key,
        request_hash: hex::encode(h.finalize()),
    }))
}

/// The stored answer to an earlier request with this key, if any; 422 when the key was used
/// for a different request.
pub fn replay(
    conn: &mut PgConnection,
    user_id: i64,
    key: &Key,
) -> Result<Option<(u16, serde_json::Value)>, ApiError> {
    let row: Option<IdempotencyRow> = idempotency_keys::table
        .find((user_id, &key.key))
        .select(IdempotencyRow::as_select())
        .first(conn)
        .optional()?;
    match row {
        None => Ok(None),
        Some(r) if r.request_hash == key.request_hash => {
            let body =
                serde_json::from_str(&r.body).map_err(|e| ApiError::Internal(e.to_string()))?;
            Ok(Some((r.status as u16, body)))
        }
        Some(_) => Err(ApiError::field(
            "Idempotency-Key",
            "this key was used for a different request",
        )),
    }
}

/// Stores the answer to the request with this key.
pub fn store(
    conn: &mut PgConnection,
    user_id: i64,
    key: &Key,
    status: u16,
    body: &serde_json::Value,
) -> Result<(), ApiError> {
    diesel::insert_into(idempotency_keys::table)
        .values(IdempotencyRow {
            user_id,
            key: key.key.clone(),
            request_hash: key.request_hash.clone(),
            status: i32::from(status),
            body: body.to_string(),
            headers: serde_json::json!({}),
            created_at: chrono::Utc::now(),
        })
        .execute(conn)?;
    Ok(())
}
