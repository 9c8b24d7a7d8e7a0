//! Ratings: the pure Elo engine behind the rating pools (domain.md section 10; seed 000
//! "Rankinglista", seed 003 rules 7 and 12, seed 004 sections 1, 3, 7 and 9).
//!
//! No IO: the service loads games and history, calls these functions, and stores the result.
//!
//! # Public API
//!
//! **Pool parameters** ([`pool`]): [`RatingPoolParams`] (serde; initial rating, K, scale,
//! [`DrawPolicy`], [`MultiplayerMethod`], [`TeamMethod`], `min_games_listed`, `excluded`
//! [`Exclusion`]s, `event_bonus`, `max_change_per_game`). Presets:
//! [`RatingPoolParams::agricola_norway`], [`RatingPoolParams::ashes_poland`],
//! [`RatingPoolParams::tantrix`], or [`RatingPoolParams::preset`]`(name)`.
//! [`RatingPoolParams::validate`] returns a [`PoolParamsError`] listing every bad field.
//!
//! **Formulas** ([`elo`]): [`expected_score`], [`duel_change`], [`table_changes`] (pairwise,
//! K / (n - 1)), [`team_member_change`].
//!
//! **Replay** ([`replay`](mod@replay)): players are dense indices ([`PlayerIndex`] = `u32`; map
//! them with a [`PlayerDirectory`]). A [`RatingState`] holds every player's rating and rated-game
//! count. [`replay()`]`(&params, start: RatingState, games: &[RatedGame]) ->
//! Result<(RatingState, Vec<RatingChange>), ReplayError>` rates the games in the given order.
//! Each [`RatedGame`] has an opaque `id: i64`, a time `at`, an optional [`Exclusion`] mark, and a
//! [`GameResult`]: `Duel`, `Table` (seats with scores), `Teams` (2v2) or `EventBonus`. Each
//! [`RatingChange`] has `game_id`, `at`, `player`, `kind`, `before`, `after`, `delta`.
//! - Full rebuild: `replay(&p, RatingState::new(&p, n_players), &all_games)`.
//! - Incremental after a correction of game g: `start =
//!   RatingState::from_history(&p, n_players, &stored_changes_before_g)`, then
//!   `replay(&p, start, &games_from_g)`; replace the stored changes from g on. Equal to the
//!   full rebuild, exactly (property-tested).
//! - [`replay_into`] does the same into reusable buffers.
//!
//! **Leaderboard** ([`leaderboard`](mod@leaderboard)): [`leaderboard()`]`(&params, &state,
//! LeaderboardFilter) -> Vec<LeaderboardRow>`; [`trends`]`(&history, n_players, last_n) ->
//! Vec<Trend>`; [`rating_at`]`(&params, &history, player, t) -> f64` and [`ratings_at`] (whole
//! state at time t) for seeding.
//!
//! **Seasons and league** ([`season`]): [`Season`] (local dates + the UTC offset at the cutoff),
//! [`ashes_2017_seasons`], [`validate_seasons`]; [`league_tournaments`]`(&params, &seasons,
//! LeagueRules, &[LeagueTournament]) -> Vec<TournamentDecision>` (which tournaments count, which
//! get the national-rank bonus, with reasons); [`classify`]; [`season_standings`]`(&params,
//! &season, n_players, &history, &[Attendance]) -> Result<SeasonStandings, SeasonError>` (ratings
//! at 22:00 local on the last day, classification, winners); [`league_standings`]`(&[SeasonStandings])
//! -> LeagueStandings` (average of season ratings among players classified in every season).
//!
//! **Time of play** ([`time_of_play`]): [`PlayingDays`] orders a round by when it was played
//! (the organiser's time, else its completion held within the playing days).
//!
//! Decisions: `docs/decisions/rating-*.md`. Performance: `docs/performance.md`.

pub mod acceptance;
pub mod elo;
pub mod leaderboard;
pub mod pool;
pub mod replay;
pub mod season;
pub mod time_of_play;

pub use elo::{duel_change, expected_score, table_changes, team_member_change};
pub use leaderboard::{
    leaderboard, rating_at, ratings_at, trends, Direction, LeaderboardFilter, LeaderboardRow, Trend,
};
pub use pool::{
    DrawPolicy, Exclusion, FieldError, MultiplayerMethod, ParamProblem, PoolParamsError,
    RatingPoolParams, TeamMethod, PRESET_NAMES,
};
pub use replay::{
    replay, replay_into, ChangeKind, DuelOutcome, GameResult, ImportedRating, PlayerDirectory,
    PlayerIndex, RatedGame, RatingChange, RatingState, ReplayError, Seat,
};
pub use season::{
    ashes_2017_seasons, attendances_of_counting, classify, league_standings, league_tournaments,
    season_standings, validate_seasons, Attendance, BonusRefusal, Classification, ClassifiedBy,
    LeagueRefusal, LeagueRow, LeagueRules, LeagueStandings, LeagueTournament, Season, SeasonError,
    SeasonRow, SeasonStandings, TournamentDecision, YearMonth,
};
pub use time_of_play::PlayingDays;
