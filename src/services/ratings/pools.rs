//! Rating pools as the API shows them: creating, reading and changing a pool, and a rebuild.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::db::models::RatingPoolRow;
use crate::db::ratings::pools::{self as store, PoolSettings};
use crate::db::PgConnection;
use crate::domain::ids::{PoolId, UserId};
use crate::domain::rating::{self, validate_seasons, DrawPolicy, Exclusion, RatingPoolParams};
use crate::error::ApiError;
use crate::infra::search::{self, Names, Order, Ranked, SearchIndex};
use crate::services::players::{name_keyset_start, NameKey};
use crate::services::ratings::{self as service, StoredSeason};
use crate::services::validate::TimeZoneName;
use crate::services::validate::{keyset_page, keyset_start, Check, Page, PageParams, COUNT_CAP};

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
#[schema(example = json!({"name": "Agricola Norway national list", "preset": "agricola_norway", "time_zone": "Europe/Oslo"}))]
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
    /// Every tournament that asks is accepted at once (a casual club list). Default false: a
    /// keeper accepts each tournament.
    pub open: Option<bool>,
}

/// Changes to a pool; absent fields stay. Changing `params` recomputes every rating.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Agricola Norway national list 2027"}))]
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
    /// Accept every tournament that asks from now on (requests already pending stay pending).
    pub open: Option<bool>,
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
    /// Tournaments that ask are accepted at once; otherwise a keeper accepts each.
    pub open: bool,
    pub created_by: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Send it back in `If-Match` to change the pool.
    pub version: i32,
}

/// A pool's seasons with their standings times. A stored season or time zone that does not
/// give one is an error naming the pool (never a season without its standings time).
pub fn seasons_out(pool: &RatingPoolRow) -> Result<Vec<SeasonOut>, ApiError> {
    let bad = |e: String| ApiError::Internal(format!("rating pool {}: bad seasons: {e}", pool.id));
    let stored = service::stored_seasons(pool)?;
    let engine = service::engine_seasons(&pool.time_zone, &stored).map_err(bad)?;
    stored
        .into_iter()
        .zip(&engine)
        .enumerate()
        .map(|(i, (s, e))| {
            Ok(SeasonOut {
                number: i as u32 + 1,
                standings_at: Some(e.cutoff().map_err(|e| bad(e.to_string()))?),
                name: s.name,
                first_day: s.first_day,
                last_day: s.last_day,
            })
        })
        .collect()
}

pub fn pool_out(pool: RatingPoolRow) -> Result<PoolOut, ApiError> {
    let params = service::pool_params(&pool)?;
    Ok(PoolOut {
        seasons: seasons_out(&pool)?,
        id: pool.id.0,
        name: pool.name,
        params: PoolParamsOut::from(&params),
        time_zone: pool.time_zone,
        league: pool.league,
        open: pool.open,
        created_by: pool.created_by.0,
        created_at: pool.created_at,
        updated_at: pool.updated_at,
        version: pool.version,
    })
}

/// Applies `input` to `base`, checking every field (`params.<field>` at fault).
pub(super) fn apply_params(
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

pub(super) fn check_time_zone(check: &mut Check, tz: &str) -> String {
    let tz = tz.trim();
    if tz.parse::<chrono_tz::Tz>().is_err() {
        check.fail(
            "time_zone",
            "must be an IANA time zone such as Europe/Warsaw",
        );
    }
    tz.to_string()
}

pub(super) fn check_seasons(
    check: &mut Check,
    tz: &str,
    seasons: &[SeasonIn],
) -> Vec<StoredSeason> {
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
pub(super) fn check_version(expected: Option<i32>, current: i32) -> Result<(), ApiError> {
    if expected.is_some_and(|v| v != current) {
        return Err(ApiError::PreconditionFailed(format!(
            "the rating pool is at version {current}; read it again"
        )));
    }
    Ok(())
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

// --- seasons -----------------------------------------------------------------------------------

// --- the league table --------------------------------------------------------------------------

// --- a player's history ------------------------------------------------------------------------

/// Creates a rating pool (admin) from a preset, parameter changes and seasons. The admin
/// grants its keepers (`grant_keeper`).
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
    let settings = PoolSettings {
        name: &name,
        params: &params,
        time_zone: &time_zone,
        seasons: &seasons,
        league: input.league.unwrap_or(false),
        open: input.open.unwrap_or(false),
    };
    crate::db::transaction(conn, |conn| {
        store::insert(conn, &settings, UserId(caller.user_id))
    })
}

/// How the rating pool list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PoolSort {
    /// Best match to `q` first (then by name and id); the default with `q`, refused without it.
    Relevance,
    /// By name, then id.
    Name,
}

/// Filters for the rating pool list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PoolFilter {
    /// Part of the name, or a near match of a word of it; ignores case and diacritics
    /// (`alesund` finds `Ålesund`, `lodz` finds `Łódź`). Blank means no filter.
    /// A search counts against the caller's read limit by what it cost: one read more for
    /// every millisecond it took (the instance's `RATE_LIMIT_SEARCH_MICROS`): the service's
    /// processor time, or the time its queries took when the database answers it (while the
    /// instance builds its index); a text without three letters in a row reads every name.
    #[param(max_length = 100, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub q: Option<String>,
    /// `relevance` (the default with `q`) or `name`. Without `q` and `sort` the list is in
    /// creation order, paged by `offset` only.
    #[param(inline)]
    pub sort: Option<PoolSort>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages of a search or of
    /// `sort=name` through `cursor`).
    #[param(minimum = 0, maximum = 10000, example = 0)]
    pub offset: Option<i64>,
    /// Where a page of a search or of `sort=name` starts: the `next_cursor` of the page before
    /// (also in its `next` link).
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

/// One page of rating pools. Without `q` and `sort`: in creation order, paged by offset and
/// counted in full (as before searches existed). With `q` (names folded as players' are:
/// ignoring case and diacritics, near matches of a word) or `sort=name`: ranked by similarity
/// to `q` or by name, later pages by keyset (`cursor`), the count capped. With the instance's
/// search index (`index`), a search is ranked by the index once it has applied every name
/// change committed before (`infra::search`), and only the page's rows are read.
pub fn list_pools(
    conn: &mut PgConnection,
    filter: PoolFilter,
    index: Option<&SearchIndex>,
) -> Result<Page<PoolOut>, ApiError> {
    let mut check = Check::new();
    let q = check.search_text("q", filter.q.as_deref(), 100);
    let sort = match (filter.sort, &q) {
        (Some(PoolSort::Relevance), None) => {
            check.fail("sort", "relevance needs a search text in q");
            None
        }
        (Some(s), _) => Some(s),
        (None, Some(_)) => Some(PoolSort::Relevance),
        (None, None) => None,
    };
    check.finish()?;
    let Some(sort) = sort else {
        if filter.cursor.is_some() {
            return Err(ApiError::field(
                "cursor",
                "the list in creation order pages by offset; cursors come with q or sort=name",
            ));
        }
        return creation_order(conn, filter.limit, filter.offset);
    };
    let scope = format!("{q:?}|{sort:?}");
    let (limit, start) = keyset_start::<NameKey>(
        filter.limit,
        filter.offset,
        filter.cursor.as_deref(),
        "rating-pools",
        &scope,
    )?;
    let ranked = sort == PoolSort::Relevance;
    let (offset, first, after) = name_keyset_start(start, ranked)?;
    // As the player list: a ranked first page counts its matches in the same pass.
    let counted_here = ranked && first;
    let names = match (index, &q) {
        (Some(index), Some(_)) => index.pools(|| crate::db::search::stamp(conn))?,
        _ => None,
    };
    // A search PostgreSQL answers is charged by the time its queries take (`infra::charge`).
    let _waited = (names.is_none() && q.is_some()).then(crate::infra::charge::Timed::waiting);
    let (rows, counted) = match (names.as_deref(), q.as_deref()) {
        (Some(names), Some(q)) => {
            let at = (offset as usize, (limit + 1) as usize);
            indexed_page(conn, names, (q, ranked), after.as_ref(), at)?
        }
        _ => {
            let rows = store::search_page(
                conn,
                q.as_deref(),
                ranked,
                after,
                limit,
                offset,
                counted_here,
            )?;
            let counted = rows.first().and_then(|r| r.2);
            (rows, counted)
        }
    };
    keyset_page(
        rows,
        limit,
        (offset, first),
        || match counted {
            Some(n) => Ok(n),
            None => Ok(store::search_count(conn, q.as_deref(), COUNT_CAP)?),
        },
        "rating-pools",
        &scope,
        |(p, rank, _)| NameKey::of(ranked, *rank, &p.name, p.id.0),
        |(p, _, _)| pool_out(p),
    )
}

/// A page of the pools whose names match `q` as `store::search_page` gives it (`limit` rows
/// from `offset` after `after`, each with its similarity and the count of every match, capped
/// just past [`COUNT_CAP`]), ranked from the index's `names`; the rows read by id; and that
/// count (also for a page with no row).
fn indexed_page(
    conn: &mut PgConnection,
    names: &Names,
    (q, ranked): (&str, bool),
    after: Option<&store::PoolsAfter>,
    (offset, limit): (usize, usize),
) -> Result<Ranked<RatingPoolRow>, ApiError> {
    let folded = match search::fold_ascii(q) {
        Some(f) => f,
        None => crate::db::search::fold(conn, q)?,
    };
    let (hits, total) = names.search(&search::Query {
        folded: &folded,
        tag: None,
        order: if ranked { Order::Ranked } else { Order::Named },
        after: after.map(store::PoolsAfter::keys),
        skip: offset,
        take: limit,
        count_to: COUNT_CAP as usize + 1,
    });
    let ids: Vec<PoolId> = hits.iter().map(|h| PoolId(h.id)).collect();
    let rows = store::by_ids(conn, &ids)?;
    let total = Some(total as i64);
    let rows = search::in_hits_order(&hits, rows, |p: &RatingPoolRow| p.id.0, total);
    Ok((rows, total))
}

/// One page of rating pools in creation order (by id), paged by offset, counted in full.
fn creation_order(
    conn: &mut PgConnection,
    limit: Option<i64>,
    offset: Option<i64>,
) -> Result<Page<PoolOut>, ApiError> {
    let (limit, offset) = PageParams { limit, offset }.resolve()?;
    let total = store::count(conn)?;
    let rows = store::page(conn, limit, offset)?;
    Ok(Page {
        items: rows
            .into_iter()
            .map(pool_out)
            .collect::<Result<Vec<_>, _>>()?,
        total,
        limit,
        offset,
        next_cursor: None,
        total_exact: None,
    })
}

/// Changes a pool's name, time zone, parameters, seasons or openness (an admin or a keeper of
/// the pool) against the version in `If-Match`, at `now`; a change that alters ratings
/// recomputes the pool.
pub fn update_pool(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    expected: Option<i32>,
    input: UpdatePool,
    now: DateTime<Utc>,
) -> Result<RatingPoolRow, ApiError> {
    super::require_pool_keeper(conn, caller, id)?;
    let mut check = Check::new();
    let name = input.name.as_deref().map(|n| check.text("name", n, 100));
    let time_zone = input
        .time_zone
        .as_deref()
        .map(|t| check_time_zone(&mut check, t));
    check.finish()?;
    crate::db::transaction(conn, |conn| {
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
        let settings = PoolSettings {
            name: name.as_deref().unwrap_or(&current.name),
            params: &params,
            time_zone: &tz,
            seasons: &seasons,
            league: input.league.unwrap_or(current.league),
            open: input.open.unwrap_or(current.open),
        };
        let updated = store::update_at_version(conn, PoolId(id), current.version, &settings, now)?;
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

/// One rating pool.
pub fn read_pool(conn: &mut PgConnection, id: i64) -> Result<PoolOut, ApiError> {
    pool_out(service::load_pool(conn, id)?)
}

/// A pool's seasons.
pub fn pool_seasons(conn: &mut PgConnection, id: i64) -> Result<Vec<SeasonOut>, ApiError> {
    seasons_out(&service::load_pool(conn, id)?)
}

/// Recomputes a pool from its first game (an admin or a keeper of the pool); the answer counts
/// games and rating changes.
pub fn rebuild(conn: &mut PgConnection, caller: &Caller, id: i64) -> Result<RebuildOut, ApiError> {
    let s = crate::db::transaction(conn, |conn| {
        super::require_pool_keeper(conn, caller, id)?;
        service::rebuild_pool(conn, id)
    })?;
    Ok(RebuildOut {
        games: s.games,
        changes: s.changes,
    })
}
