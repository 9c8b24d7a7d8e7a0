DROP TABLE rating_changes;
DROP INDEX tournaments_rating_pool_idx;
ALTER TABLE tournaments
    DROP COLUMN announced_at,
    DROP COLUMN national_rank,
    DROP COLUMN rating_pool_id;
DROP TABLE rating_pools;
