-- Starting ratings imported from an existing list (issue 14, item 15): the Norwegian Agricola
-- list or the Polish Ashes ranking, taken over at a moment (`applies_at`) and replayed on like
-- any other item of the pool's time order. The import is source data (the rating log is
-- derived from results and imports, and a rebuild writes it again from both).
CREATE TABLE rating_imports (
    id          BIGSERIAL PRIMARY KEY,
    pool_id     BIGINT NOT NULL REFERENCES rating_pools (id) ON DELETE CASCADE,
    applies_at  TIMESTAMPTZ NOT NULL,
    -- Where the list came from ("NAF ranking 2025-12-31"), as the admin named it.
    source      TEXT NOT NULL,
    imported_by BIGINT NOT NULL REFERENCES users (id),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX rating_imports_pool_idx ON rating_imports (pool_id, applies_at);

CREATE TABLE rating_import_rows (
    import_id BIGINT NOT NULL REFERENCES rating_imports (id) ON DELETE CASCADE,
    player_id BIGINT NOT NULL REFERENCES players (id),
    rating    DOUBLE PRECISION NOT NULL,
    -- Rated games the list credits the player with (they count towards the listing threshold).
    games     INTEGER NOT NULL DEFAULT 0 CHECK (games >= 0),
    PRIMARY KEY (import_id, player_id)
);

-- The log's import items (round_id 0, table_number = the import's id), and per row the rated
-- games it adds to the player's count: 1 for a game, 0 for a bonus, the credited games for an
-- import. A player's games are the sum of this column.
ALTER TABLE rating_changes ADD COLUMN games INTEGER NOT NULL DEFAULT 1;
UPDATE rating_changes SET games = 0 WHERE kind = 'bonus';
ALTER TABLE rating_changes DROP CONSTRAINT rating_changes_kind_check;
ALTER TABLE rating_changes ADD CONSTRAINT rating_changes_kind_check
    CHECK (kind IN ('game', 'bonus', 'import'));
