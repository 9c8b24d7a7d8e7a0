//! `spawn_app()`: the real application on port 0 with its own database.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use reqwest::{Client, Method, RequestBuilder, Response};
use serde_json::{json, Value};
use tourney::auth::JwtKeys;
use tourney::db::embedded::{Durability, EmbeddedPostgres};
use tourney::runtime::state::AppState;
use tourney::services::integrations::webhook_dns::{Lookup, SystemLookup};

use crate::smtp_sink::{Received, SmtpSink};

const TEMPLATE: &str = "tourney_template";

struct Cluster {
    pg: EmbeddedPostgres,
    create_lock: Mutex<()>,
}

fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let base =
            std::env::temp_dir().join(format!("tourney-test-{:016x}", rand::random::<u64>()));
        std::fs::create_dir_all(&base).expect("create the test cluster folder");
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let pg = EmbeddedPostgres::start(&base.join("postgres"), Durability::Throwaway)
            .expect("start the throwaway PostgreSQL");
        pg.ensure_database(TEMPLATE, None)
            .expect("create the template database");
        tourney::runtime::startup::migrate(&pg.url(TEMPLATE)).expect("migrate the template");
        Cluster {
            pg,
            create_lock: Mutex::new(()),
        }
    })
}

/// A fresh, migrated database; returns its URL.
pub fn fresh_database() -> String {
    let c = cluster();
    let name = format!("t_{:016x}", rand::random::<u64>());
    {
        let _guard = c.create_lock.lock().unwrap_or_else(|e| e.into_inner());
        c.pg.ensure_database(&name, Some(TEMPLATE))
            .expect("create a test database");
    }
    c.pg.url(&name)
}

pub const ADMIN: &str = "admin";
pub const PASSWORD: &str = "correct horse battery";

pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub secret: String,
    /// The test's own database, for tests that write rows directly.
    pub database_url: String,
    /// The instance's scheduling clock: a test moves it forward to play days in seconds.
    pub clock: tourney::services::play::scheduling::Clock,
}

/// Starts the app against a fresh database with one admin account (`ADMIN` / `PASSWORD`).
pub async fn spawn_app() -> TestApp {
    let (db_url, secret) = database_with_admin();
    serve_on(&db_url, &secret)
}

/// A fresh database created from `template0` with `options` (e.g. another default collation),
/// migrated as the service migrates its own; returns its URL.
pub fn fresh_database_with(options: &str) -> String {
    use diesel::{Connection, RunQueryDsl};
    let c = cluster();
    let name = format!("t_{:016x}", rand::random::<u64>());
    {
        let _guard = c.create_lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut conn = diesel::PgConnection::establish(&c.pg.url("postgres")).expect("connect");
        diesel::sql_query(format!(
            "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' {options}"
        ))
        .execute(&mut conn)
        .expect("create a database");
    }
    let url = c.pg.url(&name);
    tourney::runtime::startup::migrate(&url).expect("migrate");
    url
}

/// The app on a fresh database created with `options` ([`fresh_database_with`]), with the
/// admin account.
pub async fn spawn_app_on_database_with(options: &str) -> TestApp {
    let db_url = fresh_database_with(options);
    let secret = with_admin(&db_url);
    serve_on(&db_url, &secret)
}

/// A fresh database with the admin account, and a token secret.
fn database_with_admin() -> (String, String) {
    let db_url = fresh_database();
    let secret = with_admin(&db_url);
    (db_url, secret)
}

/// Adds the admin account to the database at `db_url`; returns a token secret.
fn with_admin(db_url: &str) -> String {
    let secret = format!(
        "{:032x}{:032x}",
        rand::random::<u128>(),
        rand::random::<u128>()
    );
    {
        let pool = tourney::db::pool(db_url, 1).expect("pool");
        let mut conn = pool.get().expect("connection");
        tourney::services::accounts::users::create_user(&mut conn, ADMIN, PASSWORD, true)
            .expect("admin");
    }
    secret
}

/// Starts the app with a sign-up mode and, with `smtp_url`, mail through that server (retried
/// after a second).
pub async fn spawn_app_with_signup(
    mode: tourney::domain::accounts::SignupMode,
    smtp_url: Option<&str>,
) -> TestApp {
    let (db_url, secret) = database_with_admin();
    let mut mail =
        tourney::infra::mail::Mail::new(smtp_url, Some("Tourney <noreply@tourney.test>"))
            .expect("mail settings");
    mail.retry_base_secs = 1;
    serve_with(
        &db_url,
        &secret,
        Serve {
            signup: tourney::runtime::state::SignupSetup {
                mode,
                mail,
                throttle: Default::default(),
                links: Default::default(),
            },
            ..Serve::default()
        },
    )
}

/// Another instance on `app`'s database that sends mail through `smtp_url` as well (its own
/// background job, its own sign-up throttle).
pub fn second_instance_with_mail(app: &TestApp, smtp_url: &str) -> TestApp {
    let mut mail =
        tourney::infra::mail::Mail::new(Some(smtp_url), Some("Tourney <noreply@tourney.test>"))
            .expect("mail settings");
    mail.retry_base_secs = 1;
    serve_with(
        &app.database_url,
        &app.secret,
        Serve {
            signup: tourney::runtime::state::SignupSetup {
                mode: tourney::domain::accounts::SignupMode::Open,
                mail,
                throttle: Default::default(),
                links: Default::default(),
            },
            ..Serve::default()
        },
    )
}

/// A second instance of the service on the same database and token secret as `app` (tokens
/// from one work on the other).
pub async fn second_instance(app: &TestApp) -> TestApp {
    serve_on(&app.database_url, &app.secret)
}

/// The app on an existing database (e.g. one restored from a dump), with a fresh token secret.
pub async fn serve_existing(db_url: &str) -> TestApp {
    let secret = format!(
        "{:032x}{:032x}",
        rand::random::<u128>(),
        rand::random::<u128>()
    );
    serve_on(db_url, &secret)
}

/// An app (one instance) that refuses private webhook targets, as a default installation
/// does, and resolves their names by `lookup` (the system's resolver, or a test's table).
pub fn spawn_app_refusing_private_targets(lookup: Arc<dyn Lookup>) -> TestApp {
    let (db_url, secret) = database_with_admin();
    let serve = Serve {
        allow_private: false,
        lookup,
        ..Serve::default()
    };
    serve_with(&db_url, &secret, serve)
}

/// Generous limits, so that no test but the rate limits' own meets them.
pub const TEST_LIMITS: tourney::infra::ratelimit::Limits = tourney::infra::ratelimit::Limits {
    read: 1_000_000,
    write: 1_000_000,
    auth: 1_000_000,
    search_micros: 1000,
};

/// An app on its own database whose rate limits are `limits`.
pub async fn spawn_app_with_limits(limits: tourney::infra::ratelimit::Limits) -> TestApp {
    spawn_serving(Serve {
        limits,
        ..Serve::default()
    })
    .await
}

/// An app whose listener cannot connect, so that its search index is never built and
/// PostgreSQL answers every search, with rate limits `limits`.
pub async fn spawn_app_without_index(limits: tourney::infra::ratelimit::Limits) -> TestApp {
    spawn_serving(Serve {
        limits,
        listen_url: Some("postgres://nobody@127.0.0.1:1/none".into()),
        ..Serve::default()
    })
    .await
}

/// An app behind reverse proxies (`TRUSTED_PROXIES`) whose rate limits are `limits`.
pub async fn spawn_app_behind(proxies: &str, limits: tourney::infra::ratelimit::Limits) -> TestApp {
    spawn_serving(Serve {
        limits,
        proxies: tourney::infra::clients::Proxies::parse(proxies).expect("proxies"),
        ..Serve::default()
    })
    .await
}

/// An app on its own database served as `serve` says.
async fn spawn_serving(serve: Serve) -> TestApp {
    let app = spawn_app().await;
    serve_with(&app.database_url, &app.secret, serve)
}

/// An app whose kept public bodies may weigh at most `kept_bytes` (issue 33: a small budget
/// to read past).
pub async fn spawn_app_with_kept_budget(kept_bytes: u64) -> TestApp {
    spawn_serving(Serve {
        kept_bytes,
        ..Serve::default()
    })
    .await
}

/// The usual instance (private webhook targets allowed: the tests' receivers).
fn serve_on(db_url: &str, secret: &str) -> TestApp {
    serve_with(db_url, secret, Serve::default())
}

/// An app on `db_url` (with one admin, `ADMIN` / `PASSWORD`, created here) whose lag-tolerant
/// reads go to `read_url` and whose listener connects to `listen_url` (issue 31, item 6).
pub fn serve_with_replica(db_url: &str, read_url: &str, listen_url: &str) -> TestApp {
    {
        let pool = tourney::db::pool(db_url, 1).expect("pool");
        let mut conn = pool.get().expect("connection");
        tourney::services::accounts::users::create_user(&mut conn, ADMIN, PASSWORD, true)
            .expect("admin");
    }
    let secret = format!(
        "{:032x}{:032x}",
        rand::random::<u128>(),
        rand::random::<u128>()
    );
    let replica = tourney::db::pool_with(read_url, 2, std::time::Duration::from_millis(500))
        .expect("the replica's pool");
    serve_with(
        db_url,
        &secret,
        Serve {
            replica: Some(replica),
            listen_url: Some(listen_url.to_string()),
            ..Serve::default()
        },
    )
}

/// How a test's service instance is set up; `Serve::default()` is the usual one.
struct Serve {
    /// Whether webhook targets on private addresses (the tests' receivers) are allowed.
    allow_private: bool,
    /// The byte budget of the kept public bodies.
    kept_bytes: u64,
    limits: tourney::infra::ratelimit::Limits,
    /// The reverse proxies believed about their clients (`TRUSTED_PROXIES`).
    proxies: tourney::infra::clients::Proxies,
    /// Where lag-tolerant reads go (none: the primary).
    replica: Option<tourney::db::DbPool>,
    /// Where the listener connects (none: the database).
    listen_url: Option<String>,
    signup: tourney::runtime::state::SignupSetup,
    /// How webhook target names resolve (the system's resolver).
    lookup: Arc<dyn Lookup>,
}

impl Default for Serve {
    fn default() -> Self {
        Serve {
            allow_private: true,
            kept_bytes: tourney::infra::kept::DEFAULT_MAX_BYTES,
            limits: TEST_LIMITS,
            proxies: Default::default(),
            replica: None,
            listen_url: None,
            signup: Default::default(),
            lookup: Arc::new(SystemLookup),
        }
    }
}

fn serve_with(db_url: &str, secret: &str, serve: Serve) -> TestApp {
    let Serve {
        allow_private,
        kept_bytes,
        limits,
        proxies,
        replica,
        listen_url,
        mut signup,
        lookup,
    } = serve;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    // Mail leads to this instance's own pages unless a test set other links.
    if signup.mail.configured() && signup.links == Default::default() {
        signup.links = tourney::services::accounts::links::MailLinks::new(
            Some(&format!("http://127.0.0.1:{port}")),
            None,
            None,
            None,
        )
        .expect("links");
    }
    let listen_url = listen_url.as_deref().unwrap_or(db_url);
    // Longer than the service's 2 s: a hundred requests at once beside other builds (`concurrency`)
    // wait longer for the four; the checkout's 503 is tested in `outage`, on pools of its own.
    let pool = tourney::db::pool_with(db_url, 4, std::time::Duration::from_secs(20)).expect("pool");
    let clock = tourney::services::play::scheduling::Clock::default();
    let metrics = tourney::infra::metrics::Metrics::default();
    let state = AppState {
        pool,
        replica,
        jwt: JwtKeys::new(secret.as_bytes(), std::time::Duration::from_secs(600)),
        leaderboards: Default::default(),
        login_throttle: Default::default(),
        rate_limits: tourney::infra::ratelimit::RateLimiter::new(limits).trusting(proxies),
        accounts: Default::default(),
        circuit: Default::default(),
        live: tourney::infra::live::LiveHub::with_listen_url(db_url, listen_url),
        standings: tourney::infra::standings_cache::StandingsCache::new(
            tourney::infra::standings_cache::DEFAULT_MAX_BYTES,
            metrics.cache_meter("standings"),
        ),
        kept: tourney::infra::kept::KeptReads::new(kept_bytes, &metrics.cache_meter("public")),
        search: Default::default(),
        clock: clock.clone(),
        // Tests receive webhooks on 127.0.0.1 and retry after a second.
        webhooks: tourney::services::integrations::webhooks::WebhookPolicy {
            allow_private,
            retry_base_secs: 1,
            lookup,
        },
        metrics,
        signup,
        archive_keys: tourney::services::archives::ArchiveKeys::derived(
            secret.as_bytes(),
            Vec::new(),
        ),
        hall: tourney::auth::table_codes::HallKeys::derived(secret.as_bytes()),
    };
    let server = tourney::app::serve(listener, state, Some(1)).expect("server");
    actix_web::rt::spawn(server);
    TestApp {
        base: format!("http://127.0.0.1:{port}"),
        client: client(),
        secret: secret.to_string(),
        database_url: db_url.to_string(),
        clock,
    }
}

/// The value of the `/metrics` series written exactly as `series` (name and labels), 0 when
/// absent.
pub fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// The `name` of every item of a list's page.
pub fn item_names(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect()
}

impl TestApp {
    /// Reads of the cache `cache` counted so far in `/metrics`: (hits, misses).
    pub async fn cache_reads(&self, cache: &str) -> (f64, f64) {
        let text = self.get("/metrics", None).await.text().await.unwrap();
        let series = |outcome: &str| {
            format!(r#"tourney_cache_reads_total{{cache="{cache}",outcome="{outcome}"}}"#)
        };
        (
            metric(&text, &series("hit")),
            metric(&text, &series("miss")),
        )
    }

    /// Waits until this instance has heard every change committed before the call. Kept bodies
    /// follow the changes the listener hears, and on a loaded machine it may hear one later
    /// than any fixed sleep: this announces a change of the pools' list and waits until its
    /// kept page is dropped (PostgreSQL delivers notifications in commit order).
    pub async fn changes_heard(&self) {
        use diesel::{Connection, RunQueryDsl};
        const LIST: &str = "/api/v1/rating-pools";
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let missed = || async {
            let (_, before) = self.cache_reads("public").await;
            assert_eq!(self.get(LIST, None).await.status(), 200);
            assert!(
                std::time::Instant::now() < deadline,
                "the listener did not hear the changes within 20 s"
            );
            self.cache_reads("public").await.1 > before
        };
        while missed().await {}
        let mut conn = diesel::PgConnection::establish(&self.database_url).expect("connect");
        diesel::sql_query("SELECT pg_notify('tourney_changes', 'pool:0')")
            .execute(&mut conn)
            .expect("notify");
        while !missed().await {
            actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn req(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let mut r = self.client.request(method, self.url(path));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        self.req(Method::GET, path, token)
            .send()
            .await
            .expect("request")
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Response {
        self.req(Method::POST, path, token)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    pub async fn patch(&self, path: &str, token: Option<&str>, body: Value) -> Response {
        self.req(Method::PATCH, path, token)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    pub async fn put(&self, path: &str, token: Option<&str>, body: Value) -> Response {
        self.req(Method::PUT, path, token)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    /// A PATCH that names the version it replaces (`If-Match: "<version>"`).
    pub async fn patch_if_match(
        &self,
        path: &str,
        token: Option<&str>,
        version: impl std::fmt::Display,
        body: Value,
    ) -> Response {
        self.req(Method::PATCH, path, token)
            .header("if-match", version_tag(version))
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    /// A PATCH that overwrites whatever version is current (`If-Match: *`).
    pub async fn patch_any(&self, path: &str, token: Option<&str>, body: Value) -> Response {
        self.req(Method::PATCH, path, token)
            .header("if-match", "*")
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    /// A PUT that names the version it replaces (`If-Match: "<version>"`).
    pub async fn put_if_match(
        &self,
        path: &str,
        token: Option<&str>,
        version: impl std::fmt::Display,
        body: Value,
    ) -> Response {
        self.req(Method::PUT, path, token)
            .header("if-match", version_tag(version))
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    pub async fn delete_req(&self, path: &str, token: &str) -> Response {
        self.req(Method::DELETE, path, Some(token))
            .send()
            .await
            .expect("request")
    }

    /// A DELETE with a JSON body (`DELETE /me` takes the account's password).
    pub async fn delete_with(&self, path: &str, token: &str, body: Value) -> Response {
        self.req(Method::DELETE, path, Some(token))
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    /// `DELETE /me` with the password every test account has.
    pub async fn erase_me(&self, token: &str) -> Response {
        self.delete_with("/api/v1/me", token, json!({"password": PASSWORD}))
            .await
    }

    /// `POST /auth/token`: the answer, whatever it is ([`Self::token`] wants the token).
    pub async fn sign_in(&self, username: &str, password: &str) -> Response {
        self.post(
            "/api/v1/auth/token",
            None,
            json!({"username": username, "password": password}),
        )
        .await
    }

    /// `POST /auth/verify-email` with a verification (or address-change) code.
    pub async fn verify_email(&self, code: &str) -> Response {
        self.post("/api/v1/auth/verify-email", None, json!({"token": code}))
            .await
    }

    /// `GET /me` (200): the account `token` signs in, as the service shows it to its owner.
    pub async fn me(&self, token: &str) -> Value {
        let r = self.get("/api/v1/me", Some(token)).await;
        assert_eq!(r.status(), 200, "GET /me");
        r.json().await.expect("json")
    }

    pub async fn token(&self, username: &str, password: &str) -> String {
        let r = self.sign_in(username, password).await;
        assert_eq!(r.status(), 200, "token for {username}");
        r.json::<Value>().await.expect("json")["access_token"]
            .as_str()
            .expect("token")
            .to_string()
    }

    /// The instance's public archive key (`GET /archive-key`): what an importer elsewhere
    /// names as `trust_key`.
    pub async fn archive_key(&self) -> String {
        let r = self.get("/api/v1/archive-key", None).await;
        assert_eq!(r.status(), 200);
        r.json::<Value>().await.expect("json")["key"]
            .as_str()
            .expect("key")
            .to_string()
    }

    pub async fn admin_token(&self) -> String {
        self.token(ADMIN, PASSWORD).await
    }

    /// Creates a non-admin user and returns (id, token).
    pub async fn user(&self, username: &str) -> (i64, String) {
        let admin = self.admin_token().await;
        let r = self
            .post(
                "/api/v1/users",
                Some(&admin),
                json!({"username": username, "password": PASSWORD}),
            )
            .await;
        assert_eq!(r.status(), 201, "create user {username}");
        let id = r.json::<Value>().await.expect("json")["id"]
            .as_i64()
            .expect("id");
        (id, self.token(username, PASSWORD).await)
    }

    /// An admin accepts tournament `tid` into rating pool `pool` (naming a pool only asks to be
    /// rated: its games feed the pool once a keeper or an admin accepts it).
    pub async fn accept_rating(&self, pool: i64, tid: i64) {
        let admin = self.admin_token().await;
        let r = self
            .post(
                &format!("/api/v1/rating-pools/{pool}/tournaments/{tid}/decision"),
                Some(&admin),
                json!({"decision": "accept"}),
            )
            .await;
        let status = r.status();
        let body = r.text().await.unwrap_or_default();
        assert_eq!(
            status, 200,
            "accept tournament {tid} into pool {pool}: {body}"
        );
    }

    /// Creates a tournament with the given ruleset and returns its id.
    pub async fn tournament(&self, token: &str, ruleset: &str) -> i64 {
        let r = self
            .post(
                "/api/v1/tournaments",
                Some(token),
                json!({
                    "name": "Test Open", "game": "Agricola", "ruleset": ruleset,
                    "planned_rounds": 5, "starts_on": "2026-06-12", "days": 3,
                    "time_zone": "Europe/Oslo"
                }),
            )
            .await;
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.expect("json")["id"]
            .as_i64()
            .expect("id")
    }
}

/// An instance open to sign-ups (`SIGNUP_MODE=open`) whose mail goes to a sink of its own.
pub async fn spawn_open_app() -> (SmtpSink, TestApp) {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(
        tourney::domain::accounts::SignupMode::Open,
        Some(&sink.url()),
    )
    .await;
    (sink, app)
}

/// `POST /auth/signup` with the test password, asking for `lang` (`Accept-Language`) if given.
pub async fn sign_up(app: &TestApp, username: &str, email: &str, lang: Option<&str>) -> Response {
    let mut r = app
        .client
        .post(app.url("/api/v1/auth/signup"))
        .json(&json!({"username": username, "email": email, "password": PASSWORD}));
    if let Some(l) = lang {
        r = r.header("accept-language", l);
    }
    r.send().await.expect("request")
}

/// The message `email` receives after the `before` it had.
pub async fn next_mail(sink: &SmtpSink, email: &str, before: usize) -> Received {
    sink.wait_for(email, before + 1, 20).await[before].clone()
}

/// Signs up (202) and answers the code of the verification message the sign-up sends.
pub async fn signed_up(
    app: &TestApp,
    sink: &SmtpSink,
    username: &str,
    email: &str,
    lang: Option<&str>,
) -> String {
    let before = sink.to(email).len();
    assert_eq!(sign_up(app, username, email, lang).await.status(), 202);
    next_mail(sink, email, before).await.code("ev_")
}

/// Signs up and verifies; returns the account's access token.
pub async fn verified_account(
    app: &TestApp,
    sink: &SmtpSink,
    username: &str,
    email: &str,
) -> String {
    let code = signed_up(app, sink, username, email, None).await;
    assert_eq!(app.verify_email(&code).await.status(), 204);
    app.token(username, PASSWORD).await
}

/// `POST /auth/verify-email/resend` for `email`.
pub async fn resend_verification(app: &TestApp, email: &str) -> Response {
    app.post(
        "/api/v1/auth/verify-email/resend",
        None,
        json!({"email": email}),
    )
    .await
}

/// Whether a refused code's problem says why: its first error's message contains `why`
/// (`already used`, `expired`, `unknown`).
pub fn says(problem: &Value, why: &str) -> bool {
    problem["errors"][0]["message"]
        .as_str()
        .is_some_and(|m| m.contains(why))
}

/// Asserts a problem+json answer with `status` and returns its body.
/// The `If-Match` / `ETag` form of a version: `"3"`.
pub fn version_tag(version: impl std::fmt::Display) -> String {
    format!("\"{version}\"")
}

pub async fn problem(r: Response, status: u16) -> Value {
    assert_eq!(r.status().as_u16(), status, "status");
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert_eq!(ct, "application/problem+json", "content type");
    let body: Value = r.json().await.expect("problem body");
    assert_eq!(body["status"].as_u64(), Some(u64::from(status)));
    assert!(body["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("/problems/")));
    assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    body
}

/// The field names of a validation problem.
/// A refusal with `status`, as a problem document: the fields it names.
pub async fn refused(r: Response, status: u16) -> Vec<String> {
    fields(&problem(r, status).await)
}

pub fn fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e["field"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A folder PostgreSQL (running as `postgres` when we are root) can reach.
pub fn temp_data_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tourney-data-{:016x}", rand::random::<u64>()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// A superuser connection to the test cluster (its `postgres` database) and the name of the
/// database behind `database_url`.
pub fn cluster_admin(database_url: &str) -> (diesel::PgConnection, String) {
    use diesel::Connection;
    let (head, tail) = database_url
        .split_once("///")
        .expect("a socket URL postgresql:///<db>?...");
    let (name, query) = tail.split_once('?').expect("URL parameters");
    let conn = diesel::PgConnection::establish(&format!("{head}///postgres?{query}"))
        .expect("connect as the cluster owner");
    (conn, name.to_string())
}

/// The tests' HTTP client. It drops an idle connection after 2 s, before the service's keep-alive
/// (5 s) closes it: a request sent on a connection the server is closing at that moment fails
/// with an incomplete message (seen once in CI after a test waited about 5 s).
pub fn client() -> Client {
    Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("client")
}
