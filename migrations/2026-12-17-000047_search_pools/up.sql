-- The instance's search index holds the rating pools' names too (issue 42: "the registry's
-- names (players, tournaments, pools)"): a pool added, renamed or removed announces
-- `pool-name:<id>` on `tourney_changes` (each instance reads that one name again), and its
-- transaction moves the search stamp on at commit as the players' and tournaments' do
-- (migration `search_stamp`), so a search of the pools sees every name committed before it.
-- (`pool:<id>` announces every change of a pool, its leaderboard's included: too many to read
-- a name again for each.)
-- A row trigger's announcement of `<prefix><id>`, the prefix its argument (NEW is null for a
-- DELETE): for any table with an `id` that a later change wants announced row by row.
CREATE FUNCTION tourney_notify_row_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tourney_changes', TG_ARGV[0] || COALESCE(NEW.id, OLD.id));
    RETURN NULL;
END;
$$;

CREATE TRIGGER rating_pools_name_notify AFTER INSERT OR DELETE OR UPDATE OF name ON rating_pools
    FOR EACH ROW EXECUTE FUNCTION tourney_notify_row_id('pool-name:');
CREATE TRIGGER rating_pools_search_due AFTER INSERT OR DELETE OR UPDATE OF name ON rating_pools
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_due();
CREATE TRIGGER rating_pools_search_reset AFTER TRUNCATE ON rating_pools
    FOR EACH STATEMENT EXECUTE FUNCTION tourney_search_reset();
