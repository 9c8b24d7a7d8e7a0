-- Rating pools searched by name as players and tournaments are (2026-12-04-000001_registry_search):
-- the folded name (tourney_fold: case, marks and compatibility forms ignored), its trigram index
-- for `LIKE '%q%'` and `q <% name_folded`, and the keyset order of the list by name.
ALTER TABLE rating_pools ADD COLUMN name_folded text
    GENERATED ALWAYS AS (tourney_fold(name)) STORED;

CREATE INDEX rating_pools_name_trgm_idx ON rating_pools USING gin (name_folded gin_trgm_ops);
CREATE INDEX rating_pools_name_id_idx ON rating_pools (name, id);
