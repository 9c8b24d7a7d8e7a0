DROP INDEX webhook_deliveries_endpoint_idx;
DROP INDEX webhook_deliveries_message_id_idx;
DELETE FROM webhook_deliveries WHERE event_id IS NULL;
ALTER TABLE webhook_deliveries
    ALTER COLUMN event_id SET NOT NULL,
    DROP COLUMN message_id;
DELETE FROM webhook_endpoints WHERE deleted_at IS NOT NULL;
ALTER TABLE webhook_endpoints
    DROP CONSTRAINT webhook_endpoints_previous_secret_check,
    DROP COLUMN deleted_at,
    DROP COLUMN last_delivered_at,
    DROP COLUMN last_error_at,
    DROP COLUMN last_error,
    DROP COLUMN previous_secret_until,
    DROP COLUMN previous_secret,
    DROP COLUMN paused;
