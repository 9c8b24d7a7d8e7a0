//! What every handler can reach: the database pool and the token keys.

use crate::auth::JwtKeys;
use crate::db::{DbConn, DbPool};
use crate::error::ApiError;

/// Shared application state, cloned into every worker.
#[derive(Clone)]
pub struct AppState {
    pub pool: DbPool,
    pub jwt: JwtKeys,
}

impl AppState {
    /// A pooled connection; 503 when the database cannot be reached.
    pub fn conn(&self) -> Result<DbConn, ApiError> {
        Ok(self.pool.get()?)
    }

    /// Runs `f` with a connection on the blocking thread pool (diesel is synchronous).
    pub async fn run<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConn) -> Result<T, ApiError> + Send + 'static,
    {
        let pool = self.pool.clone();
        actix_web::web::block(move || {
            let mut conn = pool.get()?;
            f(&mut conn)
        })
        .await?
    }
}
