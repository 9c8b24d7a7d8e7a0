ALTER TABLE rounds ALTER COLUMN draw TYPE jsonb USING draw::jsonb;
ALTER TABLE round_draws
    ALTER COLUMN draw TYPE jsonb USING draw::jsonb,
    ALTER COLUMN draw_input TYPE jsonb USING draw_input::jsonb;
