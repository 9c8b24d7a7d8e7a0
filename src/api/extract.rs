//! Request extractors that answer bad input with problem+json naming the field at fault.

use std::future::Future;
use std::pin::Pin;

use actix_web::http::header::HeaderName;
use actix_web::{dev::Payload, error::PayloadError, http::header, web, FromRequest, HttpRequest};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::auth::{Caller, MaybeCaller};
use crate::error::{ApiError, FieldError};
use crate::infra::idempotency::Key;
use crate::runtime::state::AppState;
use crate::services::accounts::auth;

/// The largest JSON body accepted (bytes).
pub const JSON_LIMIT: usize = 256 * 1024;

/// A JSON request body. Unlike actix's own, it answers 415 for a wrong content type, 413 for an
/// oversized body, 400 for malformed JSON and 422 with the JSON path of the field at fault for
/// JSON of the wrong shape (a wrong type, an unknown enum value, a missing or unknown field).
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let length = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        let req = req.clone();
        Box::pin(async move {
            let read = async {
                if essence != "application/json" && !essence.ends_with("+json") {
                    return Err(ApiError::UnsupportedMediaType(
                        "send the body as JSON with `Content-Type: application/json`".into(),
                    ));
                }
                if length.is_some_and(|l| l > JSON_LIMIT) {
                    return Err(too_large());
                }
                let mut body = web::BytesMut::new();
                while let Some(chunk) = payload.next().await {
                    let chunk = chunk.map_err(|e| match e {
                        PayloadError::Overflow => too_large(),
                        other => ApiError::BadRequest(format!("cannot read the body: {other}")),
                    })?;
                    if body.len() + chunk.len() > JSON_LIMIT {
                        return Err(too_large());
                    }
                    body.extend_from_slice(&chunk);
                }
                parse(&body).map(Json)
            };
            match read.await {
                Ok(json) => Ok(json),
                Err(e) => Err(asker_first(&req, e).await),
            }
        })
    }
}

/// A JSON request body that may be left out: a request with no body (no `Content-Type`, no
/// length or a zero one, not chunked) reads as `T::default()`; a body sent is read as [`Json`]
/// reads it (415, 413, 400, 422 alike).
#[derive(Debug)]
pub struct JsonOrNone<T>(pub T);

impl<T: DeserializeOwned + Default + 'static> FromRequest for JsonOrNone<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let headers = req.headers();
        let no_body = !headers.contains_key(header::CONTENT_TYPE)
            && !headers.contains_key(header::TRANSFER_ENCODING)
            && headers
                .get(header::CONTENT_LENGTH)
                .is_none_or(|v| v.as_bytes() == b"0");
        if no_body {
            return Box::pin(std::future::ready(Ok(Self(T::default()))));
        }
        let body = Json::<T>::from_request(req, payload);
        Box::pin(async move { body.await.map(|b| Self(b.0)) })
    }
}

/// The tournament a request's route is under (`/tournaments/{id}/...`), if any.
fn tournament_of(req: &HttpRequest) -> Option<i64> {
    let pattern = req.match_pattern()?;
    if !pattern.starts_with("/api/v1/tournaments/{id}") {
        return None;
    }
    req.match_info().get("id")?.parse().ok()
}

/// Who is asking comes before what a bad body says (issue 37, item 6). On a tournament's
/// resources a body that cannot be read is answered, for a caller who is not signed in, with
/// 401, for a stranger to the tournament with 403 (404 for one they may not see), and only for
/// someone who takes part in it with the body's own error: nobody learns from a malformed
/// body what they could not otherwise ask. Elsewhere the body's error stands.
pub async fn asker_first(req: &HttpRequest, body_error: ApiError) -> ApiError {
    let Some(tid) = tournament_of(req) else {
        return body_error;
    };
    let caller = match caller_from_header(req.clone()).await {
        Err(e) => return e,
        Ok(None) => {
            return ApiError::Unauthorized(
                "sign in first: send `Authorization: Bearer <token>`".into(),
            )
        }
        Ok(Some(c)) => c,
    };
    // Players register themselves: any account with a player may send a registration.
    let open = req.method() == actix_web::http::Method::POST
        && req.match_pattern().as_deref() == Some("/api/v1/tournaments/{id}/registrations");
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return body_error;
    };
    match state
        .run(move |conn| crate::services::access::takes_part(conn, &caller, tid, open))
        .await
    {
        Ok(()) => body_error,
        Err(e) => e,
    }
}

fn too_large() -> ApiError {
    ApiError::PayloadTooLarge(format!("the body must be at most {JSON_LIMIT} bytes"))
}

/// Parses a JSON request body (an object) into `T`, naming the field at fault on failure.
///
/// Numbers written with a zero fraction (`7.0`) are taken as the integers they equal: JSON
/// does not tell the two apart, and JSON Schema's `integer` accepts both.
pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let mut value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("the body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::Validation(vec![FieldError::new(
            "body",
            "must be a JSON object",
        )]));
    }
    integral_floats_to_integers(&mut value);
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(v) => Ok(v),
        Err(e) => {
            let path = e.path().to_string();
            let field = if path == "." {
                "body".to_string()
            } else {
                path
            };
            let message = strip_position(&e.into_inner().to_string());
            Err(ApiError::Validation(vec![FieldError::new(field, message)]))
        }
    }
}

/// Replaces every float with a zero fraction that fits an `i64` by that integer.
fn integral_floats_to_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64() {
                // 2^63 is exactly representable; everything strictly inside fits an i64.
                if f.fract() == 0.0 && f > -9.223_372_036_854_776e18 && f < 9.223_372_036_854_776e18
                {
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_to_integers),
        Value::Object(map) => map.values_mut().for_each(integral_floats_to_integers),
        _ => {}
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Error handler for `web::Path`: a path that does not parse names no resource (404).
pub fn path_error(_err: actix_web::error::PathError, req: &HttpRequest) -> actix_web::Error {
    ApiError::NotFound(format!(
        "no resource at {}: ids and numbers in the path are whole numbers",
        req.path()
    ))
    .into()
}

/// Error handler for `web::Query`: 422 naming the parameter when serde says which.
pub fn query_error(
    err: actix_web::error::QueryPayloadError,
    _req: &HttpRequest,
) -> actix_web::Error {
    let msg = err.to_string();
    let field = msg
        .split('`')
        .nth(1)
        .filter(|_| msg.contains("field"))
        .unwrap_or("query")
        .to_string();
    ApiError::Validation(vec![FieldError::new(field, strip_position(&msg))]).into()
}

/// Error handler for actix's own JSON extractor, should any route use it.
pub fn json_error(err: actix_web::error::JsonPayloadError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::BadRequest(err.to_string()).into()
}

/// Query parameters, parsed like [`Json`]: 422 naming the parameter at fault.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(
            req.query_string().as_bytes(),
        ));
        std::future::ready(
            serde_path_to_error::deserialize::<_, T>(de)
                .map(Query)
                .map_err(|e| {
                    let path = e.path().to_string();
                    let field = if path == "." {
                        "query".to_string()
                    } else {
                        path
                    };
                    ApiError::Validation(vec![FieldError::new(field, e.into_inner().to_string())])
                }),
        )
    }
}

/// Reads the `Idempotency-Key` header of a request with this body (visible ASCII, 1-200 characters), if any.
pub fn idempotency_key(
    req: &HttpRequest,
    body: &impl serde::Serialize,
) -> Result<Option<Key>, ApiError> {
    let Some(v) = req
        .headers()
        .get(HeaderName::from_static("idempotency-key"))
    else {
        return Ok(None);
    };
    let key = v
        .to_str()
        .ok()
        .filter(|k| (1..=200).contains(&k.len()) && k.bytes().all(|b| (b'!'..=b'~').contains(&b)))
        .ok_or_else(|| {
            ApiError::field(
                "Idempotency-Key",
                "must be 1-200 visible ASCII characters, e.g. a UUID",
            )
        })?
        .to_string();
    let mut fingerprint = format!("{} {}\n", req.method(), req.path()).into_bytes();
    fingerprint.extend(serde_json::to_vec(body).map_err(|e| ApiError::Internal(e.to_string()))?);
    let received_at = req
        .app_data::<web::Data<AppState>>()
        .map_or_else(chrono::Utc::now, |state| state.clock.now());
    Ok(Some(Key::new(key, &fingerprint, received_at)))
}

/// The caller a bearer token names, if the request carries one; 401 for a bad token. The token
/// says who; the account as stored says what they may do (a demoted admin or a deleted account
/// loses its power within `services::accounts::auth::ACCOUNT_TTL`, not when the token expires).
async fn caller_from_header(req: HttpRequest) -> Result<Option<Caller>, ApiError> {
    let Some(token) = bearer(&req)? else {
        return Ok(None);
    };
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::Internal("application state missing".into()))?
        .clone();
    // The percent-decoded path the router matched (`/api/v1/%6De/api-keys` is `/me/api-keys`),
    // not the raw one.
    caller_from_token(
        &state,
        token,
        req.method().as_str(),
        req.match_info().as_str(),
    )
    .await
    .map(Some)
}

/// The bearer token or API key of `Authorization`, if the request sends the header; 401 for a
/// header that is not `Bearer <token>`.
fn bearer(req: &HttpRequest) -> Result<Option<&str>, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::Unauthorized("the Authorization header is not valid text".into()))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .ok_or_else(|| ApiError::Unauthorized("send `Authorization: Bearer <token>`".into()))?;
    Ok(Some(token.trim()))
}

/// The credentials a request was made with (its access token or API key, and what it asked
/// for), kept by an answer that outlives the request (the live feed) to check again, with the
/// checks every request gets, that they still hold.
#[derive(Clone)]
pub struct Credentials {
    token: String,
    method: String,
    path: String,
}

impl Credentials {
    /// The request's credentials, if it sent any.
    pub fn of(req: &HttpRequest) -> Option<Self> {
        let token = bearer(req).ok()??;
        Some(Self {
            token: token.to_string(),
            method: req.method().as_str().to_string(),
            path: req.match_info().as_str().to_string(),
        })
    }

    /// Whether they still name a caller allowed this request: false once the token expired or
    /// was revoked (its session signed out or revoked, every session ended by a sign-out
    /// everywhere or a password change), the key revoked or expired, or the account disabled
    /// or erased; within `services::accounts::auth::ACCOUNT_TTL` of the change, as for every
    /// request (a query at most once per `ACCOUNT_TTL` per account or key on this instance).
    pub async fn still_hold(&self, state: &AppState) -> bool {
        caller_from_token(state, &self.token, &self.method, &self.path)
            .await
            .is_ok()
    }
}

/// The caller `token` (an access token or an API key) names for a `method` request of `path`;
/// 401 for a bad token, 403 for a key not allowed this request.
async fn caller_from_token(
    state: &AppState,
    token: &str,
    method: &str,
    path: &str,
) -> Result<Caller, ApiError> {
    if token.starts_with("tk_") {
        return caller_from_key(state, token, method, path).await;
    }
    let claims = state
        .jwt
        .verify(token)
        .map_err(|_| ApiError::Unauthorized("the token is invalid or has expired".into()))?;
    let user_id: i64 = claims
        .sub
        .parse()
        .map_err(|_| ApiError::Unauthorized("the token is invalid or has expired".into()))?;
    let account = match state.accounts.fresh(user_id) {
        Some(account) => account,
        None => {
            let now = state.clock.now();
            let account = state
                .run(move |conn| auth::account_of(conn, user_id, now))
                .await?;
            state.accounts.store(user_id, account.clone());
            account
        }
    };
    let account =
        account.ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    if account.disabled {
        return Err(ApiError::Unauthorized("this account is disabled".into()));
    }
    if claims.sep < account.session_epoch {
        return Err(ApiError::Unauthorized(
            "this token was revoked (the password changed or every session was signed out); \
             sign in again"
                .into(),
        ));
    }
    if claims
        .sid
        .is_some_and(|sid| account.revoked_sessions.contains(&sid))
    {
        return Err(ApiError::Unauthorized(
            "this token's session was ended (signed out, or its refresh token was used twice); \
             sign in again"
                .into(),
        ));
    }
    Ok(Caller {
        user_id,
        username: account.username,
        is_admin: account.is_admin,
        key: None,
        password_at: claims
            .pwt
            .and_then(|at| chrono::DateTime::from_timestamp(at, 0)),
    })
}

/// The caller an API key names: its owner, limited to what the key's scopes and tournament or
/// pool allow for a `method` request of `path` (403 otherwise), before any handler runs.
async fn caller_from_key(
    state: &AppState,
    secret: &str,
    method: &str,
    path: &str,
) -> Result<Caller, ApiError> {
    let hash = crate::auth::secrets::secret_hash(secret);
    let holder = match state.accounts.fresh_key(&hash) {
        Some(holder) => holder,
        None => {
            let owned = secret.to_string();
            let now = state.clock.now();
            let holder = state
                .run(move |conn| crate::services::accounts::api_keys::holder(conn, &owned, now))
                .await?;
            state.accounts.store_key(hash, holder.clone());
            holder
        }
    };
    let holder = holder.ok_or_else(|| {
        ApiError::Unauthorized("the API key is unknown, revoked or expired".into())
    })?;
    holder
        .limits
        .permits(method, path)
        .map_err(ApiError::Forbidden)?;
    Ok(Caller {
        user_id: holder.user_id,
        username: holder.username,
        is_admin: holder.is_admin,
        key: Some(std::sync::Arc::new(holder.limits)),
        password_at: None,
    })
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            caller_from_header(req).await?.ok_or_else(|| {
                ApiError::Unauthorized("sign in first: send `Authorization: Bearer <token>`".into())
            })
        })
    }
}

impl FromRequest for MaybeCaller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { caller_from_header(req).await.map(MaybeCaller) })
    }
}

/// `/tournaments/{id}`.
#[derive(Debug, Clone, Copy, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TournamentPath {
    /// Tournament id
    pub id: i64,
}

/// `/tournaments/{id}/rounds/{n}`.
#[derive(Debug, Clone, Copy, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct RoundPath {
    /// Tournament id
    pub id: i64,
    /// Round number
    pub n: i32,
}

/// `/tournaments/{id}/rounds/{n}/tables/{t}`.
#[derive(Debug, Clone, Copy, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TablePath {
    /// Tournament id
    pub id: i64,
    /// Round number
    pub n: i32,
    /// Table number
    pub t: i32,
}

/// `/tournaments/{id}/cases/{cid}`.
#[derive(Debug, Clone, Copy, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CasePath {
    /// Tournament id
    pub id: i64,
    /// Case id
    pub cid: i64,
}

impl From<TablePath> for crate::services::running::results::TableRef {
    fn from(p: TablePath) -> Self {
        Self {
            tournament: p.id,
            round: p.n,
            table: p.t,
        }
    }
}
