-- A round's draw input lives once, with its draw attempt in round_draws (issue 16): the copy
-- on the round was written with every draw and redraw and read only to redraw a draft. Every
-- round has the attempt row of its current draw; one is added where it is missing.
INSERT INTO round_draws (round_id, attempt, seed, seed_commitment, draw_input, draw, drawn_by,
                         drawn_at)
SELECT r.id, r.draw_count, r.seed, r.seed_commitment, r.draw_input, r.draw, r.created_by,
       r.created_at
FROM rounds r
WHERE NOT EXISTS (SELECT 1 FROM round_draws d
                  WHERE d.round_id = r.id AND d.attempt = r.draw_count);

ALTER TABLE rounds DROP COLUMN draw_input;
