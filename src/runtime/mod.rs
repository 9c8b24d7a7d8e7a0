//! What every request runs on and what calls the services on a timer: the shared state and its
//! connection pool (`state`), the background jobs every instance runs (`jobs`), sockets and
//! server settings (`wire`), start-up and migrations (`startup`), configuration (`config`) and
//! telemetry. It stands above the services (it calls them) and below `app`.

pub mod backup;
pub mod config;
pub mod jobs;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod wire;
