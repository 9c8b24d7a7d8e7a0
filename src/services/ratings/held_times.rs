//! When an accepted tournament's games count (issue 37, item 3). A keeper accepted the
//! tournament as it stood: its dates, its time zone, the times its completed rounds were
//! played. Those set where its games stand in the pool's time order and which season they count
//! in, so once accepted a change of them goes back to the keepers: a keeper of the pool (or an
//! admin) who also runs the tournament makes it, as does anyone in an open pool (where a
//! request is accepted at once anyway); an organiser alone is refused with 409 naming the
//! field, and the list stays as it was. Its national rank is held the same way: it sets the
//! league's bonus the keeper accepted. Either way the change (made or refused) is kept in the
//! tournament's rating decisions. Result corrections are not changes of time and flow as before.
//! Readings: `docs/decisions/pool-keepers.md`.

use chrono::{DateTime, NaiveDate, Utc};

use crate::auth::Caller;
use crate::db::ids::{PoolId, TournamentId, UserId};
use crate::db::models::Tournament;
use crate::db::ratings::acceptance::{self as stored, TimeDecision};
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::rating::acceptance::{DecisionKind, RatingStatus};
use crate::domain::status::RoundStatus;
use crate::error::ApiError;

/// Changes of time a caller may make, to record once made: (pool, changes, why).
pub type HeldTimes = Option<(i64, Vec<TimeChange>, &'static str)>;

/// One field of an accepted tournament that a change would move in time.
#[derive(Debug, Clone)]
pub struct TimeChange {
    /// The field as the request names it (`starts_on`, `days`, `time_zone`, `played_at`, and
    /// `national_rank`, held with them).
    pub field: &'static str,
    /// Where (`tournament` or `round <n>`), for the record.
    pub of: String,
    pub old_value: String,
    pub new_value: String,
}

/// What a change of time on a tournament meets.
#[derive(Debug)]
pub enum TimeVerdict {
    /// Not accepted into a pool (no pool, pending, refused, withdrawn): nothing to hold.
    Free,
    /// Accepted, and the caller may move it (why, for the record).
    Permitted { pool_id: i64, why: &'static str },
    /// Accepted, and the caller may not: the keepers decide.
    Refused { pool_id: i64 },
}

/// Whether `caller` may move accepted tournament `t`'s games in time: a keeper of its pool or
/// an admin may, anyone may in an open pool; an organiser alone may not.
pub fn time_verdict(
    conn: &mut PgConnection,
    caller: &Caller,
    t: &Tournament,
) -> Result<TimeVerdict, ApiError> {
    let (Some(pool_id), Some(RatingStatus::Accepted)) = (t.rating_pool_id, t.rating_status) else {
        return Ok(TimeVerdict::Free);
    };
    let pool = super::load_pool(conn, pool_id.0)?;
    // An admin or a keeper (with a key: one that may do a keeper's work on this pool).
    Ok(if super::acts_as_keeper(conn, caller, pool_id.0)? {
        TimeVerdict::Permitted {
            pool_id: pool_id.0,
            why: if caller.is_admin {
                "changed by an admin"
            } else {
                "changed by a keeper of the pool"
            },
        }
    } else if pool.open {
        TimeVerdict::Permitted {
            pool_id: pool_id.0,
            why: "changed by an organiser: the pool is open",
        }
    } else {
        TimeVerdict::Refused { pool_id: pool_id.0 }
    })
}

/// The 409 of a refused change, naming its first field.
pub fn time_refusal(changes: &[TimeChange], pool_id: i64) -> ApiError {
    let what: Vec<String> = changes
        .iter()
        .map(|c| {
            format!(
                "{} of {} ({} to {})",
                c.field, c.of, c.old_value, c.new_value
            )
        })
        .collect();
    ApiError::conflict_at(
        changes.first().map_or("starts_on", |c| c.field),
        format!(
            "the tournament is accepted into rating pool {pool_id}: moving its games in time or changing their national rank ({}) is for the pool's keepers; ask a keeper to make the change or to withdraw the acceptance, change it, and ask again",
            what.join(", ")
        ),
    )
}

/// Keeps changes of time in the tournament's rating decisions (its status unchanged), inside
/// the caller's transaction: `time_changed` when made, `time_change_refused` when refused,
/// stamped `now`.
#[allow(clippy::too_many_arguments)]
pub fn record_time_changes(
    conn: &mut PgConnection,
    caller: &Caller,
    tournament_id: TournamentId,
    pool_id: PoolId,
    changes: &[TimeChange],
    refused: bool,
    why: &str,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let kind = if refused {
        DecisionKind::TimeChangeRefused
    } else {
        DecisionKind::TimeChanged
    };
    for c in changes {
        let reason = format!("{} of {}: {why}", c.field, c.of);
        stored::record_time_change(
            conn,
            TimeDecision {
                tournament: tournament_id,
                pool: pool_id,
                reason: &reason,
                by: UserId(caller.user_id),
                at: now,
                kind,
                field: c.field,
                old_value: &c.old_value,
                new_value: &c.new_value,
            },
        )?;
    }
    Ok(())
}

/// After a refused change rolled back: keeps the attempt in the tournament's rating decisions,
/// in a transaction of its own, stamped `now`.
pub fn record_refused_attempt(
    conn: &mut PgConnection,
    caller: &Caller,
    tournament_id: TournamentId,
    pool_id: PoolId,
    changes: &[TimeChange],
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    crate::db::transaction(conn, |conn| {
        record_time_changes(
            conn,
            caller,
            tournament_id,
            pool_id,
            changes,
            true,
            "refused: only a keeper of the pool moves an accepted tournament in time",
            now,
        )
    })
}

/// A completed round's change of time on an accepted tournament: `Some` (to record after the
/// change) when the caller may make it, a 409 (and the attempt in `refused`) when not.
pub fn held_round_time(
    conn: &mut PgConnection,
    caller: &Caller,
    t: &Tournament,
    round: &RoundRow,
    next: (Option<DateTime<Utc>>, bool),
    refused: &mut Option<(i64, TimeChange)>,
) -> Result<Option<(i64, TimeChange, &'static str)>, ApiError> {
    if round.status != RoundStatus::Completed || next == (round.played_at, round.played_at_fixed) {
        return Ok(None);
    }
    let show = |at: Option<DateTime<Utc>>, stated: bool| match at {
        Some(at) if stated => at.to_rfc3339(),
        Some(at) => format!("{} (from completion)", at.to_rfc3339()),
        None => "none".to_string(),
    };
    let change = TimeChange {
        field: "played_at",
        of: format!("round {}", round.number),
        old_value: show(round.played_at, round.played_at_fixed),
        new_value: show(next.0, next.1),
    };
    match time_verdict(conn, caller, t)? {
        TimeVerdict::Free => Ok(None),
        TimeVerdict::Permitted { pool_id, why } => Ok(Some((pool_id, change, why))),
        TimeVerdict::Refused { pool_id } => {
            let e = time_refusal(std::slice::from_ref(&change), pool_id);
            *refused = Some((pool_id, change));
            Err(e)
        }
    }
}

/// The changes of time a tournament change makes (and of its national rank, which sets the
/// league's bonus the keeper accepted), and whether the caller may make them: `Some` (to record
/// after the change) when the tournament is accepted and they may, a 409 (and the attempt in
/// `refused`) when they may not.
pub fn held_tournament_times(
    conn: &mut PgConnection,
    caller: &Caller,
    current: &Tournament,
    next: (NaiveDate, NaiveDate, &str, Option<i64>, bool),
    refused: &mut Option<(i64, Vec<TimeChange>)>,
) -> Result<HeldTimes, ApiError> {
    let (starts_on, ends_on, time_zone, pool, national_rank) = next;
    let length = |a: NaiveDate, b: NaiveDate| (b - a).num_days() + 1;
    let of = || "the tournament".to_string();
    let mut changes = Vec::new();
    if starts_on != current.starts_on {
        let (old_value, new_value) = (current.starts_on.to_string(), starts_on.to_string());
        changes.push(TimeChange {
            field: "starts_on",
            of: of(),
            old_value,
            new_value,
        });
    }
    let (old_days, new_days) = (
        length(current.starts_on, current.ends_on),
        length(starts_on, ends_on),
    );
    if old_days != new_days {
        let (old_value, new_value) = (old_days.to_string(), new_days.to_string());
        changes.push(TimeChange {
            field: "days",
            of: of(),
            old_value,
            new_value,
        });
    }
    if time_zone != current.time_zone {
        let (old_value, new_value) = (current.time_zone.clone(), time_zone.to_string());
        changes.push(TimeChange {
            field: "time_zone",
            of: of(),
            old_value,
            new_value,
        });
    }
    if national_rank != current.national_rank {
        changes.push(TimeChange {
            field: "national_rank",
            of: of(),
            old_value: current.national_rank.to_string(),
            new_value: national_rank.to_string(),
        });
    }
    // Leaving the pool (or moving to another) ends the acceptance: the dates are free again.
    if changes.is_empty() || pool != current.rating_pool_id.map(|id| id.0) {
        return Ok(None);
    }
    match time_verdict(conn, caller, current)? {
        TimeVerdict::Free => Ok(None),
        TimeVerdict::Permitted { pool_id, why } => Ok(Some((pool_id, changes, why))),
        TimeVerdict::Refused { pool_id } => {
            let e = time_refusal(&changes, pool_id);
            *refused = Some((pool_id, changes));
            Err(e)
        }
    }
}
