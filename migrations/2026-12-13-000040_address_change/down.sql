UPDATE mail_outbox SET kind = 'notice' WHERE kind IN ('email_change', 'email_change_notice');
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_known;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_known
    CHECK (kind IN ('verify', 'already_registered', 'reset', 'invitation', 'claim_decided', 'notice'));
DELETE FROM account_tokens WHERE purpose = 'email_change';
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_email_change_has_email;
ALTER TABLE account_tokens DROP COLUMN email;
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('verify', 'reset'));
