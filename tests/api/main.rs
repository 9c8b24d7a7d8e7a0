//! Black-box tests through HTTP against a real PostgreSQL: one throwaway cluster per test run,
//! a fresh database per test cloned from a migrated template, the real app on port 0.

mod architecture;
mod auth;
mod cases;
mod errors;
mod helpers;
mod openapi;
mod players;
mod ratings;
mod restart;
mod running;
mod tournaments;
