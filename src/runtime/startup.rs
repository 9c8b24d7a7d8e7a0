//! Bringing the service up: the database (given or embedded), migrations and the JWT secret.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use diesel::{Connection, PgConnection};

use crate::db::embedded::{Durability, EmbeddedPostgres};
use crate::runtime::config::Config;

/// The database the service uses, and the embedded cluster behind it if it runs one.
pub struct Database {
    pub url: String,
    pub embedded: Option<EmbeddedPostgres>,
}

/// Uses `DATABASE_URL`, or starts the embedded default cluster in `<data dir>/postgres`.
pub fn open_database(cfg: &Config) -> Result<Database, String> {
    if let Some(url) = &cfg.database_url {
        return Ok(Database {
            url: url.clone(),
            embedded: None,
        });
    }
    let cluster = cfg.data_dir.join("postgres");
    tracing::info!(path = %cluster.display(), "starting the embedded PostgreSQL (DATABASE_URL is not set)");
    let pg =
        EmbeddedPostgres::start(&cluster, Durability::Persistent).map_err(|e| e.to_string())?;
    pg.ensure_database("tourney", None)
        .map_err(|e| e.to_string())?;
    Ok(Database {
        url: pg.url("tourney"),
        embedded: Some(pg),
    })
}

/// Applies pending migrations.
pub fn migrate(url: &str) -> Result<usize, String> {
    let mut conn =
        PgConnection::establish(url).map_err(|e| format!("cannot connect to the database: {e}"))?;
    crate::db::run_migrations(&mut conn)
}

/// The JWT secret: `JWT_SECRET`, or with the embedded default one kept in the data folder
/// (generated on first start). With `DATABASE_URL` set and no secret, the service refuses to
/// start: several instances must share one secret, which only the operator can provide.
pub fn jwt_secret(cfg: &Config) -> Result<String, String> {
    if let Some(s) = &cfg.jwt_secret {
        return Ok(s.clone());
    }
    if cfg.database_url.is_some() {
        return Err("JWT_SECRET is not set. With DATABASE_URL set, the service needs JWT_SECRET (at least 32 bytes, the same for every instance), e.g. `export JWT_SECRET=$(openssl rand -hex 32)`.".into());
    }
    fs::create_dir_all(&cfg.data_dir).map_err(|e| {
        format!(
            "cannot create the data folder {}: {e}",
            cfg.data_dir.display()
        )
    })?;
    let path = cfg.data_dir.join("jwt-secret");
    if let Ok(s) = fs::read_to_string(&path) {
        let s = s.trim().to_string();
        if s.len() >= 32 {
            tracing::info!(path = %path.display(), "using the JWT secret kept in the data folder");
            return Ok(s);
        }
    }
    let bytes: [u8; 32] = rand::random();
    let secret = hex::encode(bytes);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.write_all(secret.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    tracing::info!(path = %path.display(), "generated a JWT secret and stored it in the data folder (set JWT_SECRET to choose your own)");
    Ok(secret)
}
