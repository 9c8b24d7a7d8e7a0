//! Ratings as a service: feeds the pure rating engine (`crate::domain::rating`) from the stored
//! results and keeps the pool's change log (`rating_changes`) equal to what a full replay of the
//! adjudicated results gives.
//!
//! - [`results_changed`] / [`round_results_changed`]: the results code calls them inside its
//!   transaction whenever a round of a tournament is completed or a result of a completed round
//!   is corrected. They find the first game of the tournament (or round) whose rated result
//!   differs from the stored log, delete the pool's changes from that point in time order on,
//!   take the state just before it from `rating_standings` and the deleted rows, and replay
//!   the rest (incremental recompute).
//! - [`rebuild_pool`]: the full rebuild (admin command); agrees exactly with the incremental one.
//! - [`ratings_at`]: ratings and rated games at an instant, for seeding at a registration
//!   deadline (Tantrix seed 003 rule 13).
//!
//! Time order: round completion time, then round id, then table number (domain.md section 10).
//! Only rounds with status `completed` are rated; the highest result version per table is the
//! one in force. Which seat won comes from the scoring engine with the tournament's ruleset, so
//! places, draws, forfeits and byes follow the same rules as the standings.
//! Decisions: `docs/decisions/rating-service.md`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, NaiveTime, Offset, TimeZone, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};

use crate::db::models::{RatingChangeRow, RatingPoolRow};
use crate::db::schema::{
    rating_changes, rating_pools, rating_standings, results, rounds, tournaments,
};
use crate::domain::ids::PlayerId;
use crate::domain::rating::{
    league_tournaments, replay, ChangeKind, DuelOutcome, Exclusion, GameResult, LeagueRules,
    LeagueTournament, PlayerDirectory, PlayerIndex, RatedGame, RatingChange, RatingPoolParams,
    RatingState, Season, Seat, TournamentDecision,
};
use crate::domain::scoring::team::{compare_match, MatchOutcome, MemberResult, TeamResult};
use crate::domain::scoring::{score_table, Format, Points, Ruleset, SeatResult, TableResult};
use crate::error::ApiError;

mod pools;
pub use pools::*;

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

/// What a rebuild or recompute did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RecomputeSummary {
    /// Games (rated items) replayed.
    pub games: usize,
    /// Rating changes written.
    pub changes: usize,
}

/// Loads a pool (404 if there is none).
pub fn load_pool(conn: &mut PgConnection, id: i64) -> Result<RatingPoolRow, ApiError> {
    rating_pools::table
        .find(id)
        .select(RatingPoolRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))
}

/// Loads a pool and locks it until the end of the transaction, so recomputes of one pool run
/// one at a time.
fn lock_pool(conn: &mut PgConnection, id: i64) -> Result<RatingPoolRow, ApiError> {
    rating_pools::table
        .find(id)
        .select(RatingPoolRow::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no rating pool {id}")))
}

/// The engine parameters stored on a pool.
pub fn pool_params(pool: &RatingPoolRow) -> Result<RatingPoolParams, ApiError> {
    serde_json::from_value(pool.params.clone())
        .map_err(|e| ApiError::Internal(format!("rating pool {}: bad params: {e}", pool.id)))
}

/// The seasons stored on a pool, as local dates.
pub fn stored_seasons(pool: &RatingPoolRow) -> Result<Vec<StoredSeason>, ApiError> {
    serde_json::from_value(pool.seasons.clone())
        .map_err(|e| ApiError::Internal(format!("rating pool {}: bad seasons: {e}", pool.id)))
}

/// The engine's seasons: the stored dates plus the UTC offset of the pool's zone at 22:00 on
/// each last day (the standings cutoff, seed 004 section 7).
pub fn engine_seasons(time_zone: &str, seasons: &[StoredSeason]) -> Result<Vec<Season>, String> {
    let tz: chrono_tz::Tz = time_zone
        .parse()
        .map_err(|_| format!("unknown time zone {time_zone}"))?;
    let ten_pm = NaiveTime::from_hms_opt(22, 0, 0).expect("22:00 is a time");
    seasons
        .iter()
        .map(|s| {
            let local = s.last_day.and_time(ten_pm);
            let at = tz
                .from_local_datetime(&local)
                .earliest()
                .ok_or_else(|| format!("22:00 on {} does not exist in {time_zone}", s.last_day))?;
            Ok(Season {
                name: s.name.clone(),
                first_day: s.first_day,
                last_day: s.last_day,
                cutoff_utc_offset_seconds: at.offset().fix().local_minus_utc(),
            })
        })
        .collect()
}

// --- the pool's games -------------------------------------------------------------------------

/// Where a game sits in the pool's time order: round completion time, round id, table number.
type OrderKey = (DateTime<Utc>, i64, i32);

/// A game's result with player ids (mapped to engine indices just before the replay).
#[derive(Debug, Clone, PartialEq)]
enum GameById {
    Duel(i64, i64, DuelOutcome),
    Table(Vec<(i64, f64)>),
    Teams(Vec<i64>, Vec<i64>, DuelOutcome),
    /// The national-rank bonus of a tournament: its participants, by id, sorted.
    Bonus(Vec<i64>),
}

/// The table number a bonus item carries in the log: after every table of the tournament's
/// last rated round.
pub const BONUS_TABLE: i32 = i32::MAX;

/// One game of the pool, as the results in force say.
#[derive(Debug, Clone, PartialEq)]
struct PoolGame {
    key: OrderKey,
    tournament_id: i64,
    result_version: i32,
    exclusion: Option<Exclusion>,
    result: GameById,
}

impl PoolGame {
    /// Whether the pool rates it (produces changes): not excluded, and not a draw the pool
    /// ignores in a duel or team match. Unrated games leave no trace in the log.
    fn is_rated(&self, params: &RatingPoolParams) -> bool {
        if self.exclusion.is_some_and(|m| params.excludes(m)) {
            return false;
        }
        match &self.result {
            GameById::Duel(_, _, o) | GameById::Teams(_, _, o) => {
                o.first_score(params.draws).is_some()
            }
            GameById::Table(seats) => seats.len() >= 2,
            GameById::Bonus(players) => params.event_bonus > 0.0 && !players.is_empty(),
        }
    }

    /// The players of a played game (none for a bonus item).
    fn players(&self) -> Vec<i64> {
        match &self.result {
            GameById::Duel(a, b, _) => vec![*a, *b],
            GameById::Table(seats) => seats.iter().map(|s| s.0).collect(),
            GameById::Teams(a, b, _) => a.iter().chain(b).copied().collect(),
            GameById::Bonus(_) => Vec::new(),
        }
    }
}

#[derive(Queryable)]
struct RoundRow {
    id: i64,
    tournament_id: i64,
    completed_at: Option<DateTime<Utc>>,
    draw: serde_json::Value,
    ruleset: String,
    ruleset_overrides: serde_json::Value,
}

#[derive(Queryable)]
struct ResultRow {
    round_id: i64,
    table_number: i32,
    version: i32,
    seats: serde_json::Value,
    double_crash: bool,
}

fn duel_outcome(win_share_first: Points) -> DuelOutcome {
    if win_share_first == Points::ONE {
        DuelOutcome::FirstWins
    } else if win_share_first == Points::ZERO {
        DuelOutcome::SecondWins
    } else {
        DuelOutcome::Draw
    }
}

/// The games of a table result under the tournament's ruleset (none for a bye).
fn table_game(
    ruleset: &Ruleset,
    round: &RoundRow,
    completed_at: DateTime<Utc>,
    r: &ResultRow,
) -> Result<Option<PoolGame>, ApiError> {
    let seats: Vec<SeatResult> = serde_json::from_value(r.seats.clone()).map_err(|e| {
        ApiError::Internal(format!(
            "round {} table {}: bad seats: {e}",
            r.round_id, r.table_number
        ))
    })?;
    if seats.len() < 2 {
        // A bye: nothing was played (seed 004, point 6); never rated.
        return Ok(None);
    }
    let table = TableResult {
        seats,
        clarification: None,
        double_crash: r.double_crash,
    };
    let score = score_table(ruleset, &table, Points::ONE, 0).map_err(|e| {
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
        key: (completed_at, round.id, r.table_number),
        tournament_id: round.tournament_id,
        result_version: r.version,
        exclusion,
        result,
    }))
}

#[derive(Deserialize)]
struct DrawTable {
    number: i32,
    seats: Vec<i64>,
}

#[derive(Deserialize)]
struct DrawTeamMatch {
    table_a: i32,
    table_b: i32,
}

#[derive(Deserialize)]
struct TeamDraw {
    #[serde(default)]
    tables: Vec<DrawTable>,
    #[serde(default)]
    team_matches: Vec<DrawTeamMatch>,
}

/// The team matches of a team duplicate round (seed 002): tables A and B of each match, the
/// six-step comparison of the scoring engine, every member rated against the other team's
/// average. Table A seats home A1, away A1, home A2, away A2; table B seats away B1, home B1,
/// away B2, home B2 (`domain::seating::team`).
fn team_games(
    round: &RoundRow,
    completed_at: DateTime<Utc>,
    tables: &BTreeMap<i32, &ResultRow>,
) -> Result<Vec<PoolGame>, ApiError> {
    let draw: TeamDraw = serde_json::from_value(round.draw.clone())
        .map_err(|e| ApiError::Internal(format!("round {}: bad draw: {e}", round.id)))?;
    let mut out = Vec::new();
    for m in &draw.team_matches {
        let (Some(ta), Some(tb)) = (
            draw.tables.iter().find(|t| t.number == m.table_a),
            draw.tables.iter().find(|t| t.number == m.table_b),
        ) else {
            continue;
        };
        let (Some(ra), Some(rb)) = (tables.get(&m.table_a), tables.get(&m.table_b)) else {
            continue;
        };
        if ta.seats.len() != 4 || tb.seats.len() != 4 {
            continue;
        }
        let parse = |r: &ResultRow| -> Result<Vec<SeatResult>, ApiError> {
            serde_json::from_value(r.seats.clone()).map_err(|e| {
                ApiError::Internal(format!(
                    "round {} table {}: bad seats: {e}",
                    r.round_id, r.table_number
                ))
            })
        };
        let (sa, sb) = (parse(ra)?, parse(rb)?);
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
            get(&sa, ta.seats[0]),
            get(&sa, ta.seats[1]),
            get(&sa, ta.seats[2]),
            get(&sa, ta.seats[3]),
        ) else {
            continue;
        };
        let (Some(ab1), Some(hb1), Some(ab2), Some(hb2)) = (
            get(&sb, tb.seats[0]),
            get(&sb, tb.seats[1]),
            get(&sb, tb.seats[2]),
            get(&sb, tb.seats[3]),
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
            key: (completed_at, round.id, m.table_a),
            tournament_id: round.tournament_id,
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
fn load_games(
    conn: &mut PgConnection,
    pool_id: i64,
    from: Option<OrderKey>,
    only_tournament: Option<i64>,
    only_tables: Option<&BTreeSet<(i64, i32)>>,
) -> Result<Vec<PoolGame>, ApiError> {
    let mut q = rounds::table
        .inner_join(tournaments::table)
        .filter(tournaments::rating_pool_id.eq(pool_id))
        .filter(rounds::status.eq("completed"))
        .filter(rounds::completed_at.is_not_null())
        .select((
            rounds::id,
            rounds::tournament_id,
            rounds::completed_at,
            rounds::draw,
            tournaments::ruleset,
            tournaments::ruleset_overrides,
        ))
        .into_boxed();
    if let Some((t, _, _)) = from {
        q = q.filter(rounds::completed_at.ge(t));
    }
    if let Some(tid) = only_tournament {
        q = q.filter(rounds::tournament_id.eq(tid));
    }
    if let Some(tables) = only_tables {
        let rounds: BTreeSet<i64> = tables.iter().map(|t| t.0).collect();
        q = q.filter(rounds::id.eq_any(rounds.into_iter().collect::<Vec<_>>()));
    }
    let round_rows: Vec<RoundRow> = q.load(conn)?;
    if round_rows.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = round_rows.iter().map(|r| r.id).collect();
    let mut result_rows: Vec<ResultRow> = results::table
        .filter(results::round_id.eq_any(&ids))
        .distinct_on((results::round_id, results::table_number))
        .order((
            results::round_id,
            results::table_number,
            results::version.desc(),
        ))
        .select((
            results::round_id,
            results::table_number,
            results::version,
            results::seats,
            results::double_crash,
        ))
        .load(conn)?;
    if let Some(tables) = only_tables {
        result_rows.retain(|r| tables.contains(&(r.round_id, r.table_number)));
    }
    let mut by_round: HashMap<i64, BTreeMap<i32, &ResultRow>> = HashMap::new();
    for r in &result_rows {
        by_round
            .entry(r.round_id)
            .or_default()
            .insert(r.table_number, r);
    }
    let mut rulesets: HashMap<(String, String), Ruleset> = HashMap::new();
    let mut games = Vec::new();
    for round in &round_rows {
        let Some(completed_at) = round.completed_at else {
            continue;
        };
        let Some(tables) = by_round.get(&round.id) else {
            continue;
        };
        let cache_key = (round.ruleset.clone(), round.ruleset_overrides.to_string());
        if !rulesets.contains_key(&cache_key) {
            let r =
                Ruleset::for_tournament(&round.ruleset, &round.ruleset_overrides).map_err(|e| {
                    ApiError::Internal(format!("tournament {}: {e}", round.tournament_id))
                })?;
            rulesets.insert(cache_key.clone(), r);
        }
        let ruleset = &rulesets[&cache_key];
        if ruleset.format == Format::TeamDuplicate {
            games.extend(team_games(round, completed_at, tables)?);
        } else {
            for r in tables.values() {
                if let Some(g) = table_game(ruleset, round, completed_at, r)? {
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

// --- the league and the national-rank bonus ----------------------------------------------------

/// What the league needs to know about one tournament of the pool:
/// `(id, organiser = created_by, starts_on, announced_at, national_rank)`.
pub type TournamentFacts = (i64, i64, NaiveDate, Option<DateTime<Utc>>, bool);

/// The league facts of every tournament of the pool, by id.
pub fn tournament_facts(
    conn: &mut PgConnection,
    pool_id: i64,
) -> Result<Vec<TournamentFacts>, ApiError> {
    Ok(tournaments::table
        .filter(tournaments::rating_pool_id.eq(pool_id))
        .order(tournaments::id)
        .select((
            tournaments::id,
            tournaments::created_by,
            tournaments::starts_on,
            tournaments::announced_at,
            tournaments::national_rank,
        ))
        .load(conn)?)
}

/// The league's decision on every tournament of a league pool (which count, which hold the
/// national-rank bonus; `league_tournaments` of the engine with the Ashes rules).
/// `players(t)` is the number of participants of tournament t: players with at least one
/// rated game in it. A tournament never published (no `announced_at`) is treated as announced
/// on its day of play, so it does not count.
pub fn league_decisions(
    pool: &RatingPoolRow,
    params: &RatingPoolParams,
    facts: &[TournamentFacts],
    players: impl Fn(i64) -> u32,
) -> Result<Vec<TournamentDecision>, ApiError> {
    let stored = stored_seasons(pool)?;
    let seasons = engine_seasons(&pool.time_zone, &stored).map_err(ApiError::Internal)?;
    let tz: chrono_tz::Tz = pool
        .time_zone
        .parse()
        .map_err(|_| ApiError::Internal(format!("rating pool {}: bad time zone", pool.id)))?;
    let league: Vec<LeagueTournament> = facts
        .iter()
        .map(|(tid, organiser, starts_on, announced_at, national_rank)| {
            let announced = announced_at.unwrap_or_else(|| {
                starts_on
                    .and_hms_opt(12, 0, 0)
                    .map(|d| d.and_utc())
                    .unwrap_or_default()
            });
            LeagueTournament {
                id: *tid,
                organiser: *organiser,
                announced_at: announced.with_timezone(&tz).fixed_offset(),
                played_on: *starts_on,
                players: players(*tid),
                national_rank: *national_rank,
            }
        })
        .collect();
    Ok(league_tournaments(
        params,
        &seasons,
        LeagueRules::ashes_2017(),
        &league,
    ))
}

/// Per tournament: its participants (players with a rated game) and the order key of its last
/// rated game.
type Participation = BTreeMap<i64, (OrderKey, BTreeSet<i64>)>;

fn add_participation(into: &mut Participation, tournament_id: i64, key: OrderKey, players: &[i64]) {
    let e = into
        .entry(tournament_id)
        .or_insert_with(|| (key, BTreeSet::new()));
    if key > e.0 {
        e.0 = key;
    }
    e.1.extend(players.iter().copied());
}

/// Participation from the log's game rows, optionally only those before `before_sequence` and
/// without one tournament.
fn logged_participation(
    conn: &mut PgConnection,
    pool_id: i64,
    before_sequence: Option<i64>,
    except_tournament: Option<i64>,
) -> Result<Participation, ApiError> {
    use rating_changes::dsl as rc;
    let mut q = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .filter(rc::kind.eq("game"))
        .select((
            rc::tournament_id,
            rc::player_id,
            rc::rated_at,
            rc::round_id,
            rc::table_number,
        ))
        .into_boxed();
    if let Some(seq) = before_sequence {
        q = q.filter(rc::sequence.lt(seq));
    }
    if let Some(t) = except_tournament {
        q = q.filter(rc::tournament_id.ne(t));
    }
    let rows: Vec<(i64, i64, DateTime<Utc>, i64, i32)> = q.load(conn)?;
    let mut out = Participation::new();
    for (t, p, at, r, n) in rows {
        add_participation(&mut out, t, (at, r, n), &[p]);
    }
    Ok(out)
}

/// Adds the rated games among `games` to the participation.
fn add_games(into: &mut Participation, params: &RatingPoolParams, games: &[PoolGame]) {
    for g in games.iter().filter(|g| g.is_rated(params)) {
        if !matches!(g.result, GameById::Bonus(_)) {
            add_participation(into, g.tournament_id, g.key, &g.players());
        }
    }
}

/// The bonus items of a league pool: for every tournament holding the national-rank bonus
/// (counts for the league, the organiser's first national-rank tournament of the season), one
/// item right after its last rated game giving the pool's `event_bonus` to each participant.
/// None in a pool that is not a league or has no bonus.
fn bonus_games(
    pool: &RatingPoolRow,
    params: &RatingPoolParams,
    facts: &[TournamentFacts],
    participation: &Participation,
) -> Result<Vec<PoolGame>, ApiError> {
    if !pool.league || params.event_bonus <= 0.0 {
        return Ok(Vec::new());
    }
    let decisions = league_decisions(pool, params, facts, |t| {
        participation.get(&t).map_or(0, |p| p.1.len() as u32)
    })?;
    let mut out = Vec::new();
    for d in decisions.iter().filter(|d| d.bonus > 0.0) {
        let Some((last, players)) = participation.get(&d.tournament_id) else {
            continue;
        };
        out.push(PoolGame {
            key: (last.0, last.1, BONUS_TABLE),
            tournament_id: d.tournament_id,
            result_version: 0,
            exclusion: None,
            result: GameById::Bonus(players.iter().copied().collect()),
        });
    }
    out.sort_by_key(|g| g.key);
    Ok(out)
}

// --- recompute ---------------------------------------------------------------------------------

/// A log row as loaded: `(sequence, player, kind, rated_at, before, after, delta)`.
pub type LogRow = (i64, i64, String, DateTime<Utc>, f64, f64, f64);

/// The identity of a rated game as the log stores it.
type StoredGame = (OrderKey, i32);

/// Recomputes the pool's ratings from `from` on (everything for `None`): deletes the log from
/// the first stored game at or after `from`, rebuilds the state before it from the log with
/// `RatingState::from_history`, replays the games from `from` on, and writes their changes.
fn recompute_from(
    conn: &mut PgConnection,
    pool: &RatingPoolRow,
    params: &RatingPoolParams,
    from: Option<OrderKey>,
) -> Result<RecomputeSummary, ApiError> {
    let pool_id = pool.id;
    use rating_changes::dsl as rc;
    let first_seq: Option<i64> = match from {
        None => Some(0),
        Some(from) => first_sequence_at(conn, pool_id, from)?,
    };
    let first_seq = match first_seq {
        Some(s) => s,
        None => {
            let max: Option<i64> = rc::rating_changes
                .filter(rc::pool_id.eq(pool_id))
                .select(diesel::dsl::max(rc::sequence))
                .first(conn)?;
            max.map_or(0, |m| m + 1)
        }
    };
    // The log from there on is replaced. A full rebuild deletes it all; an incremental
    // recompute reads it, because it says what the state before it was (each player's first
    // `rating_before` there, and how many of their rows were games) and because most of it is
    // usually written again unchanged (see `write_difference`).
    let old: Vec<RatingChangeRow> = if from.is_none() {
        diesel::delete(rc::rating_changes.filter(rc::pool_id.eq(pool_id))).execute(conn)?;
        Vec::new()
    } else {
        rc::rating_changes
            .filter(rc::pool_id.eq(pool_id))
            .filter(rc::sequence.ge(first_seq))
            .select(RatingChangeRow::as_select())
            .load(conn)?
    };
    let replaced: Vec<DeletedRow> = old
        .iter()
        .map(|r| (r.player_id, r.sequence, r.kind.clone(), r.rating_before))
        .collect();
    let mut dir = PlayerDirectory::new();

    let mut games = load_games(conn, pool_id, from, None, None)?;
    // The national-rank bonuses from `from` on, decided on the whole pool: the log before the
    // affected point plus the games replayed now.
    if pool.league && params.event_bonus > 0.0 {
        let mut participation = logged_participation(conn, pool_id, Some(first_seq), None)?;
        add_games(&mut participation, params, &games);
        let facts = tournament_facts(conn, pool_id)?;
        let bonuses = bonus_games(pool, params, &facts, &participation)?;
        games.extend(
            bonuses
                .into_iter()
                .filter(|b| from.is_none_or(|f| b.key >= f)),
        );
        games.sort_by_key(|g| g.key);
    }
    let mut rated: Vec<RatedGame> = Vec::with_capacity(games.len());
    let idx = |dir: &mut PlayerDirectory, p: i64| -> PlayerIndex { dir.intern(PlayerId(p)) };
    for (i, g) in games.iter().enumerate() {
        let result = match &g.result {
            GameById::Duel(a, b, o) => GameResult::Duel {
                first: idx(&mut dir, *a),
                second: idx(&mut dir, *b),
                outcome: *o,
            },
            GameById::Table(seats) => GameResult::Table {
                seats: seats
                    .iter()
                    .map(|(p, score)| Seat {
                        player: idx(&mut dir, *p),
                        score: *score,
                    })
                    .collect(),
            },
            GameById::Teams(a, b, o) => GameResult::Teams {
                first: a.iter().map(|p| idx(&mut dir, *p)).collect(),
                second: b.iter().map(|p| idx(&mut dir, *p)).collect(),
                outcome: *o,
            },
            GameById::Bonus(players) => GameResult::EventBonus {
                participants: players.iter().map(|p| idx(&mut dir, *p)).collect(),
            },
        };
        rated.push(RatedGame {
            id: i as i64,
            at: g.key.0,
            exclusion: g.exclusion,
            result,
        });
    }
    let mut start = RatingState::new(params, dir.len());
    // The incremental recompute starts from the state before the replaced rows, for the
    // players replayed and those whose rows are replaced (whose standings may change).
    let before = if from.is_none() {
        HashMap::new()
    } else {
        let players: Vec<i64> = (0..dir.len())
            .filter_map(|i| dir.id(i as PlayerIndex).map(|p| p.0))
            .chain(replaced.iter().map(|d| d.0))
            .collect::<BTreeSet<i64>>()
            .into_iter()
            .collect();
        standings_before(conn, pool_id, &players, &replaced)?
    };
    for (player, &(rating, games)) in &before {
        if let Some(i) = dir.index_of(PlayerId(*player)) {
            start.ratings[i as usize] = rating;
            start.games[i as usize] = u32::try_from(games.max(0)).unwrap_or(u32::MAX);
        }
    }
    let (_, changes) = replay(params, start, &rated)
        .map_err(|e| ApiError::Internal(format!("rating pool {pool_id}: {e}")))?;
    // Sequences number the items that changed ratings, densely: unrated games (excluded, ignored
    // draws) take no number, so the incremental recompute and the full rebuild number alike.
    let mut sequence = first_seq - 1;
    let mut last_game = None;
    let rows: Vec<RatingChangeRow> = changes
        .iter()
        .map(|c| {
            let g = &games[c.game_id as usize];
            if last_game != Some(c.game_id) {
                last_game = Some(c.game_id);
                sequence += 1;
            }
            RatingChangeRow {
                pool_id,
                sequence,
                player_id: dir.id(c.player).map_or(0, |p| p.0),
                kind: match c.kind {
                    ChangeKind::Game => "game".into(),
                    ChangeKind::Bonus => "bonus".into(),
                },
                tournament_id: g.tournament_id,
                round_id: g.key.1,
                table_number: g.key.2,
                result_version: g.result_version,
                rated_at: g.key.0,
                rating_before: c.before,
                rating_after: c.after,
                delta: c.delta,
            }
        })
        .collect();
    if from.is_none() {
        if !rows.is_empty() {
            diesel::copy_from(rating_changes::table)
                .from_insertable(&rows)
                .execute(conn)?;
        }
        replace_standings(conn, pool_id, &rows)?;
        // The whole log of the pool was rewritten: fresh statistics, so the next feeds plan
        // with them instead of waiting for autovacuum (ANALYZE sees this transaction's rows).
        diesel::sql_query("ANALYZE rating_changes, rating_standings").execute(conn)?;
    } else {
        write_difference(conn, pool_id, first_seq, &old, &before, &rows)?;
    }
    Ok(RecomputeSummary {
        games: rated.len(),
        changes: rows.len(),
    })
}

/// Writes an incremental recompute: `old` are the log rows from `first_seq` on (`replaced` the
/// same as [`DeletedRow`]s), `rows` what the replay gives for them. Most of them are usually
/// equal (a correction moves the ratings of its players and of those they met later, not of
/// everyone after it; the replay is deterministic, so equal means bit-equal), so only the rows
/// that differ are deleted and written, and only their players' standings are rewritten.
fn write_difference(
    conn: &mut PgConnection,
    pool_id: i64,
    first_seq: i64,
    old: &[RatingChangeRow],
    before: &HashMap<i64, (f64, i64)>,
    rows: &[RatingChangeRow],
) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, Int8};
    let old_by: HashMap<(i64, i64), &RatingChangeRow> =
        old.iter().map(|r| ((r.sequence, r.player_id), r)).collect();
    let new_by: HashMap<(i64, i64), &RatingChangeRow> = rows
        .iter()
        .map(|r| ((r.sequence, r.player_id), r))
        .collect();
    let gone: Vec<&RatingChangeRow> = old
        .iter()
        .filter(|o| new_by.get(&(o.sequence, o.player_id)) != Some(o))
        .collect();
    let fresh: Vec<RatingChangeRow> = rows
        .iter()
        .filter(|n| old_by.get(&(n.sequence, n.player_id)) != Some(n))
        .cloned()
        .collect();
    if !gone.is_empty() {
        let sequences: Vec<i64> = gone.iter().map(|r| r.sequence).collect();
        let players: Vec<i64> = gone.iter().map(|r| r.player_id).collect();
        diesel::sql_query(
            "DELETE FROM rating_changes
             WHERE pool_id = $1
               AND (sequence, player_id) IN (SELECT * FROM unnest($2::int8[], $3::int8[]))",
        )
        .bind::<Int8, _>(pool_id)
        .bind::<Array<Int8>, _>(&sequences)
        .bind::<Array<Int8>, _>(&players)
        .execute(conn)?;
    }
    if !fresh.is_empty() {
        diesel::copy_from(rating_changes::table)
            .from_insertable(&fresh)
            .execute(conn)?;
    }
    // The touched players' standings: all of their rows from `first_seq` on, old and new.
    let touched: BTreeSet<i64> = gone
        .iter()
        .map(|r| r.player_id)
        .chain(fresh.iter().map(|r| r.player_id))
        .collect();
    refresh_standings(conn, pool_id, first_seq, &touched, before, rows)
}

/// The first sequence of the pool's log whose order key is at or after `from` (`None`: every
/// stored key is before it). The feed numbers the log densely from 0 in key order, so this is
/// a binary search of primary-key lookups (21 for a 2 M-row log) and needs no index on the
/// key. A gap (which this feed never writes) is an error that a full rebuild repairs.
fn first_sequence_at(
    conn: &mut PgConnection,
    pool_id: i64,
    from: OrderKey,
) -> Result<Option<i64>, ApiError> {
    use rating_changes::dsl as rc;
    let max: Option<i64> = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .select(diesel::dsl::max(rc::sequence))
        .first(conn)?;
    let Some(max) = max else {
        return Ok(None);
    };
    // The answer lies in [lo, hi]; hi = max + 1 stands for none.
    let (mut lo, mut hi) = (0i64, max + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let key: Option<OrderKey> = rc::rating_changes
            .filter(rc::pool_id.eq(pool_id))
            .filter(rc::sequence.eq(mid))
            .select((rc::rated_at, rc::round_id, rc::table_number))
            .first(conn)
            .optional()?;
        match key {
            Some(k) if k >= from => hi = mid,
            Some(_) => lo = mid + 1,
            None => {
                return Err(ApiError::Internal(format!(
                    "rating pool {pool_id}: the log has no sequence {mid}; run a full rebuild"
                )))
            }
        }
    }
    Ok((lo <= max).then_some(lo))
}

/// Games in a leaderboard trend.
pub const TREND_GAMES: i64 = 5;

/// The per-player aggregate of a pool's log that `rating_standings` stores (and the season
/// leaderboard computes at an instant): the latest rating, rated games, last game, and the
/// trend over the last [`TREND_GAMES`] games. `$1` = pool, `$2` = trend length; `{filter}` adds
/// conditions on `rating_changes`.
pub fn standings_sql(filter: &str) -> String {
    format!(
        "WITH c AS (
            SELECT player_id, kind, rating_after, delta, rated_at,
                   row_number() OVER (PARTITION BY player_id ORDER BY sequence DESC) AS rn,
                   CASE WHEN kind = 'game' THEN row_number()
                        OVER (PARTITION BY player_id, kind ORDER BY sequence DESC) END AS gn
            FROM rating_changes
            WHERE pool_id = $1 {filter}
        )
        SELECT player_id,
               max(rating_after) FILTER (WHERE rn = 1) AS rating,
               count(*) FILTER (WHERE kind = 'game') AS games,
               max(rated_at) FILTER (WHERE kind = 'game') AS last_played,
               coalesce(sum(delta) FILTER (WHERE gn <= $2), 0)::float8 AS trend_delta,
               count(*) FILTER (WHERE gn <= $2) AS trend_games,
               max(delta) FILTER (WHERE gn = 1) AS last_delta
        FROM c GROUP BY player_id"
    )
}

/// A deleted log row: `(player, sequence, kind, rating_before)`.
type DeletedRow = (i64, i64, String, f64);

/// Each of `players`' rating and rated games just before the `replaced` log rows (those from
/// the recompute point on): a player with replaced rows had the `rating_before` of the first
/// one and their stored games minus the replaced game rows; any other player is as
/// `rating_standings` says. Players without a stored row are absent (the initial rating, no
/// games). Reads only those players' standings, never the log.
fn standings_before(
    conn: &mut PgConnection,
    pool_id: i64,
    players: &[i64],
    replaced: &[DeletedRow],
) -> Result<HashMap<i64, (f64, i64)>, ApiError> {
    let mut before: HashMap<i64, (f64, i64)> = rating_standings::table
        .filter(rating_standings::pool_id.eq(pool_id))
        .filter(rating_standings::player_id.eq_any(players))
        .select((
            rating_standings::player_id,
            rating_standings::rating,
            rating_standings::games,
        ))
        .load::<(i64, f64, i64)>(conn)?
        .into_iter()
        .map(|(p, r, g)| (p, (r, g)))
        .collect();
    // Per player, the first replaced row's rating_before (rows come in any order).
    let mut first: HashMap<i64, (i64, f64)> = HashMap::new();
    for (player, sequence, kind, rating_before) in replaced {
        if kind == "game" {
            if let Some(b) = before.get_mut(player) {
                b.1 -= 1;
            }
        }
        let e = first.entry(*player).or_insert((*sequence, *rating_before));
        if *sequence < e.0 {
            *e = (*sequence, *rating_before);
        }
    }
    for (player, (_, rating)) in first {
        if let Some(b) = before.get_mut(&player) {
            b.0 = rating;
        }
    }
    Ok(before)
}

#[derive(QueryableByName)]
struct OlderGames {
    #[diesel(sql_type = diesel::sql_types::Int8)]
    player_id: i64,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    has_rows: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Int8>)]
    sequence: Option<i64>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    rated_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Double>)]
    delta: Option<f64>,
}

/// Rewrites the `rating_standings` rows of the players an incremental recompute touched
/// (`touched`: those whose log rows from `first_seq` on changed) and bumps the pool's
/// `leaderboard_version`, in the caller's transaction. The same aggregate as
/// [`standings_sql`], without reading the players' whole history: their rating and games
/// before `first_seq` (`before`, from [`standings_before`]) plus their last [`TREND_GAMES`]
/// game rows before it (one index descent each) for the trend, with their new `rows` applied
/// on top.
fn refresh_standings(
    conn: &mut PgConnection,
    pool_id: i64,
    first_seq: i64,
    touched: &BTreeSet<i64>,
    before: &HashMap<i64, (f64, i64)>,
    rows: &[RatingChangeRow],
) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, Int8};
    let affected: Vec<i64> = touched.iter().copied().collect();
    if affected.is_empty() {
        return bump_leaderboard(conn, pool_id);
    }
    let older: Vec<OlderGames> = diesel::sql_query(
        "SELECT p.id AS player_id,
                (SELECT e.sequence FROM rating_changes e
                 WHERE e.player_id = p.id AND e.pool_id = $1 AND e.sequence < $3
                 ORDER BY e.player_id DESC, e.pool_id DESC, e.sequence DESC
                 LIMIT 1) IS NOT NULL AS has_rows,
                c.sequence, c.rated_at, c.delta
         FROM unnest($2::int8[]) AS p(id)
         LEFT JOIN LATERAL (
             SELECT sequence, rated_at, delta FROM rating_changes c
             WHERE c.player_id = p.id AND c.pool_id = $1 AND c.sequence < $3
               AND c.kind = 'game'
             ORDER BY c.player_id DESC, c.pool_id DESC, c.sequence DESC LIMIT $4) c ON true",
    )
    .bind::<Int8, _>(pool_id)
    .bind::<Array<Int8>, _>(&affected)
    .bind::<Int8, _>(first_seq)
    .bind::<Int8, _>(TREND_GAMES)
    .load(conn)?;
    // (The ORDER BY spells out `rating_changes_player_idx` read backwards, so the planner takes
    // that index even with stale statistics, e.g. right after a rebuild.)

    // Per player before `first_seq`: (rating, games, had rows, game rows newest first).
    struct Before {
        rating: f64,
        games: i64,
        has_rows: bool,
        recent: Vec<(i64, DateTime<Utc>, f64)>,
    }
    let mut before: HashMap<i64, Before> = affected
        .iter()
        .map(|p| {
            let (rating, games) = before.get(p).copied().unwrap_or((0.0, 0));
            let b = Before {
                rating,
                games,
                has_rows: false,
                recent: Vec::new(),
            };
            (*p, b)
        })
        .collect();
    for o in older {
        let b = before.get_mut(&o.player_id).expect("affected");
        b.has_rows = o.has_rows;
        if let (Some(seq), Some(at), Some(delta)) = (o.sequence, o.rated_at, o.delta) {
            b.recent.push((seq, at, delta));
        }
    }
    let mut new_rows: HashMap<i64, Vec<&RatingChangeRow>> = HashMap::new();
    for r in rows.iter().filter(|r| touched.contains(&r.player_id)) {
        new_rows.entry(r.player_id).or_default().push(r);
    }
    let mut out = Vec::with_capacity(affected.len());
    for player in &affected {
        let mut b = before.remove(player).expect("affected");
        let mine = new_rows.remove(player).unwrap_or_default();
        if !b.has_rows && mine.is_empty() {
            continue; // no change of this player remains in the pool
        }
        b.recent.sort_by_key(|g| std::cmp::Reverse(g.0));
        let mut recent: Vec<(DateTime<Utc>, f64)> =
            b.recent.iter().map(|&(_, at, d)| (at, d)).collect();
        let mut rating = b.rating;
        let mut games = b.games;
        for r in &mine {
            rating = r.rating_after;
            if r.kind == "game" {
                games += 1;
                recent.insert(0, (r.rated_at, r.delta));
            }
        }
        let trend = &recent[..recent.len().min(TREND_GAMES as usize)];
        out.push(StandingRow {
            pool_id,
            player_id: *player,
            rating,
            games,
            last_played: recent.first().map(|g| g.0),
            trend_games: trend.len() as i64,
            trend_delta: trend.iter().map(|g| g.1).sum(),
            last_delta: recent.first().map(|g| g.1),
        });
    }
    diesel::delete(
        rating_standings::table
            .filter(rating_standings::pool_id.eq(pool_id))
            .filter(rating_standings::player_id.eq_any(&affected)),
    )
    .execute(conn)?;
    if !out.is_empty() {
        diesel::copy_from(rating_standings::table)
            .from_insertable(&out)
            .execute(conn)?;
    }
    bump_leaderboard(conn, pool_id)
}

fn bump_leaderboard(conn: &mut PgConnection, pool_id: i64) -> Result<(), ApiError> {
    diesel::update(rating_pools::table.find(pool_id))
        .set(rating_pools::leaderboard_version.eq(rating_pools::leaderboard_version + 1))
        .execute(conn)?;
    Ok(())
}

/// A `rating_standings` row.
#[derive(Insertable)]
#[diesel(table_name = rating_standings)]
#[diesel(treat_none_as_default_value = false)]
struct StandingRow {
    pool_id: i64,
    player_id: i64,
    rating: f64,
    games: i64,
    last_played: Option<DateTime<Utc>>,
    trend_games: i64,
    trend_delta: f64,
    last_delta: Option<f64>,
}

/// The standings of a whole log (`rows` in sequence order): what [`standings_sql`] computes,
/// done in memory during a full rebuild, which has every row at hand.
fn standings_of(pool_id: i64, rows: &[RatingChangeRow]) -> Vec<StandingRow> {
    let mut by_player: HashMap<i64, usize> = HashMap::new();
    let mut out: Vec<StandingRow> = Vec::new();
    // Walk backwards: the first row met is the latest, the first game rows are the trend.
    for r in rows.iter().rev() {
        let i = *by_player.entry(r.player_id).or_insert_with(|| {
            out.push(StandingRow {
                pool_id,
                player_id: r.player_id,
                rating: r.rating_after,
                games: 0,
                last_played: None,
                trend_games: 0,
                trend_delta: 0.0,
                last_delta: None,
            });
            out.len() - 1
        });
        if r.kind != "game" {
            continue;
        }
        let s = &mut out[i];
        if s.games == 0 {
            s.last_played = Some(r.rated_at);
            s.last_delta = Some(r.delta);
        }
        s.games += 1;
        if s.trend_games < TREND_GAMES {
            s.trend_games += 1;
            s.trend_delta += r.delta;
        }
    }
    out
}

/// Replaces all of the pool's `rating_standings` with those of its new log (full rebuild) and
/// bumps the pool's `leaderboard_version`.
fn replace_standings(
    conn: &mut PgConnection,
    pool_id: i64,
    rows: &[RatingChangeRow],
) -> Result<(), ApiError> {
    diesel::delete(rating_standings::table.filter(rating_standings::pool_id.eq(pool_id)))
        .execute(conn)?;
    let standings = standings_of(pool_id, rows);
    if !standings.is_empty() {
        diesel::copy_from(rating_standings::table)
            .from_insertable(&standings)
            .execute(conn)?;
    }
    bump_leaderboard(conn, pool_id)
}

/// Brings the ratings of the tournament's pool up to date after its results changed: a round
/// was completed, or a result of a completed round was corrected (by the referee or an appeal),
/// or the tournament's league facts changed (national rank, announcement, day of play). Call it
/// inside the transaction that made the change. Recomputes incrementally from the earliest of:
/// the first game of the tournament whose rated result differs from the stored log, and the
/// first national-rank bonus of the pool that differs from the stored one (a tournament's
/// player count can move the bonus of another tournament of the same organiser and season).
/// Does nothing if the tournament feeds no pool or nothing rated changed.
pub fn results_changed(conn: &mut PgConnection, tournament_id: i64) -> Result<(), ApiError> {
    let pool_id: Option<i64> = tournaments::table
        .find(tournament_id)
        .select(tournaments::rating_pool_id)
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {tournament_id}")))?;
    let Some(pool_id) = pool_id else {
        return Ok(());
    };
    sync_pool_in(conn, pool_id, Some(tournament_id), None)
}

/// [`results_changed`] when the change is known to lie in one round of the tournament (a
/// result stored, corrected or completing its round): only that round's tables are compared
/// with the log, instead of the whole tournament's.
pub fn round_results_changed(
    conn: &mut PgConnection,
    tournament_id: i64,
    round_id: i64,
) -> Result<(), ApiError> {
    let pool_id: Option<i64> = tournaments::table
        .find(tournament_id)
        .select(tournaments::rating_pool_id)
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {tournament_id}")))?;
    let Some(pool_id) = pool_id else {
        return Ok(());
    };
    sync_pool_in(conn, pool_id, Some(tournament_id), Some(round_id))
}

/// The earliest order key where two lists of rated items differ (`None`: they are equal).
fn first_difference<T: PartialEq>(
    now: &[(OrderKey, T)],
    stored: &[(OrderKey, T)],
) -> Option<OrderKey> {
    let i = now
        .iter()
        .zip(stored)
        .position(|(a, b)| a != b)
        .unwrap_or(now.len().min(stored.len()));
    match (now.get(i), stored.get(i)) {
        (None, None) => None,
        (Some(a), None) => Some(a.0),
        (None, Some(b)) => Some(b.0),
        (Some(a), Some(b)) => Some(a.0.min(b.0)),
    }
}

/// Whether the tournament plays team duplicate matches (rated per match of two tables).
fn is_team_duplicate(conn: &mut PgConnection, tournament_id: i64) -> Result<bool, ApiError> {
    let (preset, overrides): (String, serde_json::Value) = tournaments::table
        .find(tournament_id)
        .select((tournaments::ruleset, tournaments::ruleset_overrides))
        .first(conn)?;
    let ruleset = Ruleset::for_tournament(&preset, &overrides)
        .map_err(|e| ApiError::Internal(format!("tournament {tournament_id}: {e}")))?;
    Ok(ruleset.format == Format::TeamDuplicate)
}

#[derive(QueryableByName)]
struct ChangedTable {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    logged: bool,
    #[diesel(sql_type = diesel::sql_types::Int8)]
    round_id: i64,
    #[diesel(sql_type = diesel::sql_types::Int4)]
    table_number: i32,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    at: DateTime<Utc>,
}

/// The first order key where a (not team duplicate) tournament's rated games differ from the
/// pool's log, as [`first_difference`] over all its games would find, without loading them
/// all: SQL lists the tables whose result in force (version, round completion time) has no
/// identical log entry, and the log entries without an identical result in force. A log entry
/// of that kind differs at its key; a table of the first kind differs if it is rated (byes,
/// excluded forfeits and ignored draws never are), which only those tables are scored for.
fn first_changed_table(
    conn: &mut PgConnection,
    pool_id: i64,
    params: &RatingPoolParams,
    tournament_id: i64,
    only_round: Option<i64>,
) -> Result<Option<OrderKey>, ApiError> {
    use diesel::sql_types::{Int8, Nullable};
    let changed: Vec<ChangedTable> = diesel::sql_query(
        "WITH cur AS (
             SELECT DISTINCT ON (r.round_id, r.table_number)
                    r.round_id, r.table_number, r.version, ro.completed_at
             FROM results r JOIN rounds ro ON ro.id = r.round_id
             WHERE ro.tournament_id = $2 AND ro.status = 'completed'
               AND ro.completed_at IS NOT NULL AND ($3::int8 IS NULL OR ro.id = $3)
             ORDER BY r.round_id, r.table_number, r.version DESC
         ), logged AS (
             SELECT DISTINCT round_id, table_number, result_version, rated_at
             FROM rating_changes
             WHERE pool_id = $1 AND tournament_id = $2 AND kind = 'game'
               AND ($3::int8 IS NULL OR round_id = $3)
         )
         SELECT false AS logged, round_id, table_number, completed_at AS at FROM (
             SELECT round_id, table_number, version, completed_at FROM cur
             EXCEPT SELECT round_id, table_number, result_version, rated_at FROM logged) n
         UNION ALL
         SELECT true, round_id, table_number, rated_at FROM (
             SELECT round_id, table_number, result_version, rated_at FROM logged
             EXCEPT SELECT round_id, table_number, version, completed_at FROM cur) g",
    )
    .bind::<Int8, _>(pool_id)
    .bind::<Int8, _>(tournament_id)
    .bind::<Nullable<Int8>, _>(only_round)
    .load(conn)?;
    let mut first: Option<OrderKey> = changed
        .iter()
        .filter(|c| c.logged)
        .map(|c| (c.at, c.round_id, c.table_number))
        .min();
    let unlogged: BTreeSet<(i64, i32)> = changed
        .iter()
        .filter(|c| !c.logged)
        .map(|c| (c.round_id, c.table_number))
        .collect();
    if !unlogged.is_empty() {
        let rated = load_games(conn, pool_id, None, Some(tournament_id), Some(&unlogged))?
            .into_iter()
            .filter(|g| g.is_rated(params))
            .map(|g| g.key)
            .min();
        first = match (first, rated) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    Ok(first)
}

/// Compares the log with the results in force (the games of `tournament`, if given, and the
/// pool's national-rank bonuses) and recomputes from the first difference.
fn sync_pool(
    conn: &mut PgConnection,
    pool_id: i64,
    tournament: Option<i64>,
) -> Result<(), ApiError> {
    sync_pool_in(conn, pool_id, tournament, None)
}

/// [`sync_pool`], optionally knowing that only one round of `tournament` changed.
fn sync_pool_in(
    conn: &mut PgConnection,
    pool_id: i64,
    tournament: Option<i64>,
    only_round: Option<i64>,
) -> Result<(), ApiError> {
    let pool = lock_pool(conn, pool_id)?;
    let params = pool_params(&pool)?;
    let mut from: Option<OrderKey> = None;
    let mut earliest = |k: Option<OrderKey>| {
        if let Some(k) = k {
            from = Some(from.map_or(k, |f: OrderKey| f.min(k)));
        }
    };
    let league_bonus = pool.league && params.event_bonus > 0.0;
    let mut games = Vec::new();
    if let Some(t) = tournament {
        if !league_bonus && !is_team_duplicate(conn, t)? {
            // Only the tables that differ from the log are loaded and scored.
            earliest(first_changed_table(conn, pool_id, &params, t, only_round)?);
        } else {
            // The bonus needs every game of the tournament (its participants), and a team
            // match's log version is the sum of two tables': compare everything.
            games = load_games(conn, pool_id, None, Some(t), None)?;
            let now: Vec<StoredGame> = games
                .iter()
                .filter(|g| g.is_rated(&params))
                .map(|g| (g.key, g.result_version))
                .collect();
            let stored = stored_games(conn, pool_id, Some(t))?;
            earliest(first_difference(&now, &stored));
        }
    }
    let now_bonus: Vec<(OrderKey, i64)> = if league_bonus {
        let mut participation = logged_participation(conn, pool_id, None, tournament)?;
        add_games(&mut participation, &params, &games);
        let facts = tournament_facts(conn, pool_id)?;
        bonus_games(&pool, &params, &facts, &participation)?
            .into_iter()
            .map(|g| (g.key, g.tournament_id))
            .collect()
    } else {
        Vec::new()
    };
    let stored_bonus = stored_bonuses(conn, pool_id)?;
    earliest(first_difference(&now_bonus, &stored_bonus));
    if let Some(from) = from {
        recompute_from(conn, &pool, &params, Some(from))?;
    }
    Ok(())
}

/// The bonus items in the log, in order: (order key, tournament).
fn stored_bonuses(conn: &mut PgConnection, pool_id: i64) -> Result<Vec<(OrderKey, i64)>, ApiError> {
    use rating_changes::dsl as rc;
    let rows: Vec<(i64, DateTime<Utc>, i64, i32, i64)> = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .filter(rc::kind.eq("bonus"))
        .select((
            rc::sequence,
            rc::rated_at,
            rc::round_id,
            rc::table_number,
            rc::tournament_id,
        ))
        .distinct()
        .order(rc::sequence)
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(_, t, r, n, tid)| ((t, r, n), tid))
        .collect())
}

/// The rated games in the log, in order (of one tournament, or all).
fn stored_games(
    conn: &mut PgConnection,
    pool_id: i64,
    tournament_id: Option<i64>,
) -> Result<Vec<StoredGame>, ApiError> {
    use rating_changes::dsl as rc;
    let mut q = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .filter(rc::kind.eq("game"))
        .select((
            rc::sequence,
            rc::rated_at,
            rc::round_id,
            rc::table_number,
            rc::result_version,
        ))
        .distinct()
        .order(rc::sequence)
        .into_boxed();
    if let Some(tid) = tournament_id {
        q = q.filter(rc::tournament_id.eq(tid));
    }
    let rows: Vec<(i64, DateTime<Utc>, i64, i32, i32)> = q.load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(_, t, r, n, v)| ((t, r, n), v))
        .collect())
}

/// Moves a tournament's games between pools after its `rating_pool_id` changed from
/// `old_pool`: the old pool is recomputed from the tournament's first stored game on (without
/// them), the new one (if any) takes them in via [`results_changed`].
pub fn tournament_pool_changed(
    conn: &mut PgConnection,
    tournament_id: i64,
    old_pool: Option<i64>,
) -> Result<(), ApiError> {
    if let Some(old) = old_pool {
        let pool = lock_pool(conn, old)?;
        let params = pool_params(&pool)?;
        if let Some(first) = stored_games(conn, old, Some(tournament_id))?.first() {
            recompute_from(conn, &pool, &params, Some(first.0))?;
        }
        // Without the tournament, another one of its organiser may now hold the bonus.
        sync_pool(conn, old, None)?;
    }
    results_changed(conn, tournament_id)
}

/// Rebuilds a pool's ratings from scratch (the admin command); the incremental recomputes of
/// [`results_changed`] agree with it exactly.
pub fn rebuild_pool(conn: &mut PgConnection, pool_id: i64) -> Result<RecomputeSummary, ApiError> {
    let pool = lock_pool(conn, pool_id)?;
    let params = pool_params(&pool)?;
    recompute_from(conn, &pool, &params, None)
}

/// Every player's rating and number of rated games in the pool at instant `at` (changes of
/// games completed later are ignored); players without games have the pool's initial rating
/// and 0. For seeding by the rating at a registration deadline (Tantrix, seed 003 rule 13).
pub fn ratings_at(
    conn: &mut PgConnection,
    pool_id: i64,
    player_ids: &[i64],
    at: DateTime<Utc>,
) -> Result<HashMap<i64, (f64, u32)>, ApiError> {
    use rating_changes::dsl as rc;
    let pool = load_pool(conn, pool_id)?;
    let params = pool_params(&pool)?;
    let rows: Vec<LogRow> = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .filter(rc::player_id.eq_any(player_ids))
        .filter(rc::rated_at.le(at))
        .order((rc::sequence, rc::player_id))
        .select((
            rc::sequence,
            rc::player_id,
            rc::kind,
            rc::rated_at,
            rc::rating_before,
            rc::rating_after,
            rc::delta,
        ))
        .load(conn)?;
    let mut dir = PlayerDirectory::new();
    for p in player_ids {
        dir.intern(PlayerId(*p));
    }
    let history = to_history(&mut dir, &rows);
    let state = crate::domain::rating::ratings_at(&params, dir.len(), &history, at);
    Ok(player_ids
        .iter()
        .filter_map(|p| {
            let i = dir.index_of(PlayerId(*p))? as usize;
            Some((*p, (state.ratings[i], state.games[i])))
        })
        .collect())
}

/// Log rows `(sequence, player, kind, rated_at, before, after, delta)` as engine history.
pub fn to_history(dir: &mut PlayerDirectory, rows: &[LogRow]) -> Vec<RatingChange> {
    rows.iter()
        .map(
            |(seq, player, kind, at, before, after, delta)| RatingChange {
                game_id: *seq,
                at: *at,
                player: dir.intern(PlayerId(*player)),
                kind: if kind == "bonus" {
                    ChangeKind::Bonus
                } else {
                    ChangeKind::Game
                },
                before: *before,
                after: *after,
                delta: *delta,
            },
        )
        .collect()
}

/// The whole log of a pool up to `until` (everything for `None`), in order, as rows for
/// [`to_history`].
pub fn history_rows(
    conn: &mut PgConnection,
    pool_id: i64,
    until: Option<DateTime<Utc>>,
) -> Result<Vec<LogRow>, ApiError> {
    use rating_changes::dsl as rc;
    let mut q = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .order((rc::sequence, rc::player_id))
        .select((
            rc::sequence,
            rc::player_id,
            rc::kind,
            rc::rated_at,
            rc::rating_before,
            rc::rating_after,
            rc::delta,
        ))
        .into_boxed();
    if let Some(t) = until {
        q = q.filter(rc::rated_at.le(t));
    }
    Ok(q.load(conn)?)
}
