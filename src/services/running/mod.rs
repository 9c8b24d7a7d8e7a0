//! Running one event: tournaments and their staff, registrations and teams, rounds with their
//! draw inputs and methods, results, standings, the snapshot they are computed from, cup
//! matches, conduct (withdrawals, penalties), Tantrix colours, the event log and time of play.

pub mod colours;
pub mod conduct;
pub mod cup;
pub mod events;
pub mod registrations;
pub mod results;
pub mod round_checks;
pub mod round_history;
pub mod round_input;
pub mod round_methods;
pub mod round_teams;
pub mod round_withdrawal;
pub mod rounds;
pub mod snapshot;
pub mod staff_changes;
pub mod standings;
pub mod time_of_play;
pub mod tournament_list;
pub mod tournament_settings;
pub mod tournaments;
