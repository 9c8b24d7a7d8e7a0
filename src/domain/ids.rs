//! Identifiers shared by every part of the domain.

use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// A player, shared across tournaments (the database's `players.id`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
pub struct PlayerId(pub i64);

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<i64> for PlayerId {
    fn from(id: i64) -> Self {
        Self(id)
    }
}

impl From<PlayerId> for i64 {
    fn from(id: PlayerId) -> Self {
        id.0
    }
}

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl From<i64> for $name {
            fn from(id: i64) -> Self {
                Self(id)
            }
        }

        impl From<$name> for i64 {
            fn from(id: $name) -> Self {
                id.0
            }
        }
    };
}

id_newtype!(
    /// A tournament (`tournaments.id`).
    TournamentId
);
id_newtype!(
    /// A round (`rounds.id`, not its number within the tournament).
    RoundId
);
id_newtype!(
    /// A user account (`users.id`).
    UserId
);
id_newtype!(
    /// A case: a complaint, its ruling and any appeal (`cases.id`).
    CaseId
);
id_newtype!(
    /// A rating pool (`rating_pools.id`).
    PoolId
);
