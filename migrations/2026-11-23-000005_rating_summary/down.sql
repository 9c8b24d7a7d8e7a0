DROP TABLE rating_standings;
ALTER TABLE rating_pools DROP COLUMN leaderboard_version;
