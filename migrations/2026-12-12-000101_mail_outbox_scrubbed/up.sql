-- Issue 37, item 1: a message's body (which may hold a verification, reset or invitation code)
-- is kept only until the message is sent or given up; what an operator needs stays (recipient,
-- subject, kind, times, attempts, last error). Issue 37, item 6: every message has its own
-- random Message-ID, so messages sent after a restore (whose row ids repeat) never share one.
ALTER TABLE mail_outbox ADD COLUMN kind text NOT NULL DEFAULT 'notice';
ALTER TABLE mail_outbox ADD COLUMN message_id text NOT NULL
    DEFAULT replace(gen_random_uuid()::text, '-', '');
ALTER TABLE mail_outbox ALTER COLUMN body DROP NOT NULL;

-- Messages written before this migration: their kind from the code they hold.
UPDATE mail_outbox SET kind = CASE
    WHEN body ~ '\mev_[A-Za-z0-9]' THEN 'verify'
    WHEN body ~ '\mpr_[A-Za-z0-9]' THEN 'reset'
    WHEN body ~ '\min_[A-Za-z0-9]' THEN 'invitation'
    ELSE 'notice' END;

-- Already sent or given up: the body (and its code) goes.
UPDATE mail_outbox SET body = NULL WHERE sent_at IS NOT NULL OR failed_at IS NOT NULL;

-- A waiting message has its text; a sent or given-up one has none.
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_body_until_done
    CHECK ((body IS NULL) = (sent_at IS NOT NULL OR failed_at IS NOT NULL));
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_known
    CHECK (kind IN ('verify', 'already_registered', 'reset', 'invitation', 'claim_decided', 'notice'));

-- Issue 37, item 6: a verification code sent for a sign-up carries that sign-up's password hash;
-- redeeming the code sets it, so the password of the sign-up whose code verifies the address is
-- the one that holds (never one chosen by someone else who signed up with the same address).
ALTER TABLE account_tokens ADD COLUMN password_hash text
    CHECK (password_hash IS NULL OR purpose = 'verify');
