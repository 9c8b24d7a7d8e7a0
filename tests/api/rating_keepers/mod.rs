//! Issue 26: rating lists their federations can trust. A pool is kept by its keepers; a
//! tournament that names a pool asks to be rated and its games feed the list only once a keeper
//! accepts it (at once in an open pool or for a keeper's own tournament); refusals and
//! withdrawals carry a reason, a withdrawal takes the games out like a correction, and the
//! incremental list always equals a rebuild.
//!
//! Everything goes through HTTP; the pool's log is read from the database only to compare the
//! incremental feed with a rebuild row by row.

mod attack;
mod bad_input;
mod check_in;
mod csv_cells;
mod held_times;
mod keepers;
mod key_scopes;
mod races;
mod support;
