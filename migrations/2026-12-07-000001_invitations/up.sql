-- Invitations (issue 29, item 4): an organiser invites an address to a tournament, optionally
-- as a given player. The code in the message is stored as its SHA-256 only; an invitation
-- works once (accepted_at), until it expires (14 days) or is revoked (revoked_at).
CREATE TABLE invitations (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    email         TEXT NOT NULL,
    player_id     BIGINT REFERENCES players (id) ON DELETE SET NULL,
    message       TEXT,
    invited_by    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    token_hash    BYTEA NOT NULL UNIQUE,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ NOT NULL,
    revoked_at    TIMESTAMPTZ,
    accepted_at   TIMESTAMPTZ,
    accepted_by   BIGINT REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX invitations_tournament_idx ON invitations (tournament_id, id);
CREATE INDEX invitations_player_idx ON invitations (player_id);
CREATE INDEX invitations_invited_by_idx ON invitations (invited_by);
CREATE INDEX invitations_accepted_by_idx ON invitations (accepted_by);
