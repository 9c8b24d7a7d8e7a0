DELETE FROM account_tokens WHERE purpose = 'email_change';
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_email_change_has_email;
ALTER TABLE account_tokens DROP COLUMN email;
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('verify', 'reset'));
