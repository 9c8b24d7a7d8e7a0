//! Readiness: whether the database answers.

use crate::db::PgConnection;
use crate::error::ApiError;

/// Ok when the database answers a trivial query; 503 otherwise.
pub fn database_answers(conn: &mut PgConnection) -> Result<(), ApiError> {
    crate::db::health::ping(conn).map_err(|e| {
        tracing::warn!(error = %e, "readiness query");
        ApiError::Unavailable("the database does not answer".into())
    })
}
