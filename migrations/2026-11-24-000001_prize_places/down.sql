ALTER TABLE tournaments DROP COLUMN prize_places, DROP COLUMN qualification_places;
