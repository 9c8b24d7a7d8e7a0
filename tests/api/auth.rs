//! Tokens: issue, refusal, expiry, tampering, `alg: none`; 401 versus 403.

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::helpers::{fields, problem, spawn_app, ADMIN, PASSWORD};

fn claims(exp_offset: i64) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({"sub": "1", "name": ADMIN, "adm": true, "iss": "tourney", "aud": "tourney-api",
           "iat": now, "exp": now + exp_offset})
}

fn b64(bytes: &[u8]) -> String {
    // base64url without padding, written out to keep the test free of extra crates.
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

#[actix_web::test]
async fn a_token_is_issued_and_identifies_the_caller() {
    let app = spawn_app().await;
    let r = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": ADMIN, "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 600);
    let token = body["access_token"].as_str().unwrap();
    let me: Value = app.me(token).await;
    assert_eq!(me["username"], ADMIN);
    assert_eq!(me["is_admin"], true);
}

#[actix_web::test]
async fn wrong_credentials_get_the_same_401() {
    let app = spawn_app().await;
    let wrong_pw = problem(
        app.post(
            "/api/v1/auth/token",
            None,
            json!({"username": ADMIN, "password": "nope-nope-nope"}),
        )
        .await,
        401,
    )
    .await;
    let wrong_user = problem(
        app.post(
            "/api/v1/auth/token",
            None,
            json!({"username": "ghost", "password": PASSWORD}),
        )
        .await,
        401,
    )
    .await;
    assert_eq!(
        wrong_pw["detail"], wrong_user["detail"],
        "must not say which part was wrong"
    );
}

#[actix_web::test]
async fn expired_tampered_none_and_foreign_algorithm_tokens_are_refused() {
    let app = spawn_app().await;
    let key = EncodingKey::from_secret(app.secret.as_bytes());
    // Sanity: a token we forge with the right secret and claims is accepted, so the refusals
    // below are about what we changed.
    let good = encode(&Header::new(Algorithm::HS256), &claims(300), &key).unwrap();
    assert_eq!(app.get("/api/v1/me", Some(&good)).await.status(), 200);

    let expired = encode(&Header::new(Algorithm::HS256), &claims(-120), &key).unwrap();
    problem(app.get("/api/v1/me", Some(&expired)).await, 401).await;

    let mut tampered = good.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    problem(app.get("/api/v1/me", Some(&tampered)).await, 401).await;

    let mut payload = claims(300);
    payload["adm"] = json!(true);
    let none = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT"}"#),
        b64(payload.to_string().as_bytes())
    );
    problem(app.get("/api/v1/me", Some(&none)).await, 401).await;

    let hs512 = encode(&Header::new(Algorithm::HS512), &claims(300), &key).unwrap();
    problem(app.get("/api/v1/me", Some(&hs512)).await, 401).await;

    let mut wrong_aud = claims(300);
    wrong_aud["aud"] = json!("someone-else");
    let wrong_aud = encode(&Header::new(Algorithm::HS256), &wrong_aud, &key).unwrap();
    problem(app.get("/api/v1/me", Some(&wrong_aud)).await, 401).await;

    let other_key = EncodingKey::from_secret(b"another secret that is long enough!!");
    let foreign = encode(&Header::new(Algorithm::HS256), &claims(300), &other_key).unwrap();
    problem(app.get("/api/v1/me", Some(&foreign)).await, 401).await;
}

#[actix_web::test]
async fn missing_token_is_401_and_missing_role_is_403() {
    let app = spawn_app().await;
    let body = json!({"username": "someone", "password": "long enough pw"});
    let r = app.post("/api/v1/users", None, body.clone()).await;
    assert_eq!(
        r.headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer realm=\"tourney\"")
    );
    problem(r, 401).await;
    let (_, token) = app.user("plainuser").await;
    problem(app.post("/api/v1/users", Some(&token), body).await, 403).await;
    problem(app.get("/api/v1/users", Some(&token)).await, 403).await;
    let admin = app.admin_token().await;
    assert_eq!(app.get("/api/v1/users", Some(&admin)).await.status(), 200);
}

#[actix_web::test]
async fn me_lists_tournament_roles() {
    let app = spawn_app().await;
    let (_, org) = app.user("organiser1").await;
    let t = app.tournament(&org, "agricola_norway").await;
    let me: Value = app.me(&org).await;
    assert_eq!(me["is_admin"], false);
    assert_eq!(
        me["tournament_roles"],
        json!([{"tournament_id": t, "role": "organiser"}])
    );
}

/// The document's minimum is the service's: 9 characters are refused naming the password,
/// 10 are accepted (and 256 is the most).
#[actix_web::test]
async fn passwords_need_the_documented_ten_characters() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    for (name, pw) in [("nine.chars", "kx7-qp2zw"), ("too.long", &"k".repeat(257))] {
        let p = problem(
            app.post(
                "/api/v1/users",
                Some(&admin),
                json!({"username": name, "password": pw}),
            )
            .await,
            422,
        )
        .await;
        assert_eq!(fields(&p), vec!["password"], "{name}");
    }
    let r = app
        .post(
            "/api/v1/users",
            Some(&admin),
            json!({"username": "ten.chars", "password": "kx7-qp2zwm"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    app.token("ten.chars", "kx7-qp2zwm").await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert_eq!(
        doc.pointer("/components/schemas/CreateUser/properties/password/minLength"),
        Some(&json!(10))
    );
}
