-- The instance's search index (issue 42): a tournament's name, as it is added or renamed,
-- announces `tournament-name:<id>` on `tourney_changes`, so that every instance re-reads that
-- one name. (The list's statement-level `tournaments` announcement names no row; players
-- already announce `player:<id>`.) Nothing deletes tournaments.
CREATE FUNCTION tourney_tournament_name_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tourney_changes', 'tournament-name:' || NEW.id);
    RETURN NULL;
END;
$$;

CREATE TRIGGER tournaments_name_notify AFTER INSERT OR UPDATE OF name ON tournaments
    FOR EACH ROW EXECUTE FUNCTION tourney_tournament_name_notify();
