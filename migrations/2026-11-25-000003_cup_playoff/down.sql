ALTER TABLE results DROP COLUMN playoff_winner;
