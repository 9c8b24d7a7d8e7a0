DROP TABLE api_keys;
DROP TABLE refresh_tokens;
ALTER TABLE users DROP COLUMN deleted_at, DROP COLUMN disabled_at, DROP COLUMN session_epoch;
