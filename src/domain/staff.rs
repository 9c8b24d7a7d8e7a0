//! The roles a user may hold in one tournament (`tournament_staff.role`): who organises, who
//! referees and who sits on appeals. The access checks that read them live in `crate::auth`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The appeals committee's seats: three members appointed beforehand (seed 000 section (4),
/// "tre forhåndsoppnevnte medlemmer").
pub const COMMITTEE_SEATS: usize = 3;

/// A role in one tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StaffRole {
    Organiser,
    Referee,
    AppealsCommittee,
}

impl StaffRole {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Organiser => "organiser",
            Self::Referee => "referee",
            Self::AppealsCommittee => "appeals_committee",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "organiser" => Some(Self::Organiser),
            "referee" => Some(Self::Referee),
            "appeals_committee" => Some(Self::AppealsCommittee),
            _ => None,
        }
    }
}
