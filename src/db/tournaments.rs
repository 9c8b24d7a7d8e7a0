//! The tournaments: one by id (locked or not), and the rating pool a tournament names.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PoolId, TournamentId};
use crate::db::models::{RatingPoolRow, Tournament};
use crate::db::schema::{rating_pools, tournaments};

/// A tournament by id.
pub fn by_id(conn: &mut PgConnection, id: TournamentId) -> QueryResult<Option<Tournament>> {
    tournaments::table
        .find(id.0)
        .select(Tournament::as_select())
        .first(conn)
        .optional()
}

/// A tournament by id, its row locked (`FOR UPDATE`) until the transaction ends.
pub fn lock(conn: &mut PgConnection, id: TournamentId) -> QueryResult<Option<Tournament>> {
    tournaments::table
        .find(id.0)
        .select(Tournament::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// The rating pool a tournament names, if there is one.
pub fn rating_pool(conn: &mut PgConnection, pool: PoolId) -> QueryResult<Option<RatingPoolRow>> {
    rating_pools::table
        .find(pool.0)
        .select(RatingPoolRow::as_select())
        .first(conn)
        .optional()
}
