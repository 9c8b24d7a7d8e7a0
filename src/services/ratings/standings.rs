//! The pool's standings (`rating_standings`): refreshed for the players whose log changed.

use super::*;

/// The per-player aggregate of a pool's log that `rating_standings` stores (and the season
/// leaderboard computes at an instant): the latest rating, rated games, last game, and the
/// trend over the last [`TREND_GAMES`] games. `$1` = pool, `$2` = trend length; `{filter}` adds
/// conditions on `rating_changes`.
pub fn standings_sql(filter: &str) -> String {
    format!(
        "WITH c AS (
            SELECT player_id, kind, rating_after, delta, rated_at, games,
                   row_number() OVER (PARTITION BY player_id ORDER BY sequence DESC) AS rn,
                   CASE WHEN kind = 'game' THEN row_number()
                        OVER (PARTITION BY player_id, kind ORDER BY sequence DESC) END AS gn
            FROM rating_changes
            WHERE pool_id = $1 {filter}
        )
        SELECT player_id,
               max(rating_after) FILTER (WHERE rn = 1) AS rating,
               coalesce(sum(games), 0)::int8 AS games,
               max(rated_at) FILTER (WHERE kind = 'game') AS last_played,
               coalesce(sum(delta) FILTER (WHERE gn <= $2), 0)::float8 AS trend_delta,
               count(*) FILTER (WHERE gn <= $2) AS trend_games,
               max(delta) FILTER (WHERE gn = 1) AS last_delta
        FROM c GROUP BY player_id"
    )
}

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

#[derive(QueryableByName)]
pub(super) struct OlderGames {
    #[diesel(sql_type = diesel::sql_types::Int8)]
    pub(super) player_id: i64,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    pub(super) has_rows: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Int8>)]
    pub(super) sequence: Option<i64>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    pub(super) rated_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Double>)]
    pub(super) delta: Option<f64>,
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
    use diesel::sql_types::{Array, Int8};
    let affected: Vec<i64> = touched.iter().copied().collect();
    if affected.is_empty() {
        return bump_leaderboard(conn, pool_id);
    }
    let older: Vec<OlderGames> = diesel::sql_query(
        "SELECT p.id AS player_id,
                (SELECT e.sequence FROM rating_changes e
                 WHERE e.player_id = p.id AND e.pool_id + 0 = $1 AND e.sequence < $3
                 ORDER BY e.player_id DESC, e.pool_id DESC, e.sequence DESC
                 LIMIT 1) IS NOT NULL AS has_rows,
                c.sequence, c.rated_at, c.delta
         FROM unnest($2::int8[]) AS p(id)
         LEFT JOIN LATERAL (
             SELECT sequence, rated_at, delta FROM rating_changes c
             WHERE c.player_id = p.id AND c.pool_id + 0 = $1 AND c.sequence < $3
               AND c.kind = 'game'
             ORDER BY c.player_id DESC, c.pool_id DESC, c.sequence DESC LIMIT $4) c ON true",
    )
    .bind::<Int8, _>(pool_id)
    .bind::<Array<Int8>, _>(&affected)
    .bind::<Int8, _>(first_seq)
    .bind::<Int8, _>(TREND_GAMES)
    .load(conn)?;
    // (Only `rating_changes_player_idx`, read backwards, serves this: `pool_id + 0` keeps the
    // primary key (pool_id, sequence, ...) out, which the planner took while the statistics
    // did not know the pool yet, scanning the whole pool's log before `first_seq` once per
    // player: completing a round of a new 1,000-player event cost 22 ms more per round.)

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
            games += i64::from(r.games);
            if r.kind == ChangeKind::Game {
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

pub(super) fn bump_leaderboard(conn: &mut PgConnection, pool_id: i64) -> Result<(), ApiError> {
    diesel::update(rating_pools::table.find(pool_id))
        .set(rating_pools::leaderboard_version.eq(rating_pools::leaderboard_version + 1))
        .execute(conn)?;
    Ok(())
}

/// A `rating_standings` row.
#[derive(Insertable)]
#[diesel(table_name = rating_standings)]
#[diesel(treat_none_as_default_value = false)]
pub(super) struct StandingRow {
    pub(super) pool_id: i64,
    pub(super) player_id: i64,
    pub(super) rating: f64,
    pub(super) games: i64,
    pub(super) last_played: Option<DateTime<Utc>>,
    pub(super) trend_games: i64,
    pub(super) trend_delta: f64,
    pub(super) last_delta: Option<f64>,
}

/// The standings of a whole log (`rows` in sequence order): what [`standings_sql`] computes,
/// done in memory during a full rebuild, which has every row at hand.
pub(super) fn standings_of(pool_id: i64, rows: &[RatingChangeRow]) -> Vec<StandingRow> {
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
