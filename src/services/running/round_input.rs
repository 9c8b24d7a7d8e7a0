//! The seating engine's input for a new round, from the stored tournament: who plays, the
//! standings the method seats by, the history, and the options with their event-wide defaults
//! (the plan's length, the team format, the bridge final, the seeding groups kept).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};

use crate::auth::Caller;
use crate::db::ids::UserId;
use crate::db::running::{NewWithdrawal, StoredInput};
use crate::db::PgConnection;
use crate::domain::scoring::standings::WithdrawalKind;
use crate::domain::scoring::{Format, Preset, Purpose, RoundKind};
use crate::domain::seating::{
    DrawInput, PlayerEntry, SeatingMethod, Standing, Team, SEATING_ALGORITHM,
};
use crate::domain::PlayerId;
use crate::error::ApiError;
use crate::services::running::snapshot::{self as play, Snapshot};

/// The players of a draw with their seeding strength: the organiser's seeding rating, else
/// the rating in the tournament's pool at the registration deadline (or `now`, without one).
fn player_entries(
    conn: &mut PgConnection,
    snap: &Snapshot,
    active: &[&crate::db::running::Registration],
    now: DateTime<Utc>,
) -> Result<Vec<PlayerEntry>, ApiError> {
    let pool_ratings = match snap.tournament.rating_pool_id {
        Some(pool) => {
            let ids: Vec<i64> = active.iter().map(|r| r.player_id.0).collect();
            let at = snap.tournament.registration_deadline.unwrap_or(now);
            crate::services::ratings::ratings_at(conn, pool.0, &ids, at)?
        }
        None => HashMap::new(),
    };
    Ok(active
        .iter()
        .map(|r| {
            let pooled = pool_ratings
                .get(&r.player_id.0)
                .filter(|(_, games)| *games > 0);
            (r, pooled)
        })
        .map(|(r, pooled)| PlayerEntry {
            id: r.player_id,
            rating: r.seeding_rating.or(pooled.map(|(rating, _)| *rating)),
            rated_games: if r.seeding_rating.is_some() {
                r.seeding_rated_games.max(0) as u32
            } else {
                pooled.map(|(_, g)| *g).unwrap_or(0)
            },
            seeding_group: None,
            seed: None,
        })
        .collect())
}

/// The seating engine's input for round `number`, from the stored tournament. For a
/// voluntary round, the players who stop (opted out, or not among the best multiple of the
/// table size who continue) are recorded as opt-outs here; for a mandatory round, the opt-outs
/// recorded for it become withdrawals. `now` is the time of the draw.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_input(
    conn: &mut PgConnection,
    snap: &Snapshot,
    number: i32,
    kind: RoundKind,
    method: SeatingMethod,
    options: BTreeMap<String, serde_json::Value>,
    caller: &Caller,
    now: DateTime<Utc>,
) -> Result<DrawInput, ApiError> {
    if method == SeatingMethod::TeamDuplicate {
        // Seed 002: a best of three ends at two wins (a game 3 only at 1-1); a knockout ends
        // with its champion.
        let (_, table) = snap.team_table()?;
        if table.decided {
            return Err(ApiError::Conflict(
                "the team event is decided (two wins in a best of three, or one team left in \
                 the knockout): no further round"
                    .into(),
            ));
        }
    }
    let mut out = snap.out_of_play(number);
    // Knockout: only the winners (and byes) of the earlier rounds go on.
    if method == SeatingMethod::Knockout {
        out.extend(crate::services::running::cup::eliminated(snap, number)?);
    }
    // Team events: the teams knocked out so far, and those that cannot field their four
    // players, sit out with their players (a field the teams cannot be drawn from is refused).
    let knocked_out = super::round_teams::sitting_out(snap, number, method, &out)?;
    for t in snap
        .teams
        .iter()
        .filter(|t| knocked_out.contains(&(t.number as u32)))
    {
        out.extend(t.members());
    }
    let mut active: Vec<&crate::db::running::Registration> = snap
        .confirmed()
        .into_iter()
        .filter(|r| !out.contains(&r.player_id.0))
        .collect();
    // Team matches are seated from the teams, not from a standings table. The final's
    // placement groups follow the qualification order ("(b) most high placements"); every other
    // round is seated by the seeding order ("(c) the previous game's points"), seed 000.
    let purpose = if method == SeatingMethod::FinalGroups || kind == RoundKind::Final {
        Purpose::Qualification
    } else {
        Purpose::Seeding
    };
    let standings = standings_before(snap, number, purpose)?;
    if kind == RoundKind::Voluntary {
        stop_voluntary(conn, snap, number, &standings, &mut active, caller)?;
    } else {
        // Not playing a mandatory round is withdrawing (seed 000); the opted-out players are
        // already out of `active`.
        crate::services::running::conduct::withdraw_opted_out(conn, snap.tournament.id, number)?;
    }
    let players = player_entries(conn, snap, &active, now)?;
    let active_ids: std::collections::HashSet<PlayerId> = players.iter().map(|p| p.id).collect();
    let previous = number
        .checked_sub(1)
        .and_then(|n| snap.round(n))
        .map(|r| &r.draw);
    let mut players = players;
    keep_seeding_groups(snap, number, method, &mut players)?;
    if previous.is_some() {
        // Knockout seeds carry over from the first round's draw.
        let seeds: HashMap<PlayerId, u32> = snap
            .round(1)
            .map(|r| &r.draw)
            .map(|d| d.seeds.iter().copied().collect())
            .unwrap_or_default();
        for p in &mut players {
            p.seed = seeds.get(&p.id).copied();
        }
    }
    let options = plan_length(snap, number, method, players.len(), options);
    let options = team_format(snap, method, options);
    Ok(DrawInput {
        algorithm: SEATING_ALGORITHM,
        round: number as u32,
        method,
        players,
        standings: standings
            .into_iter()
            .filter(|s| active_ids.contains(&s.player))
            .collect(),
        history: snap.history(number)?,
        options,
        plan: previous.and_then(|d| d.plan.clone()),
        teams: snap
            .teams
            .iter()
            .filter(|t| !knocked_out.contains(&(t.number as u32)))
            .map(|t| Team {
                number: t.number as u32,
                pair_a: [PlayerId(t.pair_a1), PlayerId(t.pair_a2)],
                pair_b: [PlayerId(t.pair_b1), PlayerId(t.pair_b2)],
            })
            .collect(),
    })
}

/// The standings the seating reads (none before round 2, and none in team events, which are
/// seated from the teams).
fn standings_before(
    snap: &Snapshot,
    number: i32,
    purpose: Purpose,
) -> Result<Vec<Standing>, ApiError> {
    if number <= 1 || snap.ruleset.format == Format::TeamDuplicate {
        return Ok(Vec::new());
    }
    let s = snap.standings(Some(number as u32 - 1), purpose)?;
    Ok(s.rows
        .iter()
        .map(|row| Standing {
            player: row.player,
            place: row.place,
            score: Some(row.tp.to_f64()),
        })
        .collect())
}

/// A voluntary round: the best multiple of the table size continue (domain.md section 3); the
/// others are recorded as opt-outs and leave `active`.
fn stop_voluntary(
    conn: &mut PgConnection,
    snap: &Snapshot,
    number: i32,
    standings: &[Standing],
    active: &mut Vec<&crate::db::running::Registration>,
    caller: &Caller,
) -> Result<(), ApiError> {
    let place: HashMap<PlayerId, u32> = standings.iter().map(|s| (s.player, s.place)).collect();
    active.sort_by_key(|r| place.get(&r.player_id).copied().unwrap_or(u32::MAX));
    let size = snap.tournament.table_size.max(1) as usize;
    let keep = active.len() / size * size;
    for r in active.split_off(keep) {
        crate::db::running::insert_withdrawal(
            conn,
            NewWithdrawal {
                tournament_id: snap.tournament.id,
                player_id: r.player_id,
                kind: WithdrawalKind::OptOut,
                from_round: number,
                reason: Some(format!(
                    "not among the best multiple of {size} who continue"
                )),
                recorded_by: UserId(caller.user_id),
            },
        )?;
    }
    Ok(())
}

/// The default length of the plan that `random` and `bridge` rounds follow: the rest of the
/// event, so that players meet as many different opponents as possible over all of it (seed
/// 000 (1): 16 players over 5 games meet everyone once; seed 001: once at a table and once in a
/// bridge group). The rest is the planned rounds left, without a bridge final, and never more
/// rounds than can be played without a repeat meeting (`(n - 1) / 3` with tables of four); a
/// plan a withdrawal breaks is made again for what is left. An explicit `rounds_remaining` wins.
fn plan_length(
    snap: &Snapshot,
    number: i32,
    method: SeatingMethod,
    players: usize,
    mut options: BTreeMap<String, serde_json::Value>,
) -> BTreeMap<String, serde_json::Value> {
    let planned = matches!(method, SeatingMethod::Random | SeatingMethod::Bridge)
        && !options.contains_key("rounds_remaining")
        && options.get("final") != Some(&serde_json::Value::Bool(true));
    if !planned {
        return options;
    }
    let mut left = (snap.tournament.planned_rounds - number + 1).max(1) as usize;
    if method == SeatingMethod::Bridge && snap.tournament.ruleset == Preset::BridgeAgricola {
        // The last planned round of Bridge-Agricola is the final (seed 001).
        left = (snap.tournament.planned_rounds - number).max(1) as usize;
    }
    let without_repeats = (players.saturating_sub(1) / 3).max(1);
    options.insert(
        "rounds_remaining".into(),
        serde_json::json!(left.min(without_repeats)),
    );
    options
}

/// The format of a team duplicate event when the organiser does not name it: decided by the
/// tournament's teams, not by the teams still in (seed 002: two teams play a best of 3, more
/// play a knockout). A knockout's final has two teams left and must not turn into a best of 3
/// whose game 2 swaps the pairs (六.1): in a knockout the A pairs meet at table A.
fn team_format(
    snap: &Snapshot,
    method: SeatingMethod,
    mut options: BTreeMap<String, serde_json::Value>,
) -> BTreeMap<String, serde_json::Value> {
    if method == SeatingMethod::TeamDuplicate && !options.contains_key("format") {
        let format = if snap.teams.len() > 2 {
            "knockout"
        } else {
            "best_of_3"
        };
        options.insert("format".into(), serde_json::json!(format));
    }
    options
}

/// A bridge round of kind `final` is the bridge final (seed 001: placement groups spread over
/// bridge groups), whether or not the option says so; `final: true` on another kind, or
/// `final: false` on the final, is refused rather than drawn as something standings would then
/// misread.
pub(super) fn bridge_final_option(
    method: SeatingMethod,
    kind: RoundKind,
    mut options: BTreeMap<String, serde_json::Value>,
) -> Result<BTreeMap<String, serde_json::Value>, ApiError> {
    if method != SeatingMethod::Bridge {
        return Ok(options);
    }
    match (
        kind == RoundKind::Final,
        options.get("final").and_then(|v| v.as_bool()),
    ) {
        (true, Some(false)) => Err(ApiError::field(
            "options.final",
            "a round of kind final is the bridge final; leave the option out or send true",
        )),
        (false, Some(true)) => Err(ApiError::field(
            "options.final",
            "the bridge final is a round of kind final; send \"kind\": \"final\"",
        )),
        (true, _) => {
            options.insert("final".into(), serde_json::Value::Bool(true));
            Ok(options)
        }
        (false, _) => Ok(options),
    }
}

/// Seed 000 (3): "seedinggruppene beholdes" - the groups of the first seeded round hold for the
/// event, whatever the ratings do afterwards.
fn keep_seeding_groups(
    snap: &Snapshot,
    number: i32,
    method: SeatingMethod,
    players: &mut [PlayerEntry],
) -> Result<(), ApiError> {
    if !matches!(
        method,
        SeatingMethod::RandomSeeded | SeatingMethod::FixedSeeded
    ) {
        return Ok(());
    }
    let first_seeded = snap.rounds.iter().filter(|r| r.number < number).find(|r| {
        matches!(
            r.method,
            SeatingMethod::RandomSeeded | SeatingMethod::FixedSeeded
        )
    });
    if let Some(r) = first_seeded {
        let groups = &r.draw.groups;
        for p in players.iter_mut() {
            p.seeding_group = groups
                .iter()
                .position(|g| g.contains(&p.id))
                .map(|i| i as u32 + 1);
        }
    }
    Ok(())
}

pub use crate::db::running::FROM_EARLIER_ROUNDS;

/// The full draw input of round `number` from its stored form: the history and plan rebuilt
/// from the earlier rounds' draws (a row stored before inputs were stored short is complete).
pub(super) fn restored(
    conn: &mut PgConnection,
    t: &crate::db::models::Tournament,
    number: i32,
    stored: StoredInput,
) -> Result<DrawInput, ApiError> {
    let StoredInput { mut input, short } = stored;
    if short {
        let draws = crate::db::rounds::draws_before(conn, t.id.0, number)?;
        input.history = play::history_of(&play::ruleset_of(t)?, &draws);
        input.plan = draws.last().and_then(|d| d.plan.clone());
    }
    Ok(input)
}
