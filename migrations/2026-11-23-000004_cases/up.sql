-- Complaints, decisions and appeals: cases with their parties, the deciding panel, the
-- panel's votes and an audit trail of every step (who, when, what).

CREATE TABLE cases (
    id                BIGSERIAL PRIMARY KEY,
    tournament_id     BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    -- 'complaint' or 'appeal' (an appeal names the decided case in appeal_of).
    kind              TEXT NOT NULL,
    -- What the case is about: a table, a result, a penalty or a person's conduct.
    subject           TEXT NOT NULL,
    round_number      INTEGER,
    table_number      INTEGER,
    penalty_id        BIGINT REFERENCES penalties (id),
    statement         TEXT NOT NULL,
    evidence_text     TEXT,
    evidence_links    JSONB NOT NULL DEFAULT '[]'::jsonb,
    -- What the complainant or appellant asks for (remedies applied when the case is upheld).
    requested_remedies JSONB NOT NULL DEFAULT '[]'::jsonb,
    -- 'referee': one referee on the panel decides; 'vote': the panel votes, majority decides.
    panel_mode        TEXT NOT NULL,
    panel_rule        TEXT NOT NULL,
    status            TEXT NOT NULL DEFAULT 'open',
    opened_by         BIGINT NOT NULL REFERENCES users (id),
    opened_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    decided_by        BIGINT REFERENCES users (id),
    decided_at        TIMESTAMPTZ,
    outcome           TEXT,
    decision_reason   TEXT,
    -- The remedies applied with the decision.
    remedy            JSONB,
    appeal_of         BIGINT REFERENCES cases (id),
    version           INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT cases_kind_check CHECK (kind IN ('complaint', 'appeal')),
    CONSTRAINT cases_subject_check CHECK (subject IN ('table', 'result', 'penalty', 'conduct')),
    CONSTRAINT cases_status_check CHECK (status IN ('open', 'decided', 'appealed')),
    CONSTRAINT cases_panel_mode_check CHECK (panel_mode IN ('referee', 'vote')),
    CONSTRAINT cases_outcome_check CHECK (outcome IN ('upheld', 'dismissed', 'remedied')),
    CONSTRAINT cases_appeal_check CHECK ((kind = 'appeal') = (appeal_of IS NOT NULL))
);
CREATE INDEX cases_tournament_idx ON cases (tournament_id, id);
-- One appeal per decided case.
CREATE UNIQUE INDEX cases_appeal_of_key ON cases (appeal_of) WHERE appeal_of IS NOT NULL;

CREATE TABLE case_parties (
    id        BIGSERIAL PRIMARY KEY,
    case_id   BIGINT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    user_id   BIGINT REFERENCES users (id),
    player_id BIGINT REFERENCES players (id),
    role      TEXT NOT NULL,
    added_by  BIGINT NOT NULL REFERENCES users (id),
    added_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT case_parties_who_check CHECK (user_id IS NOT NULL OR player_id IS NOT NULL),
    CONSTRAINT case_parties_role_check
        CHECK (role IN ('complainant', 'respondent', 'player_at_table', 'official_appealed'))
);
CREATE INDEX case_parties_case_idx ON case_parties (case_id);

-- The deciding panel as last computed (recomputed when the parties change).
CREATE TABLE case_panel (
    case_id BIGINT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id),
    -- 'referee' or 'committee': the seat the member holds on this panel.
    seat    TEXT NOT NULL,
    PRIMARY KEY (case_id, user_id),
    CONSTRAINT case_panel_seat_check CHECK (seat IN ('referee', 'committee'))
);

CREATE TABLE votes (
    case_id   BIGINT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    member_id BIGINT NOT NULL REFERENCES users (id),
    vote      TEXT NOT NULL,
    remedy    JSONB,
    reason    TEXT NOT NULL,
    at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (case_id, member_id),
    CONSTRAINT votes_vote_check CHECK (vote IN ('uphold', 'dismiss', 'remedy'))
);

CREATE TABLE case_events (
    id      BIGSERIAL PRIMARY KEY,
    case_id BIGINT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    author  BIGINT NOT NULL REFERENCES users (id),
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    what    TEXT NOT NULL,
    detail  JSONB NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX case_events_case_idx ON case_events (case_id, id);
