//! The pool's games as stored: the completed rounds of the tournaments a keeper accepted into a
//! pool, the result version in force at each of their tables, and the point penalties and game
//! losses in force on them. The rating feed (`services::ratings`) turns them into rated games.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId, RoundId, TournamentId};
use crate::db::models::TournamentRules;
use crate::db::schema::{penalties, rounds, tournaments};
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::status::RoundStatus;

/// A completed round of a tournament that feeds a pool, with its tournament's ruleset.
///
/// The tournament's rules are decoded as the row is read (an error naming the tournament's row
/// when they do not parse). `draw` stays JSON here: the feed decodes it only for a team
/// duplicate round (whose draw holds team matches), naming the round when it does not parse.
#[derive(Debug, Clone, Queryable)]
pub struct RatedRound {
    pub id: RoundId,
    pub tournament_id: TournamentId,
    pub number: i32,
    /// When the round was played (the pool's order).
    pub played_at: Option<DateTime<Utc>>,
    pub draw: serde_json::Value,
    /// Its tournament's ruleset.
    pub rules: TournamentRules,
}

/// Which rounds [`rated_rounds`] reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundsOf<'a> {
    /// Only rounds at or after this point of the time order `(played_at, round id)`: later
    /// instants, and at the same instant the rounds with an id at least this one.
    pub from: Option<(DateTime<Utc>, RoundId)>,
    /// Only this tournament's rounds.
    pub tournament: Option<TournamentId>,
    /// Only these rounds.
    pub rounds: Option<&'a [RoundId]>,
}

/// The completed rounds with a time of play of the tournaments a keeper accepted into `pool`
/// (issue 26: only those feed it), narrowed by `only`.
pub fn rated_rounds(
    conn: &mut PgConnection,
    pool: PoolId,
    only: RoundsOf<'_>,
) -> QueryResult<Vec<RatedRound>> {
    let mut q = rounds::table
        .inner_join(tournaments::table)
        .filter(tournaments::rating_pool_id.eq(pool))
        .filter(tournaments::rating_status.eq(RatingStatus::Accepted))
        .filter(rounds::status.eq(RoundStatus::Completed))
        .filter(rounds::played_at.is_not_null())
        .select((
            rounds::id,
            rounds::tournament_id,
            rounds::number,
            rounds::played_at,
            rounds::draw,
            TournamentRules::as_select(),
        ))
        .into_boxed();
    if let Some((t, round_id)) = only.from {
        // The rounds at or after the key's round in time order (played_at, round id): rounds
        // played at the same instant (an event entered afterwards, every round held to its
        // last evening) are not loaded again for a change in a later one.
        q = q.filter(
            rounds::played_at
                .gt(t)
                .or(rounds::played_at.eq(t).and(rounds::id.ge(round_id))),
        );
    }
    if let Some(tid) = only.tournament {
        q = q.filter(rounds::tournament_id.eq(tid));
    }
    if let Some(ids) = only.rounds {
        q = q.filter(rounds::id.eq_any(ids.to_vec()));
    }
    q.load(conn)
}

/// A point penalty or game loss in force (not annulled), as the ratings apply it at its table.
#[derive(Debug, Clone, Queryable)]
pub struct TablePenaltyRow {
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub kind: RecordedPenalty,
    pub round_number: Option<i32>,
    pub table_number: Option<i32>,
    pub points: i32,
}

/// The point penalties and game losses in force in `tournaments`, in the order they were
/// issued.
pub fn table_penalties(
    conn: &mut PgConnection,
    tournaments: &[TournamentId],
) -> QueryResult<Vec<TablePenaltyRow>> {
    penalties::table
        .filter(penalties::tournament_id.eq_any(tournaments))
        .filter(penalties::annulled_at.is_null())
        .filter(penalties::kind.eq_any([RecordedPenalty::PointPenalty, RecordedPenalty::GameLoss]))
        .order(penalties::id)
        .select((
            penalties::tournament_id,
            penalties::player_id,
            penalties::kind,
            penalties::round_number,
            penalties::table_number,
            penalties::points,
        ))
        .load(conn)
}
