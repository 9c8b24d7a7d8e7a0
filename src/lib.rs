//! tourney: board-game tournaments, leagues and ratings as a JSON REST service.

pub mod domain;
