ALTER TABLE account_tokens DROP COLUMN password_hash;
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_known;
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_body_until_done;
UPDATE mail_outbox SET body = '' WHERE body IS NULL;
ALTER TABLE mail_outbox ALTER COLUMN body SET NOT NULL;
ALTER TABLE mail_outbox DROP COLUMN message_id;
ALTER TABLE mail_outbox DROP COLUMN kind;
