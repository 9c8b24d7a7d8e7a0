//! The ratings aggregate: pools, their keepers, imported lists, change logs, standings, games,
//! the leaderboard and the decisions on which tournaments feed them.

pub mod acceptance;
pub mod changes;
pub mod games;
pub mod history;
pub mod imports;
pub mod keepers;
pub mod leaderboard;
pub mod league;
pub mod log;
pub mod pools;
pub mod standings;
