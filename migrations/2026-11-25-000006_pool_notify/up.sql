-- Kept leaderboards invalidated by notifications (issue 16): every change to a rating pool's
-- leaderboard moves its `leaderboard_version` (and a change of its settings its `version`), so
-- a trigger on `rating_pools` announces `pool:<id>` on `tourney_changes` when it commits.
CREATE FUNCTION tourney_pool_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('tourney_changes', 'pool:' || OLD.id);
    ELSE
        PERFORM pg_notify('tourney_changes', 'pool:' || NEW.id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER rating_pools_change_notify AFTER INSERT OR UPDATE OR DELETE ON rating_pools
    FOR EACH ROW EXECUTE FUNCTION tourney_pool_notify();
