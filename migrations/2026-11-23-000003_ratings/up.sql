-- Ratings: rating pools (one Elo list each), the rating change log every leaderboard, history,
-- season and seeding read, and the tournament's pool and league fields.

CREATE TABLE rating_pools (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT NOT NULL,
    -- The engine's RatingPoolParams as JSON (initial rating, K, scale, draws, ...).
    params     JSONB NOT NULL,
    -- IANA zone of the pool's calendar: season dates and the 22:00 standings cutoff.
    time_zone  TEXT NOT NULL,
    -- [{ "name", "first_day", "last_day" }] in date order, local dates.
    seasons    JSONB NOT NULL DEFAULT '[]'::jsonb,
    -- League rules apply (Ashes: announced 7 days ahead, at least 4 players count).
    league     BOOLEAN NOT NULL DEFAULT FALSE,
    created_by BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    version    INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT rating_pools_name_key UNIQUE (name)
);

ALTER TABLE tournaments
    ADD COLUMN rating_pool_id BIGINT REFERENCES rating_pools (id),
    ADD COLUMN national_rank  BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN announced_at   TIMESTAMPTZ;
CREATE INDEX tournaments_rating_pool_idx ON tournaments (rating_pool_id);

-- One row per player per rated game, in the pool's time order. `sequence` numbers the rated
-- games of a pool in that order (round completion time, then round id, then table number);
-- a recompute deletes the rows from the first affected game on and writes them again.
CREATE TABLE rating_changes (
    pool_id        BIGINT NOT NULL REFERENCES rating_pools (id) ON DELETE CASCADE,
    sequence       BIGINT NOT NULL,
    player_id      BIGINT NOT NULL REFERENCES players (id),
    kind           TEXT NOT NULL,
    tournament_id  BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round_id       BIGINT NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    -- The table (team duplicate: table A of the match).
    table_number   INTEGER NOT NULL,
    -- The result version rated (team duplicate: the sum of both tables' versions).
    result_version INTEGER NOT NULL,
    rated_at       TIMESTAMPTZ NOT NULL,
    rating_before  DOUBLE PRECISION NOT NULL,
    rating_after   DOUBLE PRECISION NOT NULL,
    delta          DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (pool_id, sequence, player_id),
    CONSTRAINT rating_changes_kind_check CHECK (kind IN ('game', 'bonus'))
);
CREATE INDEX rating_changes_order_idx
    ON rating_changes (pool_id, rated_at, round_id, table_number);
CREATE INDEX rating_changes_player_idx ON rating_changes (player_id, pool_id, sequence);
CREATE INDEX rating_changes_tournament_idx ON rating_changes (pool_id, tournament_id, sequence);
