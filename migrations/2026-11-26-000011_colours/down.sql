ALTER TABLE rounds DROP COLUMN colours;
ALTER TABLE registrations DROP CONSTRAINT registrations_colours_check,
    DROP COLUMN colour_second, DROP COLUMN colour_first;
