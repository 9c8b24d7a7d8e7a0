//! Argon2id password hashes (the `argon2` crate's defaults: m = 19 MiB, t = 2, p = 1, the
//! OWASP minimum), stored in the PHC string format.

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;

/// Hashes `password` with a fresh random salt.
pub fn hash(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("password hashing failed: {e}"))
}

/// Checks `password` against a stored hash; a malformed hash never matches.
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// Spends the same time as a real check, for unknown usernames, so response times do not
/// reveal which usernames exist.
pub fn verify_dummy(password: &str) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let stored = DUMMY.get_or_init(|| hash("not-a-real-password").unwrap_or_default());
    let _ = verify(password, stored);
}

#[cfg(test)]
mod tests {
    #[test]
    fn hashes_verify_and_differ() {
        let a = super::hash("correct horse").unwrap();
        let b = super::hash("correct horse").unwrap();
        assert_ne!(a, b, "salts must differ");
        assert!(a.starts_with("$argon2id$"));
        assert!(super::verify("correct horse", &a));
        assert!(!super::verify("wrong horse", &a));
        assert!(!super::verify("x", "not a hash"));
    }
}
