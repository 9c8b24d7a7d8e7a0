//! The ratings aggregate: pools, their keepers, imported lists, the log and the leaderboard.

pub mod imports;
pub mod keepers;
pub mod leaderboard;
pub mod log;
pub mod pools;
