DROP TRIGGER rating_pools_change_notify ON rating_pools;
DROP FUNCTION tourney_pool_notify();
