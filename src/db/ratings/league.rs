//! What the league of a pool reads of its tournaments.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PoolId, TournamentId, UserId};
use crate::db::schema::tournaments;
use crate::domain::rating::acceptance::RatingStatus;

/// What the league needs to know about one tournament of a pool.
#[derive(Debug, Clone, Queryable)]
pub struct LeagueFacts {
    pub id: TournamentId,
    /// Its organiser (who created it).
    pub created_by: UserId,
    pub starts_on: NaiveDate,
    pub announced_at: Option<DateTime<Utc>>,
    pub national_rank: bool,
}

/// The league facts of every tournament that feeds the pool (accepted by a keeper), by id.
pub fn accepted_tournaments(
    conn: &mut PgConnection,
    pool: PoolId,
) -> QueryResult<Vec<LeagueFacts>> {
    tournaments::table
        .filter(tournaments::rating_pool_id.eq(pool))
        .filter(tournaments::rating_status.eq(RatingStatus::Accepted))
        .order(tournaments::id)
        .select((
            tournaments::id,
            tournaments::created_by,
            tournaments::starts_on,
            tournaments::announced_at,
            tournaments::national_rank,
        ))
        .load(conn)
}
