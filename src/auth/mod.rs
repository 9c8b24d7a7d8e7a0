//! Authentication and authorisation: password hashing, JWT issue and check, the caller
//! extractors and the role checks handlers call at their top.

pub mod jwt;
pub mod keys;
pub mod password;
pub mod roles;

pub use jwt::{Claims, JwtKeys};
pub use roles::{Caller, MaybeCaller, StaffRole};
