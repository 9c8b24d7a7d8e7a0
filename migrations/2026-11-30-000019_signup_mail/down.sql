DROP TABLE mail_outbox;
DROP TABLE account_tokens;
DROP INDEX users_email_lower_key;
DROP INDEX users_username_lower_key;
ALTER TABLE users DROP COLUMN language, DROP COLUMN email_verified_at, DROP COLUMN email;
