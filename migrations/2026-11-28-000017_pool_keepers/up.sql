-- Rating lists their keepers trust (issue 26). A pool is kept by its keepers (a per-pool role
-- granted by an admin or another keeper); a tournament that names a pool asks to be rated, and
-- its games feed the pool only once a keeper accepts it (or at once in an open pool, or when a
-- keeper or an admin created it).
CREATE TABLE pool_keepers (
    pool_id    BIGINT NOT NULL REFERENCES rating_pools (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    granted_by BIGINT NOT NULL REFERENCES users (id),
    granted_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (pool_id, user_id)
);
-- "Which pools does this user keep" (the caller's access checks).
CREATE INDEX pool_keepers_user_idx ON pool_keepers (user_id, pool_id);

-- An open pool accepts every tournament on request (a casual club list); closed by default.
ALTER TABLE rating_pools ADD COLUMN open BOOLEAN NOT NULL DEFAULT false;

-- The rating request of a tournament, as it stands: NULL without a pool.
ALTER TABLE tournaments
    ADD COLUMN rating_status TEXT
        CHECK (rating_status IN ('pending', 'accepted', 'refused', 'withdrawn')),
    ADD COLUMN rating_reason TEXT,
    ADD COLUMN rating_decided_by BIGINT REFERENCES users (id),
    ADD COLUMN rating_decided_at TIMESTAMPTZ;

-- Every request and decision, in order (the history on the tournament).
CREATE TABLE rating_decisions (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    pool_id       BIGINT NOT NULL REFERENCES rating_pools (id) ON DELETE CASCADE,
    rating_status TEXT NOT NULL
        CHECK (rating_status IN ('pending', 'accepted', 'refused', 'withdrawn')),
    reason        TEXT,
    -- Set by a keeper accepting into a league pool: when the event was announced elsewhere.
    announced_at  TIMESTAMPTZ,
    decided_by    BIGINT NOT NULL REFERENCES users (id),
    decided_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX rating_decisions_tournament_idx ON rating_decisions (tournament_id, id);

-- Upgrade: tournaments attached to pools before keepers existed were rated; they stay accepted,
-- so no list changes (item 4). The decision is recorded in the tournament's history.
UPDATE tournaments
SET rating_status = 'accepted',
    rating_reason = 'attached to the pool before tournaments needed acceptance',
    rating_decided_by = created_by,
    rating_decided_at = now()
WHERE rating_pool_id IS NOT NULL;
INSERT INTO rating_decisions (tournament_id, pool_id, rating_status, reason, decided_by)
SELECT id, rating_pool_id, 'accepted', rating_reason, created_by
FROM tournaments WHERE rating_pool_id IS NOT NULL ORDER BY id;

ALTER TABLE tournaments ADD CONSTRAINT tournaments_rating_status_with_pool
    CHECK ((rating_pool_id IS NULL) = (rating_status IS NULL));
-- The pools' queues of requests (keepers list them by status).
CREATE INDEX tournaments_pool_rating_idx ON tournaments (rating_pool_id, rating_status)
    WHERE rating_pool_id IS NOT NULL;
