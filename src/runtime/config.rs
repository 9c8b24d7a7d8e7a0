//! Typed settings from the environment. Every variable is documented in `.env.example`.
//! Secrets are never printed: [`Config`]'s `Debug` hides them.

use std::path::PathBuf;
use std::time::Duration;

/// The service's settings.
#[derive(Clone)]
pub struct Config {
    /// `DATABASE_URL`: a PostgreSQL server to use. Unset: the embedded default cluster.
    pub database_url: Option<String>,
    /// `BIND_ADDR`: where to listen (default `127.0.0.1:8080`).
    pub bind_addr: String,
    /// `TOURNEY_DATA_DIR`: the data folder (default `./data`).
    pub data_dir: PathBuf,
    /// `JWT_SECRET`: the HS256 signing secret (at least 32 bytes).
    pub jwt_secret: Option<String>,
    /// `JWT_TTL_SECONDS`: token lifetime (default 3600).
    pub jwt_ttl: Duration,
    /// `DB_POOL_SIZE`: connections in the pool (default 10).
    pub db_pool_size: u32,
    /// `DB_CHECKOUT_TIMEOUT_MS`: how long a request waits for a pooled connection before its
    /// 503 (default 2000).
    pub db_checkout_timeout: Duration,
    /// `WORKERS`: HTTP worker threads (default: one per core).
    pub workers: Option<usize>,
    /// `LOG_FORMAT`: `text` (default) or `json`.
    pub log_json: bool,
    /// `SIGNUP_MODE`: `closed` (default), `invite` or `open`.
    pub signup_mode: crate::domain::accounts::SignupMode,
    /// `SMTP_URL`: the SMTP server mail goes through (may hold a password). Unset: no mail.
    pub smtp_url: Option<String>,
    /// `MAIL_FROM`: the sender of every message.
    pub mail_from: Option<String>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("database_url", &self.database_url.as_ref().map(|_| "<set>"))
            .field("bind_addr", &self.bind_addr)
            .field("data_dir", &self.data_dir)
            .field("jwt_secret", &self.jwt_secret.as_ref().map(|_| "<set>"))
            .field("jwt_ttl", &self.jwt_ttl)
            .field("db_pool_size", &self.db_pool_size)
            .field("db_checkout_timeout", &self.db_checkout_timeout)
            .field("workers", &self.workers)
            .field("log_json", &self.log_json)
            .field("signup_mode", &self.signup_mode)
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "<set>"))
            .field("mail_from", &self.mail_from)
            .finish()
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn parsed<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    match var(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{name}={v:?} is not a valid value")),
    }
}

impl Config {
    /// Reads the settings from the environment.
    pub fn from_env() -> Result<Self, String> {
        let jwt_secret = var("JWT_SECRET");
        if let Some(s) = &jwt_secret {
            if s.len() < 32 {
                return Err("JWT_SECRET must be at least 32 bytes long".into());
            }
        }
        let ttl: u64 = parsed("JWT_TTL_SECONDS", 3600)?;
        if ttl == 0 || ttl > 86_400 {
            return Err("JWT_TTL_SECONDS must be between 1 and 86400".into());
        }
        let log_format = var("LOG_FORMAT").unwrap_or_else(|| "text".into());
        if log_format != "text" && log_format != "json" {
            return Err("LOG_FORMAT must be `text` or `json`".into());
        }
        Ok(Self {
            database_url: var("DATABASE_URL"),
            bind_addr: var("BIND_ADDR").unwrap_or_else(|| "127.0.0.1:8080".into()),
            data_dir: PathBuf::from(var("TOURNEY_DATA_DIR").unwrap_or_else(|| "./data".into())),
            jwt_secret,
            jwt_ttl: Duration::from_secs(ttl),
            db_pool_size: parsed("DB_POOL_SIZE", 10)?,
            db_checkout_timeout: Duration::from_millis(parsed("DB_CHECKOUT_TIMEOUT_MS", 2000)?),
            workers: var("WORKERS")
                .map(|w| w.parse())
                .transpose()
                .map_err(|_| "WORKERS must be a number".to_string())?,
            log_json: log_format == "json",
            signup_mode: match var("SIGNUP_MODE") {
                None => Default::default(),
                Some(m) => crate::domain::accounts::SignupMode::parse(m.trim())
                    .ok_or("SIGNUP_MODE must be `closed`, `invite` or `open`")?,
            },
            smtp_url: var("SMTP_URL"),
            mail_from: var("MAIL_FROM"),
        })
    }
}
