//! Recomputing a pool from a point in its time order: replay, and write only the log rows that changed.

use super::*;

use crate::db::ids::PoolId;
use crate::db::ids::{RoundId, TournamentId};
use crate::db::models::{RatingChangeRow, RatingPoolRow};
use crate::db::ratings::changes;
use crate::db::PgConnection;

/// The identity of a rated game as the log stores it.
pub(super) type StoredGame = (OrderKey, i32);

/// Recomputes the pool's ratings from `from` on (everything for `None`): deletes the log from
/// the first stored game at or after `from`, rebuilds the state before it from the log with
/// `RatingState::from_history`, replays the games from `from` on, and writes their changes.
pub(super) fn recompute_from(
    conn: &mut PgConnection,
    pool: &RatingPoolRow,
    params: &RatingPoolParams,
    from: Option<OrderKey>,
) -> Result<RecomputeSummary, ApiError> {
    let pool_id = pool.id;
    let first_seq: Option<i64> = match from {
        None => Some(0),
        Some(from) => first_sequence_at(conn, pool_id.0, from)?,
    };
    let first_seq = match first_seq {
        Some(s) => s,
        None => changes::last_sequence(conn, PoolId(pool_id.0))?.map_or(0, |m| m + 1),
    };
    // The log from there on is replaced. A full rebuild deletes it all; an incremental
    // recompute reads it, because it says what the state before it was (each player's first
    // `rating_before` there, and how many of their rows were games) and because most of it is
    // usually written again unchanged (see `write_difference`).
    let old: Vec<RatingChangeRow> = if from.is_none() {
        let deleted = changes::delete_all(conn, PoolId(pool_id.0))?;
        if deleted > 0 {
            log_rewritten(conn, pool_id.0, 0)?;
        }
        Vec::new()
    } else {
        changes::from_sequence(conn, PoolId(pool_id.0), first_seq)?
    };
    let replaced: Vec<DeletedRow> = old
        .iter()
        .map(|r| {
            (
                r.player_id.0,
                r.sequence,
                i64::from(r.games),
                r.rating_before,
            )
        })
        .collect();
    let mut dir = PlayerDirectory::new();

    let games = pool_items(conn, pool, params, from, first_seq)?;
    let rated = engine_games(&games, &mut dir);
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
        standings_before(conn, pool_id.0, &players, &replaced)?
    };
    for (player, &(rating, games)) in &before {
        if let Some(i) = dir.index_of(PlayerId(*player)) {
            start.ratings[i as usize] = rating;
            start.games[i as usize] = u32::try_from(games.max(0)).unwrap_or(u32::MAX);
        }
    }
    let (_, changes) = replay(params, start, &rated)
        .map_err(|e| ApiError::Internal(format!("rating pool {pool_id}: {e}")))?;
    let rows = log_rows(pool_id.0, first_seq, &games, &changes, &dir);
    if from.is_none() {
        changes::insert(conn, &rows)?;
        replace_standings(conn, pool_id.0, &rows)?;
        // The whole log of the pool was rewritten: fresh statistics, so the next feeds plan
        // with them instead of waiting for autovacuum (ANALYZE sees this transaction's rows).
        changes::analyze(conn)?;
    } else {
        if let Some(rewritten) = write_difference(conn, pool_id.0, first_seq, &old, &before, &rows)?
        {
            log_rewritten(conn, pool_id.0, rewritten)?;
        }
    }
    Ok(RecomputeSummary {
        games: rated.len(),
        changes: rows.len(),
    })
}

/// The pool's rated items from `from` on, in time order: its games, the imported lists and
/// (in a league with a bonus) the national-rank bonuses, decided on the whole pool (the log
/// before `first_seq` plus the games replayed now).
fn pool_items(
    conn: &mut PgConnection,
    pool: &RatingPoolRow,
    params: &RatingPoolParams,
    from: Option<OrderKey>,
    first_seq: i64,
) -> Result<Vec<PoolGame>, ApiError> {
    let pool_id = pool.id;
    let mut games = load_games(conn, pool_id.0, from, None, None)?;
    // Imported lists from `from` on take their place in the time order.
    let imports = import_items(conn, pool_id.0, from)?;
    if !imports.is_empty() {
        games.extend(imports);
        games.sort_by_key(|g| g.key);
    }
    // The national-rank bonuses from `from` on, decided on the whole pool: the log before the
    // affected point plus the games replayed now.
    if pool.league && params.event_bonus > 0.0 {
        let mut participation = logged_participation(conn, pool_id.0, Some(first_seq), None)?;
        add_games(&mut participation, params, &games);
        let facts = tournament_facts(conn, pool_id.0)?;
        let bonuses = bonus_games(pool, params, &facts, &participation)?;
        games.extend(
            bonuses
                .into_iter()
                .filter(|b| from.is_none_or(|f| b.key >= f)),
        );
        games.sort_by_key(|g| g.key);
    }
    Ok(games)
}

/// The engine's games for `games`, players interned in `dir`.
fn engine_games(games: &[PoolGame], dir: &mut PlayerDirectory) -> Vec<RatedGame> {
    let mut rated: Vec<RatedGame> = Vec::with_capacity(games.len());
    let idx = |dir: &mut PlayerDirectory, p: i64| -> PlayerIndex { dir.intern(PlayerId(p)) };
    for (i, g) in games.iter().enumerate() {
        let result = match &g.result {
            GameById::Duel(a, b, o) => GameResult::Duel {
                first: idx(dir, *a),
                second: idx(dir, *b),
                outcome: *o,
            },
            GameById::Table(seats) => GameResult::Table {
                seats: seats
                    .iter()
                    .map(|(p, score)| Seat {
                        player: idx(dir, *p),
                        score: *score,
                    })
                    .collect(),
            },
            GameById::Teams(a, b, o) => GameResult::Teams {
                first: a.iter().map(|p| idx(dir, *p)).collect(),
                second: b.iter().map(|p| idx(dir, *p)).collect(),
                outcome: *o,
            },
            GameById::Bonus(players) => GameResult::EventBonus {
                participants: players.iter().map(|p| idx(dir, *p)).collect(),
            },
            GameById::Import(entries) => GameResult::Imported {
                entries: entries
                    .iter()
                    .map(|(p, rating, games)| ImportedRating {
                        player: idx(dir, *p),
                        rating: *rating,
                        games: *games,
                    })
                    .collect(),
            },
        };
        rated.push(RatedGame {
            id: i as i64,
            at: g.key.0,
            exclusion: g.exclusion,
            result,
        });
    }
    rated
}

/// The log rows of a replay's `changes` of `games`, numbered from `first_seq`.
fn log_rows(
    pool_id: i64,
    first_seq: i64,
    games: &[PoolGame],
    changes: &[RatingChange],
    dir: &PlayerDirectory,
) -> Vec<RatingChangeRow> {
    // Sequences number the items that changed ratings, densely: unrated games (excluded, ignored
    // draws) take no number, so the incremental recompute and the full rebuild number alike.
    let mut sequence = first_seq - 1;
    let mut last_game = None;
    changes
        .iter()
        .map(|c| {
            let g = &games[c.game_id as usize];
            if last_game != Some(c.game_id) {
                last_game = Some(c.game_id);
                sequence += 1;
            }
            RatingChangeRow {
                pool_id: PoolId(pool_id),
                sequence,
                player_id: dir.id(c.player).unwrap_or(PlayerId(0)),
                kind: c.kind,
                tournament_id: TournamentId(g.tournament_id),
                round_id: RoundId(g.key.1),
                table_number: g.key.2,
                result_version: g.result_version,
                rated_at: g.key.0,
                rating_before: c.before,
                rating_after: c.after,
                delta: c.delta,
                games: i32::try_from(c.games).unwrap_or(i32::MAX),
            }
        })
        .collect()
}

/// Writes an incremental recompute: `old` are the log rows from `first_seq` on (`replaced` the
/// same as [`DeletedRow`]s), `rows` what the replay gives for them. Most of them are usually
/// equal (a correction moves the ratings of its players and of those they met later, not of
/// everyone after it; the replay is deterministic, so equal means bit-equal), so only the rows
/// that differ are deleted and written, and only their players' standings are rewritten.
/// Returns the first sequence whose rows were replaced, removed or added among the items
/// already logged (`None`: the log only grew at its end).
pub(super) fn write_difference(
    conn: &mut PgConnection,
    pool_id: i64,
    first_seq: i64,
    old: &[RatingChangeRow],
    before: &HashMap<i64, (f64, i64)>,
    rows: &[RatingChangeRow],
) -> Result<Option<i64>, ApiError> {
    let old_by: HashMap<(i64, i64), &RatingChangeRow> = old
        .iter()
        .map(|r| ((r.sequence, r.player_id.0), r))
        .collect();
    let new_by: HashMap<(i64, i64), &RatingChangeRow> = rows
        .iter()
        .map(|r| ((r.sequence, r.player_id.0), r))
        .collect();
    let gone: Vec<&RatingChangeRow> = old
        .iter()
        .filter(|o| new_by.get(&(o.sequence, o.player_id.0)) != Some(o))
        .collect();
    let fresh: Vec<RatingChangeRow> = rows
        .iter()
        .filter(|n| old_by.get(&(n.sequence, n.player_id.0)) != Some(n))
        .cloned()
        .collect();
    if !gone.is_empty() {
        let sequences: Vec<i64> = gone.iter().map(|r| r.sequence).collect();
        let players: Vec<PlayerId> = gone.iter().map(|r| r.player_id).collect();
        changes::delete_rows(conn, PoolId(pool_id), &sequences, &players)?;
    }
    changes::insert(conn, &fresh)?;
    // The touched players' standings: all of their rows from `first_seq` on, old and new.
    let touched: BTreeSet<i64> = gone
        .iter()
        .map(|r| r.player_id.0)
        .chain(fresh.iter().map(|r| r.player_id.0))
        .collect();
    refresh_standings(conn, pool_id, first_seq, &touched, before, rows)?;
    // Rows written where the log already had items change what a reader saw, as do rows
    // removed; rows after the old last item only extend it.
    let old_last = old.iter().map(|r| r.sequence).max();
    Ok(gone
        .iter()
        .map(|r| r.sequence)
        .chain(
            fresh
                .iter()
                .map(|r| r.sequence)
                .filter(|s| old_last.is_some_and(|last| *s <= last)),
        )
        .min())
}

/// Records on the pool that its log was rewritten from `sequence` on (rows already in it were
/// replaced or removed), for the keepers who mirror it (`log_rewrites`, `log_rewritten_from`
/// in `GET /rating-pools/{id}/changes`); in the caller's transaction.
fn log_rewritten(conn: &mut PgConnection, pool_id: i64, sequence: i64) -> Result<(), ApiError> {
    Ok(changes::mark_rewritten(conn, PoolId(pool_id), sequence)?)
}

/// The first sequence of the pool's log whose order key is at or after `from` (`None`: every
/// stored key is before it). The feed numbers the log densely from 0 in key order, so this is
/// a binary search of primary-key lookups (21 for a 2 M-row log) and needs no index on the
/// key. A gap (which this feed never writes) is an error that a full rebuild repairs.
pub(super) fn first_sequence_at(
    conn: &mut PgConnection,
    pool_id: i64,
    from: OrderKey,
) -> Result<Option<i64>, ApiError> {
    let max = changes::last_sequence(conn, PoolId(pool_id))?;
    let Some(max) = max else {
        return Ok(None);
    };
    // The answer lies in [lo, hi]; hi = max + 1 stands for none.
    let (mut lo, mut hi) = (0i64, max + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let key: Option<OrderKey> = changes::key_at(conn, PoolId(pool_id), mid)?
            .map(|(at, round, table)| (at, round.0, table));
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
