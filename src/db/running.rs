//! Row models for running a tournament: registrations, teams, rounds, draws, results,
//! withdrawals, penalties, idempotency keys and the event log.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::schema::{
    idempotency_keys, penalties, registrations, results, round_draws, rounds, teams,
    tournament_events, withdrawals,
};
use crate::db::ids::{
    CaseId, PenaltyId, PlayerId, RegistrationId, RoundId, TeamId, TournamentEventId, TournamentId,
    UserId, WithdrawalId,
};
use crate::domain::colours::Colour;
use crate::domain::events::LiveEventKind;
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::scoring::standings::WithdrawalKind;
use crate::domain::scoring::RoundKind;
use crate::domain::seating::SeatingMethod;
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

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = rounds)]
pub struct RoundRow {
    pub id: RoundId,
    pub tournament_id: TournamentId,
    pub number: i32,
    pub kind: RoundKind,
    pub method: SeatingMethod,
    pub options: serde_json::Value,
    pub weight: Option<String>,
    pub metadata: serde_json::Value,
    pub status: RoundStatus,
    pub seed: String,
    pub seed_commitment: String,
    pub draw: serde_json::Value,
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
    /// Tantrix: each game's colours as drawn (`[TableColours]`), none in other formats.
    pub colours: Option<serde_json::Value>,
    /// A self-scheduled round: the players agree their game's time before this deadline.
    pub self_scheduled_until: Option<DateTime<Utc>>,
}

impl RoundRow {
    /// Games per match of a knockout round (option `games_per_match`, 1-9; 1 for every other
    /// round): a match is played at that many consecutive tables (seed 003, Tie-Breaks 1).
    pub fn games_per_match(&self) -> u32 {
        if self.method != SeatingMethod::Knockout {
            return 1;
        }
        self.options
            .get("games_per_match")
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=9).contains(n))
            .unwrap_or(1)
    }
}

#[derive(Debug, Insertable)]
#[diesel(table_name = rounds)]
pub struct NewRound {
    pub tournament_id: TournamentId,
    pub number: i32,
    pub kind: RoundKind,
    pub method: SeatingMethod,
    pub options: serde_json::Value,
    pub weight: Option<String>,
    pub metadata: serde_json::Value,
    pub seed: String,
    pub seed_commitment: String,
    pub draw: serde_json::Value,
    pub created_by: UserId,
    pub played_at: Option<DateTime<Utc>>,
    pub played_at_fixed: bool,
    pub colours: Option<serde_json::Value>,
    pub self_scheduled_until: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = round_draws)]
pub struct RoundDraw {
    pub round_id: RoundId,
    pub attempt: i32,
    pub seed: String,
    pub seed_commitment: String,
    pub draw_input: serde_json::Value,
    pub draw: serde_json::Value,
    pub drawn_by: UserId,
    #[diesel(skip_insertion)]
    pub drawn_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = results)]
pub struct ResultRow {
    pub round_id: RoundId,
    pub table_number: i32,
    pub version: i32,
    pub seats: serde_json::Value,
    pub double_crash: bool,
    pub reason: Option<String>,
    pub case_id: Option<CaseId>,
    pub entered_by: UserId,
    #[diesel(skip_insertion)]
    pub entered_at: DateTime<Utc>,
    /// A cup match decided by 5-minute play-off games: their winner.
    pub playoff_winner: Option<i64>,
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
