-- The draws and draw inputs are documents the service writes and reads whole: no query looks
-- inside them. As jsonb, every write parsed them into PostgreSQL's binary form (each of the
-- thousands of ratings and scores of a 1,000-player input into a numeric) and every read printed
-- them back as text; as json they are stored and read as the text they are. Measured on round
-- 7's input (136 kB) and draw (74 kB): written in 0.48 ms and 0.41 ms instead of 2.1 ms and
-- 0.96 ms, and read as text in half the time. The lz4 compression set before stays.
ALTER TABLE rounds ALTER COLUMN draw TYPE json USING draw::json;
ALTER TABLE round_draws
    ALTER COLUMN draw TYPE json USING draw::json,
    ALTER COLUMN draw_input TYPE json USING draw_input::json;
DO $$
BEGIN
    ALTER TABLE rounds ALTER COLUMN draw SET COMPRESSION lz4;
    ALTER TABLE round_draws ALTER COLUMN draw SET COMPRESSION lz4;
    ALTER TABLE round_draws ALTER COLUMN draw_input SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available: draws stay compressed with pglz';
END
$$;
