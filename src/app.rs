//! Builds the actix application: middleware, routes, the OpenAPI document and `/docs`.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_cors::Cors;
use actix_http::{error::DispatchError, HttpService};
use actix_service::{fn_service, map_config, ServiceFactoryExt};
use actix_web::body::BoxBody;
use actix_web::dev::AppConfig;
use actix_web::dev::{Server, Service, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::Method;
use actix_web::rt::net::TcpStream;
use actix_web::{web, App, HttpMessage, HttpRequest};
use futures_util::future::{ready, Either, FutureExt};
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::api;
use crate::error::ApiError;
use crate::infra::live::{LiveHub, Subject};
use crate::infra::metrics::Metrics;
use crate::infra::ratelimit::{Counted, Verdict};
use crate::runtime::state::AppState;
use crate::runtime::wire::ProblemIo;

/// The OpenAPI document, exactly as the running service serves it at `/openapi.json`.
pub fn openapi() -> serde_json::Value {
    let (_, doc) = App::new()
        .into_utoipa_app()
        .openapi(api::ApiDoc::openapi())
        .service(api::health::healthz)
        .service(api::health::readyz)
        .service(api::health::changelog)
        .service(api::metrics::metrics)
        .configure(html_pages)
        .service(api::problem::explain)
        .service(utoipa_actix_web::scope("/api/v1").configure(api::routes))
        .split_for_parts();
    api::document::finish(doc)
}

/// The routes the service knows, as path templates with their methods, to tell 404 from 405.
#[derive(Debug, Clone)]
pub struct RouteTable {
    routes: Vec<(Vec<String>, Vec<String>)>,
}

impl RouteTable {
    fn from_openapi(doc: &serde_json::Value) -> Self {
        let empty = serde_json::Map::new();
        let paths = doc["paths"].as_object().unwrap_or(&empty);
        let mut routes: Vec<(Vec<String>, Vec<String>)> = paths
            .iter()
            .map(|(path, value)| {
                let methods = [
                    "get", "put", "post", "delete", "options", "head", "patch", "trace",
                ]
                .iter()
                .filter(|m| value.get(**m).is_some())
                .map(|m| m.to_ascii_uppercase())
                .collect();
                (segments(path), methods)
            })
            .collect();
        routes.push((segments("/openapi.json"), vec!["GET".into()]));
        Self { routes }
    }

    /// The methods allowed on `path`, if any route matches it.
    pub fn allowed(&self, path: &str) -> Option<Vec<String>> {
        let parts = segments(path);
        let mut methods: Vec<String> = Vec::new();
        let mut found = false;
        for (template, ms) in &self.routes {
            if template.len() == parts.len()
                && template
                    .iter()
                    .zip(&parts)
                    .all(|(t, p)| (t.starts_with('{') && !p.is_empty()) || t == p)
            {
                found = true;
                methods.extend(ms.iter().cloned());
            }
        }
        if found {
            methods.sort();
            methods.dedup();
            Some(methods)
        } else {
            None
        }
    }
}

fn segments(path: &str) -> Vec<String> {
    path.trim_end_matches('/')
        .split('/')
        .skip(1)
        .map(str::to_string)
        .collect()
}

async fn fallback(req: HttpRequest, routes: web::Data<RouteTable>) -> actix_web::HttpResponse {
    use actix_web::ResponseError;
    match routes.allowed(req.path()) {
        Some(methods) => ApiError::MethodNotAllowed {
            detail: format!(
                "{} is not allowed here; use {}",
                req.method(),
                methods.join(", ")
            ),
            allow: methods.join(", "),
        },
        None => ApiError::NotFound(format!("no route {}", req.path())),
    }
    .error_response()
}

/// The HTML pages outside `/api/v1` (the embeds and the account pages), in the document.
fn html_pages(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    api::embed::routes(cfg);
    api::account_pages::routes(cfg);
}

/// The benchmark routes (the pages are registered with the document's routes).
fn pages_and_bench_routes(cfg: &mut web::ServiceConfig) {
    bench_routes(cfg);
}

/// A benchmark's reference body (`api::health::bench_static`), with `TOURNEY_BENCH_ROUTES=1`.
fn bench_routes(c: &mut web::ServiceConfig) {
    if std::env::var("TOURNEY_BENCH_ROUTES").is_ok_and(|v| v == "1") {
        c.route("/bench/static", web::get().to(api::health::bench_static));
    }
}

/// What a request may change of the kept public reads (`infra::kept`).
#[derive(Debug, PartialEq)]
enum Touch {
    Nothing,
    /// A tournament and the list of tournaments (a write under it may change its row).
    Tournament(i64),
    /// A pool and the list of pools.
    Pool(i64),
    /// One of the registry's lists (a new player, tournament or pool).
    List(Subject),
    Everything,
}

/// Writes under a tournament or rating pool change that one (and the first page of its
/// list); a new player, tournament or pool changes its list; a player's change (a new name)
/// may show in any tournament's or pool's reads, and so may a user's removal (it unlinks
/// their player). `path` is the one the router matched (percent-decoded), as the rate
/// limiter reads it.
fn touches(method: &Method, path: &str) -> Touch {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Touch::Nothing;
    }
    let mut parts = path.trim_start_matches("/api/v1/").split('/');
    match (parts.next(), parts.next().map(str::parse::<i64>)) {
        (Some("tournaments"), Some(Ok(id))) => Touch::Tournament(id),
        (Some("tournaments"), None) => Touch::List(Subject::Tournaments),
        (Some("rating-pools"), Some(Ok(id))) => Touch::Pool(id),
        (Some("rating-pools"), None) => Touch::List(Subject::Pools),
        (Some("players"), Some(_)) | (Some("users"), Some(_)) => Touch::Everything,
        (Some("players"), None) => Touch::List(Subject::Players),
        // An erased account's player is renamed (issue 29).
        (Some("me"), None) => Touch::Everything,
        _ => Touch::Nothing,
    }
}

impl Touch {
    fn apply(self, live: &LiveHub) {
        match self {
            Touch::Tournament(id) => {
                live.touched(Subject::Tournament(id));
                live.touched(Subject::Tournaments);
            }
            Touch::Pool(id) => {
                live.touched(Subject::Pool(id));
                live.touched(Subject::Pools);
            }
            Touch::List(list) => live.touched(list),
            Touch::Everything => live.touched_all(),
            Touch::Nothing => {}
        }
    }
}

/// The caller's `X-Request-Id` when it is short and printable, else a new one.
fn request_id(req: &actix_web::dev::ServiceRequest) -> String {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(|| format!("{:016x}", rand::random::<u64>()))
}

/// Counts a request of the API (`/api/v1/...`), a step of the account pages (`POST
/// /account/...`: a code or a password) and a report on a table's page (`POST /hall/...`:
/// a table code) against its caller's rate limits; probes, metrics, the document and the
/// pages' reads are not counted.
fn rate_limit(
    limiter: &crate::infra::ratelimit::RateLimiter,
    vouch: &Vouch,
    req: &actix_web::dev::ServiceRequest,
) -> Option<(crate::infra::ratelimit::Verdict, Counted)> {
    use crate::infra::ratelimit::{Class, Credential};
    // The path the router matches, percent-decoded (`/api/v1/%61uth/token` is sign-in's), not
    // the raw one, which an encoded letter would move into another class or out of counting.
    let path = req.match_info().as_str();
    // A step of the account pages (a code, a password) counts as a sign-in call, a result
    // slip's report with its table code (`POST /hall/...`) as a write (`Class::of`).
    let step = (path.starts_with("/account/") || path.starts_with("/hall/"))
        && req.method() == Method::POST;
    if !(path.starts_with("/api/v1/") || step) || req.method() == Method::OPTIONS {
        return None;
    }
    // Who the request comes from (behind a trusted proxy, its client), for the limits here and
    // the handlers that count failures by address. Every `X-Forwarded-For` line, in order.
    let forwarded: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .collect();
    let forwarded = (!forwarded.is_empty()).then(|| forwarded.join(","));
    let address = limiter.address(req.peer_addr().map(|a| a.ip()), forwarded.as_deref());
    req.extensions_mut()
        .insert(crate::infra::clients::ClientAddress(address.clone()));
    let authorization = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let credential = Credential::of(authorization, |token| vouch.genuine(token));
    let counted = Counted::new(Class::of(req.method().as_str(), path), &address, credential);
    Some((limiter.count_on(&counted), counted))
}

/// A read answered is charged one more for every `Limits::per_read` of search time it
/// claimed (`infra::charge`); the verdict its answer then shows.
fn charged(
    (limiter, metrics): (&crate::infra::ratelimit::RateLimiter, &Metrics),
    (verdict, counted): (Verdict, Counted),
    spent: Duration,
) -> Verdict {
    let extra = crate::infra::charge::extra_reads(spent, limiter.limits().per_read());
    if extra == 0 {
        return verdict;
    }
    metrics.charged_reads(extra);
    limiter.charge(&counted, extra)
}

/// What tells a genuine bearer credential from a made-up one before the request is counted
/// (issue 43), without the database: an access token's signature and claims, or an API key
/// this instance has found live (`AccountCache::is_known_key`).
#[derive(Clone)]
struct Vouch {
    jwt: crate::auth::JwtKeys,
    accounts: crate::services::accounts::auth::AccountCache,
}

impl Vouch {
    fn genuine(&self, token: &str) -> bool {
        if token.starts_with("tk_") {
            self.accounts
                .is_known_key(&crate::auth::secrets::secret_hash(token))
        } else {
            self.jwt.verify(token).is_ok()
        }
    }
}

/// The 429 of a request past its rate limit, with its headers.
fn too_many(v: &crate::infra::ratelimit::Verdict) -> actix_web::HttpResponse {
    let mut res = actix_web::ResponseError::error_response(&ApiError::TooManyRequests {
        detail: format!(
            "too many {} requests; try again in {} seconds",
            v.class.name(),
            v.reset
        ),
        retry_after: v.reset,
    });
    rate_limit_headers(v, res.headers_mut());
    res
}

/// `RateLimit-Policy` and `RateLimit` (IETF httpapi draft) on a counted answer.
fn rate_limit_headers(
    v: &crate::infra::ratelimit::Verdict,
    headers: &mut actix_web::http::header::HeaderMap,
) {
    for (name, value) in [
        ("ratelimit-policy", v.policy_header()),
        ("ratelimit", v.header()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
}

/// The headers every answer carries: its framing policy, its rate limit's state (where it was
/// counted) and its request id.
fn answer_headers(
    headers: &mut actix_web::http::header::HeaderMap,
    path: &str,
    verdict: Option<&Verdict>,
    request_id: &str,
) {
    frame_policy(path, headers);
    if let Some(v) = verdict {
        rate_limit_headers(v, headers);
    }
    if let Ok(v) = HeaderValue::from_str(request_id) {
        headers.insert(HeaderName::from_static("x-request-id"), v);
    }
}

/// Only the embeddable pages may be framed (they send `frame-ancestors *` themselves); every
/// other answer forbids it.
fn frame_policy(path: &str, headers: &mut actix_web::http::header::HeaderMap) {
    use actix_web::http::header::{
        CONTENT_SECURITY_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
    };
    // Every answer is what its Content-Type says: no browser guesses a script in a CSV.
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if path.starts_with("/embed/") {
        return;
    }
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !headers.contains_key(CONTENT_SECURITY_POLICY) {
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("frame-ancestors 'none'"),
        );
    }
}

/// Counts an answer in the request metrics, under the route pattern that matched
/// (`HttpRequest::match_pattern`: `/api/v1/tournaments/{id}`, never the path itself).
fn observe<B>(metrics: &Metrics, res: &ServiceResponse<B>, head: bool, start: Instant) {
    // HEAD was routed as GET.
    let method = if head {
        "HEAD"
    } else {
        res.request().method().as_str()
    };
    let route = res.request().match_pattern();
    metrics.request(method, route, res.status().as_u16(), start.elapsed());
}

/// Any site's scripts may call the API and read the headers it documents: paging (`Link`), the
/// back-off of a 429/503 (`Retry-After`) and the rate-limit headers (besides `ETag`,
/// `Location` and `X-Request-Id`).
fn cors() -> Cors {
    Cors::default()
        .allow_any_origin()
        .allow_any_method()
        .allow_any_header()
        .expose_headers([
            "etag",
            "location",
            "x-request-id",
            "link",
            "retry-after",
            "ratelimit",
            "ratelimit-policy",
        ])
        .max_age(3600)
}

/// `/docs` -> `/docs/` (the interactive page).
async fn docs_redirect() -> actix_web::HttpResponse {
    actix_web::HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/docs/"))
        .finish()
}

/// Starts the instance's listener and the search index it keeps current.
fn start_listening(state: &AppState) {
    state.live.start();
    state.search.meter(state.metrics.cache_meter("search"));
    state.search.start(&state.live);
}

/// Starts the HTTP server on `listener`.
pub fn serve(
    listener: TcpListener,
    state: AppState,
    workers: Option<usize>,
) -> std::io::Result<Server> {
    let doc = Arc::new(openapi());
    let routes = web::Data::new(RouteTable::from_openapi(&doc));
    // One LISTEN connection for the instance's live feeds; the search index keeps from it.
    start_listening(&state);
    let live = state.live.clone();
    let limiter = state.rate_limits.clone();
    let vouch = Vouch {
        jwt: state.jwt.clone(),
        accounts: state.accounts.clone(),
    };
    let state = web::Data::new(state);
    crate::runtime::jobs::start(state.clone());
    let app = move || {
        let (app, _) = App::new()
            .into_utoipa_app()
            .openapi(api::ApiDoc::openapi())
            .service(api::health::healthz)
            .service(api::health::readyz)
            .service(api::health::changelog)
            .service(api::metrics::metrics)
            .configure(html_pages)
            .service(api::problem::explain)
            .service(utoipa_actix_web::scope("/api/v1").configure(api::routes))
            .split_for_parts();
        let (metrics, live, limiter) = (state.metrics.clone(), live.clone(), limiter.clone());
        let vouch = vouch.clone();
        app.app_data(state.clone())
            .app_data(routes.clone())
            .app_data(web::PathConfig::default().error_handler(api::extract::path_error))
            .app_data(web::QueryConfig::default().error_handler(api::extract::query_error))
            .app_data(web::JsonConfig::default().error_handler(api::extract::json_error))
            .route("/docs", web::get().to(docs_redirect))
            .service(
                SwaggerUi::new("/docs/{_:.*}")
                    .external_urls_from_iter_unchecked([("/openapi.json", (*doc).clone())]),
            )
            .configure(pages_and_bench_routes)
            .default_service(web::to(fallback))
            // gzip for JSON, CSV and the document when the client accepts it; the live feed
            // opts out (`Content-Encoding: identity`) so events are not held in a buffer.
            .wrap(actix_web::middleware::Compress::default())
            .wrap(cors())
            .wrap_fn(move |mut req, srv| {
                let start = Instant::now();
                // HEAD is answered by every GET route: routed as GET, sent without the body.
                let head = req.method() == Method::HEAD;
                if head {
                    req.head_mut().method = Method::GET;
                }
                let metrics = metrics.clone();
                let live = live.clone();
                let verdict = rate_limit(&limiter, &vouch, &req);
                let touch = touches(req.method(), req.match_info().as_str());
                let method = req.method().to_string();
                let path = req.path().to_string();
                let request_id = request_id(&req);
                // Past its rate limit, a request is answered 429 without reaching a handler.
                let fut = match verdict.as_ref().map(|v| &v.0).filter(|v| v.refused) {
                    Some(v) => Either::Left(ready(Ok(req.into_response(too_many(v))))),
                    None => Either::Right(
                        srv.call(req)
                            .map(|r| r.map(ServiceResponse::map_into_boxed_body)),
                    ),
                };
                let limiter = limiter.clone();
                async move {
                    // Only a counted request is charged, so only its time is summed.
                    let (res, spent) = match verdict {
                        Some(_) => crate::infra::charge::serving(fut).await,
                        None => (fut.await, Duration::ZERO),
                    };
                    let mut res = res?;
                    let verdict = verdict.map(|v| charged((&limiter, &metrics), v, spent));
                    // The write has committed (or failed): this instance's next read of what
                    // it may have changed is rebuilt, without waiting for the notification.
                    touch.apply(&live);
                    answer_headers(res.headers_mut(), &path, verdict.as_ref(), &request_id);
                    observe(&metrics, &res, head, start);
                    tracing::info!(
                        %method,
                        %path,
                        status = res.status().as_u16(),
                        latency_ms = start.elapsed().as_secs_f64() * 1000.0,
                        %request_id,
                        "request"
                    );
                    Ok(if head {
                        res.map_body(|_, _| BoxBody::new(()))
                    } else {
                        res
                    })
                }
            })
    };
    let mut server = actix_server::Server::build().shutdown_timeout(10);
    if let Some(w) = workers {
        server = server.workers(w);
    }
    // What `HttpServer` does, with each socket wrapped so that the answers the HTTP parser
    // writes on its own carry a problem+json body too (see `crate::runtime::wire`).
    let server = server.listen("tourney", listener, move || {
        let app = app.clone();
        fn_service(|io: TcpStream| async move {
            let peer = io.peer_addr().ok();
            Ok::<_, DispatchError>((ProblemIo::new(io), peer))
        })
        .and_then(
            HttpService::build()
                .client_request_timeout(Duration::from_secs(5))
                .client_disconnect_timeout(Duration::from_secs(1))
                .h1(map_config(app(), |_| AppConfig::default())),
        )
    })?;
    Ok(server.run())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_touch_their_tournament_and_player_changes_touch_all() {
        let t = |m: Method, p: &str| touches(&m, p);
        assert_eq!(
            t(
                Method::PUT,
                "/api/v1/tournaments/7/rounds/1/tables/2/result"
            ),
            Touch::Tournament(7)
        );
        assert_eq!(
            t(Method::POST, "/api/v1/tournaments/12/penalties"),
            Touch::Tournament(12)
        );
        assert_eq!(
            t(Method::PATCH, "/api/v1/tournaments/3"),
            Touch::Tournament(3)
        );
        assert_eq!(t(Method::PATCH, "/api/v1/players/5"), Touch::Everything);
        assert_eq!(
            t(Method::GET, "/api/v1/tournaments/7/standings"),
            Touch::Nothing
        );
        assert_eq!(t(Method::HEAD, "/api/v1/tournaments/7"), Touch::Nothing);
        assert_eq!(
            t(Method::POST, "/api/v1/tournaments"),
            Touch::List(Subject::Tournaments)
        );
        assert_eq!(
            t(Method::POST, "/api/v1/players"),
            Touch::List(Subject::Players)
        );
        assert_eq!(t(Method::DELETE, "/api/v1/users/4"), Touch::Everything);
        assert_eq!(t(Method::POST, "/api/v1/users"), Touch::Nothing);
        assert_eq!(t(Method::POST, "/api/v1/auth/token"), Touch::Nothing);
        assert_eq!(
            t(Method::POST, "/api/v1/rating-pools/1/rebuild"),
            Touch::Pool(1)
        );
        assert_eq!(
            t(Method::POST, "/api/v1/rating-pools"),
            Touch::List(Subject::Pools)
        );
    }

    #[test]
    fn only_signed_tokens_and_keys_found_live_are_vouched_for() {
        use crate::auth::keys::{KeyHolder, KeyLimits};
        let vouch = Vouch {
            jwt: crate::auth::JwtKeys::new(b"a test secret", Duration::from_secs(60)),
            accounts: Default::default(),
        };
        let (token, _) = vouch
            .jwt
            .issue(crate::auth::jwt::Subject {
                user_id: 1,
                username: "kari",
                is_admin: false,
                session_epoch: 0,
                session: None,
                password_at: None,
            })
            .unwrap();
        assert!(vouch.genuine(&token));
        let other = crate::auth::JwtKeys::new(b"another secret", Duration::from_secs(60));
        let (forged, _) = other
            .issue(crate::auth::jwt::Subject {
                user_id: 1,
                username: "kari",
                is_admin: true,
                session_epoch: 0,
                session: None,
                password_at: None,
            })
            .unwrap();
        assert!(!vouch.genuine(&forged));
        assert!(!vouch.genuine("made-up"));
        assert!(!vouch.genuine(&format!("{token}x")));
        // A key counts as itself once it was found live, and no longer once found dead.
        let key = "tk_0123456789abcdef";
        let hash = crate::auth::secrets::secret_hash(key);
        assert!(!vouch.genuine(key));
        let holder = KeyHolder {
            user_id: 1,
            username: "kari".into(),
            is_admin: false,
            limits: KeyLimits {
                key_id: 1,
                scopes: vec![],
                tournament_id: None,
                pool_id: None,
            },
        };
        vouch.accounts.store_key(hash.clone(), Some(holder));
        assert!(vouch.genuine(key));
        assert!(!vouch.genuine("tk_0123456789abcdee"));
        vouch.accounts.store_key(hash, None);
        assert!(!vouch.genuine(key));
    }
}
