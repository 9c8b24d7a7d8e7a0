-- Self-scheduled rounds (issue 18, item 2; seed 003 rules 8.2 and 8.4): the players of each
-- game agree a time before the round's deadline; the server's clock tells the leader about a
-- player who has not answered for 5 days and forfeits the game 2 days later.
ALTER TABLE rounds ADD COLUMN self_scheduled_until TIMESTAMPTZ;

CREATE TABLE game_schedules (
    round_id         BIGINT NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    table_number     INTEGER NOT NULL,
    tournament_id    BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    state            TEXT NOT NULL CHECK (state IN ('open', 'proposed', 'agreed', 'forfeited')),
    -- The player whose answer is awaited, and since when (the 5 + 2 days run from there).
    waiting_on       BIGINT REFERENCES players (id),
    waiting_since    TIMESTAMPTZ,
    proposed_by      BIGINT REFERENCES players (id),
    proposed_times   TIMESTAMPTZ[] NOT NULL DEFAULT '{}',
    agreed_time      TIMESTAMPTZ,
    leader_told_at   TIMESTAMPTZ,
    forfeited_player BIGINT REFERENCES players (id),
    forfeited_at     TIMESTAMPTZ,
    rescheduled      BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (round_id, table_number)
);
CREATE INDEX game_schedules_waiting_idx ON game_schedules (waiting_since)
    WHERE waiting_on IS NOT NULL;

-- The scheduling thread of each game, oldest first.
CREATE TABLE schedule_messages (
    id           BIGSERIAL PRIMARY KEY,
    round_id     BIGINT NOT NULL,
    table_number INTEGER NOT NULL,
    player_id    BIGINT REFERENCES players (id),
    kind         TEXT NOT NULL CHECK (kind IN ('propose', 'accept', 'missed', 'leader_told',
                                               'forfeit', 'reinstate')),
    times        TIMESTAMPTZ[] NOT NULL DEFAULT '{}',
    note         TEXT,
    by_user      BIGINT REFERENCES users (id),
    at           TIMESTAMPTZ NOT NULL,
    FOREIGN KEY (round_id, table_number) REFERENCES game_schedules (round_id, table_number)
        ON DELETE CASCADE
);
CREATE INDEX schedule_messages_game_idx ON schedule_messages (round_id, table_number, id);
