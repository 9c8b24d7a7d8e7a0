//! tourney: board-game tournaments, leagues and ratings as a JSON REST service.
//!
//! The layers, outside in: [`api`] (HTTP only: extract, call one service function, render),
//! [`services`] (one use case per function: access checks, validation, transactions),
//! [`db`] (schema, rows and shared queries) and [`domain`] (pure rules, no IO).

pub mod api;
pub mod app;
pub mod auth;
pub mod config;
pub mod db;
pub mod domain;
pub mod error;
pub mod jobs;
pub mod services;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod wire;
