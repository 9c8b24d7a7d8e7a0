-- Sessions for apps and keys for scripts (issue 17).
-- session_epoch: every access token names the epoch it was issued in; a password change, a
-- "log out everywhere" or disabling the account bumps it, and older tokens are refused.
-- deleted_at: an account deleted while records refer to it stays as a nameless tombstone.
ALTER TABLE users
    ADD COLUMN session_epoch INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN disabled_at   TIMESTAMPTZ,
    ADD COLUMN deleted_at    TIMESTAMPTZ;

-- Refresh tokens: opaque, stored as SHA-256, rotated on every use. A family is one sign-in and
-- every token rotated from it; presenting a token that was already rotated revokes the family
-- (RFC 9700 section 4.14.2).
CREATE TABLE refresh_tokens (
    id          BIGSERIAL PRIMARY KEY,
    family_id   BIGINT NOT NULL,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash  BYTEA NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL,
    rotated_at  TIMESTAMPTZ,
    revoked_at  TIMESTAMPTZ
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id);

-- API keys: shown once, stored as SHA-256, with scopes and an optional tournament or pool.
CREATE TABLE api_keys (
    id            BIGSERIAL PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    prefix        TEXT NOT NULL,
    key_hash      BYTEA NOT NULL UNIQUE,
    scopes        TEXT[] NOT NULL,
    tournament_id BIGINT REFERENCES tournaments (id) ON DELETE CASCADE,
    pool_id       BIGINT REFERENCES rating_pools (id) ON DELETE CASCADE,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ,
    last_used_at  TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ,
    CHECK (tournament_id IS NULL OR pool_id IS NULL)
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);
