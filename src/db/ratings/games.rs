//! The pool's games as stored: the completed rounds of the tournaments a keeper accepted into a
//! pool, the result version in force at each of their tables, and the point penalties and game
//! losses in force on them. The rating feed (`services::ratings`) turns them into rated games.

use chrono::{DateTime, Utc};
use diesel::deserialize;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Json, Jsonb, Nullable, Text, Timestamptz};
use diesel::PgConnection;

use crate::db::ids::{PlayerId, PoolId, RoundId, TournamentId};
use crate::db::json::Parsed;
use crate::db::models::TournamentRules;
use crate::db::schema::{penalties, rounds, tournaments};
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::scoring::{Format, Preset, RulesetOverride};
use crate::domain::seating::Draw;
use crate::domain::status::RoundStatus;

/// A completed round of a tournament that feeds a pool, with its tournament's ruleset.
///
/// The tournament's rules are decoded once as the row is read, and the draw with them only where
/// the rating reads it, in a team duplicate round (its matches pair the tables); a value that
/// does not parse is an error naming its row: the round's, or the tournament's (see its
/// `Queryable`).
#[derive(Debug, Clone)]
pub struct RatedRound {
    pub id: RoundId,
    pub tournament_id: TournamentId,
    pub number: i32,
    /// When the round was played (the pool's order).
    pub played_at: Option<DateTime<Utc>>,
    /// The draw of a team duplicate round; `None` in every other format (not decoded).
    pub draw: Option<Draw>,
    /// Its tournament's ruleset.
    pub rules: TournamentRules,
}

/// A rated round as read, its draw still undecoded (decoded for a team duplicate round only).
type StoredRatedRound = (
    RoundId,
    TournamentId,
    i32,
    Option<DateTime<Utc>>,
    Parsed<Draw>,
    Preset,
    Parsed<Option<RulesetOverride>>,
);

type RatedRoundSql = (
    BigInt,
    BigInt,
    Integer,
    Nullable<Timestamptz>,
    Json,
    Text,
    Jsonb,
);

impl Queryable<RatedRoundSql, Pg> for RatedRound {
    type Row = StoredRatedRound;

    fn build(row: StoredRatedRound) -> deserialize::Result<Self> {
        let (id, tournament_id, number, played_at, draw, preset, overrides) = row;
        let rules = TournamentRules::decode(tournament_id, preset, overrides)?;
        let draw = if rules.ruleset.format == Format::TeamDuplicate {
            Some(draw.at(&format!("rounds row {id}"), "draw")?)
        } else {
            None
        };
        Ok(Self {
            id,
            tournament_id,
            number,
            played_at,
            draw,
            rules,
        })
    }
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
            tournaments::ruleset,
            tournaments::ruleset_overrides,
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
