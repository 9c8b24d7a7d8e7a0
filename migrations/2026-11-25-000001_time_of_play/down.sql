ALTER TABLE rounds DROP CONSTRAINT rounds_completed_played_check;
ALTER TABLE rounds DROP COLUMN played_at_fixed, DROP COLUMN played_at;
