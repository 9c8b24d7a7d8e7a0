//! Ratings at a moment and a player's history.

use super::*;

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
    // The log's sequence follows the time order (migration rating_log_without_fk), so its last
    // row is the pool's latest change. When that is not after `at`, the ratings at `at` are the
    // pool's current standings: an indexed read of these players' rows instead of a replay of
    // their whole log (which grows with every round of a rated event drawn from it).
    let latest: Option<DateTime<Utc>> = rc::rating_changes
        .filter(rc::pool_id.eq(pool_id))
        .order(rc::sequence.desc())
        .select(rc::rated_at)
        .first(conn)
        .optional()?;
    if latest.is_none_or(|latest| latest <= at) {
        let mut out: HashMap<i64, (f64, u32)> = player_ids
            .iter()
            .map(|p| (*p, (params.initial_rating, 0)))
            .collect();
        let rows: Vec<(i64, f64, i64)> = rating_standings::table
            .filter(rating_standings::pool_id.eq(pool_id))
            .filter(rating_standings::player_id.eq_any(player_ids))
            .select((
                rating_standings::player_id,
                rating_standings::rating,
                rating_standings::games,
            ))
            .load(conn)?;
        for (player, rating, games) in rows {
            out.insert(player, (rating, games.clamp(0, u32::MAX as i64) as u32));
        }
        return Ok(out);
    }
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
            rc::games,
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

/// Log rows `(sequence, player, kind, rated_at, before, after, delta, games)` as engine history.
pub fn to_history(dir: &mut PlayerDirectory, rows: &[LogRow]) -> Vec<RatingChange> {
    rows.iter()
        .map(
            |(seq, player, kind, at, before, after, delta, games)| RatingChange {
                game_id: *seq,
                at: *at,
                player: dir.intern(PlayerId(*player)),
                kind: *kind,
                before: *before,
                after: *after,
                delta: *delta,
                games: u32::try_from(*games).unwrap_or(0),
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
            rc::games,
        ))
        .into_boxed();
    if let Some(t) = until {
        q = q.filter(rc::rated_at.le(t));
    }
    Ok(q.load(conn)?)
}
