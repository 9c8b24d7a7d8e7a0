CREATE INDEX rating_changes_order_idx
    ON rating_changes (pool_id, rated_at, round_id, table_number);
DROP INDEX rating_changes_bonus_idx;

ALTER TABLE rating_changes
    ADD CONSTRAINT rating_changes_pool_id_fkey
        FOREIGN KEY (pool_id) REFERENCES rating_pools (id) ON DELETE CASCADE,
    ADD CONSTRAINT rating_changes_player_id_fkey
        FOREIGN KEY (player_id) REFERENCES players (id),
    ADD CONSTRAINT rating_changes_tournament_id_fkey
        FOREIGN KEY (tournament_id) REFERENCES tournaments (id) ON DELETE CASCADE,
    ADD CONSTRAINT rating_changes_round_id_fkey
        FOREIGN KEY (round_id) REFERENCES rounds (id) ON DELETE CASCADE;
