-- A pool's log (`GET /rating-pools/{id}/changes`, issue 31) is read by keepers who mirror it.
-- Appending to the log keeps every row already in it; a recompute that replaces or removes
-- rows already there (a corrected result, a round played before the latest rated one, an
-- import, new parameters, a rebuild) rewrites it from some sequence on. These two columns say
-- so: how many rewrites there have been and where the latest one began, so a mirror notices
-- and reads the log again from there (docs/decisions/pool-log.md).
--
-- No new index: the log's filters are served by the primary key (pool_id, sequence,
-- player_id), rating_changes_tournament_idx (pool_id, tournament_id, sequence) and
-- rating_changes_player_idx (player_id, pool_id, sequence); `since` and `season` are ranges
-- of `sequence`.
ALTER TABLE rating_pools
    ADD COLUMN log_rewrites BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN log_rewritten_from BIGINT;
