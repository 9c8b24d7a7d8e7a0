//! A tournament's stored play as the pure engines' inputs.
//!
//! Everything here reads a tournament's rows into the engines' plain inputs (a [`Snapshot`]),
//! so standings, the next draw and result validation all see the same data in the same way.
//! Services load it inside their transactions.

use std::collections::{HashMap, HashSet};

use crate::db::models::Tournament;
use crate::db::running::{PenaltyRow, Registration, ResultRow, RoundRow, TeamRow, WithdrawalRow};
use crate::db::PgConnection;
use crate::domain::scoring::penalty::{self, TablePenalty};
use crate::domain::scoring::standings::{
    compute_standings, OptOut, Standings, StandingsInput, Withdrawal, WithdrawalKind,
};
use crate::domain::scoring::Points;
use crate::domain::scoring::{Format, Purpose, RoundInput, Ruleset, SeatResult, TableResult};
use crate::domain::seating::{Draw, History, SeatingMethod};
use crate::domain::status::RegistrationStatus;
use crate::domain::status::RoundStatus;
use crate::domain::RoundId;
use crate::error::ApiError;

/// The ruleset a tournament plays by: its preset with its overrides (decoded as its row was
/// read, see `db::models::TournamentRules`).
pub fn ruleset_of(t: &Tournament) -> Result<Ruleset, ApiError> {
    Ok(t.rules.ruleset.clone())
}

/// The players seated at `table` of a round's draw, seat 1 first; 404 when the draw has no
/// such table.
pub fn seats_at(round: &RoundRow, table: i32) -> Result<Vec<i64>, ApiError> {
    round
        .draw
        .tables
        .iter()
        .find(|t| t.number as i32 == table)
        .map(|t| t.seats.iter().map(|p| p.0).collect())
        .ok_or_else(|| ApiError::NotFound(format!("round {} has no table {table}", round.number)))
}

/// Who met whom in these draws: every table once, in seat order (the compact form the seating
/// engine reads; a pair-meeting count would take six entries for a table of four).
pub fn history_of<'a>(ruleset: &Ruleset, draws: impl IntoIterator<Item = &'a Draw>) -> History {
    let mut h = History::default();
    for draw in draws {
        for t in &draw.tables {
            if t.seats.len() == 2 && ruleset.players_per_table == 2 {
                h.pairings.push([t.seats[0], t.seats[1]]);
            }
            h.tables.push(t.seats.clone());
        }
        h.bridge_groups
            .extend(draw.bridge_groups.iter().map(|g| g.players.clone()));
        h.byes.extend(draw.byes.iter().copied());
    }
    h
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
        let registrations = crate::db::registrations::live_of(conn, tid)?;
        let teams = crate::db::registrations::teams_of(conn, tid)?;
        let rounds = crate::db::rounds::of_tournament(conn, tid)?;
        let round_ids: Vec<RoundId> = rounds.iter().map(|r| r.id).collect();
        // Only the version in force of each table: corrections do not make this read grow.
        let latest = crate::db::results::in_force(conn, &round_ids)?
            .into_iter()
            .map(|r| ((r.round_id.0, r.table_number), r))
            .collect();
        let withdrawals = crate::db::running::withdrawals_of(conn, tid)?;
        let penalties = crate::db::running::penalties_in_force(conn, tid)?;
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
            .filter(|r| r.status == RegistrationStatus::Confirmed)
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
        let Some(row) = self.results.get(&(round.id.0, table)) else {
            return Ok(None);
        };
        let mut seats = row.seats.clone();
        let in_force: Vec<TablePenalty> = self
            .penalties
            .iter()
            .filter(|p| p.round_number == Some(round.number) && p.table_number == Some(table))
            .filter_map(|p| p.kind.on_table(p.player_id, i64::from(p.points)))
            .collect();
        penalty::apply(&mut seats, &in_force);
        Ok(Some(TableResult {
            seats,
            clarification: None,
            double_crash: row.double_crash,
        }))
    }

    /// The engine's input for one round: every table with its result in force, tables in
    /// number order (placement-group order in a final), and the bridge groups.
    pub fn round_input(&self, round: &RoundRow) -> Result<RoundInput, ApiError> {
        let draw = &round.draw;
        let mut tables = Vec::with_capacity(draw.tables.len());
        for t in &draw.tables {
            let mut result = self.table_result(round, t.number as i32)?.ok_or_else(|| {
                ApiError::Conflict(format!(
                    "round {} table {} has no result yet",
                    round.number, t.number
                ))
            })?;
            if round.method == SeatingMethod::ClarificationBonus
                && t.number == 1
                && t.seats.len() == 4
            {
                result.clarification = clarification_of(draw);
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
            kind: round.kind,
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
            games_per_player: round.games_per_match(),
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
            .filter(|r| r.status == RoundStatus::Completed)
            .map(|r| r.number as u32)
            .max()
            .unwrap_or(0);
        let after = after_round.unwrap_or(last_completed);
        let mut rounds = Vec::new();
        for r in &self.rounds {
            if r.status == RoundStatus::Completed && (r.number as u32) <= after {
                rounds.push(self.round_input(r)?);
            }
        }
        let input = StandingsInput {
            ruleset: self.ruleset.clone(),
            players: self.confirmed().iter().map(|r| r.player_id).collect(),
            rounds,
            withdrawals: self
                .withdrawals
                .iter()
                .filter(|w| w.kind == WithdrawalKind::Withdrawal)
                .map(|w| Withdrawal {
                    player: w.player_id,
                    from_round: w.from_round as u32,
                })
                .collect(),
            opt_outs: self
                .withdrawals
                .iter()
                .filter(|w| w.kind == WithdrawalKind::OptOut && (w.from_round as u32) <= after)
                .map(|w| OptOut {
                    player: w.player_id,
                    round: w.from_round as u32,
                })
                .collect(),
            after_round: Some(after),
            purpose,
            lot_order: None,
            decisive_places: self
                .tournament
                .prize_places
                .max(self.tournament.qualification_places)
                .max(1) as u32,
        };
        compute_standings(&input, None).map_err(|e| ApiError::Conflict(e.to_string()))
    }

    /// Who met whom in the rounds drawn so far (published or completed).
    pub fn history(&self, before_round: i32) -> Result<History, ApiError> {
        let draws = self
            .rounds
            .iter()
            .filter(|r| r.number < before_round)
            .map(|r| &r.draw);
        Ok(history_of(&self.ruleset, draws))
    }

    /// Players out of play from round `number` on: withdrawn before it, or opted out of it
    /// (an opt-out of a voluntary round also covers every later round).
    pub fn out_of_play(&self, number: i32) -> HashSet<i64> {
        self.withdrawals
            .iter()
            .filter(|w| w.from_round <= number)
            .map(|w| w.player_id.0)
            .collect()
    }
}

/// A team event's format and its standings.
pub type TeamEvent = (
    crate::domain::scoring::team_standings::TeamEventFormat,
    crate::domain::scoring::team_standings::TeamTable,
);

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

/// The outcome of one team match of the 2v2 duplicate format.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct TeamMatchResult {
    pub round: i32,
    pub number: u32,
    pub home_team: u32,
    pub away_team: u32,
    pub table_a: u32,
    pub table_b: u32,
    /// Both tables have results.
    pub complete: bool,
    /// The winning team, once complete.
    pub winner_team: Option<u32>,
    /// The step (1-6) of the comparison that decided it; none when decided by lot.
    pub decided_at_step: Option<u8>,
    /// All six values were equal and a lot decided (drawn from the round's revealed seed).
    pub decided_by_lot: bool,
    /// The six compared values (L, H, lowest, highest, second lowest, second highest).
    #[schema(value_type = Option<crate::domain::scoring::team::TeamValues>)]
    pub home_values: Option<serde_json::Value>,
    #[schema(value_type = Option<crate::domain::scoring::team::TeamValues>)]
    pub away_values: Option<serde_json::Value>,
}

impl Snapshot {
    /// The team matches of a round with their outcomes (seed 002; domain.md section 7). A
    /// drawn match is settled by lot from a stream derived from the round's seed and the match
    /// number, so anyone holding the revealed seed can check it.
    pub fn team_matches(&self, round: &RoundRow) -> Result<Vec<TeamMatchResult>, ApiError> {
        use crate::domain::scoring::team::{
            compare_match, settle_draw_by_lot, MatchOutcome, MemberResult, TeamResult,
        };
        let draw = &round.draw;
        let team_of = |n: u32| self.teams.iter().find(|t| t.number as u32 == n);
        let mut out = Vec::new();
        for m in &draw.team_matches {
            let a = self.table_result(round, m.table_a as i32)?;
            let b = self.table_result(round, m.table_b as i32)?;
            let mut res = TeamMatchResult {
                round: round.number,
                number: m.number,
                home_team: m.home_team,
                away_team: m.away_team,
                table_a: m.table_a,
                table_b: m.table_b,
                complete: a.is_some() && b.is_some(),
                winner_team: None,
                decided_at_step: None,
                decided_by_lot: false,
                home_values: None,
                away_values: None,
            };
            if let (Some(a), Some(b), Some(home), Some(away)) =
                (a, b, team_of(m.home_team), team_of(m.away_team))
            {
                let member = |t: &TableResult, p: i64| -> Result<MemberResult, ApiError> {
                    let s = t.seats.iter().find(|s| s.player.0 == p).ok_or_else(|| {
                        ApiError::Internal(format!("player {p} missing from a team table"))
                    })?;
                    Ok(MemberResult {
                        player: s.player,
                        score: s.total(),
                        violations: 0,
                    })
                };
                // Which pair of each team sat at table A: the draw may have swapped a team's
                // pairs (best-of-3 game 2), so read it off the seats.
                let seated_a: HashSet<i64> = a.seats.iter().map(|s| s.player.0).collect();
                let team_result = |t: &TeamRow| -> Result<TeamResult, ApiError> {
                    let (pa, pb) = if seated_a.contains(&t.pair_a1) {
                        ([t.pair_a1, t.pair_a2], [t.pair_b1, t.pair_b2])
                    } else {
                        ([t.pair_b1, t.pair_b2], [t.pair_a1, t.pair_a2])
                    };
                    Ok(TeamResult {
                        table_a: [member(&a, pa[0])?, member(&a, pa[1])?],
                        table_b: [member(&b, pb[0])?, member(&b, pb[1])?],
                    })
                };
                let c = compare_match(&team_result(home)?, &team_result(away)?);
                let outcome = match c.outcome {
                    MatchOutcome::Draw => {
                        use sha2::{Digest, Sha256};
                        let digest = Sha256::new()
                            .chain_update(round.seed.as_bytes())
                            .chain_update(format!("/team-match/{}", m.number))
                            .finalize();
                        let mut seed = [0u8; 32];
                        seed.copy_from_slice(&digest);
                        res.decided_by_lot = true;
                        settle_draw_by_lot(&mut crate::domain::DrawRng::from_seed(seed))
                    }
                    o => o,
                };
                res.winner_team = Some(match outcome {
                    MatchOutcome::SecondWins => m.away_team,
                    _ => m.home_team,
                });
                res.decided_at_step = c.decided_at_step;
                res.home_values = serde_json::to_value(c.first).ok();
                res.away_values = serde_json::to_value(c.second).ok();
            }
            out.push(res);
        }
        Ok(out)
    }

    /// How the team event is played: as its first team round was drawn, else by the number of
    /// teams (seed 002: two teams play a best of 3, more a knockout).
    pub fn team_format(&self) -> crate::domain::scoring::team_standings::TeamEventFormat {
        use crate::domain::scoring::team_standings::TeamEventFormat;
        let stored = self
            .rounds
            .iter()
            .find(|r| r.method == SeatingMethod::TeamDuplicate)
            .and_then(|r| r.options.format);
        match stored {
            Some(format) => format,
            None if self.teams.len() > 2 => TeamEventFormat::Knockout,
            None => TeamEventFormat::BestOf3,
        }
    }

    /// The team standings over every team round so far (seed 002).
    pub fn team_table(&self) -> Result<TeamEvent, ApiError> {
        use crate::domain::scoring::team_standings::{team_table, MatchRecord};
        let mut records = Vec::new();
        for r in self
            .rounds
            .iter()
            .filter(|r| r.method == SeatingMethod::TeamDuplicate)
        {
            for m in self.team_matches(r)? {
                records.push(MatchRecord {
                    round: r.number as u32,
                    home: m.home_team,
                    away: m.away_team,
                    winner: m.winner_team,
                });
            }
        }
        let teams: Vec<u32> = self.teams.iter().map(|t| t.number as u32).collect();
        let format = self.team_format();
        Ok((format, team_table(format, &teams, &records)))
    }

    pub fn eliminated_teams(&self, number: i32) -> Result<HashSet<u32>, ApiError> {
        let mut out = HashSet::new();
        for r in self.rounds.iter().filter(|r| r.number < number) {
            if r.method != SeatingMethod::TeamDuplicate {
                continue;
            }
            let knockout = match r.options.format {
                Some(f) => f == crate::domain::scoring::team_standings::TeamEventFormat::Knockout,
                None => self.teams.len() > 2,
            };
            if !knockout {
                continue;
            }
            for m in self.team_matches(r)? {
                if let Some(w) = m.winner_team {
                    out.insert(if w == m.home_team {
                        m.away_team
                    } else {
                        m.home_team
                    });
                }
            }
        }
        Ok(out)
    }
}
