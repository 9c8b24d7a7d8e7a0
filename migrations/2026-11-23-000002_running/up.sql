-- Running a tournament: registrations, teams, rounds and their draws, results with every
-- version, withdrawals and opt-outs, penalties, idempotent writes and the live event log.

CREATE TABLE registrations (
    id                  BIGSERIAL PRIMARY KEY,
    tournament_id       BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    player_id           BIGINT NOT NULL REFERENCES players (id),
    status              TEXT NOT NULL,
    seeding_rating      DOUBLE PRECISION,
    seeding_rated_games INTEGER NOT NULL DEFAULT 0,
    registered_by       BIGINT NOT NULL REFERENCES users (id),
    registered_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    cancelled_at        TIMESTAMPTZ,
    CONSTRAINT registrations_status_check
        CHECK (status IN ('confirmed', 'waitlisted', 'cancelled'))
);
-- One live registration per player and tournament; cancelled ones stay as history.
CREATE UNIQUE INDEX registrations_live_key
    ON registrations (tournament_id, player_id) WHERE status <> 'cancelled';
CREATE INDEX registrations_tournament_idx ON registrations (tournament_id, id);

CREATE TABLE teams (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    number        INTEGER NOT NULL,
    name          TEXT NOT NULL,
    pair_a1       BIGINT NOT NULL REFERENCES players (id),
    pair_a2       BIGINT NOT NULL REFERENCES players (id),
    pair_b1       BIGINT NOT NULL REFERENCES players (id),
    pair_b2       BIGINT NOT NULL REFERENCES players (id),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT teams_number_key UNIQUE (tournament_id, number)
);

CREATE TABLE rounds (
    id              BIGSERIAL PRIMARY KEY,
    tournament_id   BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    number          INTEGER NOT NULL,
    kind            TEXT NOT NULL,
    method          TEXT NOT NULL,
    options         JSONB NOT NULL DEFAULT '{}'::jsonb,
    -- Exact rational weight as "p/q" (or an integer); NULL = the ruleset's default for the kind.
    weight          TEXT,
    metadata        JSONB NOT NULL DEFAULT '{}'::jsonb,
    status          TEXT NOT NULL DEFAULT 'draft',
    -- The current draw: its seed (hex, secret until published), the SHA-256 commitment of the
    -- seed, and the engine's output (tables, groups, report, plan).
    seed            TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    draw_input      JSONB NOT NULL,
    draw            JSONB NOT NULL,
    draw_count      INTEGER NOT NULL DEFAULT 1,
    created_by      BIGINT NOT NULL REFERENCES users (id),
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    published_at    TIMESTAMPTZ,
    completed_at    TIMESTAMPTZ,
    version         INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT rounds_number_key UNIQUE (tournament_id, number),
    CONSTRAINT rounds_status_check CHECK (status IN ('draft', 'published', 'completed')),
    CONSTRAINT rounds_kind_check CHECK (kind IN ('preliminary', 'final', 'voluntary', 'playoff'))
);

-- Every draw made for a round (redraws while the round was a draft included).
CREATE TABLE round_draws (
    round_id        BIGINT NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    attempt         INTEGER NOT NULL,
    seed            TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    draw_input      JSONB NOT NULL,
    draw            JSONB NOT NULL,
    drawn_by        BIGINT NOT NULL REFERENCES users (id),
    drawn_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (round_id, attempt)
);

-- Every version of a table's result; the highest version is the one in force.
CREATE TABLE results (
    round_id     BIGINT NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    table_number INTEGER NOT NULL,
    version      INTEGER NOT NULL,
    seats        JSONB NOT NULL,
    double_crash BOOLEAN NOT NULL DEFAULT FALSE,
    reason       TEXT,
    case_id      BIGINT,
    entered_by   BIGINT NOT NULL REFERENCES users (id),
    entered_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (round_id, table_number, version)
);

CREATE TABLE withdrawals (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    player_id     BIGINT NOT NULL REFERENCES players (id),
    -- 'withdrawal': plays no round from from_round on; 'opt_out': skips the voluntary round
    -- from_round and every later one.
    kind          TEXT NOT NULL,
    from_round    INTEGER NOT NULL,
    reason        TEXT,
    recorded_by   BIGINT NOT NULL REFERENCES users (id),
    recorded_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT withdrawals_player_key UNIQUE (tournament_id, player_id),
    CONSTRAINT withdrawals_kind_check CHECK (kind IN ('withdrawal', 'opt_out'))
);

CREATE TABLE penalties (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    player_id     BIGINT NOT NULL REFERENCES players (id),
    kind          TEXT NOT NULL,
    round_number  INTEGER,
    table_number  INTEGER,
    points        INTEGER NOT NULL DEFAULT 0,
    reason        TEXT NOT NULL,
    case_id       BIGINT,
    issued_by     BIGINT NOT NULL REFERENCES users (id),
    issued_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    annulled_by   BIGINT REFERENCES users (id),
    annulled_at   TIMESTAMPTZ,
    annul_reason  TEXT,
    CONSTRAINT penalties_kind_check
        CHECK (kind IN ('point_penalty', 'warning', 'game_loss', 'removal'))
);
CREATE INDEX penalties_tournament_idx ON penalties (tournament_id, id);

-- Idempotency-Key: the first answer to a (user, key) is replayed for a retry of the same
-- request; a different request with the same key is refused.
CREATE TABLE idempotency_keys (
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    body         TEXT NOT NULL,
    headers      JSONB NOT NULL DEFAULT '{}'::jsonb,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);

-- The live feed of a tournament (draws, results, standings changes) for Server-Sent Events.
CREATE TABLE tournament_events (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    payload       JSONB NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX tournament_events_idx ON tournament_events (tournament_id, id);
