//! Ratings at a moment and a player's history.

use super::*;

use crate::db::ids::PoolId;
use crate::db::ratings::changes::{self, LogRow};
use crate::db::ratings::standings as stored_standings;
use crate::db::PgConnection;

/// Every player's rating and number of rated games in the pool at instant `at` (changes of
/// games completed later are ignored); players without games have the pool's initial rating
/// and 0. For seeding by the rating at a registration deadline (Tantrix, seed 003 rule 13).
pub fn ratings_at(
    conn: &mut PgConnection,
    pool_id: i64,
    player_ids: &[i64],
    at: DateTime<Utc>,
) -> Result<HashMap<i64, (f64, u32)>, ApiError> {
    let pool = load_pool(conn, pool_id)?;
    let params = pool_params(&pool)?;
    // The log's sequence follows the time order (migration rating_log_without_fk), so its last
    // row is the pool's latest change. When that is not after `at`, the ratings at `at` are the
    // pool's current standings: an indexed read of these players' rows instead of a replay of
    // their whole log (which grows with every round of a rated event drawn from it).
    let latest = changes::latest_rated_at(conn, PoolId(pool_id))?;
    let players: Vec<PlayerId> = player_ids.iter().copied().map(PlayerId).collect();
    if latest.is_none_or(|latest| latest <= at) {
        let mut out: HashMap<i64, (f64, u32)> = player_ids
            .iter()
            .map(|p| (*p, (params.initial_rating, 0)))
            .collect();
        let rows = stored_standings::rating_and_games(conn, PoolId(pool_id), &players)?;
        for (player, rating, games) in rows {
            out.insert(player.0, (rating, games.clamp(0, u32::MAX as i64) as u32));
        }
        return Ok(out);
    }
    let rows = changes::of_players_until(conn, PoolId(pool_id), &players, at)?;
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

/// Log rows as engine history.
pub fn to_history(dir: &mut PlayerDirectory, rows: &[LogRow]) -> Vec<RatingChange> {
    rows.iter()
        .map(|r| RatingChange {
            game_id: r.sequence,
            at: r.rated_at,
            player: dir.intern(r.player_id),
            kind: r.kind,
            before: r.rating_before,
            after: r.rating_after,
            delta: r.delta,
            games: u32::try_from(r.games).unwrap_or(0),
        })
        .collect()
}

/// The whole log of a pool up to `until` (everything for `None`), in order, as rows for
/// [`to_history`].
pub fn history_rows(
    conn: &mut PgConnection,
    pool_id: i64,
    until: Option<DateTime<Utc>>,
) -> Result<Vec<LogRow>, ApiError> {
    Ok(changes::until(conn, PoolId(pool_id), until)?)
}
