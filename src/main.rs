//! The `tourney` command: `serve` (the default), `migrate`, `create-admin`, `openapi`,
//! `rebuild-ratings`, `backup`, `restore`, `verify`.

use std::io::BufRead;
use std::net::TcpListener;
use std::process::ExitCode;

use tourney::auth::JwtKeys;
use tourney::runtime::config::Config;
use tourney::runtime::state::AppState;
use tourney::runtime::{startup, telemetry};
use tourney::services::archives::ArchiveKeys;
use tourney::{app, db};

const USAGE: &str = "usage:
  tourney [serve]                      run the service (the default)
  tourney migrate                      apply database migrations and exit
  tourney create-admin --username U    create an admin account; the password comes from
                                       TOURNEY_ADMIN_PASSWORD or the first line of stdin
  tourney openapi                      print the OpenAPI document
  tourney verify FILE                  check a tournament archive or a round's draw records
                                       offline: every seed against its commitment, every draw
                                       recomputed (exit 1 on a mismatch, 2 on an unreadable file;
                                       docs/verifying-draws.md)
  tourney --version                    print the version (semver; the document's info.version)
  tourney rebuild-ratings --pool N     recompute rating pool N from scratch
  tourney backup FILE                  write a consistent backup of the database to FILE
                                       (pg_dump's custom format; safe while the service runs)
  tourney restore FILE                 replace the embedded cluster's database with a backup
                                       (refused while a service runs on the data folder)

Configuration comes from the environment; see .env.example.";

/// mimalloc rather than glibc's allocator: a fifth less CPU a search answered in memory
/// (`Cargo.toml`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(
        args.first().map(String::as_str),
        Some("-V" | "--version" | "version")
    ) {
        println!("tourney {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("verify") {
        // Offline: no configuration, no database, no network.
        return verify(&args[1..]);
    }
    let cfg = match Config::from_env() {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    telemetry::init(cfg.log_json);
    let result = match args.first().map(String::as_str) {
        None | Some("serve") => serve(cfg),
        Some("migrate") => with_database(&cfg, |url| {
            let n = startup::migrate(url)?;
            println!("applied {n} migration(s)");
            Ok(())
        }),
        Some("create-admin") => create_admin(&cfg, &args[1..]),
        Some("rebuild-ratings") => rebuild_ratings(&cfg, &args[1..]),
        Some(cmd @ ("backup" | "restore")) => match &args[1..] {
            [file] => {
                let file = std::path::Path::new(file);
                let done = if cmd == "backup" {
                    tourney::runtime::backup::backup(&cfg, file)
                } else {
                    tourney::runtime::backup::restore(&cfg, file)
                };
                done.map(|msg| println!("{msg}"))
            }
            _ => Err(format!("{cmd} needs a FILE\n\n{USAGE}")),
        },
        Some("openapi") => {
            println!(
                "{}",
                serde_json::to_string_pretty(&app::openapi()).unwrap_or_default()
            );
            Ok(())
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("tourney: {msg}");
    ExitCode::FAILURE
}

fn verify(args: &[String]) -> ExitCode {
    let [file] = args else {
        eprintln!("tourney: verify needs a FILE\n\n{USAGE}");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tourney: cannot read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    match tourney::services::archives::verify::verify(&text) {
        Ok(report) => {
            print!("{}", report.render());
            if report.holds() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("tourney: {file}: {e}");
            ExitCode::from(2)
        }
    }
}

fn with_database(cfg: &Config, f: impl FnOnce(&str) -> Result<(), String>) -> Result<(), String> {
    let mut database = startup::open_database(cfg)?;
    let result = f(&database.url);
    if let Some(pg) = database.embedded.as_mut() {
        pg.stop();
    }
    result
}

fn create_admin(cfg: &Config, args: &[String]) -> Result<(), String> {
    let username = match args {
        [flag, u] if flag == "--username" => u.clone(),
        _ => return Err(format!("create-admin needs --username U\n\n{USAGE}")),
    };
    let password = match std::env::var("TOURNEY_ADMIN_PASSWORD") {
        Ok(p) if !p.is_empty() => p,
        _ => {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|e| format!("cannot read the password from stdin: {e}"))?;
            line.trim_end_matches(['\r', '\n']).to_string()
        }
    };
    tourney::auth::credentials::check_new_credentials(&username, &password)
        .map_err(|e| e.to_string())?;
    with_database(cfg, |url| {
        startup::migrate(url)?;
        use diesel::Connection;
        let mut conn = diesel::PgConnection::establish(url).map_err(|e| e.to_string())?;
        let user =
            tourney::services::accounts::users::create_user(&mut conn, &username, &password, true)
                .map_err(|e| e.to_string())?;
        println!("created admin {} (id {})", user.username, user.id);
        Ok(())
    })
}

fn rebuild_ratings(cfg: &Config, args: &[String]) -> Result<(), String> {
    let pool_id: i64 = match args {
        [flag, n] if flag == "--pool" => n
            .parse()
            .map_err(|_| format!("--pool needs a pool id, not {n:?}"))?,
        _ => return Err(format!("rebuild-ratings needs --pool N\n\n{USAGE}")),
    };
    with_database(cfg, |url| {
        startup::migrate(url)?;
        use diesel::Connection;
        let mut conn = diesel::PgConnection::establish(url).map_err(|e| e.to_string())?;
        let s = conn
            .transaction(|c| tourney::services::ratings::rebuild_pool(c, pool_id))
            .map_err(|e| e.to_string())?;
        println!(
            "rebuilt rating pool {pool_id}: {} games, {} rating changes",
            s.games, s.changes
        );
        Ok(())
    })
}

fn serve(cfg: Config) -> Result<(), String> {
    let secret = startup::jwt_secret(&cfg)?;
    let mut database = startup::open_database(&cfg)?;
    let result = (|| {
        let n = startup::migrate(&database.url)?;
        if n > 0 {
            tracing::info!(count = n, "applied migrations");
        }
        let pool = db::pool_with(&database.url, cfg.db_pool_size, cfg.db_checkout_timeout)
            .map_err(|e| format!("cannot open the connection pool: {e}"))?;
        // Reads that tolerate replication lag go to the replica, when there is one.
        let replica = cfg
            .database_read_url
            .as_deref()
            .map(|url| db::pool_with(url, cfg.db_pool_size, cfg.db_checkout_timeout))
            .transpose()
            .map_err(|e| format!("cannot open the read replica's pool (DATABASE_READ_URL): {e}"))?;
        let listen_url = cfg.database_listen_url.as_deref().unwrap_or(&database.url);
        let metrics = tourney::infra::metrics::Metrics::default();
        let state = AppState {
            pool,
            replica,
            jwt: JwtKeys::new(secret.as_bytes(), cfg.jwt_ttl),
            leaderboards: Default::default(),
            login_throttle: Default::default(),
            rate_limits: tourney::infra::ratelimit::RateLimiter::new(cfg.rate_limits)
                .trusting(cfg.trusted_proxies.clone()),
            accounts: Default::default(),
            circuit: Default::default(),
            live: tourney::infra::live::LiveHub::with_listen_url(&database.url, listen_url),
            standings: tourney::infra::standings_cache::StandingsCache::new(
                cfg.standings_cache_max_bytes,
                metrics.cache_meter("standings"),
            ),
            kept: tourney::infra::kept::KeptReads::new(
                cfg.kept_bodies_max_bytes,
                &metrics.cache_meter("public"),
            ),
            search: Default::default(),
            clock: Default::default(),
            webhooks: tourney::services::integrations::webhooks::WebhookPolicy {
                allow_private: std::env::var("TOURNEY_WEBHOOK_ALLOW_PRIVATE")
                    .is_ok_and(|v| v == "1"),
                ..Default::default()
            },
            metrics,
            signup: tourney::runtime::state::SignupSetup {
                mode: cfg.signup_mode,
                mail: tourney::infra::mail::Mail::new(
                    cfg.smtp_url.as_deref(),
                    cfg.mail_from.as_deref(),
                )?,
                throttle: Default::default(),
                links: cfg.mail_links.clone(),
            },
            archive_keys: match cfg.archive_signing_key {
                Some(seed) => ArchiveKeys::new(seed, cfg.archive_trusted_keys.clone()),
                None => ArchiveKeys::derived(secret.as_bytes(), cfg.archive_trusted_keys.clone()),
            },
            hall: tourney::auth::table_codes::HallKeys::derived(secret.as_bytes())
                .with_public_base(std::env::var("PUBLIC_BASE_URL").ok().as_deref()),
        };
        if state.signup.mail.configured() && state.signup.links == Default::default() {
            tracing::warn!(
                "mail is set up but PUBLIC_BASE_URL (or MAIL_LINK_*) is not: messages carry their codes without links"
            );
        }
        tracing::info!(
            key = %state.archive_keys.public_hex(),
            "archives are signed with this instance's key (GET /api/v1/archive-key)"
        );
        if state.signup.mail.configured() {
            tracing::info!(
                mode = state.signup.mode.as_str(),
                "e-mail goes out through SMTP_URL"
            );
        } else {
            tracing::warn!(mode = state.signup.mode.as_str(), "e-mail is not configured (SMTP_URL unset): sign-up in open mode, password reset and invitations answer 503");
        }
        let listener = TcpListener::bind(&cfg.bind_addr)
            .map_err(|e| format!("cannot listen on {} (BIND_ADDR): {e}", cfg.bind_addr))?;
        tracing::info!(addr = %cfg.bind_addr, docs = %format!("http://{}/docs/", cfg.bind_addr), "tourney is listening");
        let system = actix_web::rt::System::new();
        system
            .block_on(async move { app::serve(listener, state, cfg.workers)?.await })
            .map_err(|e| format!("the server failed: {e}"))
    })();
    if let Some(pg) = database.embedded.as_mut() {
        tracing::info!("stopping the embedded PostgreSQL");
        pg.stop();
    }
    result
}
