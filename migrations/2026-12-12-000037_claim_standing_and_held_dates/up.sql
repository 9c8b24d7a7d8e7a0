-- Issue 37, item 2: who may decide a claim on a player, and who linked a player to an account.
--
-- Standing to decide comes only from the player's existing records (docs/decisions/claims.md).
-- An organiser has it only when every record of the player lies in tournaments they organise
-- (and at least one live registration does) and the player is rated nowhere: then nobody else
-- is responsible for what the link lets its account do. One function, so the decision
-- (`may_decide`) and the deciders' queue read the same rule.
CREATE INDEX IF NOT EXISTS registrations_player_idx ON registrations (player_id);
CREATE INDEX IF NOT EXISTS withdrawals_player_idx ON withdrawals (player_id);
CREATE INDEX IF NOT EXISTS penalties_player_idx ON penalties (player_id);
CREATE INDEX IF NOT EXISTS case_parties_player_idx ON case_parties (player_id);

CREATE FUNCTION tourney_organises_every_record(p BIGINT, u BIGINT) RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
    SELECT NOT EXISTS (SELECT 1 FROM rating_standings WHERE player_id = p)
       AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE player_id = p)
       AND NOT EXISTS (SELECT 1 FROM rating_import_rows WHERE player_id = p)
       AND EXISTS (
           SELECT 1 FROM registrations r
             JOIN tournament_staff s ON s.tournament_id = r.tournament_id
            WHERE r.player_id = p AND r.status <> 'cancelled'
              AND s.user_id = u AND s.role = 'organiser')
       AND NOT EXISTS (
           SELECT 1 FROM (
               SELECT tournament_id FROM registrations WHERE player_id = p
               UNION SELECT tournament_id FROM withdrawals WHERE player_id = p
               UNION SELECT tournament_id FROM penalties WHERE player_id = p
               UNION SELECT tournament_id FROM invitations WHERE player_id = p
               UNION SELECT c.tournament_id FROM case_parties cp JOIN cases c ON c.id = cp.case_id
                      WHERE cp.player_id = p
               UNION SELECT tournament_id FROM teams
                      WHERE p IN (pair_a1, pair_a2, pair_b1, pair_b2)
           ) rec
           WHERE NOT EXISTS (
               SELECT 1 FROM tournament_staff s
                WHERE s.tournament_id = rec.tournament_id AND s.user_id = u
                  AND s.role = 'organiser'))
$$;

-- Every link of a player to an account and every cut, kept after the account and its claims
-- are gone (no foreign key to users or claims: an erased account's id stays a number). Written
-- by a trigger on `players.user_id`, so no path can link without a row; the path that links
-- says how and on whose decision in the transaction-local setting `tourney.player_link`
-- (JSON: via, claim_id, invitation_id, decided_by).
CREATE TABLE player_links (
    id            BIGSERIAL PRIMARY KEY,
    player_id     BIGINT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    linked        BOOLEAN NOT NULL,
    account_id    BIGINT NOT NULL,
    via           TEXT NOT NULL
        CHECK (via IN ('claim', 'invitation', 'admin', 'created', 'account_removed',
                       'unrecorded')),
    claim_id      BIGINT,
    invitation_id BIGINT,
    decided_by    BIGINT,
    at            TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX player_links_player_idx ON player_links (player_id, id);

CREATE FUNCTION tourney_player_link_log() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    ctx JSONB := NULLIF(current_setting('tourney.player_link', true), '')::jsonb;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF OLD.user_id IS NOT NULL THEN
            INSERT INTO player_links (player_id, linked, account_id, via, claim_id,
                                      invitation_id, decided_by)
            VALUES (NEW.id, false, OLD.user_id, COALESCE(ctx->>'via', 'account_removed'),
                    (ctx->>'claim_id')::bigint, (ctx->>'invitation_id')::bigint,
                    (ctx->>'decided_by')::bigint);
        END IF;
    END IF;
    IF NEW.user_id IS NOT NULL THEN
        INSERT INTO player_links (player_id, linked, account_id, via, claim_id, invitation_id,
                                  decided_by)
        VALUES (NEW.id, true, NEW.user_id, COALESCE(ctx->>'via', 'unrecorded'),
                (ctx->>'claim_id')::bigint, (ctx->>'invitation_id')::bigint,
                (ctx->>'decided_by')::bigint);
    END IF;
    -- One decision, one change: a later change in the same transaction says its own.
    PERFORM set_config('tourney.player_link', '', true);
    RETURN NEW;
END
$$;
CREATE TRIGGER players_link_log_update AFTER UPDATE OF user_id ON players
    FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id)
    EXECUTE FUNCTION tourney_player_link_log();
CREATE TRIGGER players_link_log_insert AFTER INSERT ON players
    FOR EACH ROW WHEN (NEW.user_id IS NOT NULL)
    EXECUTE FUNCTION tourney_player_link_log();

-- Issue 37, item 3: a change to when an accepted tournament's games count is a rating
-- decision too: made by a keeper (or in an open pool), or refused to an organiser.
ALTER TABLE rating_decisions
    ADD COLUMN kind TEXT NOT NULL DEFAULT 'status'
        CHECK (kind IN ('status', 'time_changed', 'time_change_refused')),
    ADD COLUMN field TEXT,
    ADD COLUMN old_value TEXT,
    ADD COLUMN new_value TEXT;
