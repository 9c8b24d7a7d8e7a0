DROP INDEX rating_pools_name_id_idx;
DROP INDEX rating_pools_name_trgm_idx;
ALTER TABLE rating_pools DROP COLUMN name_folded;
