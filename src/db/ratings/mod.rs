//! The ratings aggregate: pools, their change logs, standings, games and the decisions on which
//! tournaments feed them.

pub mod acceptance;
pub mod changes;
pub mod games;
pub mod history;
pub mod league;
pub mod standings;
