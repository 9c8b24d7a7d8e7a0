-- Kept reads invalidated by notifications (issue 16): every change to what a tournament's
-- public reads are made of (the tournament, its staff, registrations, teams, rounds and their
-- draws, results, withdrawals, penalties, and the names of its players) announces the
-- tournament's id on channel `tourney_changes`. PostgreSQL delivers it when the transaction
-- commits (never for a rolled-back one) and folds repeats of one id within a transaction into
-- one; every instance drops what it kept of that tournament (`services::kept`).
CREATE FUNCTION tourney_change_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN
        r := OLD;
    ELSE
        r := NEW;
    END IF;
    CASE TG_ARGV[0]
        WHEN 'id' THEN
            PERFORM pg_notify('tourney_changes', r.id::text);
        WHEN 'tournament' THEN
            PERFORM pg_notify('tourney_changes', r.tournament_id::text);
        WHEN 'round' THEN
            PERFORM pg_notify('tourney_changes', x.tournament_id::text)
            FROM rounds x WHERE x.id = r.round_id;
        WHEN 'player' THEN
            PERFORM pg_notify('tourney_changes', g.tournament_id::text)
            FROM registrations g WHERE g.player_id = r.id;
    END CASE;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tournaments_change_notify AFTER INSERT OR UPDATE OR DELETE ON tournaments
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('id');
CREATE TRIGGER tournament_staff_change_notify AFTER INSERT OR UPDATE OR DELETE ON tournament_staff
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('tournament');
CREATE TRIGGER registrations_change_notify AFTER INSERT OR UPDATE OR DELETE ON registrations
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('tournament');
CREATE TRIGGER teams_change_notify AFTER INSERT OR UPDATE OR DELETE ON teams
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('tournament');
CREATE TRIGGER rounds_change_notify AFTER INSERT OR UPDATE OR DELETE ON rounds
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('tournament');
CREATE TRIGGER withdrawals_change_notify AFTER INSERT OR UPDATE OR DELETE ON withdrawals
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('tournament');
CREATE TRIGGER penalties_change_notify AFTER INSERT OR UPDATE OR DELETE ON penalties
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('tournament');
CREATE TRIGGER round_draws_change_notify AFTER INSERT OR UPDATE OR DELETE ON round_draws
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('round');
CREATE TRIGGER results_change_notify AFTER INSERT OR UPDATE OR DELETE ON results
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('round');
CREATE TRIGGER players_change_notify AFTER UPDATE ON players
    FOR EACH ROW EXECUTE FUNCTION tourney_change_notify('player');
