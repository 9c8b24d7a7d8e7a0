-- Claims on players (issue 29, item 5): an account asks to be linked to an existing player;
-- an admin, a keeper of a pool the player is rated in, or an organiser of a tournament the
-- player played approves or refuses (with a reason). One open claim per player and account.
CREATE TABLE player_claims (
    id         BIGSERIAL PRIMARY KEY,
    player_id  BIGINT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    message    TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'approved', 'refused', 'withdrawn')),
    reason     TEXT,
    decided_by BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    decided_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX player_claims_open_key ON player_claims (player_id, user_id)
    WHERE status = 'open';
CREATE INDEX player_claims_user_idx ON player_claims (user_id);
CREATE INDEX player_claims_open_idx ON player_claims (id) WHERE status = 'open';
CREATE INDEX player_claims_decided_by_idx ON player_claims (decided_by);
