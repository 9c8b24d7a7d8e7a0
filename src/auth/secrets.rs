//! Opaque secrets (refresh tokens, API keys): how they are made and how they are stored.

/// The SHA-256 of an opaque secret (refresh tokens and API keys are 256-bit random values, so
/// a fast hash is enough: nothing to guess).
pub fn secret_hash(secret: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// A fresh random secret with a readable prefix (`rt_` refresh token, `tk_` API key).
pub fn new_secret(prefix: &str) -> String {
    let bytes: [u8; 32] = rand::random();
    format!("{prefix}{}", hex::encode(bytes))
}
