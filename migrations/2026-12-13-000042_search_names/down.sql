DROP TRIGGER tournaments_name_notify ON tournaments;
DROP FUNCTION tourney_tournament_name_notify();
