-- Places that carry a prize and places that qualify (seed 003, 10.3: a tie for first place, a
-- qualification place or a prize is decided by a play-off game).
ALTER TABLE tournaments
    ADD COLUMN prize_places integer NOT NULL DEFAULT 1 CHECK (prize_places BETWEEN 1 AND 1000),
    ADD COLUMN qualification_places integer NOT NULL DEFAULT 0
        CHECK (qualification_places BETWEEN 0 AND 1000);
