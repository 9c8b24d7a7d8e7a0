-- Results reported by the players themselves (issue 18, item 3): the opponent confirms (the
-- report becomes the result) or disputes it (a case for the referee). At most one pending
-- report per table.
CREATE TABLE result_reports (
    id                 BIGSERIAL PRIMARY KEY,
    round_id           BIGINT NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    table_number       INTEGER NOT NULL,
    reported_by_player BIGINT NOT NULL REFERENCES players (id),
    reported_by_user   BIGINT NOT NULL REFERENCES users (id),
    body               JSONB NOT NULL,
    status             TEXT NOT NULL
        CHECK (status IN ('pending', 'confirmed', 'disputed', 'superseded')),
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    answer_by          TIMESTAMPTZ NOT NULL,
    answered_at        TIMESTAMPTZ,
    answered_by_user   BIGINT REFERENCES users (id),
    case_id            BIGINT
);
CREATE UNIQUE INDEX result_reports_one_pending ON result_reports (round_id, table_number)
    WHERE status = 'pending';
CREATE INDEX result_reports_table_idx ON result_reports (round_id, table_number, id);
