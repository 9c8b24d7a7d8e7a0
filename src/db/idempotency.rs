//! The stored answers of `Idempotency-Key` requests (`idempotency_keys`).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel::PgConnection;

use crate::db::ids::UserId;
use crate::db::running::IdempotencyRow;
use crate::db::schema::idempotency_keys;

/// Takes the transaction-scoped advisory lock on (user, key): a second request with the key
/// waits here until the first one's transaction ends.
pub fn lock(conn: &mut PgConnection, user: UserId, key: &str) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, $2))")
        .bind::<Text, _>(key)
        .bind::<BigInt, _>(user)
        .execute(conn)?;
    Ok(())
}

/// The answer stored under (user, key), if any.
pub fn stored(
    conn: &mut PgConnection,
    user: UserId,
    key: &str,
) -> QueryResult<Option<IdempotencyRow>> {
    idempotency_keys::table
        .find((user.0, key))
        .select(IdempotencyRow::as_select())
        .first(conn)
        .optional()
}

/// Stores an answer (its `created_at` is the database's default).
pub fn store(conn: &mut PgConnection, row: &IdempotencyRow) -> QueryResult<()> {
    diesel::insert_into(idempotency_keys::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}
