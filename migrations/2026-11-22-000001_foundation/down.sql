DROP TABLE tournament_staff;
DROP TABLE tournaments;
DROP TABLE players;
DROP TABLE users;
