DROP TRIGGER players_search_due ON players;
CREATE TRIGGER players_search_due AFTER INSERT OR DELETE OR UPDATE OF name, country ON players
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_due();
