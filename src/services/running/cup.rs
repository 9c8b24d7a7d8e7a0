//! Tantrix cup matches of several games (issue 14, item 9): a knockout round with option
//! `games_per_match` N seats each pairing at N consecutive tables; the match is decided by TP,
//! then games won, then tiles, then 5-minute play-off games whose winner the referee records
//! (seed 003, Tie-Breaks 1; `domain::scoring::tantrix::cup_match`). Only the winner goes on.

use std::collections::HashSet;

use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::MaybeCaller;
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::scoring::tantrix::cup_match;
use crate::domain::scoring::{score_table, Points, TieBreakKey};
use crate::domain::seating::SeatingMethod;
use crate::domain::status::RoundStatus;
use crate::error::ApiError;
use crate::services::access::load_visible_round as load_round;
use crate::services::running::snapshot::Snapshot;

/// One cup match of a knockout round.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CupMatchOut {
    pub round: i32,
    /// The match's number in the round (1 = tables 1..N).
    pub number: u32,
    /// The two players, as seated at the match's first table.
    pub players: [i64; 2],
    /// The match's tables, one per game.
    pub tables: Vec<u32>,
    /// Every game has a result.
    pub complete: bool,
    /// TP per player over the games played (two decimals).
    #[schema(example = json!([30.0, 30.0]))]
    pub tp: [f64; 2],
    /// Games won per player (draws half).
    #[schema(example = json!([2.0, 1.0]))]
    pub wins: [f64; 2],
    /// Tiles per player.
    pub tiles: [i64; 2],
    /// The winner, once the match is complete and decided.
    pub winner: Option<i64>,
    /// What decided it; `null` when the play-off did or nothing has yet.
    pub decided_by: Option<CupDecider>,
    /// Complete and level on TP, games won and tiles, with no play-off winner recorded: 5-minute
    /// games must decide it (record their winner as `playoff_winner` on a game's result).
    pub playoff_needed: bool,
    /// The winner of the 5-minute play-off games, when they decided the match.
    pub playoff_winner: Option<i64>,
}

/// The step of seed 003's Tie-Breaks 1 that decided a cup match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CupDecider {
    /// More TP over the match's games.
    Tp,
    /// TP level: more games won (draws half).
    Wins,
    /// TP and games won level: more tiles.
    Tiles,
}

impl CupDecider {
    fn of(key: TieBreakKey) -> Option<Self> {
        match key {
            TieBreakKey::Tp => Some(Self::Tp),
            TieBreakKey::Wins => Some(Self::Wins),
            TieBreakKey::GamePoints => Some(Self::Tiles),
            _ => None,
        }
    }
}

/// The cup matches of a knockout round, in table order.
pub fn matches_of(snap: &Snapshot, round: &RoundRow) -> Result<Vec<CupMatchOut>, ApiError> {
    let per = round.games_per_match() as usize;
    let draw = &round.draw;
    let mut out = Vec::new();
    for (i, games) in draw.tables.chunks(per).enumerate() {
        let Some(&[a, b]) = games.first().map(|t| t.seats.as_slice()) else {
            continue;
        };
        let players = [a, b];
        let mut scored = Vec::new();
        let mut playoff = None;
        for t in games {
            let Some(result) = snap.table_result(round, t.number as i32)? else {
                continue;
            };
            scored.push(
                score_table(&snap.ruleset, &result, Points::ONE, t.number as usize)
                    .map_err(|e| ApiError::Internal(format!("stored result: {e}")))?,
            );
            if let Some(p) = snap
                .results
                .get(&(round.id.0, t.number as i32))
                .and_then(|r| r.playoff_winner)
            {
                playoff = Some(p);
            }
        }
        let complete = scored.len() == games.len();
        let m = cup_match(players, &scored, playoff);
        out.push(CupMatchOut {
            round: round.number,
            number: i as u32 + 1,
            players: [a.0, b.0],
            tables: games.iter().map(|t| t.number).collect(),
            complete,
            tp: m.tp.map(|p| p.rounded()),
            wins: m.wins.map(|p| p.to_f64()),
            tiles: m.game_points,
            winner: m.winner.filter(|_| complete).map(|p| p.0),
            decided_by: m.decided_by.filter(|_| complete).and_then(CupDecider::of),
            playoff_needed: complete && m.playoff_needed,
            playoff_winner: m.playoff_winner.filter(|_| complete).map(|p| p.0),
        })
    }
    Ok(out)
}

/// The players knocked out before round `number` (the loser of every decided match of an
/// earlier knockout round), or 409 naming a complete match that still needs its play-off.
pub fn eliminated(snap: &Snapshot, number: i32) -> Result<HashSet<i64>, ApiError> {
    let mut out = HashSet::new();
    for r in snap.rounds.iter().filter(|r| r.number < number) {
        if r.method != SeatingMethod::Knockout {
            continue;
        }
        for m in matches_of(snap, r)? {
            if m.playoff_needed {
                return Err(ApiError::Conflict(format!(
                    "match {} of round {} is level on TP, games won and tiles: record the \
                     winner of the 5-minute play-off games (playoff_winner) first \
                     (seed 003, Tie-Breaks 1)",
                    m.number, r.number
                )));
            }
            if let Some(w) = m.winner {
                out.extend(m.players.iter().filter(|p| **p != w));
            }
        }
    }
    Ok(out)
}

/// The cup matches of a knockout round (none for any other round; drafts only for the
/// tournament's staff), and whether the round is public.
pub fn read_cup_matches(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(bool, Vec<CupMatchOut>), ApiError> {
    let (t, round) = load_round(conn, caller, tid, number)?;
    let public = round.status != RoundStatus::Draft;
    if round.method != SeatingMethod::Knockout {
        // Only a knockout round plays cup matches.
        return Ok((public, Vec::new()));
    }
    let snap = Snapshot::load(conn, t)?;
    Ok((public, matches_of(&snap, &round)?))
}
