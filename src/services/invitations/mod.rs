//! Bringing people in (issue 29, items 4 and 5): invitations to a tournament by e-mail, which
//! sign the invited person up or in, link their account to a player with their consent, and
//! register them; and claims on existing players, decided by the player's deciders. Above `running` (registration) and
//! `accounts` (the outbox, sign-up checks).

pub mod claims;
pub mod invite;
pub mod page;
