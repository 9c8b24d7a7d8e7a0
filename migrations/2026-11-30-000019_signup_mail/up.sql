-- Sign-up, e-mail and password reset (issue 29). An account may have an e-mail address
-- (verified before a self-made account can sign in) and the language its messages are written
-- in. Usernames and addresses are unique without regard to case.
ALTER TABLE users
    ADD COLUMN email TEXT,
    ADD COLUMN email_verified_at TIMESTAMPTZ,
    ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
        CHECK (language IN ('en', 'nb', 'pl', 'de', 'zh-Hant'));
CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

-- One-time codes sent by e-mail, stored as their SHA-256 only: address verification (24 h)
-- and password reset (1 h). A code works once (used_at).
CREATE TABLE account_tokens (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
    token_hash BYTEA NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);
CREATE INDEX account_tokens_user_idx ON account_tokens (user_id);

-- The mail outbox: written in the transaction of the change that causes a message, sent by
-- the background job (claimed under a lease other instances skip), retried with backoff for a
-- day. sent_at marks a message the SMTP server accepted; failed_at one given up.
CREATE TABLE mail_outbox (
    id              BIGSERIAL PRIMARY KEY,
    user_id         BIGINT REFERENCES users (id) ON DELETE CASCADE,
    to_address      TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    sent_at         TIMESTAMPTZ,
    failed_at       TIMESTAMPTZ,
    last_error      TEXT
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at)
    WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX mail_outbox_user_idx ON mail_outbox (user_id);
