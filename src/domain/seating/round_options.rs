//! The options a round was drawn with, as stored with the round and shown with it (the
//! names each method accepts: [`SeatingMethod::accepted_options`](super::SeatingMethod)).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::scoring::team_standings::TeamEventFormat;

/// The options of the seating methods; each method accepts only its own (see `CreateRound`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundOptions {
    /// `random`, `bridge`: plan this many rounds (this one included) so that players meet as
    /// many different opponents as possible; default: the rounds left of `planned_rounds`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 100)]
    pub rounds_remaining: Option<u32>,
    /// `random_seeded`, `fixed_seeded`: rated games a rating needs to count (default 5, seed 000).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 1000)]
    pub min_rated_games: Option<u32>,
    /// `bridge`: draw the final (placement groups spread over bridge groups, seed 001).
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_round: Option<bool>,
    /// `team_duplicate`: `best_of_3` (two teams) or `knockout` (default by the number of teams).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<TeamEventFormat>,
    /// `team_duplicate` best of 3: which game (1-3; default the round number).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 3)]
    pub game: Option<u32>,
    /// `knockout`: games each cup match plays (seed 003, Tie-Breaks 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 9)]
    pub games_per_match: Option<u32>,
}
