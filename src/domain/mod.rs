//! The pure tournament domain: rulesets, scoring, standings, seating and ratings.
//!
//! Nothing in this module tree performs IO or knows about HTTP or the database: plain data
//! in, plain data out. The HTTP layer (`crate::api`) and the services (`crate::services`)
//! load data, call into here, and persist what comes back. A test in `tests/` keeps it so
//! (no `actix`, `diesel` or `std::fs`/`std::net` under `src/domain`).
//!
//! The rules come from the five rule documents in `../shared/seeds/` (digest:
//! `../shared/docs/domain.md`); each rule names its source in its doc comment.

pub mod accounts;
pub mod case_panels;
pub mod case_scope;
pub mod case_sets;
pub mod cases;
pub mod colours;
pub mod entries;
pub mod events;
pub mod ids;
pub mod rating;
pub mod rng;
pub mod scoring;
pub mod seating;
pub mod staff;
pub mod status;

pub use ids::{CaseId, PlayerId, PoolId, RoundId, TournamentId, UserId};
pub use rng::DrawRng;
