ALTER TABLE rating_decisions DROP COLUMN kind, DROP COLUMN field, DROP COLUMN old_value,
    DROP COLUMN new_value;
DROP TRIGGER players_link_log_insert ON players;
DROP TRIGGER players_link_log_update ON players;
DROP FUNCTION tourney_player_link_log();
DROP TABLE player_links;
DROP FUNCTION tourney_organises_every_record(BIGINT, BIGINT);
DROP INDEX IF EXISTS case_parties_player_idx;
DROP INDEX IF EXISTS penalties_player_idx;
DROP INDEX IF EXISTS withdrawals_player_idx;
DROP INDEX IF EXISTS registrations_player_idx;
