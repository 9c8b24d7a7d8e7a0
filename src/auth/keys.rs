//! What an API key may do: its scopes and its optional tournament or rating pool, checked
//! against each request's method and path before any handler runs. The owner's own roles are
//! checked afterwards as for any caller, so a key can do at most what its owner can and what its
//! scopes name (issue 17).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A permission an API key carries.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
pub enum Scope {
    /// Every read (GET) the owner may make.
    #[serde(rename = "read")]
    Read,
    /// Entering and correcting table results.
    #[serde(rename = "results:write")]
    ResultsWrite,
    /// Every other write under a tournament (rounds, registrations, penalties, cases...) and
    /// player identities; includes `results:write`.
    #[serde(rename = "tournaments:write")]
    TournamentsWrite,
    /// A rating pool's daily work, for its keepers: settings, seasons, imports, webhooks,
    /// keepers and decisions on tournaments (writes under `/rating-pools/{id}/`).
    #[serde(rename = "pools:write")]
    PoolsWrite,
    /// Everything the owner may do, admin operations included (accounts, rating pools).
    #[serde(rename = "admin")]
    Admin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::ResultsWrite => "results:write",
            Self::TournamentsWrite => "tournaments:write",
            Self::PoolsWrite => "pools:write",
            Self::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "read" => Some(Self::Read),
            "results:write" => Some(Self::ResultsWrite),
            "tournaments:write" => Some(Self::TournamentsWrite),
            "pools:write" => Some(Self::PoolsWrite),
            "admin" => Some(Self::Admin),
            _ => None,
        }
    }
}

/// The limits of the key a request was made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyLimits {
    pub key_id: i64,
    pub scopes: Vec<Scope>,
    /// Only paths under `/tournaments/{id}` of this tournament.
    pub tournament_id: Option<i64>,
    /// Only paths under `/rating-pools/{id}` of this pool.
    pub pool_id: Option<i64>,
}

impl KeyLimits {
    fn has(&self, scope: Scope) -> bool {
        self.scopes.contains(&Scope::Admin) || self.scopes.contains(&scope)
    }

    /// Whether the key may do a keeper's work on rating pool `pool_id`: it carries `pools:write`
    /// (or `admin`) and, if limited to a pool, to this one. A keeper's decision taken on a
    /// tournament's path (its request accepted at once, its held times moved) needs it too.
    pub fn keeps_pool(&self, pool_id: i64) -> bool {
        self.has(Scope::PoolsWrite) && self.pool_id.is_none_or(|p| p == pool_id)
    }

    /// Whether the key may enter results (`results:write`, `tournaments:write` or `admin`). A
    /// table code lets its holder report and confirm a table's result, so only such a key reads
    /// the codes (the slips and the link to them), although they are read with a GET.
    pub fn writes_results(&self) -> bool {
        self.has(Scope::ResultsWrite) || self.has(Scope::TournamentsWrite)
    }

    /// Whether a request with this method and path (below `/api/v1`, or any other path of the
    /// service) is within the key's scopes and restriction; the reason when it is not.
    pub fn permits(&self, method: &str, path: &str) -> Result<(), String> {
        let path = path.strip_prefix("/api/v1").unwrap_or(path);
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let own_account = matches!(segments.first(), Some(&"me") | Some(&"auth"));
        if let Some(tid) = self.tournament_id {
            let under = segments.first() == Some(&"tournaments")
                && segments.get(1).and_then(|s| s.parse::<i64>().ok()) == Some(tid);
            if !(under || own_account && is_read(method)) {
                return Err(format!(
                    "this API key is limited to tournament {tid}: use it on /api/v1/tournaments/{tid}/..."
                ));
            }
        }
        if let Some(pid) = self.pool_id {
            let under = segments.first() == Some(&"rating-pools")
                && segments.get(1).and_then(|s| s.parse::<i64>().ok()) == Some(pid);
            if !(under || own_account && is_read(method)) {
                return Err(format!(
                    "this API key is limited to rating pool {pid}: use it on /api/v1/rating-pools/{pid}/..."
                ));
            }
        }
        if is_read(method) {
            return if self.has(Scope::Read) {
                Ok(())
            } else {
                Err("this API key has no `read` scope".into())
            };
        }
        let needed = match segments.as_slice() {
            // Credentials are managed with a password sign-in, never with a key.
            ["auth", ..] | ["me", ..] => {
                return Err("an API key cannot manage sign-ins, passwords or keys".into())
            }
            ["tournaments", _, "rounds", _, "tables", _, "result"] => Scope::ResultsWrite,
            ["tournaments", ..] | ["players", ..] => Scope::TournamentsWrite,
            ["rating-pools", _, ..] => Scope::PoolsWrite,
            _ => Scope::Admin,
        };
        let granted = self.has(needed)
            || (needed == Scope::ResultsWrite && self.has(Scope::TournamentsWrite));
        if granted {
            Ok(())
        } else {
            Err(format!(
                "this API key lacks the `{}` scope for {method} {path}",
                needed.as_str()
            ))
        }
    }
}

/// Who a key acts as, and its limits.
#[derive(Debug, Clone)]
pub struct KeyHolder {
    pub user_id: i64,
    pub username: String,
    pub is_admin: bool,
    pub limits: KeyLimits,
}

fn is_read(method: &str) -> bool {
    matches!(method, "GET" | "HEAD" | "OPTIONS")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(scopes: &[Scope]) -> KeyLimits {
        KeyLimits {
            key_id: 1,
            scopes: scopes.to_vec(),
            tournament_id: None,
            pool_id: None,
        }
    }

    const RESULT: &str = "/api/v1/tournaments/7/rounds/2/tables/3/result";

    #[test]
    fn reads_need_the_read_scope() {
        assert!(key(&[Scope::Read])
            .permits("GET", "/api/v1/tournaments/7/standings")
            .is_ok());
        assert!(key(&[Scope::ResultsWrite])
            .permits("GET", "/api/v1/tournaments/7/standings")
            .is_err());
        assert!(key(&[Scope::Admin]).permits("HEAD", "/healthz").is_ok());
    }

    #[test]
    fn each_write_needs_its_scope() {
        let results = key(&[Scope::ResultsWrite]);
        assert!(results.permits("PUT", RESULT).is_ok());
        assert!(results
            .permits("POST", "/api/v1/tournaments/7/rounds")
            .is_err());
        assert!(results.permits("POST", "/api/v1/players").is_err());
        let organise = key(&[Scope::TournamentsWrite]);
        assert!(organise.permits("PUT", RESULT).is_ok(), "includes results");
        assert!(organise
            .permits("POST", "/api/v1/tournaments/7/rounds/2/publish")
            .is_ok());
        assert!(organise.permits("PATCH", "/api/v1/players/4").is_ok());
        assert!(organise.permits("POST", "/api/v1/users").is_err());
        assert!(organise
            .permits("POST", "/api/v1/rating-pools/1/imports")
            .is_err());
        let admin = key(&[Scope::Admin]);
        assert!(admin.permits("POST", "/api/v1/users").is_ok());
        assert!(admin.permits("PUT", RESULT).is_ok());
    }

    #[test]
    fn a_keepers_key_does_the_pools_daily_work_and_nothing_else() {
        let keeper = key(&[Scope::PoolsWrite]);
        for (method, path) in [
            ("PATCH", "/api/v1/rating-pools/2"),
            ("POST", "/api/v1/rating-pools/2/imports"),
            ("POST", "/api/v1/rating-pools/2/webhooks"),
            ("PUT", "/api/v1/rating-pools/2/keepers/5"),
            ("POST", "/api/v1/rating-pools/2/tournaments/9/decision"),
        ] {
            assert!(keeper.permits(method, path).is_ok(), "{method} {path}");
        }
        // Creating pools stays an admin's; tournaments and accounts need their own scopes.
        assert!(keeper.permits("POST", "/api/v1/rating-pools").is_err());
        assert!(keeper.permits("PATCH", "/api/v1/tournaments/9").is_err());
        assert!(keeper.permits("POST", "/api/v1/users").is_err());
        assert!(key(&[Scope::TournamentsWrite])
            .permits("POST", "/api/v1/rating-pools/2/tournaments/9/decision")
            .is_err());
        let mut limited = key(&[Scope::PoolsWrite]);
        limited.pool_id = Some(2);
        assert!(limited
            .permits("POST", "/api/v1/rating-pools/2/tournaments/9/decision")
            .is_ok());
        assert!(limited
            .permits("POST", "/api/v1/rating-pools/3/tournaments/9/decision")
            .is_err());
    }

    #[test]
    fn no_key_manages_credentials() {
        for path in [
            "/api/v1/me/api-keys",
            "/api/v1/me/password",
            "/api/v1/auth/refresh",
            "/api/v1/auth/logout",
        ] {
            assert!(
                key(&[Scope::Admin]).permits("POST", path).is_err(),
                "{path}"
            );
        }
        assert!(key(&[Scope::Admin])
            .permits("DELETE", "/api/v1/me/api-keys/3")
            .is_err());
        assert!(key(&[Scope::Read]).permits("GET", "/api/v1/me").is_ok());
    }

    #[test]
    fn a_restricted_key_stays_in_its_tournament_or_pool() {
        let mut k = key(&[Scope::Read, Scope::ResultsWrite]);
        k.tournament_id = Some(7);
        assert!(k.permits("PUT", RESULT).is_ok());
        assert!(k
            .permits("PUT", "/api/v1/tournaments/8/rounds/2/tables/3/result")
            .is_err());
        assert!(k
            .permits("GET", "/api/v1/tournaments/70/standings")
            .is_err());
        assert!(k.permits("GET", "/api/v1/tournaments").is_err());
        assert!(k.permits("GET", "/api/v1/me").is_ok());
        let mut p = key(&[Scope::Read]);
        p.pool_id = Some(2);
        assert!(p
            .permits("GET", "/api/v1/rating-pools/2/leaderboard")
            .is_ok());
        assert!(p
            .permits("GET", "/api/v1/rating-pools/3/leaderboard")
            .is_err());
        assert!(p.permits("GET", "/api/v1/tournaments/7").is_err());
    }
}
