DROP TRIGGER tournaments_registry_notify ON tournaments;
DROP TRIGGER players_registry_notify ON players;
DROP FUNCTION tourney_tournament_list_notify();
DROP FUNCTION tourney_player_notify();
