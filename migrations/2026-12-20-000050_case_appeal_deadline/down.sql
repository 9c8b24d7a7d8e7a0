ALTER TABLE cases DROP COLUMN appeal_until;
