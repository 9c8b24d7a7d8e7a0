ALTER TABLE rounds ADD COLUMN draw_input JSONB NOT NULL DEFAULT '{}'::jsonb;
UPDATE rounds r SET draw_input = d.draw_input
FROM round_draws d WHERE d.round_id = r.id AND d.attempt = r.draw_count;
ALTER TABLE rounds ALTER COLUMN draw_input DROP DEFAULT;
