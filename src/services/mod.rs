//! Services: one use case per public function, `(conn, &Caller, input) -> Result<output,
//! ApiError>`, each inside the transaction its caller opened (`AppState::transaction`).
//! Access checks and input validation happen here; nothing here knows HTTP.

pub mod access;
pub mod api_keys;
pub mod auth;
pub mod cases;
pub mod colours;
pub mod conduct;
pub mod csv;
pub mod cup;
pub mod embed;
pub mod events;
pub mod health;
pub mod idempotency;
pub mod kept;
pub mod leaderboard;
pub mod live;
pub mod me;
pub mod players;
pub mod ratings;
pub mod registrations;
pub mod reports;
pub mod results;
pub mod round_input;
pub mod round_methods;
pub mod rounds;
pub mod scheduling;
pub mod scheduling_deadlines;
pub mod sessions;
pub mod snapshot;
pub mod standings;
pub mod standings_cache;
pub mod throttle;
pub mod time_of_play;
pub mod tournaments;
pub mod users;
pub mod validate;
pub mod webhook_queue;
pub mod webhooks;
