//! Accounts and access: users (admin), sign-in and sessions with refresh tokens, API keys, and
//! the authentication of a bearer token into a caller.

pub mod api_keys;
pub mod auth;
pub mod sessions;
pub mod users;
