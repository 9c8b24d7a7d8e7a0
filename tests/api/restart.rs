//! The real binary on its embedded default: create-admin, serve, stop, serve again: the data
//! is still there.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::temp_data_dir;

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) fn start(data: &std::path::Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tourney"))
        .env_remove("DATABASE_URL")
        .env_remove("JWT_SECRET")
        .env("TOURNEY_DATA_DIR", data)
        .env("BIND_ADDR", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tourney")
}

pub(crate) async fn wait_ready(client: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(r) = client.get(format!("{base}/readyz")).send().await {
            if r.status() == 200 {
                return;
            }
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the service did not become ready");
}

pub(crate) fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let status = child.wait().expect("wait");
    assert!(status.success(), "graceful shutdown exits 0, got {status}");
}

#[actix_web::test]
async fn data_survives_a_restart_of_the_service() {
    let data = temp_data_dir();
    let out = Command::new(env!("CARGO_BIN_EXE_tourney"))
        .args(["create-admin", "--username", "root-admin"])
        .env_remove("DATABASE_URL")
        .env("TOURNEY_DATA_DIR", &data)
        .env("TOURNEY_ADMIN_PASSWORD", "a long admin password")
        .output()
        .expect("create-admin");
    assert!(
        out.status.success(),
        "create-admin: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let client = crate::helpers::client();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = start(&data, port);
    wait_ready(&client, &base).await;
    let token: Value = client
        .post(format!("{base}/api/v1/auth/token"))
        .json(&json!({"username": "root-admin", "password": "a long admin password"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["access_token"].as_str().unwrap().to_string();
    let r = client
        .post(format!("{base}/api/v1/players"))
        .bearer_auth(&token)
        .json(&json!({"name": "Persistent Petra"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    stop(child);

    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = start(&data, port);
    wait_ready(&client, &base).await;
    let p: Value = client
        .get(format!("{base}/api/v1/players/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(p["name"], "Persistent Petra");
    // The token from before the restart still works: the secret is kept in the data folder.
    let me = client
        .get(format!("{base}/api/v1/me"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
    stop(child);
    let _ = std::fs::remove_dir_all(&data);
}

async fn login(client: &reqwest::Client, base: &str, user: &str, password: &str) -> u16 {
    client
        .post(format!("{base}/api/v1/auth/token"))
        .json(&json!({"username": user, "password": password}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// `tourney create-admin` and `tourney migrate` next to the running service on the same data
/// folder use the service's embedded PostgreSQL and leave it running (they used to stop it,
/// after which the service answered 503 forever).
#[actix_web::test]
async fn admin_commands_next_to_the_running_service_leave_its_database_running() {
    let data = temp_data_dir();
    let client = crate::helpers::client();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = start(&data, port);
    wait_ready(&client, &base).await;

    for (i, command) in [
        vec!["create-admin", "--username", "second-admin"],
        vec!["migrate"],
        vec!["create-admin", "--username", "third-admin"],
    ]
    .into_iter()
    .enumerate()
    {
        let out = Command::new(env!("CARGO_BIN_EXE_tourney"))
            .args(&command)
            .env_remove("DATABASE_URL")
            .env("TOURNEY_DATA_DIR", &data)
            .env("TOURNEY_ADMIN_PASSWORD", "a long admin password")
            .output()
            .expect("run an admin command");
        assert!(
            out.status.success(),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The service still answers from its database, right after the command ended.
        let ready = client.get(format!("{base}/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 200, "after command {i}: {command:?}");
    }
    // The admins were created in the service's own database.
    assert_eq!(
        login(&client, &base, "second-admin", "a long admin password").await,
        200
    );
    assert_eq!(
        login(&client, &base, "third-admin", "a long admin password").await,
        200
    );
    stop(child);

    // Without a running service the command starts the cluster itself and stops it again.
    let out = Command::new(env!("CARGO_BIN_EXE_tourney"))
        .args(["create-admin", "--username", "fourth-admin"])
        .env_remove("DATABASE_URL")
        .env("TOURNEY_DATA_DIR", &data)
        .env("TOURNEY_ADMIN_PASSWORD", "a long admin password")
        .output()
        .expect("create-admin alone");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = start(&data, port);
    wait_ready(&client, &base).await;
    assert_eq!(
        login(&client, &base, "fourth-admin", "a long admin password").await,
        200
    );
    stop(child);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn without_database_url_or_binaries_it_says_what_to_install() {
    let data = temp_data_dir();
    let out = Command::new(env!("CARGO_BIN_EXE_tourney"))
        .env_remove("DATABASE_URL")
        .env("PATH", "/nonexistent")
        .env("TOURNEY_DATA_DIR", &data)
        .env("BIND_ADDR", "127.0.0.1:0")
        .output()
        .expect("run");
    // Only meaningful where /usr/lib/postgresql has no binaries; here it must then start fine
    // or name the package. Either way it must not panic.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn with_database_url_and_no_secret_it_refuses_to_start() {
    let out = Command::new(env!("CARGO_BIN_EXE_tourney"))
        .env("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
        .env_remove("JWT_SECRET")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("JWT_SECRET"), "{stderr}");
}

/// Line `n` (0-based) of the cluster's `postmaster.pid`: 0 the postmaster's pid, 4 the socket
/// folder.
fn postmaster_line(data: &std::path::Path, n: usize) -> Option<String> {
    std::fs::read_to_string(data.join("postgres/postmaster.pid"))
        .ok()
        .and_then(|s| s.lines().nth(n).map(|l| l.trim().to_string()))
}

/// Whether a process runs (a zombie waiting for its parent to reap it does not).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().chars().next())
        })
        .flatten()
        .is_some_and(|state| state != 'Z' && state != 'X')
}

/// Waits up to 15 s for `done`.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..150 {
        if done() {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Issue 15, item 10. A service killed after its cluster was restarted by hand still takes the
/// postmaster and its socket folder down with it (the watchdog stopped only the postmaster it
/// had seen start). And when the watchdog is killed too, the next service stops the postmaster
/// left behind and removes its socket folder (both used to stay).
#[actix_web::test]
async fn a_killed_service_leaves_no_server_and_no_socket_folder() {
    let data = temp_data_dir();
    let client = crate::helpers::client();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = start(&data, port);
    wait_ready(&client, &base).await;
    let socket = postmaster_line(&data, 4).expect("socket folder");

    // The cluster restarted by hand (as an operator would, with pg_ctl).
    let bin = tourney::db::embedded::find_bin_dir().expect("PostgreSQL binaries");
    let pg_ctl = bin.join("pg_ctl");
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let mut restart = if as_root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&pg_ctl);
        c
    } else {
        Command::new(&pg_ctl)
    };
    let status = restart
        .arg("-D")
        .arg(data.join("postgres"))
        .args(["-w", "-m", "fast", "restart"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("pg_ctl restart");
    assert!(status.success());
    wait_ready(&client, &base).await;
    let postmaster = postmaster_line(&data, 0).expect("postmaster pid");

    child.kill().expect("SIGKILL the service");
    let _ = child.wait();
    assert!(
        eventually(|| !alive(&postmaster)).await,
        "the hand-restarted postmaster {postmaster} outlived the killed service"
    );
    assert!(
        eventually(|| !std::path::Path::new(&socket).exists()).await,
        "the socket folder {socket} stayed"
    );

    // Now the service and its watchdog are killed together: nothing cleans up at once.
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = start(&data, port);
    wait_ready(&client, &base).await;
    let socket = postmaster_line(&data, 4).expect("socket folder");
    let postmaster = postmaster_line(&data, 0).expect("postmaster pid");
    let _ = Command::new("pkill")
        .args(["-KILL", "-P", &child.id().to_string()])
        .status();
    child.kill().expect("SIGKILL the service");
    let _ = child.wait();
    assert!(
        alive(&postmaster),
        "left behind, as a killed watchdog leaves it"
    );
    // The next service on the data folder stops it and removes its socket folder.
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = start(&data, port);
    wait_ready(&client, &base).await;
    assert!(!alive(&postmaster));
    assert!(
        !std::path::Path::new(&socket).exists(),
        "the old socket folder {socket} stayed"
    );
    stop(child);
    let _ = std::fs::remove_dir_all(&data);
}
