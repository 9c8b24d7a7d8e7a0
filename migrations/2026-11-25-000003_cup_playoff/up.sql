-- A Tantrix cup match level on TP, games won and tiles is decided by further 5-minute games
-- (seed 003, Tie-Breaks 1): the referee records their winner on a game of the match.
ALTER TABLE results ADD COLUMN playoff_winner BIGINT REFERENCES players (id);
