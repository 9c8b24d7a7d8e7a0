-- When a round was played (issue 14, item 20): ratings follow the results in the order the
-- games were played (domain.md section 10; seed 004 section 3 counts "wszystkie turnieje
-- rozegrane w czasie jego trwania"), not the order they were entered. `played_at` is set
-- when the round completes: the organiser's time if one was given (`played_at_fixed`), else
-- the completion time held within the tournament's days (see `domain::rating::time_of_play`).
ALTER TABLE rounds
    ADD COLUMN played_at TIMESTAMPTZ,
    ADD COLUMN played_at_fixed BOOLEAN NOT NULL DEFAULT FALSE;

-- Rounds already completed keep the time their games were rated at, so the stored rating logs
-- stay what the feed would write (the next change of a tournament's dates re-derives them).
UPDATE rounds SET played_at = completed_at WHERE completed_at IS NOT NULL;

ALTER TABLE rounds ADD CONSTRAINT rounds_completed_played_check
    CHECK (status <> 'completed' OR played_at IS NOT NULL);
