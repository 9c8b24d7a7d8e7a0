-- Invitations to a tournament are part of it: while it is checked out to a venue, the central
-- copy refuses new, revoked or accepted invitations as it refuses every other change
-- (migration `checkouts`; tests/api/checkouts.rs lists every table of a tournament).
CREATE TRIGGER checkout_guard AFTER INSERT OR UPDATE OR DELETE ON invitations
    FOR EACH ROW EXECUTE FUNCTION tourney_checkout_guard('tournament_id');
