-- Accounts, players and tournaments: the foundation every later feature stands on.

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    username      TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT users_username_key UNIQUE (username)
);

CREATE TABLE players (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT NOT NULL,
    club       TEXT,
    country    TEXT,
    user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_by BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT players_user_id_key UNIQUE (user_id)
);

CREATE TABLE tournaments (
    id                    BIGSERIAL PRIMARY KEY,
    name                  TEXT NOT NULL,
    game                  TEXT NOT NULL,
    ruleset               TEXT NOT NULL,
    ruleset_overrides     JSONB NOT NULL DEFAULT '{}'::jsonb,
    table_size            INTEGER NOT NULL,
    planned_rounds        INTEGER NOT NULL,
    starts_on             DATE NOT NULL,
    ends_on               DATE NOT NULL,
    time_zone             TEXT NOT NULL,
    venue                 TEXT,
    status                TEXT NOT NULL DEFAULT 'draft',
    registration_deadline TIMESTAMPTZ,
    appeal_window_minutes INTEGER NOT NULL DEFAULT 30,
    created_by            BIGINT NOT NULL REFERENCES users (id),
    created_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    version               INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT tournaments_status_check
        CHECK (status IN ('draft', 'registration_open', 'running', 'finished')),
    CONSTRAINT tournaments_dates_check CHECK (ends_on >= starts_on)
);
CREATE INDEX tournaments_status_idx ON tournaments (status, starts_on DESC);

CREATE TABLE tournament_staff (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       BIGINT NOT NULL REFERENCES users (id),
    role          TEXT NOT NULL,
    appointed_by  BIGINT NOT NULL REFERENCES users (id),
    appointed_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament_id, user_id, role),
    CONSTRAINT tournament_staff_role_check
        CHECK (role IN ('organiser', 'referee', 'appeals_committee'))
);
CREATE INDEX tournament_staff_user_idx ON tournament_staff (user_id);
