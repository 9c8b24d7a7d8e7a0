//! The pool's games: what each tournament's results feed into the pool, in time order.

use super::*;

use crate::db::ids::{PoolId, RoundId, TournamentId};
use crate::db::ratings::games::{self as stored, RatedRound, RoundsOf};
use crate::db::running::ResultRow;
use crate::db::PgConnection;
use crate::domain::scoring::penalty::{self, TablePenalty};

/// Where a game sits in the pool's time order: when its round was played, round id, table number.
pub(super) type OrderKey = (DateTime<Utc>, i64, i32);

/// A game's result with player ids (mapped to engine indices just before the replay).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum GameById {
    Duel(i64, i64, DuelOutcome),
    Table(Vec<(i64, f64)>),
    Teams(Vec<i64>, Vec<i64>, DuelOutcome),
    /// The national-rank bonus of a tournament: its participants, by id, sorted.
    Bonus(Vec<i64>),
    /// An imported list: `(player, rating, credited games)`, by player id.
    Import(Vec<(i64, f64, u32)>),
}

/// The table number a bonus item carries in the log: after every table of the tournament's
/// last rated round.
pub const BONUS_TABLE: i32 = i32::MAX;

/// One game of the pool, as the results in force say.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PoolGame {
    pub(super) key: OrderKey,
    pub(super) tournament_id: i64,
    pub(super) result_version: i32,
    pub(super) exclusion: Option<Exclusion>,
    pub(super) result: GameById,
}

impl PoolGame {
    /// Whether the pool rates it (produces changes): not excluded, and not a draw the pool
    /// ignores in a duel or team match. Unrated games leave no trace in the log.
    pub(super) fn is_rated(&self, params: &RatingPoolParams) -> bool {
        if self.exclusion.is_some_and(|m| params.excludes(m)) {
            return false;
        }
        match &self.result {
            GameById::Duel(_, _, o) | GameById::Teams(_, _, o) => {
                o.first_score(params.draws).is_some()
            }
            GameById::Table(seats) => seats.len() >= 2,
            GameById::Bonus(players) => params.event_bonus > 0.0 && !players.is_empty(),
            GameById::Import(entries) => !entries.is_empty(),
        }
    }

    /// The players of a played game (none for a bonus item).
    pub(super) fn players(&self) -> Vec<i64> {
        match &self.result {
            GameById::Duel(a, b, _) => vec![*a, *b],
            GameById::Table(seats) => seats.iter().map(|s| s.0).collect(),
            GameById::Teams(a, b, _) => a.iter().chain(b).copied().collect(),
            GameById::Bonus(_) | GameById::Import(_) => Vec::new(),
        }
    }
}

pub(super) fn duel_outcome(win_share_first: Points) -> DuelOutcome {
    if win_share_first == Points::ONE {
        DuelOutcome::FirstWins
    } else if win_share_first == Points::ZERO {
        DuelOutcome::SecondWins
    } else {
        DuelOutcome::Draw
    }
}

/// The games of a table result under the tournament's ruleset (none for a bye).
pub(super) fn table_game(
    ruleset: &Ruleset,
    round: &RatedRound,
    played_at: DateTime<Utc>,
    r: &ResultRow,
    in_force: &[TablePenalty],
) -> Result<Option<PoolGame>, ApiError> {
    let mut seats = r.seats.clone();
    if seats.len() < 2 {
        // A bye: nothing was played (seed 004, point 6); never rated.
        return Ok(None);
    }
    // Ratings follow the adjudicated result (domain.md section 10): point penalties and game
    // losses in force at the table apply as they do in the standings.
    penalty::apply(&mut seats, in_force);
    let table = TableResult {
        seats,
        clarification: None,
        double_crash: r.double_crash,
    };
    let score =
        score_table(ruleset, &table, Points::ONE, r.table_number as usize).map_err(|e| {
            ApiError::Internal(format!(
                "round {} table {}: cannot score: {e}",
                r.round_id, r.table_number
            ))
        })?;
    let exclusion = if score.seats.iter().any(|s| s.forfeit) {
        Some(Exclusion::Forfeit)
    } else if score.seats.iter().any(|s| s.bye) {
        Some(Exclusion::Bye)
    } else {
        None
    };
    let result = if score.seats.len() == 2 {
        let (a, b) = (&score.seats[0], &score.seats[1]);
        GameById::Duel(a.player.0, b.player.0, duel_outcome(a.win_share))
    } else {
        // Places decide the pairs: a shared place is a draw between the two (seed 000).
        GameById::Table(
            score
                .seats
                .iter()
                .map(|s| (s.player.0, -f64::from(s.place)))
                .collect(),
        )
    };
    Ok(Some(PoolGame {
        key: (played_at, round.id.0, r.table_number),
        tournament_id: round.tournament_id.0,
        result_version: r.version,
        exclusion,
        result,
    }))
}

/// The team matches of a team duplicate round (seed 002): tables A and B of each match, the
/// six-step comparison of the scoring engine, every member rated against the other team's
/// average. Table A seats home A1, away A1, home A2, away A2; table B seats away B1, home B1,
/// away B2, home B2 (`domain::seating::team`).
pub(super) fn team_games(
    round: &RatedRound,
    played_at: DateTime<Utc>,
    tables: &BTreeMap<i32, &ResultRow>,
) -> Result<Vec<PoolGame>, ApiError> {
    // The feed decodes the draw of every team duplicate round (`db::ratings::games`).
    let Some(draw) = &round.draw else {
        return Err(ApiError::Internal(format!(
            "rounds row {}: team duplicate round read without its draw",
            round.id
        )));
    };
    let mut out = Vec::new();
    for m in &draw.team_matches {
        let (Some(ta), Some(tb)) = (
            draw.tables.iter().find(|t| t.number == m.table_a),
            draw.tables.iter().find(|t| t.number == m.table_b),
        ) else {
            continue;
        };
        let (Some(ra), Some(rb)) = (
            tables.get(&(m.table_a as i32)),
            tables.get(&(m.table_b as i32)),
        ) else {
            continue;
        };
        if ta.seats.len() != 4 || tb.seats.len() != 4 {
            continue;
        }
        let (sa, sb) = (&ra.seats, &rb.seats);
        let member = |seats: &[SeatResult], player: i64| -> Option<(MemberResult, bool)> {
            seats.iter().find(|s| s.player.0 == player).map(|s| {
                (
                    MemberResult {
                        player: s.player,
                        score: s.total(),
                        violations: 0,
                    },
                    s.forfeit,
                )
            })
        };
        let get = |seats: &[SeatResult], p: i64| member(seats, p);
        let (Some(ha1), Some(aa1), Some(ha2), Some(aa2)) = (
            get(sa, ta.seats[0].0),
            get(sa, ta.seats[1].0),
            get(sa, ta.seats[2].0),
            get(sa, ta.seats[3].0),
        ) else {
            continue;
        };
        let (Some(ab1), Some(hb1), Some(ab2), Some(hb2)) = (
            get(sb, tb.seats[0].0),
            get(sb, tb.seats[1].0),
            get(sb, tb.seats[2].0),
            get(sb, tb.seats[3].0),
        ) else {
            continue;
        };
        let forfeit = [&ha1, &aa1, &ha2, &aa2, &ab1, &hb1, &ab2, &hb2]
            .iter()
            .any(|m| m.1);
        let home = TeamResult {
            table_a: [ha1.0.clone(), ha2.0.clone()],
            table_b: [hb1.0.clone(), hb2.0.clone()],
        };
        let away = TeamResult {
            table_a: [aa1.0.clone(), aa2.0.clone()],
            table_b: [ab1.0.clone(), ab2.0.clone()],
        };
        let outcome = match compare_match(&home, &away).outcome {
            MatchOutcome::FirstWins => DuelOutcome::FirstWins,
            MatchOutcome::SecondWins => DuelOutcome::SecondWins,
            // Settled by lot for the tournament; for the rating it stays a draw.
            MatchOutcome::Draw => DuelOutcome::Draw,
        };
        let ids = |t: &TeamResult| -> Vec<i64> {
            t.table_a
                .iter()
                .chain(&t.table_b)
                .map(|m| m.player.0)
                .collect()
        };
        out.push(PoolGame {
            key: (played_at, round.id.0, m.table_a as i32),
            tournament_id: round.tournament_id.0,
            // Versions only grow, so the sum changes with every correction of either table.
            result_version: ra.version + rb.version,
            exclusion: forfeit.then_some(Exclusion::Forfeit),
            result: GameById::Teams(ids(&home), ids(&away), outcome),
        });
    }
    Ok(out)
}

/// The pool's games at or after `from` in time order (all of them for `None`), optionally of
/// one tournament only and of some of its tables `(round id, table number)` only, from the
/// completed rounds and the results in force.
pub(super) fn load_games(
    conn: &mut PgConnection,
    pool_id: i64,
    from: Option<OrderKey>,
    only_tournament: Option<i64>,
    only_tables: Option<&BTreeSet<(i64, i32)>>,
) -> Result<Vec<PoolGame>, ApiError> {
    let rounds: Option<Vec<RoundId>> = only_tables.map(|tables| {
        let ids: BTreeSet<i64> = tables.iter().map(|t| t.0).collect();
        ids.into_iter().map(RoundId).collect()
    });
    let only = RoundsOf {
        from: from.map(|(t, round_id, _)| (t, RoundId(round_id))),
        tournament: only_tournament.map(TournamentId),
        rounds: rounds.as_deref(),
    };
    let round_rows = stored::rated_rounds(conn, PoolId(pool_id), only)?;
    if round_rows.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<RoundId> = round_rows.iter().map(|r| r.id).collect();
    let mut result_rows = crate::db::results::in_force(conn, &ids)?;
    if let Some(tables) = only_tables {
        result_rows.retain(|r| tables.contains(&(r.round_id.0, r.table_number)));
    }
    let mut by_round: HashMap<i64, BTreeMap<i32, &ResultRow>> = HashMap::new();
    for r in &result_rows {
        by_round
            .entry(r.round_id.0)
            .or_default()
            .insert(r.table_number, r);
    }
    let in_force = penalties_in_force(conn, &round_rows)?;
    let mut games = Vec::new();
    for round in &round_rows {
        let Some(played_at) = round.played_at else {
            continue;
        };
        let Some(tables) = by_round.get(&round.id.0) else {
            continue;
        };
        let ruleset = &round.rules.ruleset;
        if ruleset.format == Format::TeamDuplicate {
            games.extend(team_games(round, played_at, tables)?);
        } else {
            for r in tables.values() {
                let at = (round.tournament_id.0, round.number, r.table_number);
                let here = in_force.get(&at).map(Vec::as_slice).unwrap_or_default();
                if let Some(g) = table_game(ruleset, round, played_at, r, here)? {
                    games.push(g);
                }
            }
        }
    }
    if let Some(from) = from {
        games.retain(|g| g.key >= from);
    }
    games.sort_by_key(|g| g.key);
    Ok(games)
}

/// Where a game was played: `(tournament, round number, table)`.
type GameAt = (i64, i32, i32);

/// The point penalties and game losses in force on the games of `rounds`, by
/// `(tournament, round number, table)`, in the order they were issued.
fn penalties_in_force(
    conn: &mut PgConnection,
    rounds: &[RatedRound],
) -> Result<HashMap<GameAt, Vec<TablePenalty>>, ApiError> {
    let tids: BTreeSet<TournamentId> = rounds.iter().map(|r| r.tournament_id).collect();
    let rows = stored::table_penalties(conn, &tids.into_iter().collect::<Vec<_>>())?;
    let mut out: HashMap<GameAt, Vec<TablePenalty>> = HashMap::new();
    for row in rows {
        let (Some(round), Some(table)) = (row.round_number, row.table_number) else {
            continue;
        };
        let Some(p) = row.kind.on_table(row.player_id, i64::from(row.points)) else {
            continue;
        };
        out.entry((row.tournament_id.0, round, table))
            .or_default()
            .push(p);
    }
    Ok(out)
}

// --- the league and the national-rank bonus ----------------------------------------------------

/// What the league needs to know about one tournament of the pool:
/// `(id, organiser = created_by, starts_on, announced_at, national_rank)`.
pub type TournamentFacts = (i64, i64, NaiveDate, Option<DateTime<Utc>>, bool);
