//! `tourney backup FILE` and `tourney restore FILE` (issue 32, item 4): the database in
//! PostgreSQL's custom dump format, with `pg_dump` and `pg_restore` of the installation that
//! runs the embedded cluster.
//!
//! A backup is one `pg_dump` run: it reads one snapshot (a repeatable-read transaction), so it
//! is consistent while the service keeps writing, and holds every write committed before it
//! began. It uses a running service's cluster through its socket, or starts the cluster for
//! itself. With `DATABASE_URL` set, it dumps that database with the `pg_dump` found on this
//! machine (which must not be older than the server).
//!
//! A backup file is readable and writable by its owner only (0600): it holds every account's
//! address and password hash. A data folder that holds no cluster (a mistyped
//! `TOURNEY_DATA_DIR`) is refused, not backed up as a new empty cluster (issue 37).
//!
//! A restore replaces the embedded cluster's database. It refuses while another process (a
//! running service) owns the data folder's cluster, and refuses a file `pg_restore` cannot read
//! before touching anything. It restores into a new database and swaps it in only when the whole
//! restore succeeded (one transaction), then applies the migrations (a backup made by an earlier
//! version is upgraded). `DATABASE_URL` deployments restore by hand (README, Operations).

use std::path::Path;
use std::process::Command;

use diesel::{Connection, PgConnection, RunQueryDsl};

use crate::db::embedded::{find_bin_dir, Durability, EmbeddedPostgres};
use crate::runtime::config::Config;
use crate::runtime::startup;

const DB: &str = "tourney";
const RESTORING: &str = "tourney_restoring";

fn run(mut cmd: Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The backup file, created (or emptied) readable by its owner only before anything is written
/// to it; `pg_dump` then writes into it and keeps its mode.
fn private_file(file: &Path) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", file.display());
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        options.open(file).map_err(cannot)?;
        // A file that was there before keeps its old mode through `open`: set it.
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).map_err(cannot)?;
    }
    #[cfg(not(unix))]
    options.open(file).map_err(cannot)?;
    Ok(())
}

fn dump(pg_dump: &Path, url: &str, file: &Path) -> Result<(), String> {
    private_file(file)?;
    let mut cmd = Command::new(pg_dump);
    cmd.args(["--format=custom", "--no-owner", "--no-privileges", "--file"])
        .arg(file)
        .arg(format!("--dbname={url}"));
    run(cmd, "pg_dump")
}

/// Writes a backup of the service's database to `file`; returns what it did, for the terminal.
pub fn backup(cfg: &Config, file: &Path) -> Result<String, String> {
    if let Some(url) = &cfg.database_url {
        let bin = find_bin_dir().map_err(|e| e.to_string())?;
        dump(&bin.join("pg_dump"), url, file)?;
        return Ok(format!("backed up DATABASE_URL to {}", file.display()));
    }
    let cluster = cfg.data_dir.join("postgres");
    if !cluster.join("PG_VERSION").is_file() {
        return Err(format!(
            "{} holds no database cluster, so there is nothing to back up: is TOURNEY_DATA_DIR \
             ({}) the data folder of the service? (nothing was created or written)",
            cluster.display(),
            cfg.data_dir.display()
        ));
    }
    let mut pg =
        EmbeddedPostgres::start(&cluster, Durability::Persistent).map_err(|e| e.to_string())?;
    let result = dump(&pg.tool("pg_dump"), &pg.url(DB), file);
    let shared = pg.is_attached();
    pg.stop();
    result?;
    Ok(format!(
        "backed up {} to {}{}",
        cluster.display(),
        file.display(),
        if shared {
            " (from the running service's cluster)"
        } else {
            ""
        }
    ))
}

fn admin(pg: &EmbeddedPostgres, sql: &str) -> Result<(), String> {
    let mut conn = PgConnection::establish(&pg.url("postgres"))
        .map_err(|e| format!("cannot connect to the embedded PostgreSQL: {e}"))?;
    diesel::sql_query(sql)
        .execute(&mut conn)
        .map(|_| ())
        .map_err(|e| format!("{sql}: {e}"))
}

fn restore_into(pg: &EmbeddedPostgres, file: &Path) -> Result<(), String> {
    admin(pg, &format!("DROP DATABASE IF EXISTS {RESTORING}"))?;
    admin(pg, &format!("CREATE DATABASE {RESTORING}"))?;
    let mut cmd = Command::new(pg.tool("pg_restore"));
    cmd.args([
        "--no-owner",
        "--no-privileges",
        "--exit-on-error",
        "--single-transaction",
    ])
    .arg(format!("--dbname={}", pg.url(RESTORING)))
    .arg(file);
    if let Err(e) = run(cmd, "pg_restore") {
        let _ = admin(pg, &format!("DROP DATABASE IF EXISTS {RESTORING}"));
        return Err(format!("{e}\nthe database was left as it was"));
    }
    admin(pg, &format!("DROP DATABASE IF EXISTS {DB}"))?;
    admin(pg, &format!("ALTER DATABASE {RESTORING} RENAME TO {DB}"))?;
    Ok(())
}

/// Replaces the embedded cluster's database with the backup in `file`.
pub fn restore(cfg: &Config, file: &Path) -> Result<String, String> {
    if cfg.database_url.is_some() {
        return Err(
            "restore works on the embedded cluster only; with DATABASE_URL, stop every \
                    instance and use pg_restore as the README's Operations section shows"
                .into(),
        );
    }
    let bin = find_bin_dir().map_err(|e| e.to_string())?;
    let mut list = Command::new(bin.join("pg_restore"));
    list.arg("--list").arg(file);
    run(list, "pg_restore --list").map_err(|e| {
        format!(
            "{} is not a backup this command can read: {e}",
            file.display()
        )
    })?;
    let cluster = cfg.data_dir.join("postgres");
    let mut pg =
        EmbeddedPostgres::start(&cluster, Durability::Persistent).map_err(|e| e.to_string())?;
    if pg.is_attached() {
        pg.stop();
        return Err(format!(
            "a running service owns {} (its embedded PostgreSQL is in use): stop it, then restore",
            cluster.display()
        ));
    }
    let result = restore_into(&pg, file).and_then(|()| startup::migrate(&pg.url(DB)));
    pg.stop();
    let migrated = result?;
    Ok(format!(
        "restored {} into {} ({migrated} migration(s) applied)",
        file.display(),
        cluster.display()
    ))
}
