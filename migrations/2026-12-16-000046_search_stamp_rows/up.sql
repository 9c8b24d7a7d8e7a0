-- The search index answers the players' searches from memory (issue 42): it holds what the
-- players' list shows of each player (club, linked account, times), not only the name and
-- country, so every committed change to a player row moves the search stamp (migration
-- `search_stamp`), and a search answered from memory sees it.
DROP TRIGGER players_search_due ON players;
CREATE TRIGGER players_search_due AFTER INSERT OR DELETE OR UPDATE ON players
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_due();
