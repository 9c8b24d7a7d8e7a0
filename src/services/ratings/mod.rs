//! Ratings as a service: feeds the pure rating engine (`crate::domain::rating`) from the stored
//! results and keeps the pool's change log (`rating_changes`) equal to what a full replay of the
//! adjudicated results gives.
//!
//! - [`results_changed`] / [`round_results_changed`]: the results code calls them inside its
//!   transaction whenever a round of a tournament is completed or a result of a completed round
//!   is corrected. They find the first game of the tournament (or round) whose rated result
//!   differs from the stored log, delete the pool's changes from that point in time order on,
//!   take the state just before it from `rating_standings` and the deleted rows, and replay
//!   the rest (incremental recompute).
//! - [`rebuild_pool`]: the full rebuild (admin command); agrees exactly with the incremental one.
//! - [`ratings_at`]: ratings and rated games at an instant, for seeding at a registration
//!   deadline (Tantrix seed 003 rule 13).
//!
//! Time order: when the round was played (`rounds.played_at`, see `services::running::time_of_play`),
//! then round id, then table number (domain.md section 10).
//! Only rounds with status `completed` are rated; the highest result version per table is the
//! one in force. Which seat won comes from the scoring engine with the tournament's ruleset, so
//! places, draws, forfeits and byes follow the same rules as the standings.
//! Decisions: `docs/decisions/rating-service.md`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, NaiveTime, Offset, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use crate::db;
use crate::db::models::RatingPoolRow;
use crate::db::PgConnection;
use crate::domain::ids::{PlayerId, PoolId};
use crate::domain::rating::{
    league_tournaments, replay, ChangeKind, DuelOutcome, Exclusion, GameResult, ImportedRating,
    LeagueRules, LeagueTournament, PlayerDirectory, PlayerIndex, RatedGame, RatingChange,
    RatingPoolParams, RatingState, Season, Seat, TournamentDecision,
};
use crate::domain::scoring::team::{compare_match, MatchOutcome, MemberResult, TeamResult};
use crate::domain::scoring::{score_table, Format, Points, Ruleset, SeatResult, TableResult};
use crate::error::ApiError;

mod acceptance;
mod held_times;
mod history_view;
mod keepers;
pub mod leaderboard;
pub use acceptance::*;
pub use keepers::*;
mod leaderboard_view;
mod league_view;
mod pool_log;
mod pools;
mod seasons;
pub use held_times::*;
pub use history_view::*;
pub use leaderboard_view::*;
pub use league_view::*;
pub use pool_log::*;
pub use pools::*;
pub use seasons::*;

pub use crate::db::ratings::pools::StoredSeason;

/// What a rebuild or recompute did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RecomputeSummary {
    /// Games (rated items) replayed.
    pub games: usize,
    /// Rating changes written.
    pub changes: usize,
}

/// Loads a pool (404 if there is none).
pub fn load_pool(conn: &mut PgConnection, id: i64) -> Result<RatingPoolRow, ApiError> {
    db::ratings::pools::by_id(conn, PoolId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))
}

/// Loads a pool and locks it until the end of the transaction, so recomputes of one pool run
/// one at a time.
fn lock_pool(conn: &mut PgConnection, id: i64) -> Result<RatingPoolRow, ApiError> {
    db::ratings::pools::lock(conn, PoolId(id))?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))
}

/// The engine parameters stored on a pool.
pub fn pool_params(pool: &RatingPoolRow) -> Result<RatingPoolParams, ApiError> {
    db::ratings::pools::params_of(pool)
}

/// The seasons stored on a pool, as local dates.
pub fn stored_seasons(pool: &RatingPoolRow) -> Result<Vec<StoredSeason>, ApiError> {
    db::ratings::pools::seasons_of(pool)
}

/// The engine's seasons: the stored dates plus the UTC offset of the pool's zone at 22:00 on
/// each last day (the standings cutoff, seed 004 section 7).
pub fn engine_seasons(time_zone: &str, seasons: &[StoredSeason]) -> Result<Vec<Season>, String> {
    let tz: chrono_tz::Tz = time_zone
        .parse()
        .map_err(|_| format!("unknown time zone {time_zone}"))?;
    let ten_pm = NaiveTime::from_hms_opt(22, 0, 0).expect("22:00 is a time");
    seasons
        .iter()
        .map(|s| {
            let local = s.last_day.and_time(ten_pm);
            let at = tz
                .from_local_datetime(&local)
                .earliest()
                .ok_or_else(|| format!("22:00 on {} does not exist in {time_zone}", s.last_day))?;
            Ok(Season {
                name: s.name.clone(),
                first_day: s.first_day,
                last_day: s.last_day,
                cutoff_utc_offset_seconds: at.offset().fix().local_minus_utc(),
            })
        })
        .collect()
}

// --- the pool's games -------------------------------------------------------------------------

mod games;
pub use games::*;
mod league;
pub use league::*;
mod recompute;
use recompute::*;
mod standings;
pub use standings::*;
mod feed;
pub use feed::*;
mod history;
mod imports;
pub use history::*;
pub use imports::*;
