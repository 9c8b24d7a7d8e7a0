//! The rating state, rated games, and the replay engine.
//!
//! Ratings follow the results in time order; when a result is corrected or an appeal changes it,
//! the ratings after it are recomputed (domain.md section 10). [`replay`] does both jobs: from the
//! initial state it is a full rebuild, from the state just before the first affected game it is
//! an incremental recompute, and the two agree exactly (tested below).

use super::elo::{duel_change, table_changes, team_member_change};
use super::pool::{DrawPolicy, Exclusion, PoolParamsError, RatingPoolParams};
use crate::domain::ids::PlayerId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// A player's dense index in a [`RatingState`] (0, 1, 2, ...). The caller maps its
/// [`PlayerId`]s to indices, e.g. with a [`PlayerDirectory`].
pub type PlayerIndex = u32;

/// Maps [`PlayerId`]s to dense [`PlayerIndex`]es and back (a helper for the service: load the
/// pool's players in a fixed order, e.g. by id, and intern them).
#[derive(Debug, Clone, Default)]
pub struct PlayerDirectory {
    ids: Vec<PlayerId>,
    index: HashMap<PlayerId, PlayerIndex>,
}

impl PlayerDirectory {
    /// An empty directory.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of `id`, adding it as the next index if it is new.
    pub fn intern(&mut self, id: PlayerId) -> PlayerIndex {
        if let Some(&i) = self.index.get(&id) {
            return i;
        }
        let i = PlayerIndex::try_from(self.ids.len()).expect("more than u32::MAX players");
        self.ids.push(id);
        self.index.insert(id, i);
        i
    }

    /// The index of `id`, if known.
    pub fn index_of(&self, id: PlayerId) -> Option<PlayerIndex> {
        self.index.get(&id).copied()
    }

    /// The player at `index`, if any.
    pub fn id(&self, index: PlayerIndex) -> Option<PlayerId> {
        self.ids.get(index as usize).copied()
    }

    /// Number of players.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no player is known.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// All player ids, by index.
    pub fn ids(&self) -> &[PlayerId] {
        &self.ids
    }
}

/// Every player's current rating and number of rated games, by [`PlayerIndex`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingState {
    /// Rating per player.
    pub ratings: Vec<f64>,
    /// Rated games per player (event bonuses do not count). Used for the listing threshold
    /// [`RatingPoolParams::min_games_listed`].
    pub games: Vec<u32>,
}

impl RatingState {
    /// `n_players` players at the pool's initial rating with no games (the start of a full
    /// rebuild).
    pub fn new(params: &RatingPoolParams, n_players: usize) -> Self {
        Self {
            ratings: vec![params.initial_rating; n_players],
            games: vec![0; n_players],
        }
    }

    /// Number of players covered.
    pub fn len(&self) -> usize {
        self.ratings.len()
    }

    /// Whether no player is covered.
    pub fn is_empty(&self) -> bool {
        self.ratings.is_empty()
    }

    /// Adds players at the initial rating until `n_players` are covered (new registrations).
    pub fn ensure_players(&mut self, params: &RatingPoolParams, n_players: usize) {
        if n_players > self.len() {
            self.ratings.resize(n_players, params.initial_rating);
            self.games.resize(n_players, 0);
        }
    }

    /// A player's rating, if covered.
    pub fn rating(&self, player: PlayerIndex) -> Option<f64> {
        self.ratings.get(player as usize).copied()
    }

    /// Rebuilds the state from stored history: each player's last `after`, or the initial
    /// rating, and their number of game changes. Pass the history of every game *before* the
    /// first affected one to get the start state of an incremental [`replay`].
    pub fn from_history(
        params: &RatingPoolParams,
        n_players: usize,
        history: &[RatingChange],
    ) -> Result<Self, ReplayError> {
        let mut state = Self::new(params, n_players);
        for c in history {
            let i = c.player as usize;
            if i >= n_players {
                return Err(ReplayError::UnknownPlayer {
                    game_id: c.game_id,
                    player: c.player,
                    players: n_players,
                });
            }
            state.ratings[i] = c.after;
            if c.kind == ChangeKind::Game {
                state.games[i] += 1;
            }
        }
        Ok(state)
    }
}

/// The result of a 2-player game or a team match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DuelOutcome {
    /// The first player (team) won.
    FirstWins,
    /// The second player (team) won.
    SecondWins,
    /// A draw (Ashes: no win in time, seed 004 section 3; Tantrix: margin 0 or 23:23).
    Draw,
}

impl DuelOutcome {
    /// The first side's score W: 1, 0 or 0.5 (`None` for a draw the pool ignores).
    pub fn first_score(self, draws: DrawPolicy) -> Option<f64> {
        match self {
            DuelOutcome::FirstWins => Some(1.0),
            DuelOutcome::SecondWins => Some(0.0),
            DuelOutcome::Draw => match draws {
                DrawPolicy::CountHalf => Some(0.5),
                DrawPolicy::Ignore => None,
            },
        }
    }
}

/// One seat of a multi-player table: the player and their score at the table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// The player.
    pub player: PlayerIndex,
    /// Higher is better; equal scores are a shared place (a draw between the two). Send victory
    /// points, or the negated place (-1, -2, ...) if only places are known.
    pub score: f64,
}

/// What happened in one rated item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GameResult {
    /// A 2-player game (Tantrix, Ashes).
    Duel {
        /// First player.
        first: PlayerIndex,
        /// Second player.
        second: PlayerIndex,
        /// Who won.
        outcome: DuelOutcome,
    },
    /// A table of 2 or more players, rated pairwise (Agricola, seed 000).
    Table {
        /// Every player at the table with their score.
        seats: Vec<Seat>,
    },
    /// A team match (2v2, seed 002): each member rated against the other team's average.
    Teams {
        /// Members of the first team.
        first: Vec<PlayerIndex>,
        /// Members of the second team.
        second: Vec<PlayerIndex>,
        /// Which team won (the six-step comparison of seed 002, done by the caller).
        outcome: DuelOutcome,
    },
    /// The national-rank bonus (Ashes, seed 004 section 3): every participant gains the pool's
    /// `event_bonus`. Place it after the tournament's last game. Not a game: does not count
    /// towards `games` and is not capped.
    EventBonus {
        /// The tournament's participants.
        participants: Vec<PlayerIndex>,
    },
}

/// One item to rate, in the order the caller supplies (round completion time, then table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatedGame {
    /// The caller's id of the game (or of the bonus event); copied into every change.
    pub id: i64,
    /// When the result took effect (the round's completion time); copied into every change and
    /// used by [`super::leaderboard::rating_at`].
    pub at: DateTime<Utc>,
    /// Why the game is not rated, if it is not. A game whose mark is in the pool's `excluded`
    /// list produces no change and counts for nobody.
    pub exclusion: Option<Exclusion>,
    /// The result.
    pub result: GameResult,
}

/// What produced a [`RatingChange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A rated game (counts towards the player's games).
    Game,
    /// An event bonus.
    Bonus,
}

/// One player's rating change from one rated item. Store these: they are the history the
/// leaderboard, trends, seasons and incremental recomputes read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The [`RatedGame::id`].
    pub game_id: i64,
    /// The [`RatedGame::at`].
    pub at: DateTime<Utc>,
    /// The player.
    pub player: PlayerIndex,
    /// Game or bonus.
    pub kind: ChangeKind,
    /// Rating before the item.
    pub before: f64,
    /// Rating after the item.
    pub after: f64,
    /// `after - before` as computed (before rounding of `after`).
    pub delta: f64,
}

/// A game the engine cannot rate. These are caller bugs in the mapping or the input, reported
/// instead of panicking; the state is left as it was before the bad game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "error")]
pub enum ReplayError {
    /// The pool parameters are invalid.
    InvalidParams(PoolParamsError),
    /// A player index is not covered by the state (`players` players are).
    UnknownPlayer {
        /// The game.
        game_id: i64,
        /// The index.
        player: PlayerIndex,
        /// How many players the state covers.
        players: usize,
    },
    /// The same player appears twice in one game.
    PlayerTwice {
        /// The game.
        game_id: i64,
        /// The player.
        player: PlayerIndex,
    },
    /// A table with fewer than two seats, or a team match with an empty team.
    TooFewPlayers {
        /// The game.
        game_id: i64,
    },
    /// A seat's score is NaN or infinite.
    ScoreNotFinite {
        /// The game.
        game_id: i64,
        /// The player.
        player: PlayerIndex,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::InvalidParams(e) => e.fmt(f),
            ReplayError::UnknownPlayer {
                game_id,
                player,
                players,
            } => write!(
                f,
                "game {game_id}: player index {player} is outside the state ({players} players)"
            ),
            ReplayError::PlayerTwice { game_id, player } => {
                write!(f, "game {game_id}: player index {player} appears twice")
            }
            ReplayError::TooFewPlayers { game_id } => {
                write!(f, "game {game_id}: needs two seats or two non-empty teams")
            }
            ReplayError::ScoreNotFinite { game_id, player } => {
                write!(
                    f,
                    "game {game_id}: score of player index {player} is not a number"
                )
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// Rates `games` in the given order, starting from `start`, and returns the final state and one
/// [`RatingChange`] per player per rated item, in order.
///
/// - Full rebuild: `start = RatingState::new(params, n_players)` and all games.
/// - Incremental recompute after a correction of game `g`: `start` = the state just before `g`
///   (e.g. [`RatingState::from_history`] of the stored changes of the games before `g`) and the
///   games from `g` on, corrected. Replace the stored changes from `g` on with the result.
///
/// Rules: games marked with an exclusion the pool lists are skipped (forfeits, byes, voided;
/// seed 003 rule 7.2). A duel or team draw in a pool that ignores draws is skipped too (seed
/// 004 section 9.7). Every rated game uses the ratings from just before it.
pub fn replay(
    params: &RatingPoolParams,
    start: RatingState,
    games: &[RatedGame],
) -> Result<(RatingState, Vec<RatingChange>), ReplayError> {
    let mut state = start;
    let mut changes = Vec::new();
    replay_into(params, &mut state, games, &mut changes)?;
    Ok((state, changes))
}

/// [`replay`] into caller-owned buffers: updates `state` in place and appends changes to `out`
/// (reuse both across calls to avoid allocation). On error, `state` and `out` hold everything up
/// to, not including, the bad game.
pub fn replay_into(
    params: &RatingPoolParams,
    state: &mut RatingState,
    games: &[RatedGame],
    out: &mut Vec<RatingChange>,
) -> Result<(), ReplayError> {
    params.validate().map_err(ReplayError::InvalidParams)?;
    out.reserve(games.iter().map(participants).sum());
    let mut scratch = Scratch::default();
    for game in games {
        if let Some(mark) = game.exclusion {
            if params.excludes(mark) {
                continue;
            }
        }
        rate_one(params, state, game, out, &mut scratch)?;
    }
    Ok(())
}

fn participants(game: &RatedGame) -> usize {
    match &game.result {
        GameResult::Duel { .. } => 2,
        GameResult::Table { seats } => seats.len(),
        GameResult::Teams { first, second, .. } => first.len() + second.len(),
        GameResult::EventBonus { participants } => participants.len(),
    }
}

#[derive(Default)]
struct Scratch {
    ratings: Vec<f64>,
    scores: Vec<f64>,
    deltas: Vec<f64>,
    players: Vec<PlayerIndex>,
}

fn check_players(
    game_id: i64,
    players: &[PlayerIndex],
    n_players: usize,
) -> Result<(), ReplayError> {
    for (i, &p) in players.iter().enumerate() {
        if p as usize >= n_players {
            return Err(ReplayError::UnknownPlayer {
                game_id,
                player: p,
                players: n_players,
            });
        }
        if players[..i].contains(&p) {
            return Err(ReplayError::PlayerTwice { game_id, player: p });
        }
    }
    Ok(())
}

#[inline]
fn push_change(
    state: &mut RatingState,
    out: &mut Vec<RatingChange>,
    game: &RatedGame,
    player: PlayerIndex,
    kind: ChangeKind,
    delta: f64,
) {
    let i = player as usize;
    let before = state.ratings[i];
    let after = before + delta;
    state.ratings[i] = after;
    if kind == ChangeKind::Game {
        state.games[i] += 1;
    }
    out.push(RatingChange {
        game_id: game.id,
        at: game.at,
        player,
        kind,
        before,
        after,
        delta,
    });
}

fn rate_one(
    params: &RatingPoolParams,
    state: &mut RatingState,
    game: &RatedGame,
    out: &mut Vec<RatingChange>,
    scratch: &mut Scratch,
) -> Result<(), ReplayError> {
    let n_players = state.len();
    match &game.result {
        GameResult::Duel {
            first,
            second,
            outcome,
        } => {
            let (a, b) = (*first, *second);
            check_players(game.id, &[a, b], n_players)?;
            let Some(w) = outcome.first_score(params.draws) else {
                return Ok(());
            };
            let (ra, rb) = (state.ratings[a as usize], state.ratings[b as usize]);
            let d = duel_change(params, ra, rb, w);
            push_change(state, out, game, a, ChangeKind::Game, d);
            push_change(state, out, game, b, ChangeKind::Game, -d);
        }
        GameResult::Table { seats } => {
            if seats.len() < 2 {
                return Err(ReplayError::TooFewPlayers { game_id: game.id });
            }
            scratch.players.clear();
            scratch.players.extend(seats.iter().map(|s| s.player));
            check_players(game.id, &scratch.players, n_players)?;
            if let Some(s) = seats.iter().find(|s| !s.score.is_finite()) {
                return Err(ReplayError::ScoreNotFinite {
                    game_id: game.id,
                    player: s.player,
                });
            }
            scratch.ratings.clear();
            scratch
                .ratings
                .extend(seats.iter().map(|s| state.ratings[s.player as usize]));
            scratch.scores.clear();
            scratch.scores.extend(seats.iter().map(|s| s.score));
            scratch.deltas.clear();
            scratch.deltas.resize(seats.len(), 0.0);
            table_changes(
                params,
                &scratch.ratings,
                &scratch.scores,
                &mut scratch.deltas,
            );
            for (s, &d) in seats.iter().zip(&scratch.deltas) {
                push_change(state, out, game, s.player, ChangeKind::Game, d);
            }
        }
        GameResult::Teams {
            first,
            second,
            outcome,
        } => {
            if first.is_empty() || second.is_empty() {
                return Err(ReplayError::TooFewPlayers { game_id: game.id });
            }
            scratch.players.clear();
            scratch.players.extend(first.iter().chain(second.iter()));
            check_players(game.id, &scratch.players, n_players)?;
            let Some(w) = outcome.first_score(params.draws) else {
                return Ok(());
            };
            let avg = |team: &[PlayerIndex]| {
                team.iter().map(|&p| state.ratings[p as usize]).sum::<f64>() / team.len() as f64
            };
            let (avg_first, avg_second) = (avg(first), avg(second));
            scratch.deltas.clear();
            for &p in first {
                let own = state.ratings[p as usize];
                scratch
                    .deltas
                    .push(team_member_change(params, own, avg_second, w));
            }
            for &p in second {
                let own = state.ratings[p as usize];
                scratch
                    .deltas
                    .push(team_member_change(params, own, avg_first, 1.0 - w));
            }
            for (i, &p) in first.iter().chain(second.iter()).enumerate() {
                let d = scratch.deltas[i];
                push_change(state, out, game, p, ChangeKind::Game, d);
            }
        }
        GameResult::EventBonus { participants } => {
            check_players(game.id, participants, n_players)?;
            if params.event_bonus == 0.0 {
                return Ok(());
            }
            for &p in participants {
                push_change(state, out, game, p, ChangeKind::Bonus, params.event_bonus);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    fn t(n: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_500_000_000 + n * 3600, 0).unwrap()
    }

    fn duel(id: i64, first: u32, second: u32, outcome: DuelOutcome) -> RatedGame {
        RatedGame {
            id,
            at: t(id),
            exclusion: None,
            result: GameResult::Duel {
                first,
                second,
                outcome,
            },
        }
    }

    fn round1(x: f64) -> f64 {
        (x * 10.0).round() / 10.0
    }

    #[test]
    fn ashes_vectors_through_replay() {
        let p = RatingPoolParams::ashes_poland();
        let start = RatingState {
            ratings: vec![
                1000.0, 1000.0, 1200.0, 1400.0, 1400.0, 1000.0, 1000.0, 1000.0,
            ],
            games: vec![0; 8],
        };
        let games = [
            duel(1, 0, 1, DuelOutcome::FirstWins),
            duel(2, 2, 5, DuelOutcome::FirstWins),
            duel(3, 3, 6, DuelOutcome::FirstWins),
            duel(4, 7, 4, DuelOutcome::FirstWins), // 1400 loses to 1000
        ];
        let (state, changes) = replay(&p, start, &games).unwrap();
        let firsts: Vec<f64> = changes.iter().step_by(2).map(|c| round1(c.delta)).collect();
        assert_eq!(firsts, [12.5, 6.0, 2.3, 22.7]);
        assert_eq!(round1(changes[7].delta), -22.7);
        assert_eq!(changes[7].player, 4);
        for pair in changes.chunks(2) {
            assert_eq!(pair[0].delta, -pair[1].delta, "zero-sum");
            assert_eq!(pair[0].game_id, pair[1].game_id);
        }
        assert_eq!(round1(state.ratings[0]), 1012.5);
        assert_eq!(round1(state.ratings[1]), 987.5);
        assert_eq!(state.games, vec![1; 8]);
    }

    #[test]
    fn ashes_draws_change_nothing_but_tantrix_draws_do() {
        let games = [duel(1, 0, 1, DuelOutcome::Draw)];
        let ashes = RatingPoolParams::ashes_poland();
        let start = RatingState {
            ratings: vec![1200.0, 1000.0],
            games: vec![3, 3],
        };
        let (state, changes) = replay(&ashes, start.clone(), &games).unwrap();
        assert!(changes.is_empty());
        assert_eq!(state, start, "an ignored draw is not a rated game");

        let tantrix = RatingPoolParams::tantrix();
        let (state, changes) = replay(&tantrix, start, &games).unwrap();
        assert_eq!(changes.len(), 2);
        assert!(
            changes[0].delta < 0.0,
            "the favourite loses points on a draw"
        );
        assert_eq!(state.games, vec![4, 4]);
    }

    #[test]
    fn forfeits_byes_and_voided_results_are_not_rated() {
        let p = RatingPoolParams::tantrix();
        let mut games = vec![
            duel(1, 0, 1, DuelOutcome::FirstWins),
            duel(2, 0, 2, DuelOutcome::FirstWins),
            duel(3, 1, 2, DuelOutcome::SecondWins),
            duel(4, 0, 1, DuelOutcome::FirstWins),
        ];
        games[1].exclusion = Some(Exclusion::Forfeit);
        games[2].exclusion = Some(Exclusion::Voided);
        let (state, changes) = replay(&p, RatingState::new(&p, 3), &games).unwrap();
        let ids: Vec<i64> = changes.iter().map(|c| c.game_id).collect();
        assert_eq!(ids, [1, 1, 4, 4]);
        assert_eq!(state.games, vec![2, 2, 0]);
        assert_eq!(state.ratings[2], p.initial_rating);
        // A pool that rates forfeits would rate game 2.
        let mut lenient = p.clone();
        lenient.excluded = vec![Exclusion::Voided];
        let (_, changes) = replay(&lenient, RatingState::new(&p, 3), &games).unwrap();
        assert_eq!(changes.len(), 6);
    }

    #[test]
    fn tables_teams_and_bonus() {
        let p = RatingPoolParams::agricola_norway();
        let table = RatedGame {
            id: 10,
            at: t(1),
            exclusion: None,
            result: GameResult::Table {
                seats: vec![
                    Seat {
                        player: 3,
                        score: 55.0,
                    },
                    Seat {
                        player: 1,
                        score: 48.0,
                    },
                    Seat {
                        player: 0,
                        score: 31.0,
                    },
                    Seat {
                        player: 2,
                        score: 12.0,
                    },
                ],
            },
        };
        let (state, changes) = replay(&p, RatingState::new(&p, 4), &[table]).unwrap();
        let deltas: Vec<f64> = changes
            .iter()
            .map(|c| (c.delta * 100.0).round() / 100.0)
            .collect();
        assert_eq!(deltas, [16.0, 5.33, -5.33, -16.0]);
        assert!((state.ratings.iter().sum::<f64>() - 4.0 * 1500.0).abs() < 1e-9);

        // Team 2v2: members rated against the opposing average (1500 and 1300 avg 1400 vs 1400).
        let mut ashes = RatingPoolParams::ashes_poland();
        ashes.draws = DrawPolicy::CountHalf;
        let start = RatingState {
            ratings: vec![1500.0, 1300.0, 1400.0, 1400.0],
            games: vec![0; 4],
        };
        let team = RatedGame {
            id: 11,
            at: t(2),
            exclusion: None,
            result: GameResult::Teams {
                first: vec![0, 1],
                second: vec![2, 3],
                outcome: DuelOutcome::FirstWins,
            },
        };
        let bonus = RatedGame {
            id: 12,
            at: t(3),
            exclusion: None,
            result: GameResult::EventBonus {
                participants: vec![0, 2],
            },
        };
        let (state, changes) = replay(&ashes, start, &[team, bonus]).unwrap();
        assert_eq!(changes.len(), 6);
        assert_eq!(changes[0].delta, duel_change(&ashes, 1500.0, 1400.0, 1.0));
        assert_eq!(changes[1].delta, duel_change(&ashes, 1300.0, 1400.0, 1.0));
        assert_eq!(changes[2].delta, duel_change(&ashes, 1400.0, 1400.0, 0.0));
        assert!(
            changes[1].delta > changes[0].delta,
            "the weaker member gains more"
        );
        assert_eq!(changes[4].kind, ChangeKind::Bonus);
        assert_eq!(changes[4].delta, 10.0);
        assert_eq!(state.games, vec![1; 4], "a bonus is not a game");
    }

    #[test]
    fn bad_input_is_an_error_and_leaves_state_before_the_bad_game() {
        let p = RatingPoolParams::tantrix();
        let games = [
            duel(1, 0, 1, DuelOutcome::FirstWins),
            duel(2, 0, 7, DuelOutcome::FirstWins),
        ];
        let mut state = RatingState::new(&p, 2);
        let mut out = Vec::new();
        let err = replay_into(&p, &mut state, &games, &mut out).unwrap_err();
        assert_eq!(
            err,
            ReplayError::UnknownPlayer {
                game_id: 2,
                player: 7,
                players: 2
            }
        );
        assert_eq!(out.len(), 2);
        assert_eq!(state.games, vec![1, 1]);
        let twice = [duel(3, 1, 1, DuelOutcome::Draw)];
        assert!(matches!(
            replay(&p, RatingState::new(&p, 2), &twice),
            Err(ReplayError::PlayerTwice { .. })
        ));
        let mut bad = p.clone();
        bad.k = -1.0;
        assert!(matches!(
            replay(&bad, RatingState::new(&p, 2), &games),
            Err(ReplayError::InvalidParams(_))
        ));
    }

    #[test]
    fn directory_maps_both_ways() {
        let mut dir = PlayerDirectory::new();
        assert_eq!(dir.intern(PlayerId(42)), 0);
        assert_eq!(dir.intern(PlayerId(7)), 1);
        assert_eq!(dir.intern(PlayerId(42)), 0);
        assert_eq!(dir.index_of(PlayerId(7)), Some(1));
        assert_eq!(dir.id(1), Some(PlayerId(7)));
        assert_eq!(dir.len(), 2);
    }

    #[test]
    fn games_serialize_as_tagged_json() {
        let g = duel(5, 0, 1, DuelOutcome::SecondWins);
        let json = serde_json::to_string(&g).unwrap();
        assert!(json.contains("\"kind\":\"duel\""), "{json}");
        assert!(json.contains("\"outcome\":\"second_wins\""), "{json}");
        let back: RatedGame = serde_json::from_str(&json).unwrap();
        assert_eq!(back, g);
    }

    // --- incremental == full rebuild -------------------------------------------------------

    fn arb_game(n_players: u32) -> impl Strategy<Value = GameResult> {
        let duel = (0..n_players, 0..n_players, 0u8..3).prop_filter_map(
            "distinct players",
            |(a, b, o)| {
                (a != b).then(|| GameResult::Duel {
                    first: a,
                    second: b,
                    outcome: [
                        DuelOutcome::FirstWins,
                        DuelOutcome::SecondWins,
                        DuelOutcome::Draw,
                    ][o as usize],
                })
            },
        );
        let table = (
            prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 4).prop_shuffle(),
            prop::collection::vec(0u8..4, 4),
        )
            .prop_map(|(ids, scores)| GameResult::Table {
                seats: ids
                    .into_iter()
                    .zip(scores)
                    .map(|(player, s)| Seat {
                        player,
                        score: s as f64,
                    })
                    .collect(),
            });
        let teams = (
            prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 4).prop_shuffle(),
            0u8..3,
        )
            .prop_map(|(ids, o)| GameResult::Teams {
                first: ids[..2].to_vec(),
                second: ids[2..].to_vec(),
                outcome: [
                    DuelOutcome::FirstWins,
                    DuelOutcome::SecondWins,
                    DuelOutcome::Draw,
                ][o as usize],
            });
        let bonus = prop::sample::subsequence((0..n_players).collect::<Vec<u32>>(), 3)
            .prop_map(|participants| GameResult::EventBonus { participants });
        prop_oneof![6 => duel, 2 => table, 1 => teams, 1 => bonus]
    }

    fn arb_games(n_players: u32) -> impl Strategy<Value = Vec<RatedGame>> {
        prop::collection::vec((arb_game(n_players), 0u8..10), 1..60).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (result, x))| RatedGame {
                    id: i as i64,
                    at: t(i as i64),
                    exclusion: (x == 0).then_some(Exclusion::Forfeit),
                    result,
                })
                .collect()
        })
    }

    fn correct(game: &mut RatedGame, how: u8) {
        match how % 3 {
            0 => {
                // flip the result
                match &mut game.result {
                    GameResult::Duel { outcome, .. } => {
                        *outcome = match outcome {
                            DuelOutcome::FirstWins => DuelOutcome::SecondWins,
                            DuelOutcome::SecondWins => DuelOutcome::Draw,
                            DuelOutcome::Draw => DuelOutcome::FirstWins,
                        }
                    }
                    GameResult::Table { seats } => {
                        for s in seats.iter_mut() {
                            s.score = -s.score;
                        }
                    }
                    GameResult::Teams { first, second, .. } => std::mem::swap(first, second),
                    GameResult::EventBonus { participants } => {
                        participants.pop();
                    }
                }
            }
            1 => game.exclusion = Some(Exclusion::Voided),
            _ => game.exclusion = None,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn incremental_recompute_equals_full_rebuild(
            games in arb_games(8),
            at in any::<prop::sample::Index>(),
            how in 0u8..3,
            ashes in any::<bool>(),
        ) {
            let p = if ashes { RatingPoolParams::ashes_poland() } else { RatingPoolParams::agricola_norway() };
            let n = 8;
            let c = at.index(games.len());
            // What the service stored before the correction.
            let (_, stored) = replay(&p, RatingState::new(&p, n), &games).unwrap();
            let mut corrected = games.clone();
            correct(&mut corrected[c], how);
            // Incremental: state from the stored history of the games before c, then the
            // corrected suffix.
            let prefix_len = stored.iter().take_while(|ch| ch.game_id < c as i64).count();
            let start = RatingState::from_history(&p, n, &stored[..prefix_len]).unwrap();
            let (inc_state, suffix) = replay(&p, start, &corrected[c..]).unwrap();
            let mut inc_changes = stored[..prefix_len].to_vec();
            inc_changes.extend(suffix);
            // Full rebuild of the corrected sequence.
            let (full_state, full_changes) = replay(&p, RatingState::new(&p, n), &corrected).unwrap();
            prop_assert_eq!(inc_state, full_state);
            prop_assert_eq!(inc_changes, full_changes);
        }

        #[test]
        fn replay_is_splittable(games in arb_games(6), at in any::<prop::sample::Index>()) {
            // Replaying a prefix then the rest from the resulting state equals one replay.
            let p = RatingPoolParams::tantrix();
            let c = at.index(games.len() + 1);
            let (mid, mut a) = replay(&p, RatingState::new(&p, 6), &games[..c]).unwrap();
            let (end, b) = replay(&p, mid, &games[c..]).unwrap();
            a.extend(b);
            let (full_end, full) = replay(&p, RatingState::new(&p, 6), &games).unwrap();
            prop_assert_eq!(end, full_end);
            prop_assert_eq!(a, full);
        }
    }
}
