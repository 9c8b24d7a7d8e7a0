DROP TRIGGER checkout_guard ON invitations;
