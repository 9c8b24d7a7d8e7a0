//! What feeds the pool: changed results, a changed pool link or acceptance, a rebuild.

use super::*;
use crate::db::ratings::{log, pools};
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::{PoolId, RoundId, TournamentId};

/// Brings the ratings of the tournament's pool up to date after its results changed: a round
/// was completed, or a result of a completed round was corrected (by the referee or an appeal),
/// or the tournament's league facts changed (national rank, announcement, day of play). Call it
/// inside the transaction that made the change. Recomputes incrementally from the earliest of:
/// the first game of the tournament whose rated result differs from the stored log, and the
/// first national-rank bonus of the pool that differs from the stored one (a tournament's
/// player count can move the bonus of another tournament of the same organiser and season).
/// Does nothing if the tournament feeds no pool or nothing rated changed.
pub fn results_changed(conn: &mut PgConnection, tournament_id: i64) -> Result<(), ApiError> {
    let Some(pool_id) = pool_of(conn, tournament_id)? else {
        return Ok(());
    };
    sync_pool_in(
        conn,
        PoolId(pool_id),
        Some(TournamentId(tournament_id)),
        None,
    )
}

/// The rating pool a tournament feeds, if any (one that names a pool feeds it once a keeper
/// accepted it); 404 for no such tournament. Reads the tournament under a share lock, so a
/// keeper's decision on it (which takes the row lock) waits for this transaction or is seen by
/// it: a result entered while the tournament is being accepted is rated exactly once.
fn pool_of(conn: &mut PgConnection, tournament_id: i64) -> Result<Option<i64>, ApiError> {
    let (pool, status) = pools::link_of_tournament(conn, TournamentId(tournament_id))?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {tournament_id}")))?;
    let feeds = status.is_some_and(RatingStatus::feeds);
    Ok(pool.filter(|_| feeds).map(|p| p.0))
}

/// A penalty or game loss on one game was recorded or annulled: the result's version did not
/// change, but the adjudicated result did, so the pool is recomputed from that game on
/// (domain.md section 10: ratings follow the adjudicated results). A game of a round not yet
/// completed is not rated yet; nothing to do.
pub fn game_adjudicated(
    conn: &mut PgConnection,
    tournament_id: i64,
    round: i32,
    table: i32,
) -> Result<(), ApiError> {
    let Some(pool_id) = pool_of(conn, tournament_id)? else {
        return Ok(());
    };
    let played = pools::round_played(conn, TournamentId(tournament_id), round)?;
    let Some((round_id, Some(played_at))) = played else {
        return Ok(());
    };
    let pool = lock_pool(conn, pool_id)?;
    let params = pool_params(&pool)?;
    recompute_from(conn, &pool, &params, Some((played_at, round_id.0, table)))?;
    Ok(())
}

/// [`results_changed`] when the change is known to lie in one round of the tournament (a
/// result stored, corrected or completing its round): only that round's tables are compared
/// with the log, instead of the whole tournament's.
pub fn round_results_changed(
    conn: &mut PgConnection,
    tournament_id: TournamentId,
    round_id: RoundId,
) -> Result<(), ApiError> {
    let Some(pool_id) = pool_of(conn, tournament_id.0)? else {
        return Ok(());
    };
    sync_pool_in(conn, PoolId(pool_id), Some(tournament_id), Some(round_id))
}

/// The earliest order key where two lists of rated items differ (`None`: they are equal).
pub(super) fn first_difference<T: PartialEq>(
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
pub(super) fn is_team_duplicate(
    conn: &mut PgConnection,
    tournament_id: TournamentId,
) -> Result<bool, ApiError> {
    let ruleset = pools::ruleset_of_tournament(conn, tournament_id)?;
    Ok(ruleset.format == Format::TeamDuplicate)
}

/// The first order key where a (not team duplicate) tournament's rated games differ from the
/// pool's log, as [`first_difference`] over all its games would find, without loading them
/// all: SQL lists the tables whose result in force (version, time of play) has no
/// identical log entry, and the log entries without an identical result in force. A log entry
/// of that kind differs at its key; a table of the first kind differs if it is rated (byes,
/// excluded forfeits and ignored draws never are), which only those tables are scored for.
pub(super) fn first_changed_table(
    conn: &mut PgConnection,
    pool_id: PoolId,
    params: &RatingPoolParams,
    tournament_id: TournamentId,
    only_round: Option<RoundId>,
) -> Result<Option<OrderKey>, ApiError> {
    let changed = log::changed_tables(conn, pool_id, tournament_id, only_round)?;
    let mut first: Option<OrderKey> = changed
        .iter()
        .filter(|c| c.logged)
        .map(|c| (c.at, c.round_id.0, c.table_number))
        .min();
    let unlogged: BTreeSet<(i64, i32)> = changed
        .iter()
        .filter(|c| !c.logged)
        .map(|c| (c.round_id.0, c.table_number))
        .collect();
    if !unlogged.is_empty() {
        let rated = load_games(
            conn,
            pool_id.0,
            None,
            Some(tournament_id.0),
            Some(&unlogged),
        )?
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
pub(super) fn sync_pool(
    conn: &mut PgConnection,
    pool_id: PoolId,
    tournament: Option<TournamentId>,
) -> Result<(), ApiError> {
    sync_pool_in(conn, pool_id, tournament, None)
}

/// [`sync_pool`], optionally knowing that only one round of `tournament` changed.
pub(super) fn sync_pool_in(
    conn: &mut PgConnection,
    pool_id: PoolId,
    tournament: Option<TournamentId>,
    only_round: Option<RoundId>,
) -> Result<(), ApiError> {
    let pool = lock_pool(conn, pool_id.0)?;
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
            games = load_games(conn, pool_id.0, None, Some(t.0), None)?;
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
        let mut participation =
            logged_participation(conn, pool_id.0, None, tournament.map(|t| t.0))?;
        add_games(&mut participation, &params, &games);
        let facts = tournament_facts(conn, pool_id.0)?;
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
pub(super) fn stored_bonuses(
    conn: &mut PgConnection,
    pool_id: PoolId,
) -> Result<Vec<(OrderKey, i64)>, ApiError> {
    Ok(log::logged_bonuses(conn, pool_id)?
        .into_iter()
        .map(|b| {
            (
                (b.rated_at, b.round_id.0, b.table_number),
                b.tournament_id.0,
            )
        })
        .collect())
}

/// The rated games in the log, in order (of one tournament, or all).
pub(super) fn stored_games(
    conn: &mut PgConnection,
    pool_id: PoolId,
    tournament_id: Option<TournamentId>,
) -> Result<Vec<StoredGame>, ApiError> {
    Ok(log::logged_games(conn, pool_id, tournament_id)?
        .into_iter()
        .map(|g| ((g.rated_at, g.round_id.0, g.table_number), g.result_version))
        .collect())
}

/// Moves a tournament's games between pools after its `rating_pool_id` changed from
/// `old_pool`: the old pool is recomputed without them ([`tournament_left_pool`]), the new one
/// (if any, once it accepted the tournament) takes them in via [`results_changed`].
pub fn tournament_pool_changed(
    conn: &mut PgConnection,
    tournament_id: TournamentId,
    old_pool: Option<PoolId>,
) -> Result<(), ApiError> {
    if let Some(old) = old_pool {
        tournament_left_pool(conn, tournament_id, old)?;
    }
    results_changed(conn, tournament_id.0)
}

/// Takes a tournament's games out of a pool it no longer feeds (moved to another pool, or
/// withdrawn by a keeper): the pool is recomputed from the tournament's first stored game on,
/// as after a correction, and its national-rank bonuses are decided again.
pub fn tournament_left_pool(
    conn: &mut PgConnection,
    tournament_id: TournamentId,
    pool_id: PoolId,
) -> Result<(), ApiError> {
    let pool = lock_pool(conn, pool_id.0)?;
    let params = pool_params(&pool)?;
    if let Some(first) = stored_games(conn, pool_id, Some(tournament_id))?.first() {
        recompute_from(conn, &pool, &params, Some(first.0))?;
    }
    // Without the tournament, another one of its organiser may now hold the bonus.
    sync_pool(conn, pool_id, None)
}

/// Rebuilds a pool's ratings from scratch (the admin command); the incremental recomputes of
/// [`results_changed`] agree with it exactly.
pub fn rebuild_pool(conn: &mut PgConnection, pool_id: i64) -> Result<RecomputeSummary, ApiError> {
    let pool = lock_pool(conn, pool_id)?;
    let params = pool_params(&pool)?;
    recompute_from(conn, &pool, &params, None)
}
