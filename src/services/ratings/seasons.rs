//! A season's standings: ratings at the season's cut-off and who is classified.

use super::*;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

use crate::db::models::RatingPoolRow;
use crate::db::ratings::{leaderboard as board_store, log};
use crate::db::PgConnection;
use crate::domain::ids::{PlayerId, PoolId};
use crate::domain::rating::{
    self, season_standings, Attendance, ClassifiedBy, PlayerDirectory, RatingPoolParams,
    RatingState,
};
use crate::error::ApiError;
use crate::services::ratings::leaderboard::BoardKey;
use crate::services::ratings::{self as service, StoredSeason};
use crate::services::validate::Page;

pub(super) fn season_cutoff(pool: &RatingPoolRow, season: i64) -> Result<DateTime<Utc>, ApiError> {
    let stored = service::stored_seasons(pool)?;
    let engine = service::engine_seasons(&pool.time_zone, &stored).map_err(ApiError::Internal)?;
    let s = usize::try_from(season - 1)
        .ok()
        .and_then(|i| engine.get(i))
        .ok_or_else(|| ApiError::NotFound(format!("the pool has no season {season}")))?;
    s.cutoff().map_err(|e| ApiError::Internal(e.to_string()))
}

/// A page of the leaderboard at a season's standings time: every player's state at `at` from
/// the log, ranked by the engine (rating descending by `total_cmp`, more games, lower id); a
/// cursor's page starts by binary search in that order.
pub(super) fn season_page(
    conn: &mut PgConnection,
    id: i64,
    params: &RatingPoolParams,
    at: DateTime<Utc>,
    sel: &LeaderboardSelection,
) -> Result<Page<LeaderboardRowOut>, ApiError> {
    let sums = board_store::summaries_at(conn, PoolId(id), service::TREND_GAMES, at)?;
    let mut dir = PlayerDirectory::new();
    let mut state = RatingState::new(params, sums.len());
    for s in &sums {
        let i = dir.intern(s.player_id) as usize;
        state.ratings[i] = s.rating;
        state.games[i] = s.games as u32;
    }
    let ranked = rating::leaderboard(params, &state, sel.filter);
    let ids: Vec<PlayerId> = ranked.iter().filter_map(|r| dir.id(r.player)).collect();
    let people = board_store::people(conn, &ids)?;
    let club_lower = sel.club.as_ref().map(|c| c.to_lowercase());
    let rows: Vec<(BoardKey, LeaderboardRowOut)> = ranked
        .iter()
        .filter_map(|r| {
            let pid = dir.id(r.player)?;
            let (name, pclub, pcountry) = people.get(&pid)?.clone();
            let pid = pid.0;
            if sel
                .country
                .as_ref()
                .is_some_and(|c| pcountry.as_ref() != Some(c))
            {
                return None;
            }
            if club_lower
                .as_ref()
                .is_some_and(|c| pclub.as_ref().map(|x| x.to_lowercase()) != Some(c.clone()))
            {
                return None;
            }
            let s = &sums[r.player as usize];
            let key = BoardKey::new(r.rating, i64::from(r.games), pid);
            let line = LeaderboardRowOut {
                rank: r.rank,
                player_id: pid,
                player_name: name,
                club: pclub,
                country: pcountry,
                rating: round1(r.rating),
                games: r.games,
                provisional: r.provisional,
                last_played: s.last_played,
                trend: trend_out(s.trend_games, s.trend_delta, s.last_delta),
            };
            Some((key, line))
        })
        .collect();
    let total = rows.len() as i64;
    let start = sel.after.map_or(0, |after| {
        rows.partition_point(|(k, _)| !after.precedes(k, f64::total_cmp))
    });
    let from = start.saturating_add(sel.offset as usize).min(rows.len());
    let to = from.saturating_add(sel.limit as usize).min(rows.len());
    let more = to < rows.len();
    let lines = rows.into_iter().skip(from).take(to - from).collect();
    board_page(lines, more, total, sel)
}

/// How a player is classified for a season.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassifiedByOut {
    /// A tournament in every month of the season.
    EveryMonth,
    /// At least five tournaments in the season.
    FiveTournaments,
    /// Both.
    Both,
}

/// One line of a season's standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeasonRowOut {
    /// Rank among classified players; `null` if not classified.
    pub rank: Option<u32>,
    pub player_id: i64,
    pub player_name: String,
    /// Rating at the standings time, one decimal.
    pub rating: f64,
    /// Whether the player is classified (and so may win the season).
    pub classified: bool,
    pub classified_by: Option<ClassifiedByOut>,
    /// Counting tournaments played in the season.
    pub tournaments: u32,
    /// Months of the season without a tournament (`YYYY-MM`).
    pub months_missing: Vec<String>,
}

/// A season's standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeasonStandingsOut {
    pub season: SeasonOut,
    /// Classified players first, by rating; then the others.
    pub rows: Vec<SeasonRowOut>,
    /// The season winner(s): the highest rating among classified players.
    pub winners: Vec<i64>,
    /// The tournaments that count for the season.
    pub tournaments: Vec<i64>,
}

/// Everything the season and league tables of a pool are computed from.
pub(super) struct SeasonData {
    pub(super) params: RatingPoolParams,
    pub(super) stored: Vec<StoredSeason>,
    pub(super) engine: Vec<rating::Season>,
    pub(super) facts: Vec<service::TournamentFacts>,
    pub(super) participants: HashMap<i64, Vec<i64>>,
    /// Tournaments that count (in a league pool: the league's decision; otherwise all).
    pub(super) counting: Vec<i64>,
    pub(super) dir: PlayerDirectory,
    pub(super) history: Vec<rating::RatingChange>,
}

pub(super) fn season_data(conn: &mut PgConnection, id: i64) -> Result<SeasonData, ApiError> {
    let pool = service::load_pool(conn, id)?;
    let params = service::pool_params(&pool)?;
    let stored = service::stored_seasons(&pool)?;
    let engine = service::engine_seasons(&pool.time_zone, &stored).map_err(ApiError::Internal)?;
    // The pool's tournaments and who played rated games in them.
    let facts = service::tournament_facts(conn, id)?;
    let played = log::game_participants(conn, PoolId(id))?;
    let mut participants: HashMap<i64, Vec<i64>> = HashMap::new();
    for (t, p) in played {
        participants.entry(t.0).or_default().push(p.0);
    }
    let counting: Vec<i64> = if pool.league {
        service::league_decisions(&pool, &params, &facts, |t| {
            participants.get(&t).map_or(0, |v| v.len() as u32)
        })?
        .into_iter()
        .filter(|d| d.counts)
        .map(|d| d.tournament_id)
        .collect()
    } else {
        facts.iter().map(|f| f.0).collect()
    };
    let rows = service::history_rows(conn, id, None)?;
    let mut dir = PlayerDirectory::new();
    let history = service::to_history(&mut dir, &rows);
    Ok(SeasonData {
        params,
        stored,
        engine,
        facts,
        participants,
        counting,
        dir,
        history,
    })
}

/// The engine's standings of season `idx` (0-based) and the tournaments that count for it.
pub(super) fn season_of(
    data: &mut SeasonData,
    idx: usize,
) -> Result<(rating::SeasonStandings, Vec<i64>), ApiError> {
    let season_def = &data.engine[idx];
    let mut attendances = Vec::new();
    let mut counted: Vec<i64> = Vec::new();
    for (tid, _, starts_on, _, _) in &data.facts {
        if !data.counting.contains(tid) || !season_def.contains(*starts_on) {
            continue;
        }
        counted.push(*tid);
        for p in data.participants.get(tid).into_iter().flatten() {
            attendances.push(Attendance {
                player: data.dir.intern(PlayerId(*p)),
                tournament_id: *tid,
                played_on: *starts_on,
            });
        }
    }
    counted.sort_unstable();
    // Ratings at the cutoff: `season_standings` ignores the changes after it.
    let standings = season_standings(
        &data.params,
        season_def,
        data.dir.len(),
        &data.history,
        &attendances,
    )
    .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((standings, counted))
}

pub(super) fn player_names(
    conn: &mut PgConnection,
    ids: &[i64],
) -> Result<HashMap<i64, String>, ApiError> {
    let ids: Vec<PlayerId> = ids.iter().copied().map(PlayerId).collect();
    Ok(board_store::names(conn, &ids)?
        .into_iter()
        .map(|(p, name)| (p.0, name))
        .collect())
}

pub fn season_standings_of(
    conn: &mut PgConnection,
    id: i64,
    number: i64,
) -> Result<SeasonStandingsOut, ApiError> {
    let mut data = season_data(conn, id)?;
    let idx = usize::try_from(number - 1)
        .ok()
        .filter(|&i| i < data.engine.len())
        .ok_or_else(|| ApiError::NotFound(format!("the pool has no season {number}")))?;
    let (standings, counted) = season_of(&mut data, idx)?;
    let cutoff = standings.cutoff;
    let dir = &data.dir;
    let ids: Vec<i64> = dir.ids().iter().map(|p| p.0).collect();
    let names = player_names(conn, &ids)?;
    let pid = |i| dir.id(i).map_or(0, |p| p.0);
    let out_rows = standings
        .rows
        .iter()
        .map(|r| SeasonRowOut {
            rank: r.rank,
            player_id: pid(r.player),
            player_name: names.get(&pid(r.player)).cloned().unwrap_or_default(),
            rating: round1(r.rating),
            classified: r.classification.classified_by.is_some(),
            classified_by: r.classification.classified_by.map(|c| match c {
                ClassifiedBy::EveryMonth => ClassifiedByOut::EveryMonth,
                ClassifiedBy::FiveTournaments => ClassifiedByOut::FiveTournaments,
                ClassifiedBy::Both => ClassifiedByOut::Both,
            }),
            tournaments: r.classification.tournaments,
            months_missing: r
                .classification
                .months_missing
                .iter()
                .map(|m| format!("{:04}-{:02}", m.year, m.month))
                .collect(),
        })
        .collect();
    let s = &data.stored[idx];
    Ok(SeasonStandingsOut {
        season: SeasonOut {
            number: number as u32,
            name: s.name.clone(),
            first_day: s.first_day,
            last_day: s.last_day,
            standings_at: Some(cutoff),
        },
        rows: out_rows,
        winners: standings.winners.iter().map(|&i| pid(i)).collect(),
        tournaments: counted,
    })
}
