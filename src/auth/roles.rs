//! Who is calling, and what they may do. Handlers extract [`Caller`] (sign-in required) or
//! [`MaybeCaller`] (public, richer when signed in) from the bearer token (`crate::api::extract`)
//! and hand them to the services, which call the small checks here first.

use crate::db::accounts::roles;
use crate::db::ids::{TournamentId, UserId};
use crate::db::PgConnection;
use crate::error::ApiError;

/// A signed-in caller, taken from a valid bearer token.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: i64,
    pub username: String,
    pub is_admin: bool,
    /// The API key the request was made with (`None`: a signed-in session's access token). Its
    /// scopes were checked against the request before the handler ran.
    pub key: Option<std::sync::Arc<crate::auth::keys::KeyLimits>>,
    /// When the password was given for the access token (a sign-in or a password change;
    /// `None`: a refreshed token, an API key, or a caller made inside a service).
    pub password_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// A caller who may or may not be signed in. A token that is present but invalid is still
/// refused with 401: a client with a broken token should hear about it.
#[derive(Debug, Clone)]
pub struct MaybeCaller(pub Option<Caller>);

pub use crate::domain::staff::StaffRole;

impl Caller {
    /// Whether the caller's own lists (`/me/tournaments`, `/me/games`) may show tournament
    /// `id`. Signed in or with an unlimited key: every one. A key limited to a tournament reads
    /// that one only, and a key limited to a rating pool none: a key reads nothing of its
    /// owner's beyond its limit, even through `/me`.
    pub fn key_reaches_tournament(&self, id: i64) -> bool {
        match self.key.as_deref() {
            None => true,
            Some(k) => match (k.tournament_id, k.pool_id) {
                (Some(t), _) => t == id,
                (None, Some(_)) => false,
                (None, None) => true,
            },
        }
    }

    /// Whether the caller's credential may enter results: a signed-in session, or an API key
    /// that may ([`crate::auth::keys::KeyLimits::writes_results`]). Reads that hand out what
    /// writes a result (the table codes) ask this besides the caller's role.
    pub fn may_write_results(&self) -> bool {
        self.key.as_deref().is_none_or(|k| k.writes_results())
    }

    /// 403 unless the caller is an admin.
    pub fn require_admin(&self) -> Result<(), ApiError> {
        if self.is_admin {
            Ok(())
        } else {
            Err(ApiError::Forbidden("only an admin may do this".into()))
        }
    }

    /// The caller's roles in a tournament.
    pub fn roles_in(
        &self,
        conn: &mut PgConnection,
        tournament_id: i64,
    ) -> Result<Vec<StaffRole>, ApiError> {
        let held = roles::in_tournament(conn, UserId(self.user_id), TournamentId(tournament_id))?;
        Ok(held.iter().filter_map(|r| StaffRole::parse(r)).collect())
    }

    /// Whether the caller holds any of `roles` in the tournament (admins always do).
    pub fn has_any_role(
        &self,
        conn: &mut PgConnection,
        tournament_id: i64,
        roles: &[StaffRole],
    ) -> Result<bool, ApiError> {
        if self.is_admin {
            return Ok(true);
        }
        Ok(self
            .roles_in(conn, tournament_id)?
            .iter()
            .any(|r| roles.contains(r)))
    }

    /// 403 unless the caller holds one of `roles` in the tournament (or is an admin).
    pub fn require_role(
        &self,
        conn: &mut PgConnection,
        tournament_id: i64,
        roles: &[StaffRole],
    ) -> Result<(), ApiError> {
        if self.has_any_role(conn, tournament_id, roles)? {
            Ok(())
        } else {
            let names: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            Err(ApiError::Forbidden(format!(
                "this needs the role {} in this tournament",
                names.join(" or ")
            )))
        }
    }

    /// Whether the caller organises at least one tournament (or is an admin): such callers
    /// may create player identities.
    pub fn is_organiser_anywhere(&self, conn: &mut PgConnection) -> Result<bool, ApiError> {
        if self.is_admin {
            return Ok(true);
        }
        let n = roles::count_of(conn, UserId(self.user_id), StaffRole::Organiser.as_str())?;
        Ok(n > 0)
    }
}
