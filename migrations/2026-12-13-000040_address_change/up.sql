-- Issue 40, item 4: a person changes their own address. The change waits for a code sent to
-- the new address (24 h, purpose `email_change`); the code row holds the address it confirms.
-- Until then the account keeps its address, and `GET /me` shows the pending one.
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('verify', 'reset', 'email_change'));
ALTER TABLE account_tokens ADD COLUMN email text;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_email_change_has_email
    CHECK ((purpose = 'email_change') = (email IS NOT NULL));
-- The two messages of an address change: the code to the new address, the notice to the old.
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_known;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_known
    CHECK (kind IN ('verify', 'already_registered', 'reset', 'invitation', 'claim_decided',
                    'notice', 'email_change', 'email_change_notice'));
