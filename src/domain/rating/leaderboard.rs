//! Leaderboard helpers: ranking a state, trends, and ratings at a point in time.

use super::pool::RatingPoolParams;
use super::replay::{ChangeKind, PlayerIndex, RatingChange, RatingState};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which players a leaderboard lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LeaderboardFilter {
    /// Rated games needed to be established; `None` = the pool's `min_games_listed`
    /// (Agricola Norway: 5, seed 000).
    pub min_games: Option<u32>,
    /// Also list provisional players (fewer games than the threshold), flagged. By default
    /// they are left out, as the Agricola list "omfatter alle spillere som ... har spilt minst
    /// 5 spill" (seed 000).
    pub include_provisional: bool,
}

/// One line of a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    /// 1-based rank; players with exactly equal ratings share a rank (1, 2, 2, 4).
    pub rank: u32,
    /// The player.
    pub player: PlayerIndex,
    /// Current rating (round to one decimal for display).
    pub rating: f64,
    /// Rated games.
    pub games: u32,
    /// Fewer games than the threshold (only listed when `include_provisional`).
    pub provisional: bool,
}

/// Ranks the players of `state`: highest rating first, then more games, then lower index (a
/// stable order for exact ties). Players without any rated game are never listed.
pub fn leaderboard(
    params: &RatingPoolParams,
    state: &RatingState,
    filter: LeaderboardFilter,
) -> Vec<LeaderboardRow> {
    let min_games = filter.min_games.unwrap_or(params.min_games_listed);
    let mut rows: Vec<LeaderboardRow> = state
        .ratings
        .iter()
        .zip(&state.games)
        .enumerate()
        .filter(|(_, (_, &g))| g > 0 && (filter.include_provisional || g >= min_games))
        .map(|(i, (&rating, &games))| LeaderboardRow {
            rank: 0,
            player: i as PlayerIndex,
            rating,
            games,
            provisional: games < min_games,
        })
        .collect();
    rows.sort_by(|a, b| {
        b.rating
            .total_cmp(&a.rating)
            .then(b.games.cmp(&a.games))
            .then(a.player.cmp(&b.player))
    });
    assign_ranks(&mut rows, |r| r.rating, |r, rank| r.rank = rank);
    rows
}

/// Competition ranking (1, 2, 2, 4) on an already sorted list.
pub(crate) fn assign_ranks<T>(
    rows: &mut [T],
    key: impl Fn(&T) -> f64,
    mut set: impl FnMut(&mut T, u32),
) {
    let mut prev: Option<f64> = None;
    let mut rank = 0;
    for (i, row) in rows.iter_mut().enumerate() {
        let k = key(row);
        if prev != Some(k) {
            rank = i as u32 + 1;
            prev = Some(k);
        }
        set(row, rank);
    }
}

/// Direction of a rating change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The rating went up.
    Up,
    /// The rating went down.
    Down,
    /// Exactly unchanged (e.g. a draw between equals).
    Flat,
}

/// A player's recent form, for an arrow on the leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    /// The player.
    pub player: PlayerIndex,
    /// How many games the sum covers (at most the `last_n` asked for).
    pub games: u32,
    /// Sum of the changes of those games (event bonuses are not games and are left out).
    pub delta: f64,
    /// Direction of the most recent game's change; `None` without games.
    pub last: Option<Direction>,
}

/// Trend of every player `0..n_players` over their last `last_n` rated games in `history`
/// (a time-ordered list of changes as [`super::replay::replay`] returns them).
pub fn trends(history: &[RatingChange], n_players: usize, last_n: u32) -> Vec<Trend> {
    let mut out: Vec<Trend> = (0..n_players)
        .map(|i| Trend {
            player: i as PlayerIndex,
            games: 0,
            delta: 0.0,
            last: None,
        })
        .collect();
    for c in history.iter().rev() {
        if c.kind != ChangeKind::Game {
            continue;
        }
        let Some(t) = out.get_mut(c.player as usize) else {
            continue;
        };
        if t.last.is_none() {
            t.last = Some(if c.delta > 0.0 {
                Direction::Up
            } else if c.delta < 0.0 {
                Direction::Down
            } else {
                Direction::Flat
            });
        }
        if t.games < last_n {
            t.games += 1;
            t.delta += c.delta;
        }
    }
    out
}

/// A player's rating at time `t`: the `after` of their latest change at or before `t` in
/// `history`, or the pool's initial rating if none (for seeding by rating at a registration
/// deadline, Tantrix seed 003 rule 13, and Ashes season standings, seed 004 section 7).
pub fn rating_at(
    params: &RatingPoolParams,
    history: &[RatingChange],
    player: PlayerIndex,
    t: DateTime<Utc>,
) -> f64 {
    history
        .iter()
        .rev()
        .find(|c| c.player == player && c.at <= t)
        .map_or(params.initial_rating, |c| c.after)
}

/// Every player's rating and game count at time `t` (changes after `t` ignored). Players beyond
/// `n_players` in the history are ignored.
pub fn ratings_at(
    params: &RatingPoolParams,
    n_players: usize,
    history: &[RatingChange],
    t: DateTime<Utc>,
) -> RatingState {
    let mut state = RatingState::new(params, n_players);
    for c in history.iter().filter(|c| c.at <= t) {
        let i = c.player as usize;
        if i < n_players {
            state.ratings[i] = c.after;
            state.games[i] += c.games;
        }
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::rating::replay::{replay, DuelOutcome, GameResult, RatedGame};
    use chrono::TimeZone;

    fn t(h: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_700_000_000 + h * 3600, 0).unwrap()
    }

    fn duels(list: &[(u32, u32)]) -> Vec<RatedGame> {
        list.iter()
            .enumerate()
            .map(|(i, &(w, l))| RatedGame {
                id: i as i64 + 1,
                at: t(i as i64),
                exclusion: None,
                result: GameResult::Duel {
                    first: w,
                    second: l,
                    outcome: DuelOutcome::FirstWins,
                },
            })
            .collect()
    }

    #[test]
    fn leaderboard_filters_and_ranks() {
        let p = RatingPoolParams::agricola_norway(); // 5 games to be listed
        let state = RatingState {
            ratings: vec![1510.0, 1600.0, 1550.0, 1550.0, 1500.0],
            games: vec![5, 4, 7, 5, 0],
        };
        let rows = leaderboard(&p, &state, LeaderboardFilter::default());
        let players: Vec<u32> = rows.iter().map(|r| r.player).collect();
        assert_eq!(players, [2, 3, 0], "1 is provisional, 4 never played");
        let ranks: Vec<u32> = rows.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, [1, 1, 3]);
        let all = leaderboard(
            &p,
            &state,
            LeaderboardFilter {
                min_games: None,
                include_provisional: true,
            },
        );
        assert_eq!(all[0].player, 1);
        assert!(all[0].provisional);
        assert_eq!(all.len(), 4);
        let low = leaderboard(
            &p,
            &state,
            LeaderboardFilter {
                min_games: Some(1),
                include_provisional: false,
            },
        );
        assert_eq!(low.len(), 4);
    }

    #[test]
    fn trend_and_rating_at() {
        let p = RatingPoolParams::ashes_poland();
        // player 0 wins, wins, loses; player 1 loses twice.
        let games = duels(&[(0, 1), (0, 1), (2, 0)]);
        let (_, history) = replay(&p, RatingState::new(&p, 3), &games).unwrap();
        let tr = trends(&history, 3, 2);
        assert_eq!(tr[0].last, Some(Direction::Down));
        assert_eq!(tr[0].games, 2);
        let expected = history[2].delta + history[5].delta;
        assert!((tr[0].delta - expected).abs() < 1e-12);
        assert_eq!(tr[1].last, Some(Direction::Down));
        assert_eq!(tr[2].games, 1);
        assert_eq!(tr[2].last, Some(Direction::Up));

        assert_eq!(rating_at(&p, &history, 0, t(-1)), 1000.0);
        assert_eq!(rating_at(&p, &history, 0, t(0)), 1012.5);
        assert_eq!(rating_at(&p, &history, 0, t(1)), history[2].after);
        assert_eq!(rating_at(&p, &history, 2, t(1)), 1000.0);
        let at1 = ratings_at(&p, 3, &history, t(1));
        assert_eq!(at1.games, vec![2, 2, 0]);
        assert_eq!(at1.ratings[0], history[2].after);
    }
}
