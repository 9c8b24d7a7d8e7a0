//! tourney: board-game tournaments, leagues and ratings as a JSON REST service.
//!
//! The layers, outside in: [`api`] (HTTP only: extract, call one service function, render),
//! [`services`] (one use case per function: access checks, validation, transactions),
//! [`db`] (schema, rows and shared queries) and [`domain`] (pure rules, no IO).

pub mod api;
pub mod app;
pub mod auth;
pub mod db;
pub mod domain;
pub mod error;
pub mod infra;
pub mod runtime;
pub mod services;
