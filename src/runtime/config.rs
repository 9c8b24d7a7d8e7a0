//! Typed settings from the environment. Every variable is documented in `.env.example`.
//! Secrets are never printed: [`Config`]'s `Debug` hides them.

use std::path::PathBuf;
use std::time::Duration;

/// The service's settings.
#[derive(Clone)]
pub struct Config {
    /// `DATABASE_URL`: a PostgreSQL server to use. Unset: the embedded default cluster.
    pub database_url: Option<String>,
    /// `DATABASE_READ_URL`: a streaming replica for the reads that tolerate replication lag
    /// (`AppState::run_lagging`). Unset: every read goes to `DATABASE_URL`.
    pub database_read_url: Option<String>,
    /// `DATABASE_LISTEN_URL`: where the live listener's session connection (`LISTEN`) goes, so
    /// `DATABASE_URL` may point at a transaction-mode pooler. Unset: `DATABASE_URL`.
    pub database_listen_url: Option<String>,
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
    /// `KEPT_BODIES_MAX_BYTES`: the byte budget of the kept public bodies (default
    /// `infra::kept::DEFAULT_MAX_BYTES`, 64 MiB; 0 keeps none).
    pub kept_bodies_max_bytes: u64,
    /// `STANDINGS_CACHE_MAX_BYTES`: the byte budget of the staff standings cache (default
    /// `infra::standings_cache::DEFAULT_MAX_BYTES`, 16 MiB; 0 keeps none).
    pub standings_cache_max_bytes: u64,
    /// `RATE_LIMIT_READ`, `RATE_LIMIT_WRITE`, `RATE_LIMIT_AUTH`: requests per minute per
    /// credential (reads, writes) and per address (sign-in calls); defaults 1200, 300, 60.
    /// `RATE_LIMIT_SEARCH_MICROS`: a search's processor time that costs its read one more
    /// (default 1000; 0: every read costs one; `infra::charge`).
    pub rate_limits: crate::infra::ratelimit::Limits,
    /// `SIGNUP_MODE`: `closed` (default), `invite` or `open`.
    pub signup_mode: crate::domain::accounts::SignupMode,
    /// `SMTP_URL`: the SMTP server mail goes through (may hold a password). Unset: no mail.
    pub smtp_url: Option<String>,
    /// `MAIL_FROM`: the sender of every message.
    pub mail_from: Option<String>,
    /// `PUBLIC_BASE_URL` and `MAIL_LINK_VERIFY`, `MAIL_LINK_RESET`, `MAIL_LINK_INVITATION`:
    /// where the links in the messages lead (checked when read).
    pub mail_links: crate::services::accounts::links::MailLinks,
    /// `ARCHIVE_SIGNING_KEY`: the Ed25519 seed (64 hex digits) archives are signed with.
    /// Unset: derived from the JWT secret (so every instance sharing the secret signs alike).
    pub archive_signing_key: Option<[u8; 32]>,
    /// `ARCHIVE_TRUSTED_KEYS`: other instances' public archive keys (64 hex digits each,
    /// separated by commas or spaces) whose archives import here.
    pub archive_trusted_keys: Vec<ed25519_dalek::VerifyingKey>,
    /// `TRUSTED_PROXIES`: the reverse proxies (addresses or networks, separated by commas or
    /// spaces) whose `X-Forwarded-For` names the client the rate limits and the sign-in
    /// throttle count (`infra::clients`); default none: the connection's address.
    pub trusted_proxies: crate::infra::clients::Proxies,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("database_url", &self.database_url.as_ref().map(|_| "<set>"))
            .field(
                "database_read_url",
                &self.database_read_url.as_ref().map(|_| "<set>"),
            )
            .field(
                "database_listen_url",
                &self.database_listen_url.as_ref().map(|_| "<set>"),
            )
            .field("bind_addr", &self.bind_addr)
            .field("data_dir", &self.data_dir)
            .field("jwt_secret", &self.jwt_secret.as_ref().map(|_| "<set>"))
            .field("jwt_ttl", &self.jwt_ttl)
            .field("db_pool_size", &self.db_pool_size)
            .field("db_checkout_timeout", &self.db_checkout_timeout)
            .field("workers", &self.workers)
            .field("log_json", &self.log_json)
            .field("kept_bodies_max_bytes", &self.kept_bodies_max_bytes)
            .field("standings_cache_max_bytes", &self.standings_cache_max_bytes)
            .field("rate_limits", &self.rate_limits)
            .field("signup_mode", &self.signup_mode)
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "<set>"))
            .field("mail_from", &self.mail_from)
            .field("mail_links", &self.mail_links)
            .field(
                "archive_signing_key",
                &self.archive_signing_key.as_ref().map(|_| "<set>"),
            )
            .field("archive_trusted_keys", &self.archive_trusted_keys.len())
            .field("trusted_proxies", &self.trusted_proxies)
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

/// A count of at least 1 (a limit of 0 would refuse everything).
fn positive(name: &str, default: u32) -> Result<u32, String> {
    match parsed(name, default)? {
        0 => Err(format!("{name} must be at least 1")),
        n => Ok(n),
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
            database_read_url: var("DATABASE_READ_URL"),
            database_listen_url: var("DATABASE_LISTEN_URL"),
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
            kept_bodies_max_bytes: parsed(
                "KEPT_BODIES_MAX_BYTES",
                crate::infra::kept::DEFAULT_MAX_BYTES,
            )?,
            standings_cache_max_bytes: parsed(
                "STANDINGS_CACHE_MAX_BYTES",
                crate::infra::standings_cache::DEFAULT_MAX_BYTES,
            )?,
            rate_limits: crate::infra::ratelimit::Limits {
                read: positive("RATE_LIMIT_READ", 1200)?,
                write: positive("RATE_LIMIT_WRITE", 300)?,
                auth: positive("RATE_LIMIT_AUTH", 60)?,
                search_micros: parsed("RATE_LIMIT_SEARCH_MICROS", 1000)?,
            },
            signup_mode: match var("SIGNUP_MODE") {
                None => Default::default(),
                Some(m) => crate::domain::accounts::SignupMode::parse(m.trim())
                    .ok_or("SIGNUP_MODE must be `closed`, `invite` or `open`")?,
            },
            smtp_url: var("SMTP_URL"),
            mail_from: var("MAIL_FROM"),
            mail_links: crate::services::accounts::links::MailLinks::new(
                var("PUBLIC_BASE_URL").as_deref(),
                var("MAIL_LINK_VERIFY").as_deref(),
                var("MAIL_LINK_RESET").as_deref(),
                var("MAIL_LINK_INVITATION").as_deref(),
            )?,
            archive_signing_key: match var("ARCHIVE_SIGNING_KEY") {
                None => None,
                Some(k) => Some(
                    hex::decode(k.trim())
                        .ok()
                        .and_then(|b| <[u8; 32]>::try_from(b).ok())
                        .ok_or("ARCHIVE_SIGNING_KEY must be 64 hex digits (32 random bytes)")?,
                ),
            },
            archive_trusted_keys: trusted_keys(var("ARCHIVE_TRUSTED_KEYS"))?,
            trusted_proxies: crate::infra::clients::Proxies::parse(
                &var("TRUSTED_PROXIES").unwrap_or_default(),
            )?,
        })
    }
}

/// `ARCHIVE_TRUSTED_KEYS`: public keys separated by commas or spaces.
fn trusted_keys(list: Option<String>) -> Result<Vec<ed25519_dalek::VerifyingKey>, String> {
    list.unwrap_or_default()
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|k| !k.is_empty())
        .map(|k| {
            crate::services::archives::signing::parse_key(k).ok_or_else(|| {
                format!("ARCHIVE_TRUSTED_KEYS: {k:?} is not an Ed25519 public key (64 hex digits)")
            })
        })
        .collect()
}
