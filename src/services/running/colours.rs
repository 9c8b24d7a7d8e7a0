//! Tantrix colours per game (issue 18, item 1; seed 003, 5. Farben): decided when a round is
//! drawn (or redrawn) from the players' stated choices and, for the leader's lot, a stream
//! derived from the round's committed seed and the table number, then kept with the round so a
//! later change of choice does not move a drawn game's colours.

use std::collections::HashMap;

use crate::db;
use crate::db::models::Tournament;
use crate::db::running::Registration;
use crate::db::PgConnection;
use crate::domain::colours::{assign, Choices};
use crate::domain::scoring::Preset;
use crate::domain::seating::Draw;
use crate::domain::{DrawRng, TournamentId};
use crate::error::ApiError;

pub use crate::domain::colours::TableColours;

/// Whether the tournament's games get colours (Tantrix).
pub fn has_colours(t: &Tournament) -> bool {
    match t.ruleset {
        Preset::Tantrix => true,
        Preset::AgricolaNorway
        | Preset::BridgeAgricola
        | Preset::TeamDuplicate2v2
        | Preset::AshesLeague => false,
    }
}

/// The live registrations' colour choices.
fn choices_by_player(conn: &mut PgConnection, tid: i64) -> Result<HashMap<i64, Choices>, ApiError> {
    let rows: Vec<Registration> = db::registrations::live_of(conn, TournamentId(tid))?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            crate::services::running::registrations::choices_of(r).map(|c| (r.player_id.0, c))
        })
        .collect())
}

/// The colours of every two-player game of a draw made from `seed` (hex), as stored with the
/// round; `None` outside Tantrix. Runs inside the caller's transaction (drawing a round).
pub fn for_draw(
    conn: &mut PgConnection,
    t: &Tournament,
    draw: &Draw,
    seed: &str,
) -> Result<Option<Vec<TableColours>>, ApiError> {
    if !has_colours(t) {
        return Ok(None);
    }
    let choices = choices_by_player(conn, t.id.0)?;
    let games: Vec<TableColours> = draw
        .tables
        .iter()
        .filter(|table| table.seats.len() == 2)
        .map(|table| {
            use sha2::{Digest, Sha256};
            let digest = Sha256::new()
                .chain_update(seed.as_bytes())
                .chain_update(format!("/colours/{}", table.number))
                .finalize();
            let mut key = [0u8; 32];
            key.copy_from_slice(&digest);
            let players = [table.seats[0].0, table.seats[1].0];
            let stated = [
                choices.get(&players[0]).copied(),
                choices.get(&players[1]).copied(),
            ];
            let (colours, rule) = assign(stated[0], stated[1], &mut DrawRng::from_seed(key));
            TableColours {
                table: table.number,
                players,
                colours,
                rule,
                choices: stated,
            }
        })
        .collect();
    Ok(Some(games))
}
