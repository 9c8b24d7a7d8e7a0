DROP TRIGGER rating_pools_search_reset ON rating_pools;
DROP TRIGGER rating_pools_search_due ON rating_pools;
DROP TRIGGER rating_pools_name_notify ON rating_pools;
DROP FUNCTION tourney_notify_row_id();
