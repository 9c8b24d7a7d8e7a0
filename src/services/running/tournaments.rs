//! Tournaments: creating, configuring, publishing and staffing them.

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db;
use crate::db::models::{NewTournament, RatingPoolRow, StaffRow, Tournament};
use crate::db::tournaments::TournamentChange;
use crate::db::PgConnection;
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::scoring::{Preset, RulesetOverride};
use crate::domain::status::TournamentStatus;
use crate::domain::{PoolId, TournamentId, UserId};
use crate::error::ApiError;
use crate::services::access::{load_for_staff, load_visible, lock_tournament};
use crate::services::ratings::{held_tournament_times, HeldTimes, TimeChange};
use crate::services::running::staff_changes::{before_staff_change, AfterStaffChange};
use crate::services::running::tournament_settings::{as_sent, check_settings, last_day, Settings};
use crate::services::validate::{Check, Page, PageParams};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A tournament.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentOut {
    pub id: i64,
    #[schema(example = "NM i Agricola 2026")]
    pub name: String,
    #[schema(example = "Agricola")]
    pub game: String,
    pub ruleset: Preset,
    /// Changes to the preset (validated against the ruleset).
    #[schema(value_type = Object)]
    pub ruleset_overrides: serde_json::Value,
    #[schema(example = 4)]
    pub table_size: i32,
    #[schema(example = 5)]
    pub planned_rounds: i32,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    /// Playing days, `starts_on` included.
    #[schema(example = 3)]
    pub days: i32,
    /// IANA time zone of the venue.
    #[schema(example = "Europe/Oslo")]
    pub time_zone: String,
    pub venue: Option<String>,
    /// Where it is held (ISO 3166-1 alpha-2), if stated; the list filters by it.
    #[schema(example = "NO")]
    pub country: Option<String>,
    pub status: TournamentStatus,
    pub registration_deadline: Option<DateTime<Utc>>,
    /// How long after a decision a party may appeal it (each decision keeps the window it was
    /// given with: a change applies to later decisions).
    pub appeal_window_minutes: i32,
    pub created_by: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Increases with every change; send it back in `If-Match` to change the tournament.
    pub version: i32,
    /// The rating pool it asks to be rated in, if any. Its games feed the pool only while
    /// `rating_status` is `accepted`.
    pub rating_pool_id: Option<i64>,
    /// Where its request to be rated stands (`null` without a pool): `pending` until a keeper
    /// of the pool decides, `accepted`, `refused` or `withdrawn` (each with a reason).
    pub rating_status: Option<RatingStatus>,
    /// The reason given with the last decision on its rating.
    pub rating_reason: Option<String>,
    /// When its rating was last requested or decided.
    pub rating_decided_at: Option<DateTime<Utc>>,
    /// Where it is being run while it is checked out to another instance (a venue that plays
    /// offline): it is read-only here until it is checked back in. `null` when it runs here.
    #[schema(example = "laptop at Hyttetur (venue instance)")]
    pub checked_out_to: Option<String>,
    /// Since when it is checked out.
    pub checked_out_at: Option<DateTime<Utc>>,
    /// Declared a national-rank tournament (league pools give its participants a bonus).
    pub national_rank: bool,
    /// When it was first published (league pools count it only if announced 7 days ahead).
    pub announced_at: Option<DateTime<Utc>>,
    /// Tantrix: played in the cup system (seed 003, 7.2: a forfeit scores 20-0 TP, 50-14 tiles,
    /// instead of 18-2, 35-15). Always false for other rulesets.
    pub cup: bool,
    /// Places that carry a prize (1: first place only).
    pub prize_places: i32,
    /// Places that qualify for a later stage (0: none). Where the rules call for a play-off
    /// (Tantrix, seed 003 10.3), a tie for first place, a prize or a qualification place is
    /// flagged `playoff_needed` in the standings; lesser ties go on to the lesser tie-breaks.
    pub qualification_places: i32,
}

/// Whether a tournament's ruleset is a Tantrix cup (its stored overrides were decoded as its
/// row was read: one that does not parse never reads as "no cup").
fn is_cup(t: &Tournament) -> bool {
    t.rules.ruleset.tantrix.as_ref().is_some_and(|r| r.cup)
}

/// The overrides that make a preset a cup (Tantrix only); none for a non-cup.
fn cup_overrides(check: &mut Check, preset: Preset, cup: Option<bool>) -> RulesetOverride {
    if cup != Some(true) {
        return RulesetOverride::default();
    }
    let Some(mut rules) = crate::domain::scoring::Ruleset::preset(preset).tantrix else {
        check.fail(
            "cup",
            "only a Tantrix tournament is played in the cup system",
        );
        return RulesetOverride::default();
    };
    rules.cup = true;
    RulesetOverride {
        tantrix: Some(rules),
        ..RulesetOverride::default()
    }
}

impl TryFrom<Tournament> for TournamentOut {
    type Error = ApiError;
    fn try_from(t: Tournament) -> Result<Self, ApiError> {
        let cup = is_cup(&t);
        let ruleset_overrides = serde_json::to_value(&t.rules.overrides).map_err(|e| {
            ApiError::Internal(format!("tournament {}: ruleset_overrides: {e}", t.id))
        })?;
        Ok(Self {
            id: t.id.0,
            name: t.name,
            game: t.game,
            ruleset: t.ruleset,
            ruleset_overrides,
            table_size: t.table_size,
            planned_rounds: t.planned_rounds,
            starts_on: t.starts_on,
            ends_on: t.ends_on,
            days: (t.ends_on - t.starts_on).num_days() as i32 + 1,
            time_zone: t.time_zone,
            venue: t.venue,
            country: t.country,
            status: t.status,
            registration_deadline: t.registration_deadline,
            appeal_window_minutes: t.appeal_window_minutes,
            created_by: t.created_by.0,
            created_at: t.created_at,
            updated_at: t.updated_at,
            version: t.version,
            rating_pool_id: t.rating_pool_id.map(|id| id.0),
            rating_status: t.rating_status,
            rating_reason: t.rating_reason,
            rating_decided_at: t.rating_decided_at,
            checked_out_to: t.checked_out_to,
            checked_out_at: t.checked_out_at,
            national_rank: t.national_rank,
            announced_at: t.announced_at,
            cup,
            prize_places: t.prize_places,
            qualification_places: t.qualification_places,
        })
    }
}

/// A new tournament. The caller becomes its organiser.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Oslo Open 2027", "game": "agricola", "ruleset": "agricola_norway", "planned_rounds": 5, "starts_on": "2027-03-06", "time_zone": "Europe/Oslo", "venue": "Oslo Brettspillklubb"}))]
pub struct CreateTournament {
    #[schema(
        example = "NM i Agricola 2026",
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    #[schema(
        example = "Agricola",
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub game: String,
    /// The rules; they fix the table size (4, or 2 for Tantrix and Ashes).
    pub ruleset: Preset,
    #[schema(example = 5, minimum = 1, maximum = 50)]
    pub planned_rounds: i32,
    #[schema(example = "2026-06-12")]
    pub starts_on: NaiveDate,
    /// Playing days, `starts_on` included (default 1).
    #[schema(example = 3, minimum = 1, maximum = 60)]
    pub days: Option<i32>,
    #[schema(value_type = crate::services::validate::TimeZoneName)]
    pub time_zone: String,
    #[schema(
        example = "Oslo, Norway",
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub venue: Option<String>,
    /// Where it is held (ISO 3166-1 alpha-2).
    #[schema(example = "NO", pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    pub registration_deadline: Option<DateTime<Utc>>,
    /// Default 30.
    #[schema(example = 30, minimum = 0, maximum = 10080)]
    pub appeal_window_minutes: Option<i32>,
    /// The rating pool it asks to be rated in (none by default). Its games feed the pool once
    /// a keeper of the pool accepts it (at once in an open pool or when the caller keeps it).
    pub rating_pool_id: Option<i64>,
    /// Declared a national-rank tournament (default false).
    pub national_rank: Option<bool>,
    /// Tantrix only: played in the cup system (seed 003, 7.2: a forfeit scores 20-0 TP, 50-14
    /// tiles); default false.
    pub cup: Option<bool>,
    /// Places that carry a prize (default 1: first place).
    #[schema(minimum = 1, maximum = 1000)]
    pub prize_places: Option<i32>,
    /// Places that qualify for a later stage (default 0).
    #[schema(minimum = 0, maximum = 1000)]
    pub qualification_places: Option<i32>,
}

/// Changes to a tournament; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"status": "registration_open"}))]
pub struct UpdateTournament {
    #[schema(
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: Option<String>,
    #[schema(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub game: Option<String>,
    #[schema(minimum = 1, maximum = 50)]
    pub planned_rounds: Option<i32>,
    pub starts_on: Option<NaiveDate>,
    #[schema(minimum = 1, maximum = 60)]
    pub days: Option<i32>,
    #[schema(value_type = Option<crate::services::validate::TimeZoneName>)]
    pub time_zone: Option<String>,
    #[schema(
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub venue: Option<String>,
    /// Where it is held (ISO 3166-1 alpha-2); `null` clears it.
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<String>, pattern = "^[A-Za-z]{2}$")]
    pub country: Option<Option<String>>,
    pub registration_deadline: Option<DateTime<Utc>>,
    #[schema(minimum = 0, maximum = 10080)]
    pub appeal_window_minutes: Option<i32>,
    /// Publish (`registration_open`), start, finish, or take back to `draft`.
    pub status: Option<TournamentStatus>,
    /// The rating pool it asks to be rated in; `null` for none. A new pool is a new request
    /// (pending until a keeper of it accepts, unless it is open or the caller keeps it); moving
    /// a tournament with rated games recomputes both pools.
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<i64>)]
    pub rating_pool_id: Option<Option<i64>>,
    /// Declared a national-rank tournament.
    pub national_rank: Option<bool>,
    /// Places that carry a prize (at least 1).
    #[schema(minimum = 1, maximum = 1000)]
    pub prize_places: Option<i32>,
    /// Places that qualify for a later stage.
    #[schema(minimum = 0, maximum = 1000)]
    pub qualification_places: Option<i32>,
}

/// A staff appointment.
#[derive(Debug, Serialize, ToSchema)]
pub struct StaffOut {
    pub user_id: i64,
    pub username: String,
    pub role: StaffRole,
    pub appointed_by: i64,
    pub appointed_at: DateTime<Utc>,
}

/// Appoint someone.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"user_id": 5, "role": "referee"}))]
pub struct AppointStaff {
    pub user_id: i64,
    pub role: StaffRole,
}

fn staff_of(conn: &mut PgConnection, id: i64) -> Result<Vec<StaffOut>, ApiError> {
    staff_page(conn, id, i64::MAX, 0)
}

/// `limit` staff appointments of a tournament after the first `offset`, by role then user.
fn staff_page(
    conn: &mut PgConnection,
    id: i64,
    limit: i64,
    offset: i64,
) -> Result<Vec<StaffOut>, ApiError> {
    let rows: Vec<(StaffRow, String)> =
        db::tournaments::staff_page(conn, TournamentId(id), limit, offset)?;
    Ok(rows
        .into_iter()
        .map(|(s, username)| StaffOut {
            user_id: s.user_id.0,
            username,
            role: s.role,
            appointed_by: s.appointed_by.0,
            appointed_at: s.appointed_at,
        })
        .collect())
}

/// Creates a tournament in status draft; the caller becomes its organiser.
pub fn create_tournament(
    conn: &mut PgConnection,
    caller: &Caller,
    input: CreateTournament,
    now: DateTime<Utc>,
) -> Result<Tournament, ApiError> {
    let mut check = Check::new();
    let days = input.days.unwrap_or(1);
    let appeal_window = input.appeal_window_minutes.unwrap_or(30);
    let prize_places = input.prize_places.unwrap_or(1);
    let qualification_places = input.qualification_places.unwrap_or(0);
    let settings = Settings {
        name: Some(&input.name),
        game: Some(&input.game),
        planned_rounds: Some(input.planned_rounds.into()),
        starts_on: Some(input.starts_on),
        days: Some(days.into()),
        time_zone: Some(&input.time_zone),
        venue: Some(input.venue.as_deref()),
        country: Some(input.country.as_deref()),
        appeal_window_minutes: Some(appeal_window.into()),
        prize_places: Some(prize_places.into()),
        qualification_places: Some(qualification_places.into()),
    };
    let stored = check_settings(&mut check, as_sent, &settings);
    let table_size = input.ruleset.default_table_size();
    let ends_on = last_day(input.starts_on, days.into());
    let ruleset_overrides = cup_overrides(&mut check, input.ruleset, input.cup);
    check.finish()?;
    let (name, game) = (
        stored.name.unwrap_or_default(),
        stored.game.unwrap_or_default(),
    );
    let time_zone = stored.time_zone.unwrap_or_default();
    let (venue, country) = (stored.venue.flatten(), stored.country.flatten());
    crate::db::unit_of_work(conn, |conn| {
        // Naming a pool asks to be rated in it: pending until a keeper decides, unless the
        // pool is open or the caller keeps it (issue 26).
        let pool = match input.rating_pool_id {
            Some(id) => Some(crate::services::access::require_pool(conn, id)?),
            None => None,
        };
        let rating_status = match &pool {
            Some(p) => Some(crate::services::ratings::request_status(
                conn, caller, p, None,
            )?),
            None => None,
        };
        let t: Tournament = db::tournaments::insert(
            conn,
            NewTournament {
                name,
                game,
                ruleset: input.ruleset,
                ruleset_overrides,
                table_size,
                planned_rounds: input.planned_rounds,
                starts_on: input.starts_on,
                ends_on,
                time_zone,
                venue,
                country,
                registration_deadline: input.registration_deadline,
                appeal_window_minutes: appeal_window,
                created_by: UserId(caller.user_id),
                rating_pool_id: input.rating_pool_id.map(PoolId),
                national_rank: input.national_rank.unwrap_or(false),
                prize_places,
                qualification_places,
                rating_status,
                rating_reason: pool
                    .as_ref()
                    .zip(rating_status)
                    .and_then(|(p, s)| crate::services::ratings::automatic_reason(p, s)),
                rating_decided_by: rating_status.map(|_| UserId(caller.user_id)),
                rating_decided_at: rating_status.map(|_| now),
            },
        )?;
        if let Some(p) = &pool {
            crate::services::ratings::request_recorded(conn, caller, &t, p, now)?;
        }
        let me = UserId(caller.user_id);
        db::tournaments::appoint(conn, t.id, me, StaffRole::Organiser.as_str(), me)?;
        Ok(t)
    })
}

/// A refused change of time, kept after its transaction rolled back: (pool, changes).
type RefusedTimes = Option<(i64, Vec<TimeChange>)>;

/// Changes a tournament (organisers): fields, status steps and the rating pool, against the
/// version in `If-Match`. Once a keeper accepted it, a change of when its games count (dates,
/// time zone) is for the pool's keepers: refused to an organiser alone with 409 naming the
/// field, and kept in its rating decisions either way (issue 37, item 3).
pub fn update_tournament(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    expected: Option<i32>,
    input: UpdateTournament,
    now: DateTime<Utc>,
) -> Result<Tournament, ApiError> {
    // Who is asking first, then the body (issue 37, item 6); checked again in the change.
    load_for_staff(conn, caller, id, &[StaffRole::Organiser])?;
    let mut refused: RefusedTimes = None;
    let out = change_tournament(conn, caller, (id, expected), input, now, &mut refused);
    if let Some((pool_id, changes)) = refused {
        crate::services::ratings::record_refused_attempt(
            conn,
            caller,
            TournamentId(id),
            PoolId(pool_id),
            &changes,
            now,
        )?;
    }
    out
}

/// The first and last day a change leaves the tournament with (both checked before).
fn next_dates(
    current: &Tournament,
    (starts_on, days): (Option<NaiveDate>, Option<i32>),
) -> (NaiveDate, NaiveDate) {
    let starts_on = starts_on.unwrap_or(current.starts_on);
    let days = days
        .map(i64::from)
        .unwrap_or((current.ends_on - current.starts_on).num_days() + 1);
    (starts_on, last_day(starts_on, days))
}

/// The change itself, in one transaction; the update compares and sets the version, so two
/// concurrent writers cannot both win.
fn change_tournament(
    conn: &mut PgConnection,
    caller: &Caller,
    (id, expected): (i64, Option<i32>),
    input: UpdateTournament,
    now: DateTime<Utc>,
    refused: &mut RefusedTimes,
) -> Result<Tournament, ApiError> {
    let mut check = Check::new();
    let settings = Settings {
        name: input.name.as_deref(),
        game: input.game.as_deref(),
        planned_rounds: input.planned_rounds.map(i64::from),
        starts_on: input.starts_on,
        days: input.days.map(i64::from),
        time_zone: input.time_zone.as_deref(),
        venue: input.venue.as_deref().map(Some),
        country: input.country.as_ref().map(Option::as_deref),
        appeal_window_minutes: input.appeal_window_minutes.map(i64::from),
        prize_places: input.prize_places.map(i64::from),
        qualification_places: input.qualification_places.map(i64::from),
    };
    let stored = check_settings(&mut check, as_sent, &settings);
    let (name, game, time_zone) = (stored.name, stored.game, stored.time_zone);
    let (venue, country) = (stored.venue, stored.country);
    check.finish()?;
    crate::db::transaction(conn, |conn| {
        let current = load_for_staff(conn, caller, id, &[StaffRole::Organiser])?;
        if expected.is_some_and(|v| v != current.version) {
            return Err(ApiError::PreconditionFailed(format!(
                "the tournament is at version {}; read it again",
                current.version
            )));
        }
        let (starts_on, ends_on) = next_dates(&current, (input.starts_on, input.days));
        let status_now = current.status;
        let status = input.status.unwrap_or(status_now);
        if !status_now.can_move_to(status) {
            return Err(ApiError::Conflict(format!(
                "a tournament cannot go from {} to {}",
                status_now.as_str(),
                status.as_str()
            )));
        }
        let rating_pool_id = input
            .rating_pool_id
            .unwrap_or(current.rating_pool_id.map(|id| id.0));
        let time_zone = time_zone.unwrap_or_else(|| current.time_zone.clone());
        let national_rank = input.national_rank.unwrap_or(current.national_rank);
        let next = (
            starts_on,
            ends_on,
            time_zone.as_str(),
            rating_pool_id,
            national_rank,
        );
        let held = held_tournament_times(conn, caller, &current, next, refused)?;
        let (new_pool, rating) = rating_request(conn, caller, &current, rating_pool_id, now)?;
        // The league's announcement date: when it was first published.
        let announced_at = current
            .announced_at
            .or_else(|| (status == TournamentStatus::RegistrationOpen).then_some(now));
        let change = TournamentChange {
            name: name.unwrap_or_else(|| current.name.clone()),
            game: game.unwrap_or_else(|| current.game.clone()),
            planned_rounds: input.planned_rounds.unwrap_or(current.planned_rounds),
            starts_on,
            ends_on,
            time_zone,
            venue: venue.unwrap_or_else(|| current.venue.clone()),
            country: country.unwrap_or_else(|| current.country.clone()),
            registration_deadline: input
                .registration_deadline
                .or(current.registration_deadline),
            appeal_window_minutes: input
                .appeal_window_minutes
                .unwrap_or(current.appeal_window_minutes),
            status,
            updated_at: now,
            version: current.version + 1,
            rating_pool_id: rating_pool_id.map(PoolId),
            rating_status: rating.status,
            rating_reason: rating.reason,
            rating_decided_by: rating.decided_by.map(UserId),
            rating_decided_at: rating.decided_at,
            national_rank,
            announced_at,
            prize_places: input.prize_places.unwrap_or(current.prize_places),
            qualification_places: input
                .qualification_places
                .unwrap_or(current.qualification_places),
        };
        let updated =
            db::tournaments::update_at_version(conn, TournamentId(id), current.version, &change)?;
        let updated = updated.ok_or_else(|| {
            ApiError::PreconditionFailed("the tournament changed meanwhile; read it again".into())
        })?;
        if let Some(p) = &new_pool {
            crate::services::ratings::request_recorded(conn, caller, &updated, p, now)?;
        }
        ratings_after_update(conn, caller, (&current, &updated), held, now)?;
        Ok(updated)
    })
}

/// The rating request of a tournament as a change leaves it.
struct RatingRequest {
    status: Option<RatingStatus>,
    reason: Option<String>,
    decided_by: Option<i64>,
    decided_at: Option<DateTime<Utc>>,
}

/// The rating request after a change of the tournament's pool to `rating_pool_id`, and the new
/// pool when it changed: a new pool is a new request to be rated (issue 26; pending unless the
/// pool is open or the caller keeps it), no pool is no request, the same pool keeps its request.
fn rating_request(
    conn: &mut PgConnection,
    caller: &Caller,
    current: &Tournament,
    rating_pool_id: Option<i64>,
    now: DateTime<Utc>,
) -> Result<(Option<RatingPoolRow>, RatingRequest), ApiError> {
    let new_pool =
        match rating_pool_id.filter(|p| Some(*p) != current.rating_pool_id.map(|id| id.0)) {
            Some(id) => Some(crate::services::access::require_pool(conn, id)?),
            None => None,
        };
    let request = match (&new_pool, rating_pool_id) {
        (Some(p), _) => {
            let status = crate::services::ratings::request_status(conn, caller, p, None)?;
            RatingRequest {
                status: Some(status),
                reason: crate::services::ratings::automatic_reason(p, status),
                decided_by: Some(caller.user_id),
                decided_at: Some(now),
            }
        }
        (None, None) => RatingRequest {
            status: None,
            reason: None,
            decided_by: None,
            decided_at: None,
        },
        (None, Some(_)) => RatingRequest {
            status: current.rating_status,
            reason: current.rating_reason.clone(),
            decided_by: current.rating_decided_by.map(|id| id.0),
            decided_at: current.rating_decided_at,
        },
    };
    Ok((new_pool, request))
}

/// After a tournament changed: a change of time kept in its rating decisions; rounds played without a stated time follow its playing days
/// (issue 14, item 20), and its rating pool follows what the ratings depend on (the pool link,
/// national rank, announcement, day of play).
fn ratings_after_update(
    conn: &mut PgConnection,
    caller: &Caller,
    (current, updated): (&Tournament, &Tournament),
    held: HeldTimes,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let id = updated.id;
    // A change of time of an accepted tournament is kept in its rating decisions (issue 37).
    if let Some((pool_id, changes, why)) = held {
        crate::services::ratings::record_time_changes(
            conn,
            caller,
            id,
            PoolId(pool_id),
            &changes,
            false,
            why,
            now,
        )?;
    }
    let rating_pool_id = updated.rating_pool_id;
    // Rounds played without a stated time follow the playing days (issue 14, item 20).
    let days_moved = (updated.starts_on, updated.ends_on, &updated.time_zone)
        != (current.starts_on, current.ends_on, &current.time_zone)
        && crate::services::running::time_of_play::rederive(conn, updated)?;
    if rating_pool_id != current.rating_pool_id {
        crate::services::ratings::tournament_pool_changed(
            conn,
            TournamentId(id.0),
            current.rating_pool_id,
        )?;
    } else if rating_pool_id.is_some()
        && (updated.national_rank != current.national_rank
            || updated.announced_at != current.announced_at
            || updated.starts_on != current.starts_on
            || days_moved)
    {
        // The league's decisions (which tournament holds the national-rank bonus)
        // may have changed.
        crate::services::ratings::results_changed(conn, id.0)?;
    }
    Ok(())
}

/// A tournament's staff, and whether the tournament is public.
pub fn list_staff(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    id: i64,
    params: &PageParams,
) -> Result<(bool, Page<StaffOut>), ApiError> {
    let t = load_visible(conn, caller, id)?;
    let page = Page::read(
        conn,
        params,
        |c| db::tournaments::count_staff(c, TournamentId(id)).map_err(ApiError::from),
        |c, limit, offset| staff_page(c, id, limit, offset),
    )?;
    Ok((t.status != TournamentStatus::Draft, page))
}

/// Appoints a user to a staff role (organisers; the appeals committee holds at most three and
/// is fixed once the tournament started); `after` runs in the same transaction.
pub fn appoint(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: AppointStaff,
    after: AfterStaffChange,
) -> Result<Vec<StaffOut>, ApiError> {
    crate::db::transaction(conn, |conn| {
        load_for_staff(conn, caller, id, &[StaffRole::Organiser])?;
        // The limits below are checked, then inserted: one appointment at a time.
        let t = lock_tournament(conn, id)?;
        let exists = db::accounts::user_exists(conn, UserId(input.user_id))?;
        if !exists {
            return Err(ApiError::field(
                "user_id",
                format!("there is no user {}", input.user_id),
            ));
        }
        let current = staff_of(conn, id)?;
        if current
            .iter()
            .any(|s| s.user_id == input.user_id && s.role == input.role)
        {
            return Err(ApiError::Conflict("already appointed to that role".into()));
        }
        before_staff_change(conn, &t, input.role)?;
        let conflicting = match input.role {
            StaffRole::Referee => Some(StaffRole::AppealsCommittee),
            StaffRole::AppealsCommittee => Some(StaffRole::Referee),
            StaffRole::Organiser => None,
        };
        if let Some(other) = conflicting {
            if current
                .iter()
                .any(|s| s.user_id == input.user_id && s.role == other)
            {
                return Err(ApiError::Conflict(
                    "a referee cannot sit on the appeals committee of the same tournament".into(),
                ));
            }
        }
        if input.role == StaffRole::AppealsCommittee
            && current
                .iter()
                .filter(|s| s.role == StaffRole::AppealsCommittee)
                .count()
                >= crate::domain::staff::COMMITTEE_SEATS
        {
            return Err(ApiError::Conflict(
                "the appeals committee already has three members".into(),
            ));
        }
        db::tournaments::appoint(
            conn,
            TournamentId(id),
            UserId(input.user_id),
            input.role.as_str(),
            UserId(caller.user_id),
        )?;
        // The open cases' panels follow the officials (a new one takes a seat).
        after(conn, TournamentId(id), input.role, UserId(caller.user_id))?;
        staff_of(conn, id)
    })
}

/// Dismisses a user from a staff role (organisers; the last organiser stays, the committee is
/// fixed once the tournament started); `after` runs in the same transaction.
pub fn dismiss(
    conn: &mut PgConnection,
    caller: &Caller,
    (id, user_id, role): (TournamentId, UserId, StaffRole),
    after: AfterStaffChange,
) -> Result<(), ApiError> {
    let (id, user_id) = (id.0, user_id.0);
    crate::db::transaction(conn, |conn| {
        load_for_staff(conn, caller, id, &[StaffRole::Organiser])?;
        // The last organiser is counted, then dismissed: one dismissal at a time, else two
        // at once both count two organisers and the tournament is left with none.
        let t = lock_tournament(conn, id)?;
        let current = staff_of(conn, id)?;
        if !current
            .iter()
            .any(|s| s.user_id == user_id && s.role == role)
        {
            return Err(ApiError::NotFound("no such appointment".into()));
        }
        before_staff_change(conn, &t, role)?;
        if role == StaffRole::Organiser
            && current
                .iter()
                .filter(|s| s.role == StaffRole::Organiser)
                .count()
                == 1
        {
            return Err(ApiError::Conflict(
                "a tournament needs at least one organiser".into(),
            ));
        }
        db::tournaments::dismiss(conn, TournamentId(id), UserId(user_id), role.as_str())?;
        // The open cases' panels follow the officials (a dismissed one is replaced).
        after(conn, TournamentId(id), role, UserId(caller.user_id))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests;
