-- Kept registry reads (issue 31, item 3): a player's profile and the first pages of the player
-- and tournament lists are kept per instance like a tournament's reads (`infra::kept`). Every
-- committed change to a player announces `player:<id>` (the profile, and the list of players),
-- every committed change to the tournaments table announces `tournaments` (the list; once per
-- statement, and PostgreSQL folds repeats within a transaction). The list of pools follows the
-- `pool:<id>` announcements of migration `pool_notify`.
CREATE FUNCTION tourney_player_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('tourney_changes', 'player:' || OLD.id);
    ELSE
        PERFORM pg_notify('tourney_changes', 'player:' || NEW.id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE FUNCTION tourney_tournament_list_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tourney_changes', 'tournaments');
    RETURN NULL;
END;
$$;

CREATE TRIGGER players_registry_notify AFTER INSERT OR UPDATE OR DELETE ON players
    FOR EACH ROW EXECUTE FUNCTION tourney_player_notify();
CREATE TRIGGER tournaments_registry_notify AFTER INSERT OR UPDATE OR DELETE ON tournaments
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_tournament_list_notify();
