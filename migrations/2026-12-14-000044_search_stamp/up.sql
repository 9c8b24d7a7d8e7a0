-- Read-your-writes for the instance's search index (issue 42), whoever wrote: every committed
-- transaction that changed the registry's searched names (a player's name or country, a
-- tournament's name; added, changed, removed; through the service or straight into the tables)
-- moves `search_stamp.n` on by one and announces `search-stamp:<n>` on `tourney_changes`.
--
-- The stamp is taken at commit (a deferred constraint trigger on `search_stamp_due`, where the
-- first such statement of a transaction leaves one row: once per transaction, however many
-- rows or statements), so the row lock on `search_stamp` is held only while the transaction
-- commits: writers are serialised there, in commit order, and take no other lock after it (no
-- deadlock). Stamps are gapless (a writer that rolls back takes its stamp back with it) and
-- announced in commit order after the rows' own announcements (`player:<id>`,
-- `tournament-name:<id>`). A search reads `n` and answers from an index that has applied it.
CREATE TABLE search_stamp (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    n bigint NOT NULL
);
INSERT INTO search_stamp (n) VALUES (0);

-- One row per transaction that changed a name, while it runs (unlogged: it never outlives one).
CREATE UNLOGGED TABLE search_stamp_due (
    xact xid8 PRIMARY KEY
);

CREATE FUNCTION tourney_search_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_stamp_due VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE FUNCTION tourney_search_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    stamp bigint;
BEGIN
    DELETE FROM search_stamp_due WHERE xact = NEW.xact;
    UPDATE search_stamp SET n = n + 1 WHERE one RETURNING n INTO stamp;
    PERFORM pg_notify('tourney_changes', 'search-stamp:' || stamp);
    RETURN NULL;
END;
$$;

-- A table emptied at once: the index is built again.
CREATE FUNCTION tourney_search_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tourney_changes', 'search-reset');
    INSERT INTO search_stamp_due VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

-- A removed tournament is read again (and found gone) like a renamed one.
CREATE FUNCTION tourney_tournament_gone_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tourney_changes', 'tournament-name:' || OLD.id);
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER search_stamp_at_commit AFTER INSERT ON search_stamp_due
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tourney_search_stamp();

CREATE TRIGGER players_search_due AFTER INSERT OR DELETE OR UPDATE OF name, country ON players
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_due();
CREATE TRIGGER tournaments_search_due AFTER INSERT OR DELETE OR UPDATE OF name ON tournaments
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_due();
CREATE TRIGGER players_search_reset AFTER TRUNCATE ON players
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_reset();
CREATE TRIGGER tournaments_search_reset AFTER TRUNCATE ON tournaments
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_reset();
CREATE TRIGGER tournaments_name_gone AFTER DELETE ON tournaments
    FOR EACH ROW EXECUTE FUNCTION tourney_tournament_gone_notify();
