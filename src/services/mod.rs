//! Services: one use case per function, each running inside the caller's database transaction
//! over the db and the pure domain.

pub mod leaderboard;
pub mod ratings;
