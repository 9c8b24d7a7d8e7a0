//! The pool's standings (`rating_standings`): refreshed for the players whose log changed.

use super::*;

use crate::db::ids::PoolId;
use crate::db::models::RatingChangeRow;
use crate::db::ratings::standings::{self as stored, StandingRow};
use crate::db::PgConnection;

pub use crate::db::ratings::standings::standings_sql;

/// A deleted log row: `(player, sequence, games it counted, rating_before)`.
pub(super) type DeletedRow = (i64, i64, i64, f64);

/// Each of `players`' rating and rated games just before the `replaced` log rows (those from
/// the recompute point on): a player with replaced rows had the `rating_before` of the first
/// one and their stored games minus the replaced game rows; any other player is as
/// `rating_standings` says. Players without a stored row are absent (the initial rating, no
/// games). Reads only those players' standings, never the log.
pub(super) fn standings_before(
    conn: &mut PgConnection,
    pool_id: i64,
    players: &[i64],
    replaced: &[DeletedRow],
) -> Result<HashMap<i64, (f64, i64)>, ApiError> {
    let players: Vec<PlayerId> = players.iter().copied().map(PlayerId).collect();
    let mut before: HashMap<i64, (f64, i64)> =
        stored::rating_and_games(conn, PoolId(pool_id), &players)?
            .into_iter()
            .map(|(p, r, g)| (p.0, (r, g)))
            .collect();
    // Per player, the first replaced row's rating_before (rows come in any order).
    let mut first: HashMap<i64, (i64, f64)> = HashMap::new();
    for (player, sequence, games, rating_before) in replaced {
        if let Some(b) = before.get_mut(player) {
            b.1 -= games;
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

/// Rewrites the `rating_standings` rows of the players an incremental recompute touched
/// (`touched`: those whose log rows from `first_seq` on changed) and bumps the pool's
/// `leaderboard_version`, in the caller's transaction. The same aggregate as
/// [`standings_sql`], without reading the players' whole history: their rating and games
/// before `first_seq` (`before`, from [`standings_before`]) plus their last [`TREND_GAMES`]
/// game rows before it (one index descent each) for the trend, with their new `rows` applied
/// on top.
pub(super) fn refresh_standings(
    conn: &mut PgConnection,
    pool_id: i64,
    first_seq: i64,
    touched: &BTreeSet<i64>,
    before: &HashMap<i64, (f64, i64)>,
    rows: &[RatingChangeRow],
) -> Result<(), ApiError> {
    let affected: Vec<i64> = touched.iter().copied().collect();
    if affected.is_empty() {
        return bump_leaderboard(conn, pool_id);
    }
    let players: Vec<PlayerId> = affected.iter().copied().map(PlayerId).collect();
    let older = stored::older_games(conn, PoolId(pool_id), &players, first_seq, TREND_GAMES)?;

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
        let b = before.get_mut(&o.player_id.0).expect("affected");
        b.has_rows = o.has_rows;
        if let (Some(seq), Some(at), Some(delta)) = (o.sequence, o.rated_at, o.delta) {
            b.recent.push((seq, at, delta));
        }
    }
    let mut new_rows: HashMap<i64, Vec<&RatingChangeRow>> = HashMap::new();
    for r in rows.iter().filter(|r| touched.contains(&r.player_id.0)) {
        new_rows.entry(r.player_id.0).or_default().push(r);
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
            games += i64::from(r.games);
            if r.kind == ChangeKind::Game {
                recent.insert(0, (r.rated_at, r.delta));
            }
        }
        let trend = &recent[..recent.len().min(TREND_GAMES as usize)];
        out.push(StandingRow {
            pool_id: PoolId(pool_id),
            player_id: PlayerId(*player),
            rating,
            games,
            last_played: recent.first().map(|g| g.0),
            trend_games: trend.len() as i64,
            trend_delta: trend.iter().map(|g| g.1).sum(),
            last_delta: recent.first().map(|g| g.1),
        });
    }
    stored::delete_players(conn, PoolId(pool_id), &players)?;
    stored::insert(conn, &out)?;
    bump_leaderboard(conn, pool_id)
}

pub(super) fn bump_leaderboard(conn: &mut PgConnection, pool_id: i64) -> Result<(), ApiError> {
    Ok(stored::bump_leaderboard(conn, PoolId(pool_id))?)
}

/// The standings of a whole log (`rows` in sequence order): what [`standings_sql`] computes,
/// done in memory during a full rebuild, which has every row at hand.
pub(super) fn standings_of(pool_id: i64, rows: &[RatingChangeRow]) -> Vec<StandingRow> {
    let mut by_player: HashMap<i64, usize> = HashMap::new();
    let mut out: Vec<StandingRow> = Vec::new();
    // Walk backwards: the first row met is the latest, the first game rows are the trend.
    for r in rows.iter().rev() {
        let i = *by_player.entry(r.player_id.0).or_insert_with(|| {
            out.push(StandingRow {
                pool_id: PoolId(pool_id),
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
        let s = &mut out[i];
        s.games += i64::from(r.games);
        if r.kind != ChangeKind::Game {
            continue;
        }
        if s.last_played.is_none() {
            s.last_played = Some(r.rated_at);
            s.last_delta = Some(r.delta);
        }
        if s.trend_games < TREND_GAMES {
            s.trend_games += 1;
            s.trend_delta += r.delta;
        }
    }
    out
}

/// Replaces all of the pool's `rating_standings` with those of its new log (full rebuild) and
/// bumps the pool's `leaderboard_version`.
pub(super) fn replace_standings(
    conn: &mut PgConnection,
    pool_id: i64,
    rows: &[RatingChangeRow],
) -> Result<(), ApiError> {
    stored::delete_all(conn, PoolId(pool_id))?;
    let standings = standings_of(pool_id, rows);
    stored::insert(conn, &standings)?;
    bump_leaderboard(conn, pool_id)
}
