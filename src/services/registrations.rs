//! Registrations: sign-ups, the waitlist and teams.

use std::collections::BTreeMap;

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::models::Tournament;
use crate::db::schema::registrations;
use crate::error::ApiError;

/// How many registrations make a confirmable block: the table size for table games (domain.md
/// section 2), 1 for the two-player formats, whose pairings give a bye to an odd player out
/// (Ashes: a bye scores as a win, seed 004; Tantrix round robin: a bye per round for odd
/// fields, seed 003). See docs/decisions/registration.md.
pub fn confirmation_block(t: &Tournament) -> i32 {
    match t.ruleset.as_str() {
        "tantrix" | "ashes_league" => 1,
        _ => t.table_size.max(1),
    }
}

/// Re-derives confirmed / waitlisted for the live registrations of an open tournament: the
/// first `floor(n / block) * block` in registration order are confirmed, `block` being
/// [`confirmation_block`] (domain.md section 2: 17 registered at tables of 4 gives 16
/// confirmed, 1 waiting).
pub fn rebalance_registrations(
    conn: &mut PgConnection,
    tournament_id: i64,
    block: i32,
) -> Result<(), ApiError> {
    let live: Vec<(i64, String)> = registrations::table
        .filter(registrations::tournament_id.eq(tournament_id))
        .filter(registrations::status.ne("cancelled"))
        .order(registrations::id)
        .select((registrations::id, registrations::status))
        .load(conn)?;
    let size = block.max(1) as usize;
    let confirmed = live.len() / size * size;
    let mut by_status: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (i, (id, status)) in live.iter().enumerate() {
        let want = if i < confirmed {
            "confirmed"
        } else {
            "waitlisted"
        };
        if status != want {
            by_status.entry(want).or_default().push(*id);
        }
    }
    for (status, ids) in by_status {
        diesel::update(registrations::table.filter(registrations::id.eq_any(ids)))
            .set(registrations::status.eq(status))
            .execute(conn)?;
    }
    Ok(())
}
