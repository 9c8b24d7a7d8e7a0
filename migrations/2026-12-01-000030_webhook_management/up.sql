-- Webhooks you can manage (issue 30, items 5 and 6).
ALTER TABLE webhook_endpoints
    -- Paused: events still queue, nothing is sent until it is resumed.
    ADD COLUMN paused BOOLEAN NOT NULL DEFAULT false,
    -- A rotated-out secret keeps signing beside the new one until previous_secret_until.
    ADD COLUMN previous_secret TEXT,
    ADD COLUMN previous_secret_until TIMESTAMPTZ,
    -- The last failed attempt's cause, and the last success.
    ADD COLUMN last_error TEXT,
    ADD COLUMN last_error_at TIMESTAMPTZ,
    ADD COLUMN last_delivered_at TIMESTAMPTZ,
    -- A deleted subscription sends nothing more; it and its delivery log are removed 30 days
    -- later.
    ADD COLUMN deleted_at TIMESTAMPTZ,
    ADD CONSTRAINT webhook_endpoints_previous_secret_check
        CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL));

-- `webhook-id`: random (128 bits), so it never repeats, even after the database is rebuilt
-- (receivers de-duplicate on it). Existing deliveries get one each.
ALTER TABLE webhook_deliveries
    ADD COLUMN message_id TEXT NOT NULL
        DEFAULT 'msg_' || replace(gen_random_uuid()::text, '-', ''),
    -- A ping belongs to no event.
    ALTER COLUMN event_id DROP NOT NULL;
CREATE UNIQUE INDEX webhook_deliveries_message_id_idx ON webhook_deliveries (message_id);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);
