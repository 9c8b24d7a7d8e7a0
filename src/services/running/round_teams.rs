//! Which teams a round of a 2v2 team event (seed 002) is drawn from, and what keeps a team
//! event from being drawn, said so that the organiser knows what to fix.

use std::collections::HashSet;

use crate::db::running::TeamRow;
use crate::domain::seating::SeatingMethod;
use crate::error::ApiError;
use crate::services::running::snapshot::Snapshot;

fn listed(players: &[i64]) -> String {
    let ids: Vec<String> = players.iter().map(|p| p.to_string()).collect();
    ids.join(", ")
}

/// The teams that sit out round `number` with their players: those knocked out so far, and, in
/// a team round, those that cannot field their four players (one has withdrawn, been removed
/// or stopped: in `out`). A team round is refused with 409, naming what the organiser must
/// fix, when it cannot be drawn from the teams: a confirmed player in no team and still in
/// play (`registrations`), a team member without a confirmed registration, or fewer than two
/// teams able to play (`teams`).
pub(super) fn sitting_out(
    snap: &Snapshot,
    number: i32,
    method: SeatingMethod,
    out: &HashSet<i64>,
) -> Result<HashSet<u32>, ApiError> {
    let mut gone = snap.eliminated_teams(number)?;
    if method != SeatingMethod::TeamDuplicate {
        return Ok(gone);
    }
    let tid = snap.tournament.id.0;
    let in_teams: HashSet<i64> = snap.teams.iter().flat_map(TeamRow::members).collect();
    let lone: Vec<i64> = snap
        .confirmed()
        .iter()
        .map(|r| r.player_id.0)
        .filter(|p| !in_teams.contains(p) && !out.contains(p))
        .collect();
    if !lone.is_empty() {
        return Err(ApiError::conflict_at(
            "registrations",
            format!(
                "a team event is drawn from its teams, and player(s) {} are registered in no \
                 team: register them in a team (POST /api/v1/tournaments/{tid}/teams) or cancel \
                 their registrations (after the first round: record their withdrawals)",
                listed(&lone)
            ),
        ));
    }
    let confirmed: HashSet<i64> = snap.confirmed().iter().map(|r| r.player_id.0).collect();
    for t in &snap.teams {
        let Some(p) = t.members().into_iter().find(|p| !confirmed.contains(p)) else {
            continue;
        };
        let waiting = snap.registrations.iter().any(|r| r.player_id.0 == p);
        let why = if waiting {
            "is on the waitlist: cancel the registrations outside the teams that come before it"
        } else {
            "is not registered: register them again"
        };
        return Err(ApiError::conflict_at(
            "teams",
            format!("team {} ({}): player {p} {why}", t.number, t.name),
        ));
    }
    let short: Vec<(&TeamRow, i64)> = snap
        .teams
        .iter()
        .filter(|t| !gone.contains(&(t.number as u32)))
        .filter_map(|t| {
            t.members()
                .into_iter()
                .find(|p| out.contains(p))
                .map(|p| (t, p))
        })
        .collect();
    let able = snap.teams.len().saturating_sub(gone.len() + short.len());
    if !short.is_empty() && able < 2 {
        let which: Vec<String> = short
            .iter()
            .map(|(t, p)| format!("team {} ({}) without player {p}", t.number, t.name))
            .collect();
        return Err(ApiError::conflict_at(
            "teams",
            format!(
                "fewer than two teams can play round {number}: a team plays with its four \
                 players, and {} cannot (the player has withdrawn or stopped)",
                which.join(", ")
            ),
        ));
    }
    gone.extend(short.iter().map(|(t, _)| t.number as u32));
    Ok(gone)
}
