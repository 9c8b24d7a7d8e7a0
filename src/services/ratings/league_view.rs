//! The league table across seasons.

use super::*;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::db::PgConnection;
use crate::domain::ids::PlayerId;
use crate::domain::rating::{self};
use crate::error::ApiError;

/// Query of the league table.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LeagueQuery {
    /// Kept for curl users of the past: `csv` (or `Accept: text/csv`) answers the CSV here too.
    /// Not in the document: the CSV has its own operation (`/league.csv`).
    #[param(ignore)]
    pub format: Option<ListFormat>,
}

/// One player's line of the league table.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeagueRowOut {
    /// Rank by average among players classified in every season (equal averages share a rank);
    /// `null` in `others`.
    pub rank: Option<u32>,
    pub player_id: i64,
    pub player_name: String,
    /// Average of the season ratings, one decimal; `null` in `others`.
    #[schema(example = 1043.2)]
    pub average: Option<f64>,
    /// Rating at each season's standings time, one decimal, in season order; `null` for a
    /// season without a counting tournament of the player.
    pub season_ratings: Vec<Option<f64>>,
    /// Whether classified, per season.
    pub classified: Vec<bool>,
}

/// The league table of a pool across all its seasons.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeagueOut {
    /// The seasons, in order; `season_ratings` and `classified` follow this order.
    pub seasons: Vec<SeasonOut>,
    /// Players classified in every season, by the average of their season ratings (best first).
    pub rows: Vec<LeagueRowOut>,
    /// The league winner(s): the first rank of `rows` (several only on an exactly equal
    /// average); empty when nobody is classified in every season.
    pub winners: Vec<i64>,
    /// Players with a counting tournament in some season but not classified in every season,
    /// by player id; not ranked.
    pub others: Vec<LeagueRowOut>,
}

pub fn league_of(conn: &mut PgConnection, id: i64) -> Result<LeagueOut, ApiError> {
    let mut data = season_data(conn, id)?;
    // Every participant first, so all seasons share one player numbering.
    let mut all: Vec<i64> = data.participants.values().flatten().copied().collect();
    all.sort_unstable();
    for p in all {
        data.dir.intern(PlayerId(p));
    }
    let mut seasons = Vec::with_capacity(data.engine.len());
    for i in 0..data.engine.len() {
        seasons.push(season_of(&mut data, i)?.0);
    }
    let table = rating::league_standings(&seasons);
    let dir = &data.dir;
    let ids: Vec<i64> = table
        .rows
        .iter()
        .filter_map(|r| dir.id(r.player).map(|p| p.0))
        .collect();
    let names = player_names(conn, &ids)?;
    let pid = |i| dir.id(i).map_or(0, |p| p.0);
    let mut rows = Vec::new();
    let mut others = Vec::new();
    for r in &table.rows {
        let player_id = pid(r.player);
        let out = LeagueRowOut {
            rank: r.rank,
            player_id,
            player_name: names.get(&player_id).cloned().unwrap_or_default(),
            average: r.average.map(round1),
            season_ratings: r.season_ratings.iter().map(|x| x.map(round1)).collect(),
            classified: r.classified.clone(),
        };
        if r.average.is_some() {
            rows.push(out);
        } else {
            others.push(out);
        }
    }
    others.sort_by_key(|r| r.player_id);
    let season_out = data
        .stored
        .iter()
        .zip(&seasons)
        .enumerate()
        .map(|(i, (s, st))| SeasonOut {
            number: i as u32 + 1,
            name: s.name.clone(),
            first_day: s.first_day,
            last_day: s.last_day,
            standings_at: Some(st.cutoff),
        })
        .collect();
    Ok(LeagueOut {
        seasons: season_out,
        rows,
        winners: table.winners.iter().map(|&i| pid(i)).collect(),
        others,
    })
}
