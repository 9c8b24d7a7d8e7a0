//! Issue 31, item 6: a primary and a real streaming replica (`pg_basebackup -R` from the same
//! PostgreSQL binaries), started by the test. Anonymous list pages read from the replica
//! (`DATABASE_READ_URL`; the tournaments' list here, as the players' is answered by the search
//! index): with the replica's replay paused they show the state before a write,
//! while the writer's own reads, the kept profile and signed-in reads, all on the primary, show
//! it at once; resumed, the replica catches up and the pages kept from it follow within
//! `KEEP_LAGGING` though nothing changed since; stopped, the reads fall back to the primary. The live listener runs on its own session connection (`DATABASE_LISTEN_URL`), and
//! kept reads follow changes through it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use serde_json::{json, Value};

use crate::helpers::{item_names, serve_with_replica, TestApp, ADMIN, PASSWORD};

const BIN: &str = "/usr/lib/postgresql/15/bin";

fn as_postgres(program: &str, args: &[&str]) {
    let out = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(format!("{BIN}/{program}"))
        .args(args)
        .output()
        .expect("runuser");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A running server of the test's primary or replica; stopped and removed when dropped.
struct Server {
    data: PathBuf,
    socket: PathBuf,
}

impl Server {
    fn start(data: &Path, socket: &Path, extra: &str) -> Self {
        std::fs::create_dir_all(socket).unwrap();
        Command::new("chown")
            .args(["postgres:postgres"])
            .arg(socket)
            .status()
            .unwrap();
        let options = format!(
            "-c listen_addresses='' -k {} -p 5432 -c fsync=off {extra}",
            socket.display()
        );
        let log = data.with_extension("log");
        as_postgres(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-w",
                "-o",
                &options,
                "start",
            ],
        );
        Self {
            data: data.to_path_buf(),
            socket: socket.to_path_buf(),
        }
    }

    fn url(&self, db: &str) -> String {
        format!(
            "postgresql:///{db}?host={}&port=5432&user=postgres",
            self.socket.display()
        )
    }

    fn stop(&self) {
        as_postgres(
            "pg_ctl",
            &["-D", self.data.to_str().unwrap(), "-m", "immediate", "stop"],
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{BIN}/pg_ctl"))
            .args(["-D", self.data.to_str().unwrap(), "-m", "immediate", "stop"])
            .output();
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn count(url: &str, sql: &str) -> i64 {
    let mut conn = PgConnection::establish(url).unwrap();
    diesel::sql_query(sql)
        .get_result::<Count>(&mut conn)
        .unwrap()
        .n
}

fn execute(url: &str, sql: &str) {
    let mut conn = PgConnection::establish(url).unwrap();
    diesel::sql_query(sql).execute(&mut conn).unwrap();
}

async fn page(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let r = app.get(path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

async fn eventually(app: &TestApp, path: &str, want: &[&str]) {
    for _ in 0..100 {
        if item_names(&page(app, path, None).await) == want {
            return;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{path} never showed {want:?}");
}

#[actix_web::test]
async fn lag_tolerant_reads_go_to_the_replica_and_listen_has_its_own_session() {
    let base = std::env::temp_dir().join(format!("tourney-replica-{:016x}", rand::random::<u64>()));
    std::fs::create_dir_all(&base).unwrap();
    Command::new("chown")
        .args(["postgres:postgres"])
        .arg(&base)
        .status()
        .unwrap();
    let primary_dir = base.join("primary");
    as_postgres(
        "initdb",
        &[
            "-D",
            primary_dir.to_str().unwrap(),
            "-U",
            "postgres",
            "--auth=trust",
        ],
    );
    let primary = Server::start(&primary_dir, &base.join("ps"), "-c wal_level=replica");
    execute(&primary.url("postgres"), "CREATE DATABASE tourney");
    tourney::runtime::startup::migrate(&primary.url("tourney")).expect("migrate");
    let replica_dir = base.join("replica");
    as_postgres(
        "pg_basebackup",
        &[
            "-D",
            replica_dir.to_str().unwrap(),
            "-R",
            "--checkpoint=fast",
            "-X",
            "stream",
            "-h",
            primary.socket.to_str().unwrap(),
            "-p",
            "5432",
            "-U",
            "postgres",
        ],
    );
    let replica = Server::start(&replica_dir, &base.join("rs"), "-c hot_standby=on");
    assert_eq!(
        count(
            &replica.url("tourney"),
            "SELECT pg_is_in_recovery()::int::int8 AS n"
        ),
        1,
        "a standby"
    );

    let db = primary.url("tourney");
    let listen = format!("{db}&application_name=tourney-listen");
    let app = serve_with_replica(&db, &replica.url("tourney"), &listen);
    let admin = app.token(ADMIN, PASSWORD).await;
    let r = app
        .post("/api/v1/players", Some(&admin), json!({"name": "Ada"}))
        .await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    // The tournaments' list: its anonymous pages are read on the replica (the players' list is
    // answered by the search index once it is current, below).
    let tid = app.tournament(&admin, "agricola_norway").await;
    execute(
        &db,
        &format!("UPDATE tournaments SET name = 'Ada Cup', status = 'running' WHERE id = {tid}"),
    );
    let lagging = "/api/v1/tournaments?limit=50";
    eventually(&app, lagging, &["Ada Cup"]).await;
    eventually(&app, "/api/v1/players?limit=50", &["Ada"]).await;

    // The replica stops replaying: renames reach the primary only.
    execute(&replica.url("tourney"), "SELECT pg_wal_replay_pause()");
    let profile = format!("/api/v1/players/{id}");
    page(&app, &profile, None).await;
    let r = app
        .patch(&profile, Some(&admin), json!({"name": "Ada Lovelace"}))
        .await;
    assert_eq!(r.status(), 200);
    execute(
        &db,
        &format!("UPDATE tournaments SET name = 'Ada Lovelace Cup' WHERE id = {tid}"),
    );
    actix_web::rt::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        item_names(&page(&app, lagging, None).await),
        ["Ada Cup"],
        "the anonymous page with parameters was read on the paused replica"
    );
    assert_eq!(
        item_names(&page(&app, lagging, Some(&admin)).await),
        ["Ada Lovelace Cup"]
    );
    assert_eq!(page(&app, &profile, None).await["name"], "Ada Lovelace");
    assert_eq!(
        item_names(&page(&app, "/api/v1/tournaments", None).await),
        ["Ada Cup"],
        "every anonymous page of the list, the first too, is kept from the replica"
    );
    // The players' pages come from the search index, which has every change committed on the
    // primary before the read (whatever the database's collation, since 1.4.3).
    assert_eq!(
        item_names(&page(&app, "/api/v1/players?limit=49", None).await),
        ["Ada Lovelace"]
    );

    // Replaying again, the replica catches up; the stale pages were kept at the rename's
    // generation, and follow only because a page kept from the replica is read again after
    // `KEEP_LAGGING`.
    execute(&replica.url("tourney"), "SELECT pg_wal_replay_resume()");
    eventually(&app, lagging, &["Ada Lovelace Cup"]).await;

    // The listener holds its own session (DATABASE_LISTEN_URL, named here by its
    // application_name); a change made behind the service's back reaches the kept profile
    // through it.
    let sessions = |app_name: &str| {
        count(
            &db,
            &format!(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'tourney'
                 AND application_name = '{app_name}'"
            ),
        )
    };
    assert_eq!(sessions("tourney-listen"), 1);
    page(&app, &profile, None).await;
    execute(
        &db,
        &format!("UPDATE players SET name = 'Ada K' WHERE id = {id}"),
    );
    let mut seen = Value::Null;
    for _ in 0..60 {
        seen = page(&app, &profile, None).await;
        if seen["name"] == "Ada K" {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen["name"], "Ada K");

    // The replica stopped: the lag-tolerant reads fall back to the primary.
    replica.stop();
    execute(
        &db,
        &format!("UPDATE tournaments SET name = 'Ada K Cup' WHERE id = {tid}"),
    );
    eventually(&app, lagging, &["Ada K Cup"]).await;
    drop(replica);
    drop(primary);
    let _ = std::fs::remove_dir_all(&base);
}
