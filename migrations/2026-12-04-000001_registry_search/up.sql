-- Search that ignores case and diacritics (issue 31, item 2) and keyset pagination (item 1).
-- Both extensions ship with PostgreSQL's contrib package and are trusted (PostgreSQL 13+).
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;

-- The folded form a name is searched by: decomposed for compatibility (NFKD, so full-width and
-- ligature forms match and every accent is a combining mark), stripped of diacritics by unaccent's rules (which map ø, æ, å, ł, ð,
-- þ, ß, œ and the combining marks of decomposed input), after lower case (so the capital sharp s
-- folds as ß does). `translate` covers what the rules file leaves alone (the dotless j, the
-- apostrophes that keyboards differ on, the Catalan middle dot, dropped). Letters with no base
-- letter (ə, ɔ, ʒ) stay themselves, in lower case. IMMUTABLE so a generated column and an index can use it: the rules
-- file is part of the installation, and an upgrade that changed it would be followed by a
-- rewrite of the columns (`UPDATE players SET name = name`).
CREATE FUNCTION tourney_fold(value text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN translate(
        public.unaccent('public.unaccent'::regdictionary, lower(normalize(value, NFKD))),
        'ȷ’ʼ‘`´·',
        'j' || repeat('''', 5));

-- The LIKE pattern that finds a search text anywhere in a folded name: folded the same way,
-- its wildcards escaped after folding (NFKD turns a full-width percent sign into a wildcard).
CREATE FUNCTION tourney_like_pattern(query text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN '%' || replace(replace(replace(tourney_fold(query), '\', '\\'), '%', '\%'), '_', '\_') || '%';

ALTER TABLE players ADD COLUMN name_folded text
    GENERATED ALWAYS AS (tourney_fold(name)) STORED;
ALTER TABLE tournaments ADD COLUMN name_folded text
    GENERATED ALWAYS AS (tourney_fold(name)) STORED;

-- Where a tournament is held (ISO 3166-1 alpha-2), for the country filter.
ALTER TABLE tournaments ADD COLUMN country text CHECK (country ~ '^[A-Z]{2}$');

CREATE INDEX players_name_trgm_idx ON players USING gin (name_folded gin_trgm_ops);
CREATE INDEX tournaments_name_trgm_idx ON tournaments USING gin (name_folded gin_trgm_ops);
-- Keyset order of the player list (name, then id), also within a country.
CREATE INDEX players_name_id_idx ON players (name, id);
CREATE INDEX players_country_name_id_idx ON players (country, name, id);
-- Keyset orders of the tournament list.
CREATE INDEX tournaments_starts_id_idx ON tournaments (starts_on, id);
CREATE INDEX tournaments_name_id_idx ON tournaments (name, id);
CREATE INDEX tournaments_country_idx ON tournaments (country, starts_on, id);
-- Keyset order of a player's rating history (oldest first, as the pool rated them).
CREATE INDEX rating_changes_player_order_idx
    ON rating_changes (player_id, rated_at, pool_id, sequence);
