DROP INDEX tournaments_pool_rating_idx;
ALTER TABLE tournaments DROP CONSTRAINT tournaments_rating_status_with_pool;
DROP TABLE rating_decisions;
ALTER TABLE tournaments
    DROP COLUMN rating_status,
    DROP COLUMN rating_reason,
    DROP COLUMN rating_decided_by,
    DROP COLUMN rating_decided_at;
ALTER TABLE rating_pools DROP COLUMN open;
DROP TABLE pool_keepers;
