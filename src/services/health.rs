//! Readiness: whether the database answers.

use diesel::{PgConnection, RunQueryDsl};

use crate::error::ApiError;

/// Ok when the database answers a trivial query; 503 otherwise.
pub fn database_answers(conn: &mut PgConnection) -> Result<(), ApiError> {
    diesel::sql_query("SELECT 1")
        .execute(conn)
        .map(|_| ())
        .map_err(|e| {
            tracing::warn!(error = %e, "readiness query");
            ApiError::Unavailable("the database does not answer".into())
        })
}
