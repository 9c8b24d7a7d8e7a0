//! Short-lived HS256 JSON Web Tokens. The algorithm is pinned (a token whose header names
//! `none`, RS256 or anything else is refused before its signature is looked at); issuer,
//! audience and expiry are checked.

use std::time::Duration;

use chrono::{DateTime, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

/// The `iss` of every token we issue.
pub const ISSUER: &str = "tourney";
/// The `aud` of every token we issue.
pub const AUDIENCE: &str = "tourney-api";

/// What a token says about its bearer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The user id.
    pub sub: String,
    /// The username, for logs.
    pub name: String,
    /// Whether the user is an admin.
    pub adm: bool,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    /// The account's session epoch when the token was issued: a password change, a sign-out
    /// everywhere or disabling the account moves the epoch on, and older tokens are refused.
    #[serde(default)]
    pub sep: i32,
    /// The session (refresh token family) the token was issued for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<i64>,
    /// When the password was given for this token (Unix seconds): set on the token a password
    /// sign-in or change answers, not on a refreshed one. What asks for a recent password
    /// (creating an API key) takes it in its stead for ten minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pwt: Option<i64>,
}

/// Who a token is issued to.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub user_id: i64,
    pub username: &'a str,
    pub is_admin: bool,
    pub session_epoch: i32,
    pub session: Option<i64>,
    /// When the password was given (a sign-in or a password change; `None`: a refresh).
    pub password_at: Option<DateTime<Utc>>,
}

/// The signing and checking keys.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl JwtKeys {
    /// Keys for the HS256 secret `secret`; tokens live `ttl`.
    pub fn new(secret: &[u8], ttl: Duration) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = 5;
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl,
        }
    }

    /// Issues a token for a user; returns it with its expiry.
    pub fn issue(&self, who: Subject<'_>) -> Result<(String, DateTime<Utc>), String> {
        let now = Utc::now();
        let exp = now + chrono::Duration::from_std(self.ttl).map_err(|e| e.to_string())?;
        let claims = Claims {
            sub: who.user_id.to_string(),
            name: who.username.to_string(),
            adm: who.is_admin,
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            iat: now.timestamp(),
            exp: exp.timestamp(),
            sep: who.session_epoch,
            sid: who.session,
            pwt: who.password_at.map(|at| at.timestamp()),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map(|t| (t, exp))
            .map_err(|e| format!("cannot sign a token: {e}"))
    }

    /// Checks a token and returns its claims.
    pub fn verify(&self, token: &str) -> Result<Claims, jsonwebtoken::errors::Error> {
        decode::<Claims>(token, &self.decoding, &self.validation).map(|d| d.claims)
    }

    /// The token lifetime.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }
}
