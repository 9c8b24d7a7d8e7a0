//! What players do themselves in online events: scheduling their games (and the deadlines the
//! rules set on it), reporting results for confirmation, and their own games and tournaments.

pub mod calendars;
pub mod hall;
pub mod me;
pub mod replays;
pub mod reports;
pub mod scheduling;
pub mod scheduling_deadlines;
