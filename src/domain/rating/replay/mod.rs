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
            state.games[i] += c.games;
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
    /// Ratings taken over from an existing list (issue 14, item 15: a pool that starts from
    /// the Norwegian Agricola list or the Polish Ashes ranking): from this point each listed
    /// player's rating is the imported one, and the games the list credits them with count
    /// towards the listing threshold. Not a game; never capped or excluded.
    Imported {
        /// One entry per listed player.
        entries: Vec<ImportedRating>,
    },
}

/// One player's rating on an imported list.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ImportedRating {
    /// The player.
    pub player: PlayerIndex,
    /// Their rating on the list.
    pub rating: f64,
    /// The rated games the list credits them with.
    pub games: u32,
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
    /// A rating taken over from an imported list.
    Import,
}

impl ChangeKind {
    /// The name a change is stored under (`rating_changes.kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Game => "game",
            Self::Bonus => "bonus",
            Self::Import => "import",
        }
    }

    /// The kind of a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Game, Self::Bonus, Self::Import]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
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
    /// The rated games this change adds to the player's count: 1 for a game, 0 for a bonus,
    /// the credited games for an import.
    pub games: u32,
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
        GameResult::Imported { entries } => entries.len(),
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
    let games = u32::from(kind == ChangeKind::Game);
    push_credited(state, out, game, player, kind, delta, games);
}

#[inline]
fn push_credited(
    state: &mut RatingState,
    out: &mut Vec<RatingChange>,
    game: &RatedGame,
    player: PlayerIndex,
    kind: ChangeKind,
    delta: f64,
    games: u32,
) {
    let i = player as usize;
    let before = state.ratings[i];
    let after = before + delta;
    state.ratings[i] = after;
    state.games[i] += games;
    out.push(RatingChange {
        game_id: game.id,
        at: game.at,
        player,
        kind,
        before,
        after,
        delta,
        games,
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
        GameResult::Imported { entries } => {
            let players: Vec<PlayerIndex> = entries.iter().map(|e| e.player).collect();
            check_players(game.id, &players, n_players)?;
            for e in entries {
                let delta = e.rating - state.ratings[e.player as usize];
                push_credited(
                    state,
                    out,
                    game,
                    e.player,
                    ChangeKind::Import,
                    delta,
                    e.games,
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
