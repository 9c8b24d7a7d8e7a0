DROP INDEX players_name_id_idx;
DROP INDEX players_country_name_id_idx;
DROP INDEX tournaments_name_id_idx;
DROP INDEX rating_pools_name_id_idx;
CREATE INDEX players_name_id_idx ON players (name, id);
CREATE INDEX players_country_name_id_idx ON players (country, name, id);
CREATE INDEX tournaments_name_id_idx ON tournaments (name, id);
CREATE INDEX rating_pools_name_id_idx ON rating_pools (name, id);
