//! The embedded default PostgreSQL: with no `DATABASE_URL`, the service runs its own cluster.
//!
//! The cluster lives in `postgres/` under the data folder and is created with the machine's
//! PostgreSQL binaries (`initdb`, `pg_ctl`, found on `PATH` or under `/usr/lib/postgresql/*/bin`).
//! It listens on a Unix socket only (no TCP port), in a private folder under the system's
//! temporary folder, and trusts local connections through that socket (the folder is mode 0700).
//!
//! PostgreSQL refuses to run as root. When the service runs as root, every PostgreSQL command
//! runs as the unprivileged `postgres` user through `runuser`; the cluster folder is handed to
//! that user, and every folder above it must be traversable by it, which is checked up front.
//!
//! A watchdog (a tiny `sh` loop in its own process group) stops the cluster when the process
//! that started it ends, even if it is killed, and even if the cluster was restarted by hand
//! meanwhile, as long as that process is still the cluster's recorded owner; so neither the
//! service nor the test suite leaves a server running. If the watchdog is killed too, the next
//! start stops the server left behind and removes its socket folder, and sweeps socket folders
//! without a live server that are more than a minute old.
//!
//! The process that starts the cluster writes its pid and executable to `postgres.owner` beside
//! it. A second process on the same data folder (`tourney create-admin` or `tourney migrate` next
//! to the running service) finds the owner alive and uses the running cluster through its socket
//! without ever stopping it; only a cluster whose owner is gone is stopped and started afresh.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use diesel::{Connection, PgConnection, RunQueryDsl};

/// What went wrong bringing up the embedded PostgreSQL, worded for the person at the terminal.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct EmbeddedError(pub String);

fn err(msg: impl Into<String>) -> EmbeddedError {
    EmbeddedError(msg.into())
}

/// How the cluster is used: the service's own data, or a throwaway cluster for a test run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The service's data: fsync on, stopped cleanly.
    Persistent,
    /// A test run's cluster: fsync off, deleted when the owning process ends.
    Throwaway,
}

/// A running embedded cluster.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    cluster_dir: PathBuf,
    socket_dir: PathBuf,
    bin_dir: PathBuf,
    run_as_postgres: bool,
    stopped: bool,
    /// Another live process started the cluster: it is used, never stopped, by this one.
    attached: bool,
}

const DB_USER: &str = "tourney";

impl EmbeddedPostgres {
    /// Creates the cluster in `cluster_dir` if it does not exist yet, then starts it.
    pub fn start(cluster_dir: &Path, durability: Durability) -> Result<Self, EmbeddedError> {
        let bin_dir = find_bin_dir()?;
        let run_as_postgres = running_as_root();
        let owner = if run_as_postgres {
            Some(postgres_user()?)
        } else {
            None
        };

        let parent = cluster_dir
            .parent()
            .ok_or_else(|| err("the data folder has no parent folder"))?;
        fs::create_dir_all(parent).map_err(|e| {
            err(format!(
                "cannot create the data folder {}: {e}. Set TOURNEY_DATA_DIR to a folder you can write, or set DATABASE_URL.",
                parent.display()
            ))
        })?;
        let cluster_dir = fs::canonicalize(parent)
            .map_err(|e| err(format!("cannot resolve {}: {e}", parent.display())))?
            .join(
                cluster_dir
                    .file_name()
                    .unwrap_or_else(|| "postgres".as_ref()),
            );

        if let Some((uid, gid)) = owner {
            check_traversable(&cluster_dir, uid, gid)?;
        }

        prepare_cluster(&cluster_dir, &bin_dir, owner, run_as_postgres)?;

        let socket_dir = make_socket_dir(owner)?;
        let mut this = Self {
            cluster_dir,
            socket_dir,
            bin_dir,
            run_as_postgres,
            stopped: false,
            attached: false,
        };
        if this.pg_ctl_status_running() {
            if let (Some(owner), Some(socket)) = (
                live_owner(&this.cluster_dir),
                running_socket_dir(&this.cluster_dir),
            ) {
                // The running service's cluster: use it, leave it running.
                tracing::info!(
                    owner,
                    "the embedded PostgreSQL is running for process {owner}; using it"
                );
                let _ = fs::remove_dir_all(&this.socket_dir);
                this.socket_dir = socket;
                this.attached = true;
                return Ok(this);
            }
            // A server left behind by a process that is gone is stopped before we start ours,
            // and its socket folder goes with it.
            tracing::warn!(
                "an embedded PostgreSQL left by a process that is gone was still running; \
                 stopping it"
            );
            let left = running_socket_dir(&this.cluster_dir);
            this.pg_ctl_stop("fast");
            if let Some(dir) = left.filter(|d| *d != this.socket_dir && is_our_socket_dir(d)) {
                let _ = fs::remove_dir_all(dir);
            }
        }
        sweep_socket_dirs();
        let mut options = format!(
            "-c listen_addresses='' -k {} -p 5432 -c max_connections=200",
            this.socket_dir.display()
        );
        if durability == Durability::Throwaway {
            options.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        }
        // Claim the cluster before starting it: the watchdog of an earlier owner (a
        // `create-admin` that just ended) stops the cluster only while it is still the owner,
        // so it must not see our fresh server as its own.
        write_owner(&this.cluster_dir);
        let mut start = pg_command(&this.bin_dir, "pg_ctl", this.run_as_postgres);
        start
            .arg("-D")
            .arg(&this.cluster_dir)
            .arg("-l")
            .arg(this.cluster_dir.join("server.log"))
            .args(["-w", "-t", "60", "-o", &options, "start"]);
        if let Err(e) = run(start, "pg_ctl start") {
            this.stopped = true;
            let _ = fs::remove_dir_all(&this.socket_dir);
            return Err(err(format!(
                "{e}\nSee {} for PostgreSQL's own log.",
                this.cluster_dir.join("server.log").display()
            )));
        }
        this.spawn_watchdog(durability);
        Ok(this)
    }

    /// True when another live process started the cluster and this one only uses it.
    pub fn is_attached(&self) -> bool {
        self.attached
    }

    /// The path of one of the cluster's PostgreSQL programs (`pg_dump`, `pg_restore`): the same
    /// installation as the server, so their versions agree.
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin_dir.join(name)
    }

    /// The connection URL for database `db` on this cluster.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgresql:///{db}?host={}&port=5432&user={DB_USER}",
            self.socket_dir.display()
        )
    }

    /// Creates database `name` (optionally from `template`) unless it exists.
    pub fn ensure_database(&self, name: &str, template: Option<&str>) -> Result<(), EmbeddedError> {
        let mut conn = PgConnection::establish(&self.url("postgres"))
            .map_err(|e| err(format!("cannot connect to the embedded PostgreSQL: {e}")))?;
        create_database(&mut conn, name, template)
            .map_err(|e| err(format!("cannot create database {name}: {e}")))
    }

    /// Stops the cluster (fast shutdown) and removes its socket folder; a cluster this process
    /// only attached to is left running for its owner.
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        if self.attached {
            return;
        }
        self.pg_ctl_stop("fast");
        let _ = fs::remove_dir_all(&self.socket_dir);
    }

    fn pg_ctl_status_running(&self) -> bool {
        let mut status = pg_command(&self.bin_dir, "pg_ctl", self.run_as_postgres);
        status.arg("-D").arg(&self.cluster_dir).arg("status");
        status
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .stdin(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    }

    fn pg_ctl_stop(&self, mode: &str) {
        let mut stop = pg_command(&self.bin_dir, "pg_ctl", self.run_as_postgres);
        stop.arg("-D")
            .arg(&self.cluster_dir)
            .args(["-m", mode, "-w", "stop"]);
        if let Err(e) = run(stop, "pg_ctl stop") {
            tracing::warn!(error = %e, "stopping the embedded PostgreSQL failed");
        }
    }

    /// Starts `sh` watching this process: when it is gone, the cluster is stopped (and, for a
    /// throwaway cluster, deleted).
    fn spawn_watchdog(&self, durability: Durability) {
        let pg_ctl = self.bin_dir.join("pg_ctl");
        let runner = if self.run_as_postgres {
            "runuser -u postgres -- "
        } else {
            ""
        };
        let (mode, cleanup) = match durability {
            Durability::Persistent => ("fast", String::new()),
            Durability::Throwaway => (
                "immediate",
                format!(
                    "; rm -rf {}",
                    shell_quote(self.cluster_dir.parent().unwrap_or(&self.cluster_dir))
                ),
            ),
        };
        // The cluster is stopped while this process is still its recorded owner: a later
        // service on the same cluster (which records itself) must not be stopped by an earlier
        // watchdog, but a postmaster restarted by hand (a new pid, same owner) must be.
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.3; done; \
             if [ \"$(head -n 1 {owner} 2>/dev/null)\" = '{pid}' ]; then {runner}{pg_ctl} -D {dir} -m {mode} -w stop >/dev/null 2>&1; fi; \
             rm -rf {sock}{cleanup}",
            owner = shell_quote(&owner_file(&self.cluster_dir)),
            pid = std::process::id(),
            pg_ctl = shell_quote(&pg_ctl),
            dir = shell_quote(&self.cluster_dir),
            sock = shell_quote(&self.socket_dir),
        );
        // In its own process group, so that killing the service's group (a supervisor's
        // `kill -- -pgid`) leaves the watchdog to clean up.
        let spawned = Command::new("sh")
            .process_group(0)
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "could not start the PostgreSQL watchdog");
        }
    }
}

impl Drop for EmbeddedPostgres {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Creates the cluster with `initdb` when it does not exist yet; checks an existing one belongs
/// to the user PostgreSQL runs as.
fn prepare_cluster(
    cluster_dir: &Path,
    bin_dir: &Path,
    owner: Option<(u32, u32)>,
    run_as_postgres: bool,
) -> Result<(), EmbeddedError> {
    let fresh = !cluster_dir.join("PG_VERSION").exists();
    if fresh {
        fs::create_dir_all(cluster_dir)
            .map_err(|e| err(format!("cannot create {}: {e}", cluster_dir.display())))?;
        fs::set_permissions(cluster_dir, fs::Permissions::from_mode(0o700)).map_err(|e| {
            err(format!(
                "cannot set permissions on {}: {e}",
                cluster_dir.display()
            ))
        })?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(cluster_dir, Some(uid), Some(gid)).map_err(|e| {
                err(format!(
                    "cannot hand {} to the postgres user: {e}",
                    cluster_dir.display()
                ))
            })?;
        }
        let mut initdb = pg_command(bin_dir, "initdb", run_as_postgres);
        initdb.arg("-D").arg(cluster_dir).args([
            "-U",
            DB_USER,
            "--auth=trust",
            "-E",
            "UTF8",
            // Byte-order sorting (C) but Unicode case rules (C.UTF-8), so name search
            // folds case for every alphabet (ø/Ø, ł/Ł), as a server PostgreSQL does.
            "--locale=C",
            "--lc-ctype=C.UTF-8",
            "--no-sync",
        ]);
        run(initdb, "initdb")?;
    } else if let Some((uid, _)) = owner {
        let meta = fs::metadata(cluster_dir)
            .map_err(|e| err(format!("cannot read {}: {e}", cluster_dir.display())))?;
        if meta.uid() != uid {
            return Err(err(format!(
                "{} belongs to uid {}, but the service runs PostgreSQL as the postgres user (uid {uid}) because it runs as root. Run `chown -R postgres {}` or run the service as the folder's owner.",
                cluster_dir.display(),
                meta.uid(),
                cluster_dir.display()
            )));
        }
    }
    Ok(())
}

/// Where the owner record of a cluster lives: beside it, in the data folder.
fn owner_file(cluster_dir: &Path) -> PathBuf {
    cluster_dir
        .parent()
        .unwrap_or(cluster_dir)
        .join("postgres.owner")
}

/// This process's executable, as `/proc` names it.
fn exe_of(pid: u32) -> Option<PathBuf> {
    fs::read_link(format!("/proc/{pid}/exe")).ok()
}

/// Records this process as the one that started the cluster (its pid and executable, so a
/// reused pid is not mistaken for it).
fn write_owner(cluster_dir: &Path) {
    let pid = std::process::id();
    let exe = exe_of(pid).unwrap_or_default();
    let record = format!("{pid}\n{}\n", exe.display());
    if let Err(e) = fs::write(owner_file(cluster_dir), record) {
        tracing::warn!(error = %e, "cannot record the embedded PostgreSQL's owner");
    }
}

/// The pid of the live process that started the running cluster, if it is alive and is still
/// the program that wrote the record.
fn live_owner(cluster_dir: &Path) -> Option<u32> {
    let record = fs::read_to_string(owner_file(cluster_dir)).ok()?;
    let mut lines = record.lines();
    let pid: u32 = lines.next()?.trim().parse().ok()?;
    let exe = PathBuf::from(lines.next()?.trim());
    (pid != std::process::id() && exe_of(pid).as_deref() == Some(exe.as_path())).then_some(pid)
}

/// The socket folder of the running postmaster (line 5 of `postmaster.pid`).
fn running_socket_dir(cluster_dir: &Path) -> Option<PathBuf> {
    let pidfile = fs::read_to_string(cluster_dir.join("postmaster.pid")).ok()?;
    let dir = pidfile.lines().nth(4)?.trim();
    (!dir.is_empty() && Path::new(dir).is_dir()).then(|| PathBuf::from(dir))
}

/// `CREATE DATABASE name [TEMPLATE template]` unless a database of that name exists.
pub fn create_database(
    conn: &mut PgConnection,
    name: &str,
    template: Option<&str>,
) -> Result<(), diesel::result::Error> {
    use diesel::sql_types::{Bool, Text};
    #[derive(diesel::QueryableByName)]
    struct Exists {
        #[diesel(sql_type = Bool)]
        exists: bool,
    }
    let found: Exists =
        diesel::sql_query("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS exists")
            .bind::<Text, _>(name)
            .get_result(conn)?;
    if !found.exists {
        let mut sql = format!("CREATE DATABASE \"{}\"", name.replace('"', ""));
        if let Some(t) = template {
            sql.push_str(&format!(" TEMPLATE \"{}\"", t.replace('"', "")));
        }
        diesel::sql_query(sql).execute(conn)?;
    }
    Ok(())
}

fn shell_quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
}

fn run(mut cmd: Command, what: &str) -> Result<(), EmbeddedError> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot run {what}: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            String::from_utf8_lossy(&out.stdout).trim()
        )))
    }
}

fn pg_command(bin_dir: &Path, tool: &str, run_as_postgres: bool) -> Command {
    let exe = bin_dir.join(tool);
    if run_as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(exe);
        c.current_dir("/");
        c
    } else {
        Command::new(exe)
    }
}

/// Finds the folder holding `initdb` and `pg_ctl`: `PATH` first, then the newest
/// `/usr/lib/postgresql/<version>/bin`.
pub fn find_bin_dir() -> Result<PathBuf, EmbeddedError> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let initdb = dir.join("initdb");
            if initdb.is_file() && dir.join("pg_ctl").is_file() {
                let real = fs::canonicalize(&initdb).unwrap_or(initdb);
                if let Some(parent) = real.parent() {
                    if parent.join("pg_ctl").is_file() {
                        return Ok(parent.to_path_buf());
                    }
                }
            }
        }
    }
    let mut candidates: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((version, bin))
        })
        .collect();
    candidates.sort();
    candidates.pop().map(|(_, bin)| bin).ok_or_else(|| {
        err("no PostgreSQL server binaries found (initdb and pg_ctl, on PATH or under /usr/lib/postgresql/*/bin). \
             Install them (Debian: `apt install postgresql`) or set DATABASE_URL to a PostgreSQL server you run yourself.")
    })
}

fn running_as_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

fn postgres_user() -> Result<(u32, u32), EmbeddedError> {
    let passwd = fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .find_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            (f.len() > 3 && f[0] == "postgres").then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))?
        })
        .ok_or_else(|| {
            err("the service runs as root, and PostgreSQL refuses to run as root, but there is no `postgres` user to run it as. \
                 Run the service as an ordinary user, create a `postgres` user, or set DATABASE_URL.")
        })
}

/// Every folder above the cluster must let the `postgres` user through.
fn check_traversable(cluster_dir: &Path, uid: u32, gid: u32) -> Result<(), EmbeddedError> {
    for dir in cluster_dir.ancestors().skip(1) {
        let Ok(meta) = fs::metadata(dir) else {
            continue;
        };
        let mode = meta.mode();
        let ok = (meta.uid() == uid && mode & 0o100 != 0)
            || (meta.gid() == gid && mode & 0o010 != 0)
            || mode & 0o001 != 0;
        if !ok {
            return Err(err(format!(
                "the service runs as root, so its PostgreSQL runs as the `postgres` user, which cannot reach {} \
                 (folder {} is not traversable for it). Either set TOURNEY_DATA_DIR to a folder outside it \
                 (e.g. /var/lib/tourney or /tmp/tourney), allow traversal with `chmod o+x {}`, \
                 run the service as an ordinary user, or set DATABASE_URL.",
                cluster_dir.display(),
                dir.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// The prefix of the socket folders this service makes under the temporary folder.
const SOCKET_DIR_PREFIX: &str = "tourney-pg-";

fn is_our_socket_dir(dir: &Path) -> bool {
    dir.parent() == Some(std::env::temp_dir().as_path())
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(SOCKET_DIR_PREFIX))
}

/// Removes socket folders left by services that were killed before they could clean up (their
/// watchdog killed with them): a folder with no live postmaster's lock in it, untouched for a
/// minute (a folder just made by a starting service has no lock yet, but is young).
fn sweep_socket_dirs() {
    let Ok(entries) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        if !is_our_socket_dir(&dir) {
            continue;
        }
        let young = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_none_or(|age| age < std::time::Duration::from_secs(60));
        if young || postmaster_alive(&dir) {
            continue;
        }
        if fs::remove_dir_all(&dir).is_ok() {
            tracing::info!(dir = %dir.display(), "removed a socket folder left by a killed service");
        }
    }
}

/// Whether the lock file of a socket folder names a live postmaster.
fn postmaster_alive(dir: &Path) -> bool {
    fs::read_to_string(dir.join(".s.PGSQL.5432.lock"))
        .ok()
        .and_then(|l| l.lines().next().and_then(|p| p.trim().parse::<u32>().ok()))
        .is_some_and(|pid| {
            // Running, not a zombie left for its parent to reap.
            fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|st| {
                    st.rsplit_once(')')
                        .map(|(_, rest)| rest.trim_start().to_string())
                })
                .is_some_and(|rest| !rest.starts_with(['Z', 'X']))
        })
}

fn make_socket_dir(owner: Option<(u32, u32)>) -> Result<PathBuf, EmbeddedError> {
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let suffix: u64 = rand::random();
        let dir = base.join(format!(
            "{SOCKET_DIR_PREFIX}{:x}",
            suffix ^ u64::from(attempt)
        ));
        match fs::create_dir(&dir) {
            Ok(()) => {
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(|e| {
                    err(format!("cannot set permissions on {}: {e}", dir.display()))
                })?;
                if let Some((uid, gid)) = owner {
                    std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).map_err(|e| {
                        err(format!("cannot hand {} to postgres: {e}", dir.display()))
                    })?;
                }
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(err(format!(
                    "cannot create a socket folder in {}: {e}",
                    base.display()
                )))
            }
        }
    }
    Err(err("cannot create a socket folder"))
}
