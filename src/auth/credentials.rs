//! The form of credentials: usernames, and passwords long enough and not among the most
//! common ones. Shared by sign-up, password changes and `tourney create-admin`.

use crate::error::{ApiError, FieldError};

/// Whether `username` has the form of a username: 3-64 letters, digits, `.`, `_` and `-`.
pub fn is_valid_username(username: &str) -> bool {
    (3..=64).contains(&username.len())
        && username
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The shortest password accepted, in characters (the API document and README say the same).
pub const MIN_PASSWORD_CHARS: usize = 10;

/// Checks a username and password; shared with `tourney create-admin`.
pub fn check_credentials(username: &str, password: &str) -> Result<(), ApiError> {
    let mut errors: Vec<FieldError> = Vec::new();
    let mut ensure = |ok: bool, field: &str, message: &str| {
        if !ok {
            errors.push(FieldError::new(field, message));
        }
    };
    ensure(
        is_valid_username(username),
        "username",
        "must be 3-64 characters of letters, digits, `.`, `_` and `-`",
    );
    ensure(
        (MIN_PASSWORD_CHARS..=256).contains(&password.chars().count()),
        "password",
        "must be 10-256 characters",
    );
    ensure(
        !password.eq_ignore_ascii_case(username),
        "password",
        "must not be the username",
    );
    ensure(
        !is_common_password(password),
        "password",
        "is one of the most common passwords; choose another",
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Validation(errors))
    }
}

/// How the names of removed accounts begin (`deleted-<id>`, their tombstones'): no new account
/// takes such a name, so a stranger cannot hold the name a removal gives, nor pass for a
/// removed account in the records.
pub const REMOVED_PREFIX: &str = "deleted-";

/// Whether `username` begins with [`REMOVED_PREFIX`], whatever its case.
pub fn is_removed_accounts_name(username: &str) -> bool {
    username
        .get(..REMOVED_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(REMOVED_PREFIX))
}

/// As [`check_credentials`], for a new account's name: one beginning with `deleted-` is refused
/// too (accounts that already have such a name keep it, and sign in and change passwords as
/// before).
pub fn check_new_credentials(username: &str, password: &str) -> Result<(), ApiError> {
    let mut errors = match check_credentials(username, password) {
        Ok(()) => Vec::new(),
        Err(ApiError::Validation(fields)) => fields,
        Err(e) => return Err(e),
    };
    if is_removed_accounts_name(username) && !errors.iter().any(|f| f.field == "username") {
        errors.push(FieldError::new(
            "username",
            "names beginning with `deleted-` are kept for removed accounts; choose another",
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Validation(errors))
    }
}

/// Passwords at the top of the breached-password lists (8 characters or more, the only ones
/// the length rule lets through), compared without case.
// layout: long: a table of data.
const COMMON_PASSWORDS: &[&str] = &[
    "password",
    "password1",
    "password12",
    "password123",
    "passw0rd",
    "p@ssw0rd",
    "p@ssword",
    "12345678",
    "123456789",
    "1234567890",
    "12345678910",
    "0123456789",
    "87654321",
    "11111111",
    "00000000",
    "88888888",
    "12341234",
    "11223344",
    "12121212",
    "qwertyui",
    "qwerty12",
    "qwerty123",
    "qwertyuiop",
    "1q2w3e4r",
    "1q2w3e4r5t",
    "1qaz2wsx",
    "zaq12wsx",
    "q1w2e3r4",
    "asdfghjk",
    "asdfghjkl",
    "zxcvbnm1",
    "iloveyou",
    "iloveyou1",
    "sunshine",
    "princess",
    "football",
    "baseball",
    "welcome1",
    "welcome123",
    "letmein1",
    "trustno1",
    "superman",
    "starwars",
    "whatever",
    "computer",
    "internet",
    "michelle",
    "jennifer",
    "charlie1",
    "dragon12",
    "monkey12",
    "abcd1234",
    "abc12345",
    "a1b2c3d4",
    "aa123456",
    "admin123",
    "administrator",
    "changeme",
    "secret123",
    "qazwsxedc",
    "passpass",
    "test1234",
    "hello123",
    "lovely12",
    "freedom1",
    "shadow12",
    "master12",
    "mustang1",
    "access14",
];

fn is_common_password(password: &str) -> bool {
    let p = password.to_lowercase();
    COMMON_PASSWORDS.contains(&p.as_str())
}
