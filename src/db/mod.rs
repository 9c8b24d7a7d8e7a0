//! Database access: the connection pool, embedded migrations, the embedded default
//! PostgreSQL, the diesel schema and the row models.

pub mod accounts;
pub mod archives;
pub mod calendars;
pub mod cases;
pub mod claims;
pub mod conduct;
pub mod embedded;
pub mod enums;
pub mod events;
pub mod health;
pub mod idempotency;
pub mod ids;
pub mod integrations;
pub mod invitations;
pub mod json;
pub mod me;
pub mod models;
pub mod named;
pub mod personal_data;
pub mod player_links;
pub mod players;
pub mod ratings;
pub mod registrations;
pub mod reports;
pub mod results;
pub mod rounds;
pub mod running;
pub mod schedules;
pub mod schema;
pub mod search;
pub mod staff;
pub mod standings;
pub mod tournaments;

/// The connection every store function and use case takes (`&mut PgConnection`): services name
/// it from here, not from diesel.
pub use diesel::pg::PgConnection;
use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

/// The migrations of `migrations/`, compiled into the binary.
pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// The r2d2 pool of PostgreSQL connections.
pub type DbPool = Pool<ConnectionManager<PgConnection>>;
/// One pooled connection.
pub type DbConn = PooledConnection<ConnectionManager<PgConnection>>;

/// How long a request waits for a pooled connection by default before its 503. Short, so a
/// database outage is answered fast (the circuit in `AppState` answers the next ones at once).
pub const CHECKOUT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Builds a pool for `url` with at most `size` connections and the default checkout timeout.
pub fn pool(url: &str, size: u32) -> Result<DbPool, r2d2::Error> {
    pool_with(url, size, CHECKOUT_TIMEOUT)
}

/// Builds a pool for `url` with at most `size` connections, waiting at most `checkout` for one.
pub fn pool_with(
    url: &str,
    size: u32,
    checkout: std::time::Duration,
) -> Result<DbPool, r2d2::Error> {
    Pool::builder()
        .max_size(size)
        .min_idle(Some(1))
        .connection_timeout(checkout)
        .build(ConnectionManager::<PgConnection>::new(url))
}

/// A connection of its own to the database at `url`, outside the pool (a listener that keeps
/// its session).
pub fn connect(url: &str) -> diesel::ConnectionResult<PgConnection> {
    use diesel::Connection;
    PgConnection::establish(url)
}

/// Applies every pending migration; returns how many ran.
pub fn run_migrations(conn: &mut PgConnection) -> Result<usize, String> {
    conn.run_pending_migrations(MIGRATIONS)
        .map(|v| v.len())
        .map_err(|e| format!("migrations failed: {e}"))
}

/// Runs `f` as part of the request's one transaction (issue 39, item 4): in the transaction
/// already open on `conn` (the idempotency record's, which then holds the write and its stored
/// answer), or in a new one when none is open. Unlike `conn.transaction`, it never opens a
/// savepoint: an error of `f` ends the whole unit (its caller rolls back). Code that recovers
/// from an inner error and goes on keeps an explicit `conn.transaction` (a savepoint).
pub fn unit_of_work<T, E>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    use diesel::Connection;
    let open = AnsiTransactionManager::transaction_manager_status_mut(conn)
        .transaction_depth()
        .is_ok_and(|depth| depth.is_some());
    if open {
        f(conn)
    } else {
        conn.transaction(f)
    }
}

/// Runs `f` in a transaction of its own (diesel's `Connection::transaction`): a new one, or,
/// inside an open transaction, a savepoint. An error of `f` rolls back what `f` wrote, and only
/// that; its caller may go on. Compare [`unit_of_work`], which joins an open transaction.
pub fn transaction<T, E>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    use diesel::Connection;
    conn.transaction(f)
}

/// Runs `f` in a read-only transaction at `REPEATABLE READ`: every read of `f` sees the same
/// snapshot (an export or an archive that reads many tables reads them as of one instant).
pub fn snapshot<T, E>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(f)
}
