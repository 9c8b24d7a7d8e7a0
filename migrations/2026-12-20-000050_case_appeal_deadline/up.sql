-- A decision's appeal deadline is fixed when the decision is given: changing the tournament's
-- appeal window later neither reopens a decision already final nor closes an appeal still
-- allowed. Decisions stored before this column get the deadline of the current window.
ALTER TABLE cases ADD COLUMN appeal_until TIMESTAMPTZ;
UPDATE cases c
    SET appeal_until = c.decided_at + make_interval(mins => t.appeal_window_minutes)
    FROM tournaments t
    WHERE t.id = c.tournament_id AND c.decided_at IS NOT NULL;
