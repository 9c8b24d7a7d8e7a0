-- Whether account `u`, which created player `p`, still alone answers for it, and so may change
-- its name, club and country (`docs/decisions/claims.md`, "Who changes a player"): the player
-- is not linked to an account and never was (no row in `player_links`, so an erased person's
-- pseudonymised player is not renamed back), it is rated in no pool (no standing, no logged
-- rating change, no imported rating row), and every record of it (registrations of any status,
-- withdrawals, penalties, invitations, cases, team pairs) lies in a tournament `u` organises.
-- A player without records yet is its creator's. The records are those
-- `tourney_organises_every_record` reads.
CREATE FUNCTION tourney_creator_answers_for(p BIGINT, u BIGINT) RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM players WHERE id = p AND created_by = u AND user_id IS NULL)
       AND NOT EXISTS (SELECT 1 FROM player_links WHERE player_id = p)
       AND NOT EXISTS (SELECT 1 FROM rating_standings WHERE player_id = p)
       AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE player_id = p)
       AND NOT EXISTS (SELECT 1 FROM rating_import_rows WHERE player_id = p)
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
