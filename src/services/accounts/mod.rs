//! Accounts and access: users (admin), sign-up with address verification, password reset,
//! sign-in and sessions with refresh tokens, API keys, the mail outbox, and the authentication
//! of a bearer token into a caller.

pub mod api_keys;
pub mod auth;
pub mod data;
pub mod export;
pub mod links;
pub mod mail_text;
pub mod outbox;
pub mod profile;
pub mod reset;
pub mod sessions;
pub mod signup;
pub mod tokens;
pub mod users;
