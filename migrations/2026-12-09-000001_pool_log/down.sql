ALTER TABLE rating_pools
    DROP COLUMN log_rewritten_from,
    DROP COLUMN log_rewrites;
