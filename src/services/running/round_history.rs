//! A round's history of withdrawn draws (issue 37, item 5), kept in its stored metadata: read
//! by the rounds (to show it, to know a withdrawn draw must be drawn again) and written by
//! `round_withdrawal`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::db::running::RoundRow;
use crate::domain::seating::SeatingMethod;
use crate::domain::status::RoundStatus;
use crate::error::ApiError;

/// Where a round keeps its withdrawals: this key of its stored metadata (shown as the round's
/// `withdrawals`, never inside `metadata`; an organiser's metadata may not use it).
pub const KEY: &str = "withdrawals";

/// One withdrawn draw of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoundWithdrawal {
    /// The draw attempt withdrawn (its record is in `/rounds/{n}/draws`).
    pub attempt: i32,
    /// The method it was drawn with.
    pub method: SeatingMethod,
    /// Its seed's commitment.
    pub seed_commitment: String,
    /// Whether players had seen it (it was published); its seed stays revealed.
    pub was_published: bool,
    pub reason: String,
    /// The account that withdrew it.
    pub withdrawn_by: String,
    pub withdrawn_at: DateTime<Utc>,
}

/// The withdrawals a round's stored metadata holds, oldest first.
pub fn withdrawals_of(metadata: &serde_json::Value) -> Result<Vec<RoundWithdrawal>, ApiError> {
    match metadata.get(KEY) {
        None => Ok(Vec::new()),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| ApiError::Internal(format!("stored withdrawals: {e}"))),
    }
}

/// The metadata as shown: without the withdrawals (shown on their own).
pub fn shown_metadata(mut metadata: serde_json::Value) -> serde_json::Value {
    if let Some(o) = metadata.as_object_mut() {
        o.remove(KEY);
    }
    metadata
}

/// Whether the round's current draw was withdrawn: it must be drawn again before publishing.
/// Stored withdrawals that do not parse are an error, never "not withdrawn".
pub fn is_withdrawn(round: &RoundRow) -> Result<bool, ApiError> {
    Ok(round.status == RoundStatus::Draft
        && withdrawals_of(&round.metadata)?.last().map(|w| w.attempt) == Some(round.draw_count))
}

/// The draw attempts whose seeds were public before a withdrawal took the round back to draft.
/// Stored withdrawals that do not parse are an error, never "none published".
pub fn published_attempts(round: &RoundRow) -> Result<Vec<i32>, ApiError> {
    Ok(withdrawals_of(&round.metadata)?
        .into_iter()
        .filter(|w| w.was_published)
        .map(|w| w.attempt)
        .collect())
}

/// The organiser's metadata for a new draw of a round, with the round's withdrawals kept.
pub fn metadata_with_history(
    new: serde_json::Map<String, serde_json::Value>,
    earlier: &serde_json::Value,
) -> serde_json::Value {
    let mut new = new;
    if let Some(w) = earlier.get(KEY) {
        new.insert(KEY.into(), w.clone());
    }
    serde_json::Value::Object(new)
}
