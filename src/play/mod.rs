//! Running a tournament: the glue between the stored rows and the pure engines.
//!
//! Everything here reads a tournament's rows into the engines' plain inputs (a [`Snapshot`]),
//! so standings, the next draw and result validation all see the same data in the same way.
//! No HTTP here; the handlers in `crate::api` call these functions inside their transactions.

pub mod idempotency;

use std::collections::{BTreeMap, HashMap, HashSet};

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::models::Tournament;
use crate::db::running::{
    NewEvent, PenaltyRow, Registration, ResultRow, RoundRow, TeamRow, WithdrawalRow,
};
use crate::db::schema::{
    penalties, registrations, results, rounds, teams, tournament_events, withdrawals,
};
use crate::domain::scoring::standings::{
    compute_standings, OptOut, Standings, StandingsInput, Withdrawal,
};
use crate::domain::scoring::Points;
use crate::domain::scoring::{
    Format, Outcome, Preset, Purpose, RoundInput, RoundKind, Ruleset, SeatResult, TableResult,
};
use crate::domain::seating::{Draw, History};
use crate::domain::PlayerId;
use crate::error::ApiError;

/// The scoring preset a tournament's `ruleset` column names.
pub fn preset_of(ruleset: &str) -> Result<Preset, ApiError> {
    Ok(match ruleset {
        "agricola_norway" => Preset::AgricolaNorway,
        "bridge_agricola" => Preset::BridgeAgricola,
        "team_duplicate_2v2" => Preset::TeamDuplicate2v2,
        "tantrix" => Preset::Tantrix,
        "ashes_league" => Preset::AshesLeague,
        other => return Err(ApiError::Internal(format!("unknown ruleset {other}"))),
    })
}

/// The ruleset a tournament plays by.
pub fn ruleset_of(t: &Tournament) -> Result<Ruleset, ApiError> {
    Ok(Ruleset::preset(preset_of(&t.ruleset)?))
}

/// A round kind as stored.
pub fn parse_kind(kind: &str) -> Result<RoundKind, ApiError> {
    serde_json::from_value(serde_json::Value::String(kind.to_string()))
        .map_err(|_| ApiError::Internal(format!("unknown round kind {kind}")))
}

/// The stored name of a round kind.
pub fn kind_name(kind: RoundKind) -> &'static str {
    match kind {
        RoundKind::Preliminary => "preliminary",
        RoundKind::Final => "final",
        RoundKind::Voluntary => "voluntary",
        RoundKind::Playoff => "playoff",
    }
}

/// A round's draw as stored.
pub fn draw_of(round: &RoundRow) -> Result<Draw, ApiError> {
    serde_json::from_value(round.draw.clone())
        .map_err(|e| ApiError::Internal(format!("stored draw of round {}: {e}", round.number)))
}

/// Everything stored about a tournament's play, loaded once.
pub struct Snapshot {
    pub tournament: Tournament,
    pub ruleset: Ruleset,
    /// Live (not cancelled) registrations in registration order.
    pub registrations: Vec<Registration>,
    pub teams: Vec<TeamRow>,
    /// Rounds by number.
    pub rounds: Vec<RoundRow>,
    /// The result in force per (round id, table number).
    pub results: HashMap<(i64, i32), ResultRow>,
    pub withdrawals: Vec<WithdrawalRow>,
    /// Penalties not annulled.
    pub penalties: Vec<PenaltyRow>,
}

impl Snapshot {
    /// Loads the snapshot of a tournament.
    pub fn load(conn: &mut PgConnection, tournament: Tournament) -> Result<Snapshot, ApiError> {
        let tid = tournament.id;
        let ruleset = ruleset_of(&tournament)?;
        let registrations = registrations::table
            .filter(registrations::tournament_id.eq(tid))
            .filter(registrations::status.ne("cancelled"))
            .order(registrations::id)
            .select(Registration::as_select())
            .load(conn)?;
        let teams = teams::table
            .filter(teams::tournament_id.eq(tid))
            .order(teams::number)
            .select(TeamRow::as_select())
            .load(conn)?;
        let rounds: Vec<RoundRow> = rounds::table
            .filter(rounds::tournament_id.eq(tid))
            .order(rounds::number)
            .select(RoundRow::as_select())
            .load(conn)?;
        let round_ids: Vec<i64> = rounds.iter().map(|r| r.id).collect();
        let all: Vec<ResultRow> = results::table
            .filter(results::round_id.eq_any(&round_ids))
            .order((results::round_id, results::table_number, results::version))
            .select(ResultRow::as_select())
            .load(conn)?;
        let mut latest = HashMap::new();
        for r in all {
            latest.insert((r.round_id, r.table_number), r);
        }
        let withdrawals = withdrawals::table
            .filter(withdrawals::tournament_id.eq(tid))
            .order(withdrawals::id)
            .select(WithdrawalRow::as_select())
            .load(conn)?;
        let penalties = penalties::table
            .filter(penalties::tournament_id.eq(tid))
            .filter(penalties::annulled_at.is_null())
            .order(penalties::id)
            .select(PenaltyRow::as_select())
            .load(conn)?;
        Ok(Snapshot {
            tournament,
            ruleset,
            registrations,
            teams,
            rounds,
            results: latest,
            withdrawals,
            penalties,
        })
    }

    /// Confirmed players in registration order.
    pub fn confirmed(&self) -> Vec<&Registration> {
        self.registrations
            .iter()
            .filter(|r| r.status == "confirmed")
            .collect()
    }

    /// The round with this number.
    pub fn round(&self, number: i32) -> Option<&RoundRow> {
        self.rounds.iter().find(|r| r.number == number)
    }

    /// A table's result in force, with the penalties that change it applied: point penalties
    /// are deducted from the game total, a game loss makes the player's game a loss (last place,
    /// no score; in two-player formats the opponent wins).
    pub fn table_result(
        &self,
        round: &RoundRow,
        table: i32,
    ) -> Result<Option<TableResult>, ApiError> {
        let Some(row) = self.results.get(&(round.id, table)) else {
            return Ok(None);
        };
        let mut seats: Vec<SeatResult> = serde_json::from_value(row.seats.clone())
            .map_err(|e| ApiError::Internal(format!("stored result: {e}")))?;
        for p in &self.penalties {
            if p.round_number != Some(round.number) || p.table_number != Some(table) {
                continue;
            }
            let two_player = seats.len() == 2;
            match p.kind.as_str() {
                "point_penalty" => {
                    if let Some(s) = seats.iter_mut().find(|s| s.player.0 == p.player_id) {
                        s.penalty += i64::from(p.points);
                    }
                }
                "game_loss" => {
                    let min_other = seats
                        .iter()
                        .filter(|s| s.player.0 != p.player_id)
                        .map(SeatResult::total)
                        .min()
                        .unwrap_or(0);
                    for s in seats.iter_mut() {
                        if s.player.0 == p.player_id {
                            // Below everyone else at the table.
                            s.penalty += s.total() - min_other + 1;
                            if two_player || s.outcome.is_some() {
                                s.outcome = Some(Outcome::Loss);
                            }
                        } else if two_player {
                            s.outcome = Some(Outcome::Win);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(Some(TableResult {
            seats,
            clarification: None,
            double_crash: row.double_crash,
        }))
    }

    /// The engine's input for one round: every table with its result in force, tables in
    /// number order (placement-group order in a final), and the bridge groups.
    pub fn round_input(&self, round: &RoundRow) -> Result<RoundInput, ApiError> {
        let draw = draw_of(round)?;
        let mut tables = Vec::with_capacity(draw.tables.len());
        for t in &draw.tables {
            let mut result = self.table_result(round, t.number as i32)?.ok_or_else(|| {
                ApiError::Conflict(format!(
                    "round {} table {} has no result yet",
                    round.number, t.number
                ))
            })?;
            if round.method == "clarification_bonus" && t.number == 1 && t.seats.len() == 4 {
                result.clarification = clarification_of(&draw);
            }
            tables.push(result);
        }
        // A bye is a one-seat table (Ashes: scores as a win, seed 004). Formats without a bye
        // score (Tantrix round robin) leave the player out of the round instead.
        if self.ruleset.format == Format::Ashes {
            for p in &draw.byes {
                tables.push(TableResult {
                    seats: vec![SeatResult::new(*p, 0)],
                    clarification: None,
                    double_crash: false,
                });
            }
        }
        Ok(RoundInput {
            number: round.number as u32,
            kind: parse_kind(&round.kind)?,
            weight: round
                .weight
                .as_deref()
                .map(|w| w.parse::<Points>())
                .transpose()
                .map_err(|e| ApiError::Internal(format!("stored weight: {e}")))?,
            tables,
            bridge_groups: draw
                .bridge_groups
                .iter()
                .map(|g| g.players.clone())
                .collect(),
        })
    }

    /// Standings after `after_round` (default: the last completed round) for `purpose`, from
    /// the completed rounds only.
    pub fn standings(
        &self,
        after_round: Option<u32>,
        purpose: Purpose,
    ) -> Result<Standings, ApiError> {
        let last_completed = self
            .rounds
            .iter()
            .filter(|r| r.status == "completed")
            .map(|r| r.number as u32)
            .max()
            .unwrap_or(0);
        let after = after_round.unwrap_or(last_completed);
        let mut rounds = Vec::new();
        for r in &self.rounds {
            if r.status == "completed" && (r.number as u32) <= after {
                rounds.push(self.round_input(r)?);
            }
        }
        let input = StandingsInput {
            ruleset: self.ruleset.clone(),
            players: self
                .confirmed()
                .iter()
                .map(|r| PlayerId(r.player_id))
                .collect(),
            rounds,
            withdrawals: self
                .withdrawals
                .iter()
                .filter(|w| w.kind == "withdrawal")
                .map(|w| Withdrawal {
                    player: PlayerId(w.player_id),
                    from_round: w.from_round as u32,
                })
                .collect(),
            opt_outs: self
                .withdrawals
                .iter()
                .filter(|w| w.kind == "opt_out" && (w.from_round as u32) <= after)
                .map(|w| OptOut {
                    player: PlayerId(w.player_id),
                    round: w.from_round as u32,
                })
                .collect(),
            after_round: Some(after),
            purpose,
            lot_order: None,
        };
        compute_standings(&input, None).map_err(|e| ApiError::Conflict(format!("{e:?}")))
    }

    /// Who met whom in the rounds drawn so far (published or completed).
    pub fn history(&self, before_round: i32) -> Result<History, ApiError> {
        let mut h = History::default();
        for r in self.rounds.iter().filter(|r| r.number < before_round) {
            let draw = draw_of(r)?;
            for t in &draw.tables {
                if t.seats.len() == 2 && self.ruleset.players_per_table == 2 {
                    h.pairings.push([t.seats[0], t.seats[1]]);
                }
                h.tables.push(t.seats.clone());
            }
            h.bridge_groups
                .extend(draw.bridge_groups.iter().map(|g| g.players.clone()));
            h.byes.extend(draw.byes.iter().copied());
        }
        Ok(h)
    }

    /// Players out of play from round `number` on: withdrawn before it, or opted out of it
    /// (an opt-out of a voluntary round also covers every later round).
    pub fn out_of_play(&self, number: i32) -> HashSet<i64> {
        self.withdrawals
            .iter()
            .filter(|w| w.from_round <= number)
            .map(|w| w.player_id)
            .collect()
    }
}

/// The clarification-with-bonus table: the two top and the two lowest of the standings the
/// draw used, read off the draw's groups (first group = top two, second = bottom two).
fn clarification_of(draw: &Draw) -> Option<crate::domain::scoring::Clarification> {
    let top = draw.groups.first()?;
    let bottom = draw.groups.get(1)?;
    if top.len() != 2 || bottom.len() != 2 {
        return None;
    }
    Some(crate::domain::scoring::Clarification {
        top: [top[0], top[1]],
        bottom: [bottom[0], bottom[1]],
    })
}

/// Appends an event to the tournament's live feed (read by `GET /tournaments/{id}/events`).
pub fn record_event(
    conn: &mut PgConnection,
    tournament_id: i64,
    kind: &str,
    payload: serde_json::Value,
) -> Result<(), ApiError> {
    diesel::insert_into(tournament_events::table)
        .values(NewEvent {
            tournament_id,
            kind: kind.to_string(),
            payload,
        })
        .execute(conn)?;
    Ok(())
}

/// How many registrations make a confirmable block: the table size for table games (domain.md
/// section 2), 1 for the two-player formats, whose pairings give a bye to an odd player out
/// (Ashes: a bye scores as a win, seed 004; Tantrix round robin: a bye per round for odd
/// fields, seed 003). See docs/decisions/registration.md.
pub fn confirmation_block(t: &Tournament) -> i32 {
    match t.ruleset.as_str() {
        "tantrix" | "ashes_league" => 1,
        _ => t.table_size.max(1),
    }
}

/// Re-derives confirmed / waitlisted for the live registrations of an open tournament: the
/// first `floor(n / block) * block` in registration order are confirmed, `block` being
/// [`confirmation_block`] (domain.md section 2: 17 registered at tables of 4 gives 16
/// confirmed, 1 waiting).
pub fn rebalance_registrations(
    conn: &mut PgConnection,
    tournament_id: i64,
    block: i32,
) -> Result<(), ApiError> {
    let live: Vec<(i64, String)> = registrations::table
        .filter(registrations::tournament_id.eq(tournament_id))
        .filter(registrations::status.ne("cancelled"))
        .order(registrations::id)
        .select((registrations::id, registrations::status))
        .load(conn)?;
    let size = block.max(1) as usize;
    let confirmed = live.len() / size * size;
    let mut by_status: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (i, (id, status)) in live.iter().enumerate() {
        let want = if i < confirmed {
            "confirmed"
        } else {
            "waitlisted"
        };
        if status != want {
            by_status.entry(want).or_default().push(*id);
        }
    }
    for (status, ids) in by_status {
        diesel::update(registrations::table.filter(registrations::id.eq_any(ids)))
            .set(registrations::status.eq(status))
            .execute(conn)?;
    }
    Ok(())
}
