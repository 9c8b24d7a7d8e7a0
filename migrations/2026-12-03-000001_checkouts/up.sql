-- Issue 32, item 6: a tournament checked out to another instance (a venue that runs offline).
-- While checked out, the central copy is read-only: a trigger on every table of the tournament
-- refuses writes (SQLSTATE TC001, detail: where it runs), except the check-in's own, which sets
-- `tourney.checkin` for its transaction.
ALTER TABLE tournaments
    ADD COLUMN checked_out_to TEXT,
    ADD COLUMN checked_out_at TIMESTAMPTZ;

CREATE TABLE tournament_checkouts (
    id             BIGSERIAL PRIMARY KEY,
    tournament_id  BIGINT NOT NULL REFERENCES tournaments (id),
    runs_at        TEXT NOT NULL,
    -- The central content at check-out (the archive's content), to tell what changed since.
    base           JSONB NOT NULL,
    checked_out_by BIGINT NOT NULL REFERENCES users (id),
    checked_out_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    state          TEXT NOT NULL DEFAULT 'out' CHECK (state IN ('out', 'in', 'broken')),
    closed_by      BIGINT REFERENCES users (id),
    closed_at      TIMESTAMPTZ,
    reason         TEXT
);
CREATE UNIQUE INDEX tournament_checkouts_one_out ON tournament_checkouts (tournament_id)
    WHERE state = 'out';

CREATE FUNCTION tourney_checkout_guard() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    r record;
    tid bigint;
    runs text;
BEGIN
    IF coalesce(current_setting('tourney.checkin', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF TG_ARGV[0] = 'tournament_id' THEN
        tid := r.tournament_id;
    ELSIF TG_ARGV[0] = 'round_id' THEN
        SELECT tournament_id INTO tid FROM rounds WHERE id = r.round_id;
    ELSE
        SELECT tournament_id INTO tid FROM cases WHERE id = r.case_id;
    END IF;
    SELECT checked_out_to INTO runs FROM tournaments WHERE id = tid;
    IF runs IS NOT NULL THEN
        RAISE EXCEPTION 'checked_out' USING ERRCODE = 'TC001', DETAIL = runs;
    END IF;
    RETURN NULL;
END $$;

-- The tournament's own row: only the check-out columns change while it is out.
CREATE FUNCTION tourney_checkout_guard_tournament() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF coalesce(current_setting('tourney.checkin', true), '') <> 'on'
       AND OLD.checked_out_to IS NOT NULL
       AND NEW.checked_out_to IS NOT DISTINCT FROM OLD.checked_out_to THEN
        RAISE EXCEPTION 'checked_out' USING ERRCODE = 'TC001', DETAIL = OLD.checked_out_to;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER checkout_guard BEFORE UPDATE ON tournaments
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard_tournament();
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON tournament_staff
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON registrations
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON teams
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON rounds
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON withdrawals
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON penalties
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON cases
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON game_schedules
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON round_draws
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('round_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON results
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('round_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON result_reports
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('round_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON schedule_messages
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('round_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON case_parties
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('case_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON case_panel
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('case_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON votes
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('case_id');
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON case_events
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('case_id');
