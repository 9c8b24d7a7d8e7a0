//! Row models for running a tournament: registrations, teams, rounds, draws, results,
//! withdrawals, penalties, idempotency keys and the event log.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::deserialize;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Json, Jsonb, Nullable, Text, Timestamptz};

use super::schema::{
    idempotency_keys, penalties, registrations, results, round_draws, rounds, teams,
    tournament_events, withdrawals,
};
use serde::Deserialize;

use crate::db::ids::{
    CaseId, PenaltyId, PlayerId, RegistrationId, RoundId, TeamId, TournamentEventId, TournamentId,
    UserId, WithdrawalId,
};
use crate::db::json::Parsed;
use crate::domain::colours::{Colour, TableColours};
use crate::domain::events::LiveEventKind;
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::scoring::standings::WithdrawalKind;
use crate::domain::scoring::{RoundKind, SeatResult};
use crate::domain::seating::{Draw, DrawInput, RoundOptions, SeatingMethod};
use crate::domain::status::{RegistrationStatus, RoundStatus};

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = registrations)]
pub struct Registration {
    pub id: RegistrationId,
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub status: RegistrationStatus,
    pub seeding_rating: Option<f64>,
    pub seeding_rated_games: i32,
    pub registered_by: UserId,
    pub registered_at: DateTime<Utc>,
    pub cancelled_at: Option<DateTime<Utc>>,
    pub colour_first: Option<Colour>,
    pub colour_second: Option<Colour>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = registrations)]
pub struct NewRegistration {
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub status: RegistrationStatus,
    pub seeding_rating: Option<f64>,
    pub seeding_rated_games: i32,
    pub registered_by: UserId,
    pub colour_first: Option<Colour>,
    pub colour_second: Option<Colour>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = teams)]
pub struct TeamRow {
    #[diesel(skip_insertion)]
    pub id: TeamId,
    pub tournament_id: TournamentId,
    pub number: i32,
    pub name: String,
    pub pair_a1: i64,
    pub pair_a2: i64,
    pub pair_b1: i64,
    pub pair_b2: i64,
    #[diesel(skip_insertion)]
    pub created_at: DateTime<Utc>,
}

impl TeamRow {
    /// The team's four players: its A pair, then its B pair.
    pub fn members(&self) -> [i64; 4] {
        [self.pair_a1, self.pair_a2, self.pair_b1, self.pair_b2]
    }
}

/// A round, its stored options, draw and colours decoded once as the row is read: a value that does
/// not parse is an error naming the row (see its `Queryable`).
#[derive(Debug, Clone, Selectable)]
#[diesel(table_name = rounds)]
pub struct RoundRow {
    pub id: RoundId,
    pub tournament_id: TournamentId,
    pub number: i32,
    pub kind: RoundKind,
    pub method: SeatingMethod,
    /// The options the round was drawn with.
    pub options: RoundOptions,
    pub weight: Option<String>,
    /// The organiser's metadata as entered (draft variant, card pool, ...); the service keeps
    /// the round's withdrawn draws under one key (`round_history::KEY`). free-form.
    pub metadata: serde_json::Value,
    pub status: RoundStatus,
    pub seed: String,
    pub seed_commitment: String,
    pub draw: Draw,
    pub draw_count: i32,
    pub created_by: UserId,
    pub created_at: DateTime<Utc>,
    pub published_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub version: i32,
    /// When the round's games were played (set at completion; see `played_at_fixed`).
    pub played_at: Option<DateTime<Utc>>,
    /// Whether `played_at` was given by the organiser (else derived from the completion time).
    pub played_at_fixed: bool,
    /// Tantrix: each game's colours as drawn, none in other formats.
    pub colours: Option<Vec<TableColours>>,
    /// A self-scheduled round: the players agree their game's time before this deadline.
    pub self_scheduled_until: Option<DateTime<Utc>>,
}

/// A `rounds` row as stored, its JSON still undecoded.
type StoredRound = (
    RoundId,
    TournamentId,
    i32,
    RoundKind,
    SeatingMethod,
    Parsed<RoundOptions>,
    Option<String>,
    serde_json::Value,
    RoundStatus,
    String,
    String,
    Parsed<Draw>,
    i32,
    UserId,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    i32,
    Option<DateTime<Utc>>,
    bool,
    Option<Parsed<Vec<TableColours>>>,
    Option<DateTime<Utc>>,
);

type RoundSql = (
    BigInt,
    BigInt,
    Integer,
    Text,
    Text,
    Jsonb,
    Nullable<Text>,
    Jsonb,
    Text,
    Text,
    Text,
    Json,
    Integer,
    BigInt,
    Timestamptz,
    Nullable<Timestamptz>,
    Nullable<Timestamptz>,
    Integer,
    Nullable<Timestamptz>,
    Bool,
    Nullable<Jsonb>,
    Nullable<Timestamptz>,
);

impl Queryable<RoundSql, Pg> for RoundRow {
    type Row = StoredRound;

    fn build(row: StoredRound) -> deserialize::Result<Self> {
        let (
            id,
            tournament_id,
            number,
            kind,
            method,
            options,
            weight,
            metadata,
            status,
            seed,
            seed_commitment,
            draw,
            draw_count,
            created_by,
            created_at,
            published_at,
            completed_at,
            version,
            played_at,
            played_at_fixed,
            colours,
            self_scheduled_until,
        ) = row;
        let at = format!("rounds row {id}");
        Ok(Self {
            id,
            tournament_id,
            number,
            kind,
            method,
            options: options.at(&at, "options")?,
            weight,
            metadata,
            status,
            seed,
            seed_commitment,
            draw: draw.at(&at, "draw")?,
            draw_count,
            created_by,
            created_at,
            published_at,
            completed_at,
            version,
            played_at,
            played_at_fixed,
            colours: colours.map(|c| c.at(&at, "colours")).transpose()?,
            self_scheduled_until,
        })
    }
}

impl RoundRow {
    /// Games per match of a knockout round (option `games_per_match`, 1-9; 1 for every other
    /// round): a match is played at that many consecutive tables (seed 003, Tie-Breaks 1).
    pub fn games_per_match(&self) -> u32 {
        if self.method != SeatingMethod::Knockout {
            return 1;
        }
        self.options
            .games_per_match
            .filter(|n| (1..=9).contains(n))
            .unwrap_or(1)
    }
}

/// A round to store; its options, draw and colours are written in their stored JSON form.
#[derive(Debug)]
pub struct NewRound {
    pub tournament_id: TournamentId,
    pub number: i32,
    pub kind: RoundKind,
    pub method: SeatingMethod,
    /// The options the draw used, defaults included (as the seating engine's input holds them).
    pub options: BTreeMap<String, serde_json::Value>,
    pub weight: Option<String>,
    /// free-form: the organiser's metadata as entered, as on the round's row.
    pub metadata: serde_json::Value,
    pub seed: String,
    pub seed_commitment: String,
    pub draw: Draw,
    pub created_by: UserId,
    pub played_at: Option<DateTime<Utc>>,
    pub played_at_fixed: bool,
    pub colours: Option<Vec<TableColours>>,
    pub self_scheduled_until: Option<DateTime<Utc>>,
}

/// One draw attempt of a round, its draw decoded once as the row is read (see its
/// `Queryable`).
#[derive(Debug, Clone, Selectable)]
#[diesel(table_name = round_draws)]
pub struct RoundDraw {
    pub round_id: RoundId,
    pub attempt: i32,
    pub seed: String,
    pub seed_commitment: String,
    pub draw_input: StoredInput,
    pub draw: Draw,
    pub drawn_by: UserId,
    pub drawn_at: DateTime<Utc>,
}

/// Marks a stored draw input whose history and plan were left out (see [`StoredInput`]).
pub const FROM_EARLIER_ROUNDS: &str = "history_and_plan_from_earlier_rounds";

/// A draw input as stored with its draw attempt. New inputs are stored short: what is new in
/// this round only. The history (every earlier table) and the plan (the previous round's) are
/// already stored with the earlier rounds' draws, which never change once a later round is
/// drawn, so storing them again would make each round's row grow with the event (issue 16);
/// `short` says they are to be rebuilt from those draws. An input stored before inputs were
/// stored short is complete (`short` false).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredInput {
    pub input: DrawInput,
    pub short: bool,
}

/// A stored input reads as the input and whether it was stored short (the marker taken out).
impl<'de> Deserialize<'de> for StoredInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut value = serde_json::Value::deserialize(d)?;
        let short = value
            .as_object_mut()
            .and_then(|o| o.remove(FROM_EARLIER_ROUNDS))
            .is_some();
        let input = DrawInput::deserialize(value).map_err(serde::de::Error::custom)?;
        Ok(Self { input, short })
    }
}

impl StoredInput {
    /// The short stored form of a full input: without its history and plan, marked.
    pub(crate) fn short_form(input: &DrawInput) -> QueryResult<serde_json::Value> {
        let mut v = serde_json::to_value(input)
            .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
        if let Some(o) = v.as_object_mut() {
            o.remove("history");
            o.remove("plan");
            o.insert(FROM_EARLIER_ROUNDS.into(), serde_json::Value::Bool(true));
        }
        Ok(v)
    }
}

/// A `round_draws` row as stored, its JSON still undecoded.
type StoredDraw = (
    RoundId,
    i32,
    String,
    String,
    Parsed<StoredInput>,
    Parsed<Draw>,
    UserId,
    DateTime<Utc>,
);

impl Queryable<(BigInt, Integer, Text, Text, Json, Json, BigInt, Timestamptz), Pg> for RoundDraw {
    type Row = StoredDraw;

    fn build(row: StoredDraw) -> deserialize::Result<Self> {
        let (round_id, attempt, seed, seed_commitment, draw_input, draw, drawn_by, drawn_at) = row;
        let at = format!("round_draws row {round_id}/{attempt}");
        Ok(Self {
            round_id,
            attempt,
            seed,
            seed_commitment,
            draw_input: draw_input.at(&at, "draw_input")?,
            draw: draw.at(&at, "draw")?,
            drawn_by,
            drawn_at,
        })
    }
}

/// A version of a table's result, its seats decoded once as the row is read (see its
/// `Queryable`).
#[derive(Debug, Clone, Selectable)]
#[diesel(table_name = results)]
pub struct ResultRow {
    pub round_id: RoundId,
    pub table_number: i32,
    pub version: i32,
    /// The seats as entered (seat order).
    pub seats: Vec<SeatResult>,
    pub double_crash: bool,
    pub reason: Option<String>,
    pub case_id: Option<CaseId>,
    pub entered_by: UserId,
    pub entered_at: DateTime<Utc>,
    /// A cup match decided by 5-minute play-off games: their winner.
    pub playoff_winner: Option<PlayerId>,
}

/// A `results` row as stored, its JSON still undecoded.
type StoredResult = (
    RoundId,
    i32,
    i32,
    Parsed<Vec<SeatResult>>,
    bool,
    Option<String>,
    Option<CaseId>,
    UserId,
    DateTime<Utc>,
    Option<PlayerId>,
);

type ResultSql = (
    BigInt,
    Integer,
    Integer,
    Jsonb,
    Bool,
    Nullable<Text>,
    Nullable<BigInt>,
    BigInt,
    Timestamptz,
    Nullable<BigInt>,
);

impl Queryable<ResultSql, Pg> for ResultRow {
    type Row = StoredResult;

    fn build(row: StoredResult) -> deserialize::Result<Self> {
        let (
            round_id,
            table_number,
            version,
            seats,
            double_crash,
            reason,
            case_id,
            entered_by,
            entered_at,
            playoff_winner,
        ) = row;
        let at = format!("results row {round_id}/{table_number}/{version}");
        Ok(Self {
            round_id,
            table_number,
            version,
            seats: seats.at(&at, "seats")?,
            double_crash,
            reason,
            case_id,
            entered_by,
            entered_at,
            playoff_winner,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = withdrawals)]
pub struct WithdrawalRow {
    pub id: WithdrawalId,
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub kind: WithdrawalKind,
    pub from_round: i32,
    pub reason: Option<String>,
    pub recorded_by: UserId,
    pub recorded_at: DateTime<Utc>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = withdrawals)]
pub struct NewWithdrawal {
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub kind: WithdrawalKind,
    pub from_round: i32,
    pub reason: Option<String>,
    pub recorded_by: UserId,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = penalties)]
pub struct PenaltyRow {
    pub id: PenaltyId,
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub kind: RecordedPenalty,
    pub round_number: Option<i32>,
    pub table_number: Option<i32>,
    pub points: i32,
    pub reason: String,
    pub case_id: Option<CaseId>,
    pub issued_by: UserId,
    pub issued_at: DateTime<Utc>,
    pub annulled_by: Option<UserId>,
    pub annulled_at: Option<DateTime<Utc>>,
    pub annul_reason: Option<String>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = penalties)]
pub struct NewPenalty {
    pub tournament_id: TournamentId,
    pub player_id: PlayerId,
    pub kind: RecordedPenalty,
    pub round_number: Option<i32>,
    pub table_number: Option<i32>,
    pub points: i32,
    pub reason: String,
    pub case_id: Option<CaseId>,
    pub issued_by: UserId,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = idempotency_keys)]
pub struct IdempotencyRow {
    pub user_id: UserId,
    pub key: String,
    pub request_hash: String,
    pub status: i32,
    pub body: String,
    /// free-form: the stored answer's headers, replayed as they were sent.
    pub headers: serde_json::Value,
    #[diesel(skip_insertion)]
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = tournament_events)]
pub struct EventRow {
    pub id: TournamentEventId,
    pub tournament_id: TournamentId,
    pub kind: LiveEventKind,
    /// free-form: the payload written from a typed `TournamentEvent`, passed on as stored.
    pub payload: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = tournament_events)]
pub struct NewEvent {
    pub tournament_id: TournamentId,
    pub kind: LiveEventKind,
    /// free-form: the payload written from a typed `TournamentEvent`, passed on as stored.
    pub payload: serde_json::Value,
}

/// A tournament's withdrawals and opt-outs, in the order they were recorded.
pub fn withdrawals_of(
    conn: &mut diesel::PgConnection,
    t: crate::db::ids::TournamentId,
) -> QueryResult<Vec<WithdrawalRow>> {
    withdrawals::table
        .filter(withdrawals::tournament_id.eq(t))
        .order(withdrawals::id)
        .select(WithdrawalRow::as_select())
        .load(conn)
}

/// Records a withdrawal or an opt-out.
pub fn insert_withdrawal(conn: &mut diesel::PgConnection, new: NewWithdrawal) -> QueryResult<()> {
    diesel::insert_into(withdrawals::table)
        .values(new)
        .execute(conn)?;
    Ok(())
}

/// A tournament's penalties that are not annulled, in the order they were issued.
pub fn penalties_in_force(
    conn: &mut diesel::PgConnection,
    t: crate::db::ids::TournamentId,
) -> QueryResult<Vec<PenaltyRow>> {
    penalties::table
        .filter(penalties::tournament_id.eq(t))
        .filter(penalties::annulled_at.is_null())
        .order(penalties::id)
        .select(PenaltyRow::as_select())
        .load(conn)
}
