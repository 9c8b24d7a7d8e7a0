//! Issue 32, item 4: `tourney backup FILE` under write load holds every write acknowledged
//! before it began; `tourney restore FILE` refuses while the service runs and a file that is no
//! backup, and brings the backup back once the service is stopped.

use std::cell::RefCell;
use std::process::{Command, Output};
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::temp_data_dir;
use crate::restart::{free_port, start, stop, wait_ready};

fn tourney(data: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tourney"))
        .args(args)
        .env_remove("DATABASE_URL")
        .env("TOURNEY_DATA_DIR", data)
        .env("TOURNEY_ADMIN_PASSWORD", "a long admin password")
        .output()
        .expect("run tourney")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

async fn player_ids(client: &reqwest::Client, base: &str) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut offset = 0;
    loop {
        let page: Value = client
            .get(format!("{base}/api/v1/players?limit=200&offset={offset}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let items = page["items"].as_array().unwrap();
        ids.extend(items.iter().map(|p| p["id"].as_i64().unwrap()));
        offset += 200;
        if offset >= page["total"].as_i64().unwrap() {
            return ids;
        }
    }
}

#[actix_web::test]
async fn a_backup_under_write_load_holds_every_write_acknowledged_before_it_began() {
    let data = temp_data_dir();
    let out = tourney(&data, &["create-admin", "--username", "root-admin"]);
    assert!(out.status.success(), "{}", text(&out));
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

    // A writer creates players one after another until told to stop; each acknowledged id is
    // recorded the moment its 201 arrives.
    let acked = Rc::new(RefCell::new(Vec::<i64>::new()));
    let running = Rc::new(RefCell::new(true));
    let writer = {
        let (acked, running, client, base, token) = (
            acked.clone(),
            running.clone(),
            client.clone(),
            base.clone(),
            token.clone(),
        );
        actix_web::rt::spawn(async move {
            let mut n = 0;
            while *running.borrow() {
                n += 1;
                let r = client
                    .post(format!("{base}/api/v1/players"))
                    .bearer_auth(&token)
                    .json(&json!({"name": format!("Writer {n}")}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 201);
                let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
                acked.borrow_mut().push(id);
            }
        })
    };
    while acked.borrow().len() < 30 {
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    let file = data.join("backup.dump");
    let before: Vec<i64> = acked.borrow().clone();
    let backup = {
        let (data, file) = (data.clone(), file.clone());
        actix_web::rt::task::spawn_blocking(move || {
            tourney(&data, &["backup", file.to_str().unwrap()])
        })
    };
    let out = backup.await.unwrap();
    let after_backup = acked.borrow().len();
    assert!(out.status.success(), "backup: {}", text(&out));
    assert!(text(&out).contains("running service"), "{}", text(&out));
    // Writes went on during the backup and after it.
    while acked.borrow().len() < after_backup + 10 {
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    *running.borrow_mut() = false;
    writer.await.unwrap();
    let all: Vec<i64> = acked.borrow().clone();

    // The service owns the data folder: restore refuses and changes nothing.
    let refused = tourney(&data, &["restore", file.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("running service"),
        "{}",
        text(&refused)
    );
    assert_eq!(player_ids(&client, &base).await.len(), all.len());
    stop(child);

    // A file that is no backup is refused before anything is touched.
    let junk = data.join("junk.dump");
    std::fs::write(&junk, b"PGDMP but not really").unwrap();
    let refused = tourney(&data, &["restore", junk.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("not a backup"),
        "{}",
        text(&refused)
    );

    let out = tourney(&data, &["restore", file.to_str().unwrap()]);
    assert!(out.status.success(), "restore: {}", text(&out));
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = start(&data, port);
    wait_ready(&client, &base).await;
    let restored = player_ids(&client, &base).await;
    for id in &before {
        assert!(
            restored.contains(id),
            "player {id} was acknowledged before the backup began"
        );
    }
    // Nothing acknowledged after the backup finished is in it (but the one write that may have
    // been in flight: the writer waits for each answer), and nothing was invented.
    for id in &all[after_backup + 1..] {
        assert!(!restored.contains(id), "player {id} came after the backup");
    }
    assert!(restored.iter().all(|id| all.contains(id)));
    assert!(restored.len() >= before.len() && restored.len() <= after_backup + 1);
    // The restored service takes writes again (its sequences came back too).
    let token: Value = client
        .post(format!("{base}/api/v1/auth/token"))
        .json(&json!({"username": "root-admin", "password": "a long admin password"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let r = client
        .post(format!("{base}/api/v1/players"))
        .bearer_auth(token["access_token"].as_str().unwrap())
        .json(&json!({"name": "After the restore"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    stop(child);
    // Its cluster (65 MB) would stay behind in the temporary folder run after run.
    let _ = std::fs::remove_dir_all(&data);
}

/// Issue 37: a backup holds every account's address and password hash, so only its owner may
/// read it, even when a world-readable file of that name was there before; and a data folder
/// without a cluster (a mistyped `TOURNEY_DATA_DIR`) is refused, not backed up as a new empty
/// cluster.
#[test]
fn a_backup_is_readable_by_its_owner_only_and_a_folder_without_a_cluster_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let data = temp_data_dir();
    let mistyped = data.join("no-such-folder");
    let file = data.join("tourney.dump");
    let out = tourney(&mistyped, &["backup", file.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&mistyped.display().to_string())
            && text(&out).contains("no database cluster"),
        "{}",
        text(&out)
    );
    assert!(!mistyped.exists(), "nothing was created");
    assert!(!file.exists(), "no backup file");

    let out = tourney(&data, &["create-admin", "--username", "root-admin"]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(&file, b"an older file").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = tourney(&data, &["backup", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(meta.len() > 1000, "a real dump");
    let fresh = data.join("fresh.dump");
    let out = tourney(&data, &["backup", fresh.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let _ = std::fs::remove_dir_all(&data);
}
