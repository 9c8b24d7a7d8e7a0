DROP TABLE player_claims;
