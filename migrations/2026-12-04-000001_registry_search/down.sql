DROP INDEX rating_changes_player_order_idx;
DROP INDEX tournaments_country_idx;
DROP INDEX tournaments_name_id_idx;
DROP INDEX tournaments_starts_id_idx;
DROP INDEX players_country_name_id_idx;
DROP INDEX players_name_id_idx;
DROP INDEX tournaments_name_trgm_idx;
DROP INDEX players_name_trgm_idx;
ALTER TABLE tournaments DROP COLUMN country;
ALTER TABLE tournaments DROP COLUMN name_folded;
ALTER TABLE players DROP COLUMN name_folded;
DROP FUNCTION tourney_like_pattern(text);
DROP FUNCTION tourney_fold(text);
-- The extensions stay: other databases' objects may use them, and they hold no data.
