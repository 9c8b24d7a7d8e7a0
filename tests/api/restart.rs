//! The real binary on its embedded default: create-admin, serve, stop, serve again: the data
//! is still there.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::temp_data_dir;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(data: &std::path::Path, port: u16) -> Child {
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

async fn wait_ready(client: &reqwest::Client, base: &str) {
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

fn stop(mut child: Child) {
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

    let client = reqwest::Client::new();
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
    let client = reqwest::Client::new();
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
    let out = Command::new(env!("CARGO_BIN_EXE_tourney"))
        .env_remove("DATABASE_URL")
        .env("PATH", "/nonexistent")
        .env("TOURNEY_DATA_DIR", temp_data_dir())
        .env("BIND_ADDR", "127.0.0.1:0")
        .output()
        .expect("run");
    // Only meaningful where /usr/lib/postgresql has no binaries; here it must then start fine
    // or name the package. Either way it must not panic.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
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
