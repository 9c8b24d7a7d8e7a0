-- The registry's lists (players, tournaments, rating pools) order names by their bytes
-- (`COLLATE "C"`) in every database, not by the database's collation: an instance's search
-- index orders by the bytes, and until now answered only in a database created with the `C`
-- collation (a managed PostgreSQL made `en_US.UTF-8`, or one whose default collation is ICU's,
-- had every search answered by PostgreSQL, and the latter the two orders mixed). The keyset
-- indexes follow the order they serve.
DROP INDEX players_name_id_idx;
DROP INDEX players_country_name_id_idx;
DROP INDEX tournaments_name_id_idx;
DROP INDEX rating_pools_name_id_idx;
CREATE INDEX players_name_id_idx ON players (name COLLATE "C", id);
CREATE INDEX players_country_name_id_idx ON players (country, name COLLATE "C", id);
CREATE INDEX tournaments_name_id_idx ON tournaments (name COLLATE "C", id);
CREATE INDEX rating_pools_name_id_idx ON rating_pools (name COLLATE "C", id);
