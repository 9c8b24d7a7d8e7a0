DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
DROP TRIGGER rating_pools_leaderboard_changed ON rating_pools;
DROP FUNCTION pool_leaderboard_changed();
DROP TABLE pool_events;
