//! What every handler can reach: the database pool, the token keys and the leaderboard cache.

use crate::auth::JwtKeys;
use diesel::PgConnection;

use crate::db::{DbConn, DbPool};
use crate::error::ApiError;
use crate::services::auth::AccountCache;
use crate::services::leaderboard::LeaderboardCache;
use crate::services::throttle::LoginThrottle;

/// Shared application state, cloned into every worker.
#[derive(Clone)]
pub struct AppState {
    pub pool: DbPool,
    pub jwt: JwtKeys,
    /// The current leaderboards of the most recently read rating pools (shared by every
    /// worker; checked against the database's versions on every request).
    pub leaderboards: LeaderboardCache,
    /// Failed sign-ins per account and client address (this instance's).
    pub login_throttle: LoginThrottle,
    /// The accounts behind recently used tokens (role and existence, re-read every 2 s).
    pub accounts: AccountCache,
}

impl AppState {
    /// A pooled connection; 503 when the database cannot be reached.
    pub fn conn(&self) -> Result<DbConn, ApiError> {
        Ok(self.pool.get()?)
    }

    /// Runs `f` inside one database transaction on the blocking thread pool: committed when
    /// `f` returns Ok, rolled back when it returns an error.
    pub async fn transaction<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut PgConnection) -> Result<T, ApiError> + Send + 'static,
    {
        self.run(move |conn| {
            use diesel::Connection;
            conn.transaction(|c: &mut DbConn| f(c))
        })
        .await
    }

    /// Runs `f` with a connection on the blocking thread pool (diesel is synchronous), outside
    /// any transaction (reads that need no consistent snapshot, and work that opens its own).
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
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
    }
}
