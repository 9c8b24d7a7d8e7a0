-- Issue 41 item 4: a player's private calendar feed. The URL's token is shown once; only its
-- SHA-256 is kept. One feed per player: rotating replaces the row, revoking deletes it.
CREATE TABLE calendar_feeds (
    player_id BIGINT PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
);
