//! Row models: one struct per table, as stored. The API layer turns them into its own
//! response types; nothing here is sent over HTTP directly.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::deserialize;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Jsonb, Text, Timestamptz};
use serde::{Deserialize, Serialize};

use super::schema::{players, rating_changes, rating_pools, tournament_staff, tournaments, users};
use crate::db::ids::{PlayerId, PoolId, RoundId, TournamentId, UserId};
use crate::db::json::{Json, Parsed};
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::rating::replay::ChangeKind;
use crate::domain::rating::RatingPoolParams;
use crate::domain::scoring::{Preset, Ruleset, RulesetOverride};
use crate::domain::staff::StaffRole;
use crate::domain::status::TournamentStatus;

#[derive(Debug, Clone, Queryable, Selectable, Identifiable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: UserId,
    pub username: String,
    pub password_hash: String,
    pub is_admin: bool,
    pub created_at: DateTime<Utc>,
    pub session_epoch: i32,
    pub disabled_at: Option<DateTime<Utc>>,
    /// Deleted while records refer to it: kept without name, password or power.
    pub deleted_at: Option<DateTime<Utc>>,
    /// The account's e-mail address (accounts made by an admin may have none).
    pub email: Option<String>,
    /// When the address was proved; a self-made account signs in only after.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// The language of the account's messages.
    pub language: crate::domain::accounts::Language,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = users)]
pub struct NewUser<'a> {
    pub username: &'a str,
    pub password_hash: &'a str,
    pub is_admin: bool,
}

#[derive(Debug, Clone, Queryable, Selectable, Identifiable)]
#[diesel(table_name = players)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
    pub club: Option<String>,
    pub country: Option<String>,
    pub user_id: Option<UserId>,
    pub created_by: UserId,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = players)]
pub struct NewPlayer {
    pub name: String,
    pub club: Option<String>,
    pub country: Option<String>,
    pub user_id: Option<UserId>,
    pub created_by: UserId,
}

#[derive(Debug, Clone, Queryable, Selectable, Identifiable)]
#[diesel(table_name = tournaments)]
pub struct Tournament {
    pub id: TournamentId,
    pub name: String,
    pub game: String,
    pub ruleset: Preset,
    /// Its stored `ruleset_overrides` and the ruleset it plays by, decoded as the row is read.
    #[diesel(embed)]
    pub rules: TournamentRules,
    pub table_size: i32,
    pub planned_rounds: i32,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub time_zone: String,
    pub venue: Option<String>,
    pub status: TournamentStatus,
    pub registration_deadline: Option<DateTime<Utc>>,
    pub appeal_window_minutes: i32,
    pub created_by: UserId,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub version: i32,
    /// The rating pool the tournament's games feed, if any.
    pub rating_pool_id: Option<PoolId>,
    /// Declared a national-rank tournament (league pools).
    pub national_rank: bool,
    /// When it was first published (league pools: the announcement date).
    pub announced_at: Option<DateTime<Utc>>,
    /// Places that carry a prize (at least 1: first place).
    pub prize_places: i32,
    /// Places that qualify for a later stage (0: none).
    pub qualification_places: i32,
    /// Where its request to be rated stands (`RatingStatus` names; `None` without a pool).
    pub rating_status: Option<RatingStatus>,
    /// The reason given with the last decision on it.
    pub rating_reason: Option<String>,
    /// Who made the last decision (or request) on it.
    pub rating_decided_by: Option<UserId>,
    /// When.
    pub rating_decided_at: Option<DateTime<Utc>>,
    /// Where the tournament is being run while checked out to another instance (read-only here).
    pub checked_out_to: Option<String>,
    /// Since when.
    pub checked_out_at: Option<DateTime<Utc>>,
    /// Where it is held (ISO 3166-1 alpha-2), if stated.
    pub country: Option<String>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = tournaments)]
pub struct NewTournament {
    pub name: String,
    pub game: String,
    pub ruleset: Preset,
    #[diesel(serialize_as = Json<RulesetOverride>)]
    pub ruleset_overrides: RulesetOverride,
    pub table_size: i32,
    pub planned_rounds: i32,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub time_zone: String,
    pub venue: Option<String>,
    pub registration_deadline: Option<DateTime<Utc>>,
    pub appeal_window_minutes: i32,
    pub created_by: UserId,
    pub rating_pool_id: Option<PoolId>,
    pub national_rank: bool,
    pub prize_places: i32,
    pub qualification_places: i32,
    pub rating_status: Option<RatingStatus>,
    pub rating_reason: Option<String>,
    pub rating_decided_by: Option<UserId>,
    pub rating_decided_at: Option<DateTime<Utc>>,
    pub country: Option<String>,
}

/// A tournament's rules, decoded once as its row is read (its `id`, `ruleset` and
/// `ruleset_overrides` columns): the overrides as stored and the ruleset it plays by, its preset
/// with them. Overrides that do not parse, or do not fit the preset, are an error naming the
/// row (`tournaments row 5: bad ruleset_overrides: ...`), never the preset's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TournamentRules {
    /// The stored overrides (none stored: the default, no override).
    pub overrides: RulesetOverride,
    /// The preset with the overrides applied.
    pub ruleset: Ruleset,
}

impl TournamentRules {
    /// The rules of a tournament under `preset` with `overrides`; why they do not fit it.
    pub fn new(preset: Preset, overrides: RulesetOverride) -> Result<Self, String> {
        let base = Ruleset::preset(preset);
        // As `Ruleset::for_tournament`: the preset itself unless something is overridden.
        let ruleset = if overrides == RulesetOverride::default() {
            base
        } else {
            base.with_override(&overrides).map_err(|e| e.to_string())?
        };
        Ok(Self { overrides, ruleset })
    }

    /// The rules of tournament `id` as stored; an error naming the row when they do not parse.
    pub(crate) fn decode(
        id: TournamentId,
        preset: Preset,
        overrides: Parsed<Option<RulesetOverride>>,
    ) -> deserialize::Result<Self> {
        let overrides = overrides
            .named("tournaments", id, "ruleset_overrides")?
            .unwrap_or_default();
        Self::new(preset, overrides)
            .map_err(|e| format!("tournaments row {id}: bad ruleset_overrides: {e}").into())
    }
}

impl Selectable<Pg> for TournamentRules {
    type SelectExpression = (
        tournaments::id,
        tournaments::ruleset,
        tournaments::ruleset_overrides,
    );

    fn construct_selection() -> Self::SelectExpression {
        (
            tournaments::id,
            tournaments::ruleset,
            tournaments::ruleset_overrides,
        )
    }
}

impl Queryable<(BigInt, Text, Jsonb), Pg> for TournamentRules {
    type Row = (TournamentId, Preset, Parsed<Option<RulesetOverride>>);

    fn build((id, preset, overrides): Self::Row) -> deserialize::Result<Self> {
        Self::decode(id, preset, overrides)
    }
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = tournament_staff)]
pub struct StaffRow {
    pub tournament_id: TournamentId,
    pub user_id: UserId,
    pub role: StaffRole,
    pub appointed_by: UserId,
    pub appointed_at: DateTime<Utc>,
}

/// A season as stored on the pool: local dates in the pool's time zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSeason {
    /// Display name.
    pub name: String,
    /// First day, inclusive (local date).
    pub first_day: NaiveDate,
    /// Last day, inclusive (local date).
    pub last_day: NaiveDate,
}

/// A rating pool, its stored JSON (engine parameters, seasons) decoded once as the row is read:
/// a value that does not parse is an error naming the row (see its `Queryable`).
#[derive(Debug, Clone, Selectable, Identifiable)]
#[diesel(table_name = rating_pools)]
pub struct RatingPoolRow {
    pub id: PoolId,
    pub name: String,
    pub params: RatingPoolParams,
    pub time_zone: String,
    pub seasons: Vec<StoredSeason>,
    pub league: bool,
    pub created_by: UserId,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub version: i32,
    /// Every tournament that asks is accepted at once.
    pub open: bool,
}

/// A `rating_pools` row as stored, its JSON still undecoded.
type StoredPool = (
    PoolId,
    String,
    serde_json::Value,
    String,
    serde_json::Value,
    bool,
    UserId,
    DateTime<Utc>,
    DateTime<Utc>,
    i32,
    bool,
);

impl
    Queryable<
        (
            BigInt,
            Text,
            Jsonb,
            Text,
            Jsonb,
            Bool,
            BigInt,
            Timestamptz,
            Timestamptz,
            Integer,
            Bool,
        ),
        Pg,
    > for RatingPoolRow
{
    type Row = StoredPool;

    fn build(row: StoredPool) -> deserialize::Result<Self> {
        let (
            id,
            name,
            params,
            time_zone,
            seasons,
            league,
            created_by,
            created_at,
            updated_at,
            version,
            open,
        ) = row;
        let bad =
            |what: &str, e: serde_json::Error| format!("rating_pools row {id}: bad {what}: {e}");
        Ok(Self {
            id,
            name,
            params: serde_json::from_value(params).map_err(|e| bad("params", e))?,
            time_zone,
            seasons: serde_json::from_value(seasons).map_err(|e| bad("seasons", e))?,
            league,
            created_by,
            created_at,
            updated_at,
            version,
            open,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = rating_changes)]
// Written with COPY (binary), which needs every column bound, no DEFAULT.
#[diesel(treat_none_as_default_value = false)]
pub struct RatingChangeRow {
    pub pool_id: PoolId,
    pub sequence: i64,
    pub player_id: PlayerId,
    pub kind: ChangeKind,
    pub tournament_id: TournamentId,
    pub round_id: RoundId,
    pub table_number: i32,
    pub result_version: i32,
    pub rated_at: DateTime<Utc>,
    pub rating_before: f64,
    pub rating_after: f64,
    pub delta: f64,
    /// Rated games the row adds to the player's count (1 game, 0 bonus, n import).
    pub games: i32,
}
