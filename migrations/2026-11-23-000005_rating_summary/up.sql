-- The current standings of every rating pool, kept by the rating feed in the same transaction
-- as the change log (`rating_changes`), so a leaderboard page is an indexed read instead of a
-- pass over the whole log; and a pool-level counter bumped on every change of the log (or of a
-- listed player's name, club or country) that the leaderboard's ETag is derived from.

ALTER TABLE rating_pools ADD COLUMN leaderboard_version BIGINT NOT NULL DEFAULT 1;

-- One row per player with at least one change in the pool; equal to an aggregate of the log.
CREATE TABLE rating_standings (
    pool_id     BIGINT NOT NULL REFERENCES rating_pools (id) ON DELETE CASCADE,
    player_id   BIGINT NOT NULL REFERENCES players (id),
    -- `rating_after` of the player's latest change (game or bonus).
    rating      DOUBLE PRECISION NOT NULL,
    -- Rated games (bonus items are not games).
    games       BIGINT NOT NULL,
    -- Completion time of the latest rated game.
    last_played TIMESTAMPTZ,
    -- The trend: the last (at most 5) rated games, the sum of their changes, and the change of
    -- the latest one.
    trend_games BIGINT NOT NULL,
    trend_delta DOUBLE PRECISION NOT NULL,
    last_delta  DOUBLE PRECISION,
    PRIMARY KEY (pool_id, player_id)
);
CREATE INDEX rating_standings_order_idx
    ON rating_standings (pool_id, rating DESC, games DESC, player_id);
CREATE INDEX rating_standings_player_idx ON rating_standings (player_id);

-- The standings of the pools that already have a log.
WITH c AS (
    SELECT pool_id, player_id, kind, rating_after, delta, rated_at,
           row_number() OVER (PARTITION BY pool_id, player_id ORDER BY sequence DESC) AS rn,
           CASE WHEN kind = 'game' THEN row_number()
                OVER (PARTITION BY pool_id, player_id, kind ORDER BY sequence DESC) END AS gn
    FROM rating_changes
)
INSERT INTO rating_standings
    (pool_id, player_id, rating, games, last_played, trend_games, trend_delta, last_delta)
SELECT pool_id, player_id,
       max(rating_after) FILTER (WHERE rn = 1),
       count(*) FILTER (WHERE kind = 'game'),
       max(rated_at) FILTER (WHERE kind = 'game'),
       count(*) FILTER (WHERE gn <= 5),
       coalesce(sum(delta) FILTER (WHERE gn <= 5), 0)::float8,
       max(delta) FILTER (WHERE gn = 1)
FROM c GROUP BY pool_id, player_id;
