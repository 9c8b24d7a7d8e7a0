//! Rating pools: creating and changing them, their leaderboards, seasons, league and every player's rating history.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Int8, Nullable, Timestamptz};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::db::models::RatingPoolRow;
use crate::db::schema::{players, rating_changes, rating_pools, rounds, tournaments};
use crate::domain::ids::PlayerId;
use crate::domain::rating::{
    self, season_standings, validate_seasons, Attendance, ClassifiedBy, DrawPolicy, Exclusion,
    LeaderboardFilter, PlayerDirectory, RatingPoolParams, RatingState,
};
use crate::error::ApiError;
use crate::services::leaderboard::LeaderboardCache;
use crate::services::leaderboard::{load_board, Board, BoardQuery, BoardVersion};
use crate::services::ratings::{self as service, StoredSeason};
use crate::services::validate::TimeZoneName;
use crate::services::validate::{check_country, Check, Page, PageParams};
use diesel::PgConnection;

/// The rating pool presets (domain.md section 10; `docs/decisions/rating-presets.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PoolPreset {
    /// Agricola Norway's ranking list: 1500, K 32, draws half, listed after 5 games.
    AgricolaNorway,
    /// The Ashes national ranking: 1000, K 25, draws ignored, national-rank bonus.
    AshesPoland,
    /// The Tantrix tournament rating: 1500, K 32, forfeits not rated.
    Tantrix,
}

impl PoolPreset {
    fn params(self) -> RatingPoolParams {
        match self {
            Self::AgricolaNorway => RatingPoolParams::agricola_norway(),
            Self::AshesPoland => RatingPoolParams::ashes_poland(),
            Self::Tantrix => RatingPoolParams::tantrix(),
        }
    }
}

/// How a drawn result is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Draws {
    /// Half a win for each side.
    CountHalf,
    /// A draw changes no rating (Ashes).
    Ignore,
}

/// Why a game is not rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExcludedGame {
    /// A player forfeited (did not show up).
    Forfeit,
    /// A bye: nothing was played.
    Bye,
    /// The result was annulled.
    Voided,
}

impl From<ExcludedGame> for Exclusion {
    fn from(e: ExcludedGame) -> Self {
        match e {
            ExcludedGame::Forfeit => Exclusion::Forfeit,
            ExcludedGame::Bye => Exclusion::Bye,
            ExcludedGame::Voided => Exclusion::Voided,
        }
    }
}

impl From<Exclusion> for ExcludedGame {
    fn from(e: Exclusion) -> Self {
        match e {
            Exclusion::Forfeit => ExcludedGame::Forfeit,
            Exclusion::Bye => ExcludedGame::Bye,
            Exclusion::Voided => ExcludedGame::Voided,
        }
    }
}

/// Changes to a pool's parameters; absent fields keep the preset's (or current) value.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct PoolParamsIn {
    /// Rating before the first rated game.
    #[schema(minimum = -100000, maximum = 100000, example = 1000)]
    pub initial_rating: Option<f64>,
    /// The K factor: the most one 2-player game can move a rating.
    #[schema(exclusive_minimum = 0, maximum = 1000, example = 25)]
    pub k: Option<f64>,
    /// The logistic scale (400 in Elo).
    #[schema(exclusive_minimum = 0, maximum = 100000, example = 400)]
    pub scale: Option<f64>,
    pub draws: Option<Draws>,
    /// Rated games needed to be listed (established); fewer = provisional.
    #[schema(minimum = 0, maximum = 100000, example = 5)]
    pub min_games_listed: Option<i64>,
    /// Which games are not rated (a repeated value counts once).
    pub excluded: Option<Vec<ExcludedGame>>,
    /// Rating points every participant of a national-rank tournament receives.
    #[schema(minimum = 0, maximum = 1000, example = 10)]
    pub event_bonus: Option<f64>,
    /// Largest change one game may cause (`null`: no cap).
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<f64>, exclusive_minimum = 0, maximum = 1000)]
    pub max_change_per_game: Option<Option<f64>>,
}

/// A pool's parameters.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolParamsOut {
    #[schema(example = 1000)]
    pub initial_rating: f64,
    #[schema(example = 25)]
    pub k: f64,
    #[schema(example = 400)]
    pub scale: f64,
    pub draws: Draws,
    /// How tables of three or more are rated: every pair is one game, K / (n - 1) each.
    #[schema(example = "pairwise")]
    pub multiplayer: String,
    /// How team matches are rated: each member against the other team's average.
    #[schema(example = "individual_vs_opponent_average")]
    pub team: String,
    #[schema(example = 5)]
    pub min_games_listed: u32,
    pub excluded: Vec<ExcludedGame>,
    #[schema(example = 10)]
    pub event_bonus: f64,
    pub max_change_per_game: Option<f64>,
}

impl From<&RatingPoolParams> for PoolParamsOut {
    fn from(p: &RatingPoolParams) -> Self {
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
        Self {
            initial_rating: p.initial_rating,
            k: p.k,
            scale: p.scale,
            draws: match p.draws {
                DrawPolicy::CountHalf => Draws::CountHalf,
                DrawPolicy::Ignore => Draws::Ignore,
            },
            multiplayer: name(serde_json::to_value(p.multiplayer).unwrap_or_default()),
            team: name(serde_json::to_value(p.team).unwrap_or_default()),
            min_games_listed: p.min_games_listed,
            excluded: p.excluded.iter().map(|e| (*e).into()).collect(),
            event_bonus: p.event_bonus,
            max_change_per_game: p.max_change_per_game,
        }
    }
}

/// A season: local dates in the pool's time zone.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeasonIn {
    #[schema(
        example = "Sezon Iluzji",
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    #[schema(example = "2017-01-12")]
    pub first_day: NaiveDate,
    #[schema(example = "2017-04-30")]
    pub last_day: NaiveDate,
}

/// A season of a pool.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeasonOut {
    /// 1-based, in date order: the `{season}` of `/rating-pools/{id}/seasons/{season}`.
    pub number: u32,
    pub name: String,
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    /// When the season's standings are taken: 22:00 local time on the last day.
    pub standings_at: Option<DateTime<Utc>>,
}

/// A new rating pool.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePool {
    #[schema(
        example = "Ashes Poland",
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    /// The starting parameters (default `agricola_norway`); `params` changes any of them.
    pub preset: Option<PoolPreset>,
    pub params: Option<PoolParamsIn>,
    /// The pool's calendar zone (seasons, the 22:00 cutoff).
    #[schema(value_type = TimeZoneName)]
    pub time_zone: String,
    /// Seasons in date order, without overlap (at most 24).
    #[schema(max_items = 24)]
    pub seasons: Option<Vec<SeasonIn>>,
    /// League rules apply to its tournaments (Ashes: announced 7 days ahead, at least 4
    /// players; one national-rank tournament per organiser per season). Default false.
    pub league: Option<bool>,
}

/// Changes to a pool; absent fields stay. Changing `params` recomputes every rating.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct UpdatePool {
    #[schema(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: Option<String>,
    pub params: Option<PoolParamsIn>,
    #[schema(value_type = Option<TimeZoneName>)]
    pub time_zone: Option<String>,
    #[schema(max_items = 24)]
    pub seasons: Option<Vec<SeasonIn>>,
    pub league: Option<bool>,
}

/// A rating pool.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolOut {
    pub id: i64,
    #[schema(example = "Ashes Poland")]
    pub name: String,
    pub params: PoolParamsOut,
    #[schema(example = "Europe/Warsaw")]
    pub time_zone: String,
    pub seasons: Vec<SeasonOut>,
    pub league: bool,
    pub created_by: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Send it back in `If-Match` to change the pool.
    pub version: i32,
}

pub fn seasons_out(pool: &RatingPoolRow) -> Result<Vec<SeasonOut>, ApiError> {
    let stored = service::stored_seasons(pool)?;
    let engine = service::engine_seasons(&pool.time_zone, &stored).unwrap_or_default();
    Ok(stored
        .into_iter()
        .enumerate()
        .map(|(i, s)| SeasonOut {
            number: i as u32 + 1,
            standings_at: engine.get(i).and_then(|e| e.cutoff().ok()),
            name: s.name,
            first_day: s.first_day,
            last_day: s.last_day,
        })
        .collect())
}

pub fn pool_out(pool: RatingPoolRow) -> Result<PoolOut, ApiError> {
    let params = service::pool_params(&pool)?;
    Ok(PoolOut {
        seasons: seasons_out(&pool)?,
        id: pool.id,
        name: pool.name,
        params: PoolParamsOut::from(&params),
        time_zone: pool.time_zone,
        league: pool.league,
        created_by: pool.created_by,
        created_at: pool.created_at,
        updated_at: pool.updated_at,
        version: pool.version,
    })
}

/// Applies `input` to `base`, checking every field (`params.<field>` at fault).
fn apply_params(
    check: &mut Check,
    mut p: RatingPoolParams,
    input: &PoolParamsIn,
) -> RatingPoolParams {
    let mut number = |field: &str, v: Option<f64>, min: f64, max: f64, exclusive: bool| {
        if let Some(x) = v {
            let ok = x.is_finite() && (if exclusive { x > min } else { x >= min }) && x <= max;
            if !ok {
                let low = if exclusive {
                    format!("greater than {min}")
                } else {
                    format!("at least {min}")
                };
                check.fail(
                    &format!("params.{field}"),
                    format!("must be a number {low} and at most {max}"),
                );
            }
        }
        v
    };
    if let Some(v) = number(
        "initial_rating",
        input.initial_rating,
        -100000.0,
        100000.0,
        false,
    ) {
        p.initial_rating = v;
    }
    if let Some(v) = number("k", input.k, 0.0, 1000.0, true) {
        p.k = v;
    }
    if let Some(v) = number("scale", input.scale, 0.0, 100000.0, true) {
        p.scale = v;
    }
    if let Some(v) = number("event_bonus", input.event_bonus, 0.0, 1000.0, false) {
        p.event_bonus = v;
    }
    if let Some(cap) = input.max_change_per_game {
        p.max_change_per_game = number("max_change_per_game", cap, 0.0, 1000.0, true);
    }
    if let Some(d) = input.draws {
        p.draws = match d {
            Draws::CountHalf => DrawPolicy::CountHalf,
            Draws::Ignore => DrawPolicy::Ignore,
        };
    }
    if let Some(g) = input.min_games_listed {
        check.range("params.min_games_listed", g, 0, 100000);
        p.min_games_listed = g.clamp(0, 100000) as u32;
    }
    if let Some(ex) = &input.excluded {
        p.excluded.clear();
        for e in ex {
            let mark: Exclusion = (*e).into();
            if !p.excluded.contains(&mark) {
                p.excluded.push(mark);
            }
        }
    }
    if let Err(e) = p.validate() {
        for fe in e.errors {
            check.fail(&format!("params.{}", fe.field), fe.problem.to_string());
        }
    }
    p
}

fn check_time_zone(check: &mut Check, tz: &str) -> String {
    let tz = tz.trim();
    if tz.parse::<chrono_tz::Tz>().is_err() {
        check.fail(
            "time_zone",
            "must be an IANA time zone such as Europe/Warsaw",
        );
    }
    tz.to_string()
}

fn check_seasons(check: &mut Check, tz: &str, seasons: &[SeasonIn]) -> Vec<StoredSeason> {
    if seasons.len() > 24 {
        check.fail("seasons", "must have at most 24 seasons");
    }
    let stored: Vec<StoredSeason> = seasons
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let name = check.text(&format!("seasons[{i}].name"), &s.name, 100);
            for (f, d) in [("first_day", s.first_day), ("last_day", s.last_day)] {
                if !(1..=9999).contains(&d.year()) {
                    check.fail(
                        &format!("seasons[{i}].{f}"),
                        "must be a date in the years 1-9999",
                    );
                }
            }
            StoredSeason {
                name,
                first_day: s.first_day,
                last_day: s.last_day,
            }
        })
        .collect();
    if tz.parse::<chrono_tz::Tz>().is_ok() {
        match service::engine_seasons(tz, &stored) {
            Err(e) => check.fail("seasons", e),
            Ok(engine) => {
                if let Err(e) = validate_seasons(&engine) {
                    let field = match &e {
                        rating::SeasonError::EndsBeforeStart { season }
                        | rating::SeasonError::BadOffset { season }
                        | rating::SeasonError::Overlap { second: season, .. } => stored
                            .iter()
                            .position(|s| &s.name == season)
                            .map_or("seasons".to_string(), |i| format!("seasons[{i}]")),
                    };
                    check.fail(&field, e.to_string());
                }
            }
        }
    }
    stored
}

/// The `If-Match` version check.
fn check_version(expected: Option<i32>, current: i32) -> Result<(), ApiError> {
    if expected.is_some_and(|v| v != current) {
        return Err(ApiError::PreconditionFailed(format!(
            "the rating pool is at version {current}; read it again"
        )));
    }
    Ok(())
}

fn json_value<T: Serialize>(v: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::Internal(e.to_string()))
}

/// What a rebuild did.
#[derive(Debug, Serialize, ToSchema)]
pub struct RebuildOut {
    /// Games replayed.
    pub games: usize,
    /// Rating changes written.
    pub changes: usize,
}

// --- leaderboard -------------------------------------------------------------------------------

/// Answer format of a list that also comes as CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListFormat {
    Json,
    Csv,
}

/// Leaderboard filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// Rated games needed to be listed (default: the pool's `min_games_listed`).
    #[param(minimum = 0, maximum = 100000)]
    pub min_games: Option<i64>,
    /// Also list provisional players (fewer games), flagged. Default false.
    pub include_provisional: Option<bool>,
    /// Only players of this country (ISO 3166-1 alpha-2).
    #[param(pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// Only players of this club (exact name, any case).
    #[param(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub club: Option<String>,
    /// Ratings at the standings time of this season (1-based) instead of now.
    #[param(minimum = 1, maximum = 24)]
    pub season: Option<i64>,
    /// `csv` for CSV (or send `Accept: text/csv`).
    pub format: Option<ListFormat>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0).
    #[param(minimum = 0, maximum = 1000000000)]
    pub offset: Option<i64>,
}

/// A player's recent form: the last five rated games.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendOut {
    /// Games the sum covers (at most 5).
    pub games: u32,
    /// Sum of their changes, one decimal.
    pub delta: f64,
    /// Direction of the latest game's change.
    pub last: Option<TrendDirection>,
}

/// Direction of a rating change.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrendDirection {
    Up,
    Down,
    Flat,
}

/// One line of a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardRowOut {
    /// Rank in the pool's list (equal ratings share a rank); filters by country or club keep
    /// the pool rank.
    pub rank: u32,
    pub player_id: i64,
    #[schema(example = "Kari Nordmann")]
    pub name: String,
    pub club: Option<String>,
    pub country: Option<String>,
    /// Rating, one decimal.
    #[schema(example = 1512.5)]
    pub rating: f64,
    /// Rated games.
    pub games: u32,
    /// Fewer games than the threshold (only listed with `include_provisional`).
    pub provisional: bool,
    /// Completion time of the player's last rated game.
    pub last_played: Option<DateTime<Utc>>,
    pub trend: TrendOut,
}

#[derive(QueryableByName)]
struct PlayerSummary {
    #[diesel(sql_type = Int8)]
    player_id: i64,
    #[diesel(sql_type = Double)]
    rating: f64,
    #[diesel(sql_type = BigInt)]
    games: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_played: Option<DateTime<Utc>>,
    #[diesel(sql_type = Double)]
    trend_delta: f64,
    #[diesel(sql_type = BigInt)]
    trend_games: i64,
    #[diesel(sql_type = Nullable<Double>)]
    last_delta: Option<f64>,
}

/// Every player's rating, games, last game and trend in a pool at `at`, from the log (the
/// season leaderboard; the current one reads `rating_standings`).
fn summaries(
    conn: &mut PgConnection,
    pool_id: i64,
    at: DateTime<Utc>,
) -> Result<Vec<PlayerSummary>, ApiError> {
    let sql = format!(
        "{} ORDER BY player_id",
        service::standings_sql("AND rated_at <= $3")
    );
    Ok(diesel::sql_query(sql)
        .bind::<Int8, _>(pool_id)
        .bind::<BigInt, _>(service::TREND_GAMES)
        .bind::<Timestamptz, _>(at)
        .load(conn)?)
}

fn trend_out(games: i64, delta: f64, last_delta: Option<f64>) -> TrendOut {
    TrendOut {
        games: games as u32,
        delta: round1(delta),
        last: last_delta.map(|d| {
            if d > 0.0 {
                TrendDirection::Up
            } else if d < 0.0 {
                TrendDirection::Down
            } else {
                TrendDirection::Flat
            }
        }),
    }
}

/// What selects the leaderboard's lines (after validation).
pub struct LeaderboardSelection {
    pub filter: LeaderboardFilter,
    pub country: Option<String>,
    pub club: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// A page of the current leaderboard, cut from the pool's board (`rating_standings` in
/// leaderboard order: highest rating first, then more games, then lower player id). Ranks are
/// among the listed players (equal ratings share a rank); the country and club filters apply
/// after ranking, so they keep the pool rank.
fn current_page(
    board: &Board,
    params: &RatingPoolParams,
    sel: &LeaderboardSelection,
) -> Page<LeaderboardRowOut> {
    let min_games = i64::from(sel.filter.min_games.unwrap_or(params.min_games_listed));
    let page = board.page(&BoardQuery {
        threshold: if sel.filter.include_provisional {
            0
        } else {
            min_games
        },
        country: sel.country.as_deref(),
        club: sel.club.as_deref(),
        limit: sel.limit,
        offset: sel.offset,
    });
    let items = page
        .items
        .into_iter()
        .map(|(rank, r)| LeaderboardRowOut {
            rank,
            player_id: r.player_id,
            name: r.name.clone(),
            club: r.club.clone(),
            country: r.country.clone(),
            rating: round1(r.rating),
            games: r.games as u32,
            provisional: r.games < min_games,
            last_played: r.last_played,
            trend: trend_out(r.trend_games, r.trend_delta, r.last_delta),
        })
        .collect();
    Page {
        items,
        total: page.total,
        limit: sel.limit,
        offset: sel.offset,
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn season_cutoff(pool: &RatingPoolRow, season: i64) -> Result<DateTime<Utc>, ApiError> {
    let stored = service::stored_seasons(pool)?;
    let engine = service::engine_seasons(&pool.time_zone, &stored).map_err(ApiError::Internal)?;
    let s = usize::try_from(season - 1)
        .ok()
        .and_then(|i| engine.get(i))
        .ok_or_else(|| ApiError::NotFound(format!("the pool has no season {season}")))?;
    s.cutoff().map_err(|e| ApiError::Internal(e.to_string()))
}

/// A page of the leaderboard at a season's standings time: every player's state at `at` from
/// the log, ranked by the engine.
fn season_page(
    conn: &mut PgConnection,
    id: i64,
    params: &RatingPoolParams,
    at: DateTime<Utc>,
    sel: &LeaderboardSelection,
) -> Result<Page<LeaderboardRowOut>, ApiError> {
    let (limit, offset) = (sel.limit, sel.offset);
    let sums = summaries(conn, id, at)?;
    let mut dir = PlayerDirectory::new();
    let mut state = RatingState::new(params, sums.len());
    for s in &sums {
        let i = dir.intern(PlayerId(s.player_id)) as usize;
        state.ratings[i] = s.rating;
        state.games[i] = s.games as u32;
    }
    let ranked = rating::leaderboard(params, &state, sel.filter);
    let ids: Vec<i64> = ranked
        .iter()
        .filter_map(|r| dir.id(r.player).map(|p| p.0))
        .collect();
    let mut people: HashMap<i64, (String, Option<String>, Option<String>)> = HashMap::new();
    for chunk in ids.chunks(10000) {
        let rows: Vec<(i64, String, Option<String>, Option<String>)> = players::table
            .filter(players::id.eq_any(chunk))
            .select((players::id, players::name, players::club, players::country))
            .load(conn)?;
        people.extend(rows.into_iter().map(|(i, n, c, k)| (i, (n, c, k))));
    }
    let club_lower = sel.club.as_ref().map(|c| c.to_lowercase());
    let rows: Vec<LeaderboardRowOut> = ranked
        .iter()
        .filter_map(|r| {
            let pid = dir.id(r.player)?.0;
            let (name, pclub, pcountry) = people.get(&pid)?.clone();
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
            Some(LeaderboardRowOut {
                rank: r.rank,
                player_id: pid,
                name,
                club: pclub,
                country: pcountry,
                rating: round1(r.rating),
                games: r.games,
                provisional: r.provisional,
                last_played: s.last_played,
                trend: trend_out(s.trend_games, s.trend_delta, s.last_delta),
            })
        })
        .collect();
    let total = rows.len() as i64;
    let items: Vec<LeaderboardRowOut> = rows
        .into_iter()
        .skip(offset as usize)
        .take(limit as usize)
        .collect();
    Ok(Page {
        items,
        total,
        limit,
        offset,
    })
}

// --- seasons -----------------------------------------------------------------------------------

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
    pub name: String,
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
struct SeasonData {
    params: RatingPoolParams,
    stored: Vec<StoredSeason>,
    engine: Vec<rating::Season>,
    facts: Vec<service::TournamentFacts>,
    participants: HashMap<i64, Vec<i64>>,
    /// Tournaments that count (in a league pool: the league's decision; otherwise all).
    counting: Vec<i64>,
    dir: PlayerDirectory,
    history: Vec<rating::RatingChange>,
}

fn season_data(conn: &mut PgConnection, id: i64) -> Result<SeasonData, ApiError> {
    let pool = service::load_pool(conn, id)?;
    let params = service::pool_params(&pool)?;
    let stored = service::stored_seasons(&pool)?;
    let engine = service::engine_seasons(&pool.time_zone, &stored).map_err(ApiError::Internal)?;
    // The pool's tournaments and who played rated games in them.
    let facts = service::tournament_facts(conn, id)?;
    let played: Vec<(i64, i64)> = rating_changes::table
        .filter(rating_changes::pool_id.eq(id))
        .filter(rating_changes::kind.eq("game"))
        .select((rating_changes::tournament_id, rating_changes::player_id))
        .distinct()
        .load(conn)?;
    let mut participants: HashMap<i64, Vec<i64>> = HashMap::new();
    for (t, p) in played {
        participants.entry(t).or_default().push(p);
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
fn season_of(
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

fn player_names(conn: &mut PgConnection, ids: &[i64]) -> Result<HashMap<i64, String>, ApiError> {
    let mut out = HashMap::new();
    for chunk in ids.chunks(10000) {
        out.extend(
            players::table
                .filter(players::id.eq_any(chunk))
                .select((players::id, players::name))
                .load::<(i64, String)>(conn)?,
        );
    }
    Ok(out)
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
            name: names.get(&pid(r.player)).cloned().unwrap_or_default(),
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

// --- the league table --------------------------------------------------------------------------

/// Query of the league table.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LeagueQuery {
    /// `csv` for CSV (or send `Accept: text/csv`).
    pub format: Option<ListFormat>,
}

/// One player's line of the league table.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeagueRowOut {
    /// Rank by average among players classified in every season (equal averages share a rank);
    /// `null` in `others`.
    pub rank: Option<u32>,
    pub player_id: i64,
    pub name: String,
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
            name: names.get(&player_id).cloned().unwrap_or_default(),
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

// --- a player's history ------------------------------------------------------------------------

/// Filters for a player's rating history.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct HistoryQuery {
    /// Only this pool.
    #[param(minimum = 1)]
    pub pool: Option<i64>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0).
    #[param(minimum = 0, maximum = 1000000000)]
    pub offset: Option<i64>,
}

/// What changed a rating.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKindOut {
    /// A rated game.
    Game,
    /// An event bonus.
    Bonus,
}

/// One rating change and the game that caused it.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingChangeOut {
    pub pool_id: i64,
    pub pool_name: String,
    pub kind: ChangeKindOut,
    pub tournament_id: i64,
    pub tournament_name: String,
    pub round_id: i64,
    pub round_number: i32,
    /// The table (team duplicate: table A of the match).
    pub table_number: i32,
    /// The version of the result that was rated.
    pub result_version: i32,
    /// When the round was completed.
    pub rated_at: DateTime<Utc>,
    /// Ratings and change, one decimal.
    #[schema(example = 1000)]
    pub rating_before: f64,
    #[schema(example = 1012.5)]
    pub rating_after: f64,
    #[schema(example = 12.5)]
    pub delta: f64,
}

/// Creates a rating pool (admin) from a preset, parameter changes and seasons.
pub fn create_pool(
    conn: &mut PgConnection,
    caller: &Caller,
    input: CreatePool,
) -> Result<RatingPoolRow, ApiError> {
    caller.require_admin()?;
    let mut check = Check::new();
    let name = check.text("name", &input.name, 100);
    let base = input.preset.unwrap_or(PoolPreset::AgricolaNorway).params();
    let params = apply_params(
        &mut check,
        base,
        input.params.as_ref().unwrap_or(&PoolParamsIn::default()),
    );
    let time_zone = check_time_zone(&mut check, &input.time_zone);
    let seasons = check_seasons(
        &mut check,
        &time_zone,
        input.seasons.as_deref().unwrap_or(&[]),
    );
    check.finish()?;
    let params = json_value(&params)?;
    let seasons = json_value(&seasons)?;
    conn.transaction(|conn| {
        Ok(diesel::insert_into(rating_pools::table)
            .values((
                rating_pools::name.eq(name),
                rating_pools::params.eq(params),
                rating_pools::time_zone.eq(time_zone),
                rating_pools::seasons.eq(seasons),
                rating_pools::league.eq(input.league.unwrap_or(false)),
                rating_pools::created_by.eq(caller.user_id),
            ))
            .returning(RatingPoolRow::as_returning())
            .get_result(conn)?)
    })
}

/// One page of rating pools.
pub fn list_pools(conn: &mut PgConnection, page: &PageParams) -> Result<Page<PoolOut>, ApiError> {
    let (limit, offset) = page.resolve()?;
    let total = rating_pools::table.count().get_result(conn)?;
    let rows: Vec<RatingPoolRow> = rating_pools::table
        .order(rating_pools::id)
        .limit(limit)
        .offset(offset)
        .select(RatingPoolRow::as_select())
        .load(conn)?;
    Ok(Page {
        items: rows
            .into_iter()
            .map(pool_out)
            .collect::<Result<Vec<_>, _>>()?,
        total,
        limit,
        offset,
    })
}

/// Changes a pool's name, time zone, parameters or seasons (admin) against the version in `If-Match`; a change that alters ratings recomputes the pool.
pub fn update_pool(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    expected: Option<i32>,
    input: UpdatePool,
) -> Result<RatingPoolRow, ApiError> {
    caller.require_admin()?;
    let mut check = Check::new();
    let name = input.name.as_deref().map(|n| check.text("name", n, 100));
    let time_zone = input
        .time_zone
        .as_deref()
        .map(|t| check_time_zone(&mut check, t));
    check.finish()?;
    conn.transaction(|conn| {
        let current = service::load_pool(conn, id)?;
        check_version(expected, current.version)?;
        let mut check = Check::new();
        let old_params = service::pool_params(&current)?;
        let params = match &input.params {
            Some(p) => apply_params(&mut check, old_params.clone(), p),
            None => old_params.clone(),
        };
        let tz = time_zone.clone().unwrap_or(current.time_zone.clone());
        let seasons = match &input.seasons {
            Some(s) => check_seasons(&mut check, &tz, s),
            None => {
                let stored = service::stored_seasons(&current)?;
                if service::engine_seasons(&tz, &stored).is_err() {
                    check.fail("time_zone", "does not fit the pool's seasons");
                }
                stored
            }
        };
        check.finish()?;
        let updated: Option<RatingPoolRow> = diesel::update(
            rating_pools::table
                .find(id)
                .filter(rating_pools::version.eq(current.version)),
        )
        .set((
            rating_pools::name.eq(name.clone().unwrap_or(current.name.clone())),
            rating_pools::params.eq(json_value(&params)?),
            rating_pools::time_zone.eq(tz),
            rating_pools::seasons.eq(json_value(&seasons)?),
            rating_pools::league.eq(input.league.unwrap_or(current.league)),
            rating_pools::updated_at.eq(Utc::now()),
            rating_pools::version.eq(current.version + 1),
        ))
        .returning(RatingPoolRow::as_returning())
        .get_result(conn)
        .optional()?;
        let updated = updated.ok_or_else(|| {
            ApiError::PreconditionFailed("the rating pool changed meanwhile; read it again".into())
        })?;
        // The league's decisions (national-rank bonuses) depend on the seasons, the
        // time zone and the league flag too.
        if params != old_params
            || updated.league != current.league
            || updated.seasons != current.seasons
            || updated.time_zone != current.time_zone
        {
            service::rebuild_pool(conn, id)?;
        }
        Ok(updated)
    })
}

/// A player's rating history, newest first.
pub fn player_ratings(
    conn: &mut PgConnection,
    id: i64,
    pool: Option<i64>,
    limit: i64,
    offset: i64,
) -> Result<Page<RatingChangeOut>, ApiError> {
    let exists: bool =
        diesel::select(diesel::dsl::exists(players::table.find(id))).get_result(conn)?;
    if !exists {
        return Err(ApiError::NotFound(format!("no player {id}")));
    }
    let build = || {
        let mut b = rating_changes::table
            .inner_join(rating_pools::table)
            .inner_join(tournaments::table.on(tournaments::id.eq(rating_changes::tournament_id)))
            .inner_join(rounds::table.on(rounds::id.eq(rating_changes::round_id)))
            .filter(rating_changes::player_id.eq(id))
            .into_boxed();
        if let Some(p) = pool {
            b = b.filter(rating_changes::pool_id.eq(p));
        }
        b
    };
    let total: i64 = build().count().get_result(conn)?;
    #[allow(clippy::type_complexity)]
    let rows: Vec<(
        i64,
        String,
        String,
        i64,
        String,
        i64,
        i32,
        i32,
        i32,
        DateTime<Utc>,
        (f64, f64, f64),
    )> = build()
        .order((
            rating_changes::rated_at,
            rating_changes::pool_id,
            rating_changes::sequence,
        ))
        .limit(limit)
        .offset(offset)
        .select((
            rating_changes::pool_id,
            rating_pools::name,
            rating_changes::kind,
            rating_changes::tournament_id,
            tournaments::name,
            rating_changes::round_id,
            rounds::number,
            rating_changes::table_number,
            rating_changes::result_version,
            rating_changes::rated_at,
            (
                rating_changes::rating_before,
                rating_changes::rating_after,
                rating_changes::delta,
            ),
        ))
        .load(conn)?;
    let items = rows
        .into_iter()
        .map(|r| RatingChangeOut {
            pool_id: r.0,
            pool_name: r.1,
            kind: if r.2 == "bonus" {
                ChangeKindOut::Bonus
            } else {
                ChangeKindOut::Game
            },
            tournament_id: r.3,
            tournament_name: r.4,
            round_id: r.5,
            round_number: r.6,
            table_number: r.7,
            result_version: r.8,
            rated_at: r.9,
            rating_before: round1(r.10 .0),
            rating_after: round1(r.10 .1),
            delta: round1(r.10 .2),
        })
        .collect::<Vec<_>>();
    Ok(Page {
        items,
        total,
        limit,
        offset,
    })
}

/// The leaderboard query checked, as the selection of rows it asks for.
pub fn leaderboard_selection(q: &LeaderboardQuery) -> Result<LeaderboardSelection, ApiError> {
    let (limit, offset) = PageParams {
        limit: q.limit,
        offset: q.offset,
    }
    .resolve()?;
    let mut check = Check::new();
    if let Some(g) = q.min_games {
        check.range("min_games", g, 0, 100000);
    }
    if let Some(s) = q.season {
        check.range("season", s, 1, 24);
    }
    let country = check_country(&mut check, "country", q.country.as_deref());
    let club = check.optional_text("club", q.club.as_deref(), 100);
    check.finish()?;
    let filter = LeaderboardFilter {
        min_games: q.min_games.map(|g| g as u32),
        include_provisional: q.include_provisional.unwrap_or(false),
    };
    let sel = LeaderboardSelection {
        filter,
        country,
        club,
        limit,
        offset,
    };
    Ok(sel)
}

/// One page of a pool's leaderboard (the current board from the cache, or a season's at its
/// cut-off), with its ETag: `etag_of` names the selection at the pool's versions, and when
/// `fresh` says the client holds that ETag already, no page is built (`None`).
pub fn leaderboard_page(
    conn: &mut PgConnection,
    boards: &LeaderboardCache,
    id: i64,
    season: Option<i64>,
    sel: &LeaderboardSelection,
    etag_of: impl Fn(&LeaderboardSelection, i32, i64) -> String,
    fresh: impl Fn(&str) -> bool,
) -> Result<(String, Option<Page<LeaderboardRowOut>>), ApiError> {
    let (pool, lb_version): (RatingPoolRow, i64) = rating_pools::table
        .find(id)
        .select((
            RatingPoolRow::as_select(),
            rating_pools::leaderboard_version,
        ))
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))?;
    let etag = etag_of(sel, pool.version, lb_version);
    if fresh(&etag) {
        return Ok((etag, None));
    }
    if let Some(s) = season {
        let params = service::pool_params(&pool)?;
        let at = season_cutoff(&pool, s)?;
        return Ok((etag, Some(season_page(conn, id, &params, at, sel)?)));
    }
    // The board read at exactly these versions, from the cache or the database.
    let version = BoardVersion {
        pool: pool.version,
        leaderboard: lb_version,
    };
    let board = boards.get_or_load(id, version, || load_board(conn, id))?;
    let etag = if board.version == version {
        etag
    } else {
        // The pool changed between the two reads: answer for what the board holds.
        let etag = etag_of(sel, board.version.pool, board.version.leaderboard);
        if fresh(&etag) {
            return Ok((etag, None));
        }
        etag
    };
    let params = service::pool_params(&board.pool)?;
    Ok((etag, Some(current_page(&board, &params, sel))))
}

/// One rating pool.
pub fn read_pool(conn: &mut PgConnection, id: i64) -> Result<PoolOut, ApiError> {
    pool_out(service::load_pool(conn, id)?)
}

/// A pool's seasons.
pub fn pool_seasons(conn: &mut PgConnection, id: i64) -> Result<Vec<SeasonOut>, ApiError> {
    seasons_out(&service::load_pool(conn, id)?)
}

/// Recomputes a pool from its first game (admin); the answer counts games and rating changes.
pub fn rebuild(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<RebuildOut, ApiError> {
    caller.require_admin()?;
    let s = service::rebuild_pool(conn, id)?;
    Ok(RebuildOut {
        games: s.games,
        changes: s.changes,
    })
}
