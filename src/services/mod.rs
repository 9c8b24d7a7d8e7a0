//! Services: one use case per public function, `(conn, &Caller, input) -> Result<output,
//! ApiError>`; a use case that writes opens its own transaction (`conn.transaction`, a savepoint
//! when nested), helpers say they run inside the caller's. Access checks and input validation
//! happen here; nothing here knows HTTP (`docs/API-DESIGN.md`, "Conventions").
//!
//! Grouped by what they serve (the README's layout map says what each may import):
//! - [`running`]: one event, from registration to standings;
//! - [`play`]: what players do themselves (scheduling, reports, their own games);
//! - [`ratings`]: rating pools, their keepers, leaderboards, seasons and history;
//! - [`cases`]: complaints, rulings, appeals and the committee;
//! - [`accounts`]: users, sign-in, sessions and API keys;
//! - [`integrations`]: webhooks and embeddable pages;
//! - [`invitations`]: invitations to a tournament by e-mail;
//! - shared by all: [`access`] (who may see and change what), [`validate`] (checks of plain
//!   input), [`players`] (identities shared across tournaments), [`health`].

pub mod access;
pub mod accounts;
pub mod archives;
pub mod cases;
pub mod health;
pub mod integrations;
pub mod invitations;
pub mod play;
pub mod players;
pub mod ratings;
pub mod running;
pub mod validate;
