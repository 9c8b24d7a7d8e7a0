//! Rating pool parameters: the settings of one rating list, as data.
//!
//! A rating pool is one list (Agricola Norway's ranking list, the Ashes national ranking, the
//! Tantrix tournament rating; domain.md section 10). Every tournament feeds exactly one pool, and
//! the pool's [`RatingPoolParams`] say how its games change ratings. The three presets come from
//! the seeds; where a seed is silent the choice is written down in
//! `docs/decisions/rating-presets.md`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a drawn result (equal scores) is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawPolicy {
    /// A draw is half a win for each side (W = 0.5), the usual Elo rule.
    CountHalf,
    /// A draw changes no rating (Ashes: "Remisy w żaden sposób nie modyfikują rankingu",
    /// seed 004, section 9, point 7). A drawn duel or team match is not a rated game; at a
    /// multi-player table only the tied pairs are skipped.
    Ignore,
}

/// How a table of more than two players is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MultiplayerMethod {
    /// Every pair at the table is one game (1 / 0.5 / 0 by score), all pairs computed from the
    /// ratings before the table, and each player's summed change scaled by K / (n - 1)
    /// (domain.md section 10). Zero-sum. See `docs/decisions/rating-multiplayer.md`.
    Pairwise,
}

/// How a team match (2v2, seed 002) is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeamMethod {
    /// Each member is rated as if they had played one game, with the team's result, against a
    /// single opponent rated at the opposing team's average. See
    /// `docs/decisions/rating-team.md`.
    IndividualVsOpponentAverage,
}

/// Why a game is not rated. The caller marks each game; the pool's
/// [`RatingPoolParams::excluded`] list says which marks keep a game out of the ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exclusion {
    /// A player did not show up (Tantrix: "Ein solches Spiel wird nicht in die Berechnungen für
    /// die Elowertung mit einbezogen", seed 003, rule 7.2).
    Forfeit,
    /// A bye: no opponent, nothing was played (Ashes "Zwycięstwo przez Bye", seed 004, point 6).
    Bye,
    /// The result was annulled by the referee or an appeal (the game does not stand).
    ///
    /// Not to be confused with Tantrix rule 7.3 (seed 003): a player with more than two forfeits
    /// has their *standings* results ignored, but "games actually played still count for
    /// rating"; such games must NOT be marked `Voided`.
    Voided,
}

/// The parameters of one rating pool.
///
/// Send and store as JSON; check with [`RatingPoolParams::validate`] before use. The formulas:
/// expected score `E_A = 1 / (1 + 10^((R_B - R_A) / scale))`, new rating
/// `R_A' = R_A + K (W_A - E_A)` (seed 004, section 9, "System rankingowy", points 2-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingPoolParams {
    /// Rating of a player before their first rated game (Ashes: 1000, seed 004 section 9.1).
    pub initial_rating: f64,
    /// The K factor: the most one 2-player game can move a rating (Ashes: 25).
    pub k: f64,
    /// The logistic scale: a difference of `scale` points means 10:1 odds (400 in all presets).
    pub scale: f64,
    /// Whether draws count as half a win or change nothing.
    pub draws: DrawPolicy,
    /// How tables of three or more players are rated.
    pub multiplayer: MultiplayerMethod,
    /// How team matches are rated.
    pub team: TeamMethod,
    /// Rated games a player needs before they are listed on the leaderboard and count as
    /// established (Agricola Norway: 5, seed 000, "Rankinglista ... der spilt minst 5 spill").
    /// Players with fewer games are *provisional*.
    pub min_games_listed: u32,
    /// Game marks that keep a game out of the ratings (all presets: forfeit, bye, voided).
    pub excluded: Vec<Exclusion>,
    /// Rating points every participant of a national-rank tournament receives (Ashes, seed 004
    /// section 3 and 9.6: "bonifikata punktowa"; the amount is not in the seed). 0 = no bonus.
    pub event_bonus: f64,
    /// Largest change one game may cause to one player's rating, if the rules state one (Ashes:
    /// 25, seed 004 section 9.4, which K = 25 already implies for a 2-player game).
    /// `None` = no cap.
    pub max_change_per_game: Option<f64>,
}

/// The named presets, for a pool-creation form.
pub const PRESET_NAMES: [&str; 3] = ["agricola_norway", "ashes_poland", "tantrix"];

impl RatingPoolParams {
    /// Agricola Norway's ranking list (seed 000): 4-player tables rated pairwise, listed after 5
    /// games. The seed only says "ELO-indeksen (se ELOrating – Wikipedia)"; initial 1500 and
    /// K = 32 are our choice (`docs/decisions/rating-presets.md`). Shared places (equal VP) are
    /// half-wins.
    pub fn agricola_norway() -> Self {
        Self {
            initial_rating: 1500.0,
            k: 32.0,
            scale: 400.0,
            draws: DrawPolicy::CountHalf,
            multiplayer: MultiplayerMethod::Pairwise,
            team: TeamMethod::IndividualVsOpponentAverage,
            min_games_listed: 5,
            excluded: all_exclusions(),
            event_bonus: 0.0,
            max_change_per_game: None,
        }
    }

    /// The Ashes national ranking (seed 004, section 9): start 1000, K = 25, scale 400, draws do
    /// not change ratings, at most 25 per game, national-rank bonus. The bonus amount (10) and
    /// the listing threshold (1 game) are our choice (`docs/decisions/rating-presets.md`).
    pub fn ashes_poland() -> Self {
        Self {
            initial_rating: 1000.0,
            k: 25.0,
            scale: 400.0,
            draws: DrawPolicy::Ignore,
            multiplayer: MultiplayerMethod::Pairwise,
            team: TeamMethod::IndividualVsOpponentAverage,
            min_games_listed: 1,
            excluded: all_exclusions(),
            event_bonus: 10.0,
            max_change_per_game: Some(25.0),
        }
    }

    /// The Tantrix tournament rating (seed 003, rules 7 and 12): forfeits are not rated, draws
    /// (margin 0, or the 23:23 crash draw) are real results. The seed refers to an external page
    /// for the formula; initial 1500, K = 32 and 5 games to be established are our choice
    /// (`docs/decisions/rating-presets.md`).
    pub fn tantrix() -> Self {
        Self {
            initial_rating: 1500.0,
            k: 32.0,
            scale: 400.0,
            draws: DrawPolicy::CountHalf,
            multiplayer: MultiplayerMethod::Pairwise,
            team: TeamMethod::IndividualVsOpponentAverage,
            min_games_listed: 5,
            excluded: all_exclusions(),
            event_bonus: 0.0,
            max_change_per_game: None,
        }
    }

    /// A preset by name (one of [`PRESET_NAMES`]); `None` for an unknown name.
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "agricola_norway" => Some(Self::agricola_norway()),
            "ashes_poland" => Some(Self::ashes_poland()),
            "tantrix" => Some(Self::tantrix()),
            _ => None,
        }
    }

    /// Whether games carrying this mark are kept out of the ratings.
    pub fn excludes(&self, mark: Exclusion) -> bool {
        self.excluded.contains(&mark)
    }

    /// Checks every field; returns all problems at once, each naming its field (the JSON key).
    pub fn validate(&self) -> Result<(), PoolParamsError> {
        let mut errors = Vec::new();
        let mut check = |field: &str, ok: bool, problem: ParamProblem| {
            if !ok {
                errors.push(FieldError {
                    field: field.to_string(),
                    problem,
                });
            }
        };
        let finite = |x: f64| x.is_finite();
        check(
            "initial_rating",
            finite(self.initial_rating),
            ParamProblem::NotFinite,
        );
        check(
            "k",
            finite(self.k) && self.k > 0.0,
            ParamProblem::MustBePositive,
        );
        check(
            "scale",
            finite(self.scale) && self.scale > 0.0,
            ParamProblem::MustBePositive,
        );
        check(
            "event_bonus",
            finite(self.event_bonus) && self.event_bonus >= 0.0,
            ParamProblem::MustNotBeNegative,
        );
        if let Some(cap) = self.max_change_per_game {
            check(
                "max_change_per_game",
                cap.is_finite() && cap > 0.0,
                ParamProblem::MustBePositive,
            );
        }
        let mut seen = Vec::new();
        for mark in &self.excluded {
            if seen.contains(mark) {
                errors.push(FieldError {
                    field: "excluded".to_string(),
                    problem: ParamProblem::Duplicate,
                });
                break;
            }
            seen.push(*mark);
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(PoolParamsError { errors })
        }
    }
}

fn all_exclusions() -> Vec<Exclusion> {
    vec![Exclusion::Forfeit, Exclusion::Bye, Exclusion::Voided]
}

/// What is wrong with one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamProblem {
    /// Must be a finite number (not NaN or infinite).
    NotFinite,
    /// Must be a finite number greater than zero.
    MustBePositive,
    /// Must be a finite number, zero or more.
    MustNotBeNegative,
    /// A list holds the same value twice.
    Duplicate,
}

/// One invalid field of [`RatingPoolParams`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    /// The JSON key of the field, e.g. `"k"`.
    pub field: String,
    /// What is wrong with it.
    pub problem: ParamProblem,
}

/// The pool parameters are invalid; `errors` lists every bad field (a 422 for the HTTP layer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolParamsError {
    /// Every invalid field, in declaration order.
    pub errors: Vec<FieldError>,
}

impl fmt::Display for ParamProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParamProblem::NotFinite => "must be a finite number",
            ParamProblem::MustBePositive => "must be a number greater than zero",
            ParamProblem::MustNotBeNegative => "must be a number, zero or more",
            ParamProblem::Duplicate => "lists the same value twice",
        })
    }
}

impl fmt::Display for PoolParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid rating pool parameters: ")?;
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{} {}", e.field, e.problem)?;
        }
        Ok(())
    }
}

impl std::error::Error for PoolParamsError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_named() {
        for name in PRESET_NAMES {
            let p = RatingPoolParams::preset(name).expect("preset exists");
            assert_eq!(p.validate(), Ok(()), "{name}");
        }
        assert!(RatingPoolParams::preset("chess").is_none());
    }

    #[test]
    fn preset_values_follow_the_seeds() {
        let ashes = RatingPoolParams::ashes_poland();
        assert_eq!(ashes.initial_rating, 1000.0);
        assert_eq!(ashes.k, 25.0);
        assert_eq!(ashes.scale, 400.0);
        assert_eq!(ashes.draws, DrawPolicy::Ignore);
        assert_eq!(ashes.max_change_per_game, Some(25.0));
        assert!(ashes.event_bonus > 0.0);
        let agricola = RatingPoolParams::agricola_norway();
        assert_eq!(agricola.min_games_listed, 5);
        let tantrix = RatingPoolParams::tantrix();
        assert!(tantrix.excludes(Exclusion::Forfeit));
        assert_eq!(tantrix.draws, DrawPolicy::CountHalf);
    }

    #[test]
    fn validation_names_every_bad_field() {
        let mut p = RatingPoolParams::ashes_poland();
        p.k = 0.0;
        p.scale = f64::NAN;
        p.initial_rating = f64::INFINITY;
        p.event_bonus = -1.0;
        p.max_change_per_game = Some(-3.0);
        p.excluded = vec![Exclusion::Bye, Exclusion::Bye];
        let err = p.validate().unwrap_err();
        let fields: Vec<&str> = err.errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "initial_rating",
                "k",
                "scale",
                "event_bonus",
                "max_change_per_game",
                "excluded"
            ]
        );
        assert!(err
            .to_string()
            .contains("k must be a number greater than zero"));
    }

    #[test]
    fn params_round_trip_as_json() {
        let p = RatingPoolParams::agricola_norway();
        let json = serde_json::to_string(&p).unwrap();
        assert!(json.contains("\"draws\":\"count_half\""));
        assert!(json.contains("\"multiplayer\":\"pairwise\""));
        let back: RatingPoolParams = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
    }
}
