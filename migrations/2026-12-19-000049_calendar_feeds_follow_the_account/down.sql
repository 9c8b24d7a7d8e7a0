DROP TRIGGER players_calendar_feed_follows_account ON players;
DROP FUNCTION tourney_calendar_feed_forgotten();
