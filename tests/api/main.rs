//! Black-box tests through HTTP against a real PostgreSQL: one throwaway cluster per test run,
//! a fresh database per test cloned from a migrated template, the real app on port 0.

mod api_keys;
mod architecture;
mod auth;
mod case_fixtures;
mod cases;
mod cases_appeals;
mod concurrency;
mod contract;
mod contract_shapes;
mod errors;
mod event_fixtures;
mod helpers;
mod kept_reads;
mod live;
mod openapi;
mod outage;
mod players;
mod rating_fixtures;
mod ratings;
mod ratings_leaderboard;
mod ratings_seasons;
mod restart;
mod rules_agricola;
mod rules_cup;
mod rules_ratings;
mod rules_tantrix;
mod rules_team;
mod rules_time;
mod running;
mod running_formats;
mod running_ties;
mod security;
mod sessions;
mod standings_kept;
mod tournaments;
