-- A player's private calendar feed belongs to the account the player is linked to: when
-- `players.user_id` changes (an admin's unlink or relink, a claim's approval, an invitation's
-- link, the account's erasure), the feed is deleted, so the old account's URL stops serving the
-- player's games (404). A trigger, as the link log's (`claim_standing_and_held_dates`), so no
-- path that changes the link can keep the feed.
CREATE FUNCTION tourney_calendar_feed_forgotten() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM calendar_feeds WHERE player_id = NEW.id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER players_calendar_feed_follows_account AFTER UPDATE OF user_id ON players
    FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id)
    EXECUTE FUNCTION tourney_calendar_feed_forgotten();

-- Feeds whose player left its account before this migration, or was linked to another since
-- the feed was made, cannot be told apart from the others: only those of unlinked players go.
DELETE FROM calendar_feeds f USING players p WHERE p.id = f.player_id AND p.user_id IS NULL;
