-- The live feed from notifications (issue 16): every event row announces itself on channel
-- `tourney_events` with its id. PostgreSQL delivers the notification when the transaction that
-- wrote the event commits (never for a rolled-back one), to every instance listening.
CREATE FUNCTION tourney_event_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tourney_events', NEW.id::text);
    RETURN NEW;
END;
$$;

CREATE TRIGGER tournament_events_notify
    AFTER INSERT ON tournament_events
    FOR EACH ROW EXECUTE FUNCTION tourney_event_notify();
