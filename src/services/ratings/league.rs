//! The league and the national-rank bonus: which tournaments count and who took part.

use super::*;

use crate::db::ids::{PoolId, TournamentId};
use crate::db::models::RatingPoolRow;
use crate::db::ratings::{changes, league};
use crate::db::PgConnection;

/// The league facts of every tournament that feeds the pool (accepted by a keeper), by id.
pub fn tournament_facts(
    conn: &mut PgConnection,
    pool_id: i64,
) -> Result<Vec<TournamentFacts>, ApiError> {
    Ok(league::accepted_tournaments(conn, PoolId(pool_id))?
        .into_iter()
        .map(|f| {
            let (id, organiser) = (f.id.0, f.created_by.0);
            (id, organiser, f.starts_on, f.announced_at, f.national_rank)
        })
        .collect())
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
pub(super) type Participation = BTreeMap<i64, (OrderKey, BTreeSet<i64>)>;

pub(super) fn add_participation(
    into: &mut Participation,
    tournament_id: i64,
    key: OrderKey,
    players: &[i64],
) {
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
pub(super) fn logged_participation(
    conn: &mut PgConnection,
    pool_id: i64,
    before_sequence: Option<i64>,
    except_tournament: Option<i64>,
) -> Result<Participation, ApiError> {
    let except = except_tournament.map(TournamentId);
    let rows = changes::games(conn, PoolId(pool_id), before_sequence, except)?;
    let mut out = Participation::new();
    for g in rows {
        let key = (g.rated_at, g.round_id.0, g.table_number);
        add_participation(&mut out, g.tournament_id.0, key, &[g.player_id.0]);
    }
    Ok(out)
}

/// Adds the rated games among `games` to the participation.
pub(super) fn add_games(into: &mut Participation, params: &RatingPoolParams, games: &[PoolGame]) {
    for g in games.iter().filter(|g| g.is_rated(params)) {
        if !matches!(g.result, GameById::Bonus(_) | GameById::Import(_)) {
            add_participation(into, g.tournament_id, g.key, &g.players());
        }
    }
}

/// The bonus items of a league pool: for every tournament holding the national-rank bonus
/// (counts for the league, the organiser's first national-rank tournament of the season), one
/// item right after its last rated game giving the pool's `event_bonus` to each participant.
/// None in a pool that is not a league or has no bonus.
pub(super) fn bonus_games(
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
