//! Authentication and authorisation: password hashing, JWT issue and check, the caller
//! extractors and the role checks handlers call at their top.

pub mod credentials;
pub mod jwt;
pub mod keys;
pub mod password;
pub mod roles;
pub mod secrets;
pub mod table_codes;

pub use jwt::{Claims, JwtKeys};
pub use roles::{Caller, MaybeCaller, StaffRole};
