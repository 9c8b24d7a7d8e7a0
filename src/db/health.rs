//! Whether the database answers at all.

use diesel::{PgConnection, QueryResult, RunQueryDsl};

/// A trivial query: Ok when the database answers it.
pub fn ping(conn: &mut PgConnection) -> QueryResult<()> {
    diesel::sql_query("SELECT 1").execute(conn).map(|_| ())
}
