-- Signed webhooks (issue 17, item 3). The outboxes are written in the transaction of the change
-- itself: tournament_events (already) for tournaments, pool_events (below, by trigger) for the
-- leaderboards of rating pools. A delivery job turns new outbox rows into deliveries per
-- subscribed endpoint and sends them.
CREATE TABLE pool_events (
    id         BIGSERIAL PRIMARY KEY,
    pool_id    BIGINT NOT NULL REFERENCES rating_pools (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    payload    JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX pool_events_pool_idx ON pool_events (pool_id, id);

CREATE FUNCTION pool_leaderboard_changed() RETURNS trigger AS $$
BEGIN
    IF NEW.leaderboard_version IS DISTINCT FROM OLD.leaderboard_version THEN
        INSERT INTO pool_events (pool_id, kind, payload)
        VALUES (NEW.id, 'leaderboard_changed',
                jsonb_build_object('leaderboard_version', NEW.leaderboard_version));
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER rating_pools_leaderboard_changed AFTER UPDATE ON rating_pools
    FOR EACH ROW EXECUTE FUNCTION pool_leaderboard_changed();

CREATE TABLE webhook_endpoints (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT REFERENCES tournaments (id) ON DELETE CASCADE,
    pool_id       BIGINT REFERENCES rating_pools (id) ON DELETE CASCADE,
    url           TEXT NOT NULL,
    kinds         TEXT[] NOT NULL,
    -- Kept readable: it signs every delivery (Standard Webhooks `whsec_` form).
    secret        TEXT NOT NULL,
    -- The last outbox row turned into deliveries (rows after it are new).
    cursor_id     BIGINT NOT NULL,
    created_by    BIGINT NOT NULL REFERENCES users (id),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((tournament_id IS NULL) <> (pool_id IS NULL))
);

CREATE TABLE webhook_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    endpoint_id     BIGINT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        BIGINT NOT NULL,
    kind            TEXT NOT NULL,
    body            JSONB NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_status     INTEGER,
    last_error      TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    delivered_at    TIMESTAMPTZ,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending';
