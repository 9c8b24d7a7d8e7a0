DROP TRIGGER tournament_events_notify ON tournament_events;
DROP FUNCTION tourney_event_notify();
