//! tourney: board-game tournaments, leagues and ratings as a JSON REST service.
//!
//! The layers, outside in: [`api`] (HTTP: parse, check roles, render), the services inside the
//! handlers' transactions, [`domain`] (pure rules, no IO) and [`db`] (PostgreSQL).

pub mod api;
pub mod app;
pub mod auth;
pub mod config;
pub mod db;
pub mod domain;
pub mod error;
pub mod play;
pub mod services;
pub mod startup;
pub mod state;
pub mod telemetry;
