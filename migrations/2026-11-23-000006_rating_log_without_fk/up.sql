-- The rating log is derived data: one writer (the rating feed) deletes and rewrites it from the
-- results it has just read in the same transaction, so its ids always name existing rows, and
-- no pool, tournament, round or player is ever deleted. Its four foreign keys cost a lookup
-- and a row lock per key per written row (8 M checks for a rebuild of a 1 M-game pool, most
-- of the rebuild's time), so they go.
ALTER TABLE rating_changes
    DROP CONSTRAINT rating_changes_pool_id_fkey,
    DROP CONSTRAINT rating_changes_player_id_fkey,
    DROP CONSTRAINT rating_changes_tournament_id_fkey,
    DROP CONSTRAINT rating_changes_round_id_fkey;

-- The national-rank bonus items of a pool, which every feed compares with the bonuses due:
-- without this index that comparison scans the pool's whole log.
CREATE INDEX rating_changes_bonus_idx ON rating_changes (pool_id, sequence) WHERE kind = 'bonus';

-- Finding where a recompute starts is a binary search over `sequence` (the primary key), which
-- follows the order key densely, so the order-key index (a fifth index to maintain on every
-- written row) goes.
DROP INDEX rating_changes_order_idx;
