-- Tantrix colours (seed 003, 5. Farben): each registered player's first and second choice, and
-- each round's assignment, frozen when the round is drawn (issue 18, item 1).
ALTER TABLE registrations
    ADD COLUMN colour_first  TEXT CHECK (colour_first IN ('red', 'yellow', 'blue', 'green')),
    ADD COLUMN colour_second TEXT CHECK (colour_second IN ('red', 'yellow', 'blue', 'green')),
    ADD CONSTRAINT registrations_colours_check CHECK (
        (colour_first IS NULL AND colour_second IS NULL)
        OR (colour_first IS NOT NULL AND colour_second IS NOT NULL
            AND colour_first <> colour_second));

ALTER TABLE rounds ADD COLUMN colours JSONB;
