//! Which tournaments feed a pool (issue 26): a tournament that names a pool asks to be rated;
//! its games feed the list only once a keeper accepts it (before, during or after play). A
//! refusal and a withdrawal carry a reason; a withdrawal takes the tournament's games out of the
//! list the way a correction does (the incremental list stays equal to a rebuild). Every request
//! and decision is kept on the tournament, announced on its live feed
//! (`rating_status_changed`) and to the pool's webhooks (`rating_requested`, `rating_decided`).
//!
//! The rule steps are pure (`crate::domain::rating::acceptance`); readings in
//! `docs/decisions/pool-keepers.md`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::ids::UserId;
use crate::db::models::{RatingPoolRow, Tournament};
use crate::db::ratings::acceptance::{
    self as stored, DecisionRow, NewRatingStatus, PoolTournamentsStart, StatusDecision,
};
use crate::db::PgConnection;
use crate::domain::rating::acceptance::{self, Decision, RatingStatus, Requester, StepRefused};
use crate::domain::{PoolId, TournamentId};
use crate::error::ApiError;
use crate::services::access::{load_visible, lock_tournament};
use crate::services::ratings::keepers::{acts_as_keeper, require_keeper};
use crate::services::validate::{
    keyset_page, keyset_start, Check, Page, PageParams, Start, COUNT_CAP,
};

/// One request or decision on a tournament's rating.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingDecisionOut {
    pub id: i64,
    pub tournament_id: i64,
    /// The pool asked.
    pub pool_id: i64,
    /// The status it led to (`pending`: a request a keeper has yet to decide).
    pub rating_status: RatingStatus,
    /// Why (required for a refusal and a withdrawal).
    pub reason: Option<String>,
    /// When the tournament was announced, as a keeper recorded it on acceptance (league pools).
    pub announced_at: Option<DateTime<Utc>>,
    /// Who asked or decided.
    pub decided_by: i64,
    pub decided_at: DateTime<Utc>,
    /// `status`: a request or a decision on it. `time_changed`: a change of when the accepted
    /// tournament's games count, made by a keeper or an admin (or in an open pool);
    /// `time_change_refused`: one an organiser alone tried (issue 37, item 3).
    #[schema(example = "status")]
    pub kind: String,
    /// The field a change of time moved (`starts_on`, `days`, `time_zone`, `played_at`).
    pub field: Option<String>,
    /// Its value before.
    pub old_value: Option<String>,
    /// The value asked for.
    pub new_value: Option<String>,
}

/// A keeper's decision on a tournament that asks to be rated in their pool.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"decision": "refuse", "reason": "not held under the association rules"}))]
pub struct DecideRating {
    pub decision: Decision,
    /// Why: required to refuse or withdraw, and with `announced_at`.
    #[schema(
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: Option<String>,
    /// Accepting into a league pool only: when the tournament was announced (elsewhere, before
    /// it was entered here), so it can count for its season (seed 004 section 3: announced seven
    /// days ahead). Not in the future; needs a `reason`.
    pub announced_at: Option<DateTime<Utc>>,
}

/// Filters of a pool's tournaments.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PoolTournamentsQuery {
    /// Only tournaments whose request stands here (e.g. `pending`: the keepers' queue).
    pub rating_status: Option<RatingStatus>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages through `cursor`).
    #[param(minimum = 0, maximum = 10000, example = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `next_cursor` of the page before (also in its `next` link),
    /// valid for this pool and `rating_status` only.
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

/// A user, by id and name.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserRef {
    pub user_id: i64,
    pub username: String,
}

/// A player, by id and name.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerRef {
    pub player_id: i64,
    pub name: String,
}

/// A tournament that asks to be (or is) rated in a pool, as its keepers see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolTournamentOut {
    pub tournament_id: i64,
    pub name: String,
    /// The tournament's own status (draft, registration_open, running, finished).
    pub status: crate::domain::status::TournamentStatus,
    pub starts_on: chrono::NaiveDate,
    pub ends_on: chrono::NaiveDate,
    /// Who created it.
    pub created_by: UserRef,
    pub rating_status: RatingStatus,
    /// The reason of the last decision.
    pub rating_reason: Option<String>,
    pub rating_decided_by: Option<i64>,
    pub rating_decided_at: Option<DateTime<Utc>>,
    pub national_rank: bool,
    pub announced_at: Option<DateTime<Utc>>,
    /// Its confirmed players.
    pub players: Vec<PlayerRef>,
    /// Rounds completed (what an acceptance would rate now).
    pub completed_rounds: i64,
    /// Tables with a result.
    pub results: i64,
}

/// The status a new request to `pool` by `caller` starts in: accepted at once in an open pool
/// or when the caller keeps the pool (or is an admin), pending otherwise.
pub fn request_status(
    conn: &mut PgConnection,
    caller: &Caller,
    pool: &RatingPoolRow,
    current: Option<RatingStatus>,
) -> Result<RatingStatus, ApiError> {
    let who = Requester {
        open_pool: pool.open,
        keeps_pool: acts_as_keeper(conn, caller, pool.id.0)?,
    };
    acceptance::request(current, who).map_err(step_conflict)
}

fn step_conflict(e: StepRefused) -> ApiError {
    ApiError::conflict_at("rating_status", e.to_string())
}

/// The reason recorded with a request that was accepted at once (`None` for a pending one).
pub fn automatic_reason(pool: &RatingPoolRow, status: RatingStatus) -> Option<String> {
    (status == RatingStatus::Accepted).then(|| {
        if pool.open {
            "accepted on request: the pool is open".to_string()
        } else {
            "accepted on request: asked by a keeper of the pool".to_string()
        }
    })
}

/// Records a request or decision on the tournament (already stored on its row): its history,
/// its live feed and the pool's webhooks. Stamped as on the tournament's row (`now` when the
/// row holds no time).
#[allow(clippy::too_many_arguments)]
fn record(
    conn: &mut PgConnection,
    t: &Tournament,
    pool_id: i64,
    status: RatingStatus,
    reason: Option<&str>,
    announced_at: Option<DateTime<Utc>>,
    by: i64,
    now: DateTime<Utc>,
) -> Result<RatingDecisionOut, ApiError> {
    // The same instant as on the tournament's row.
    let decided_at = t.rating_decided_at.unwrap_or(now);
    let id = stored::record_status(
        conn,
        StatusDecision {
            tournament: t.id,
            pool: PoolId(pool_id),
            status,
            reason,
            announced_at,
            by: UserId(by),
            at: decided_at,
        },
    )?;
    // The pool's webhooks get the same payload as the tournament's feed.
    let changed = crate::domain::events::RatingStatusChangedPayload {
        tournament_id: t.id.0,
        pool_id,
        rating_status: status.as_str().to_string(),
        reason: reason.map(str::to_string),
        decided_by: by,
    };
    let payload = serde_json::to_value(&changed).map_err(|e| ApiError::Internal(e.to_string()))?;
    crate::db::events::record(
        conn,
        t.id.0,
        crate::domain::events::TournamentEvent::RatingStatusChanged(changed),
    )?;
    let kind = if status == RatingStatus::Pending {
        "rating_requested"
    } else {
        "rating_decided"
    };
    stored::record_pool_event(conn, PoolId(pool_id), kind, payload)?;
    Ok(RatingDecisionOut {
        id: id.0,
        tournament_id: t.id.0,
        pool_id,
        rating_status: status,
        reason: reason.map(str::to_string),
        announced_at,
        decided_by: by,
        decided_at,
        kind: "status".to_string(),
        field: None,
        old_value: None,
        new_value: None,
    })
}

/// After a tournament was stored with a new pool link (created with one, or moved): records the
/// request (its status was decided by [`request_status`] and stored on the row; `now` stamps it
/// when the row holds no decision time).
pub fn request_recorded(
    conn: &mut PgConnection,
    caller: &Caller,
    t: &Tournament,
    pool: &RatingPoolRow,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let status = t.rating_status.ok_or_else(|| {
        ApiError::Internal(format!("tournament {}: a pool without a status", t.id))
    })?;
    record(
        conn,
        t,
        pool.id.0,
        status,
        automatic_reason(pool, status).as_deref(),
        None,
        caller.user_id,
        now,
    )?;
    Ok(())
}

/// Stores the tournament's new rating status (a new version of the tournament), decided `now`.
fn store_status(
    conn: &mut PgConnection,
    t: &Tournament,
    status: RatingStatus,
    reason: Option<&str>,
    announced_at: Option<DateTime<Utc>>,
    (by, now): (i64, DateTime<Utc>),
) -> Result<Tournament, ApiError> {
    let next = NewRatingStatus {
        status,
        reason,
        announced_at: announced_at.or(t.announced_at),
        by: UserId(by),
        at: now,
    };
    Ok(stored::set_rating_status(conn, t.id, t.version + 1, next)?)
}

/// The organiser asks again to be rated after a refusal or a withdrawal (409 while a request is
/// pending or accepted). Accepted at once in an open pool or when the organiser keeps the pool.
pub fn ask_again(
    conn: &mut PgConnection,
    caller: &Caller,
    tournament_id: i64,
    now: DateTime<Utc>,
) -> Result<RatingDecisionOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let t = lock_tournament(conn, tournament_id)?;
        caller.require_role(conn, tournament_id, &[StaffRole::Organiser])?;
        let Some(pool_id) = t.rating_pool_id else {
            return Err(ApiError::conflict_at(
                "rating_pool_id",
                format!("tournament {tournament_id} names no rating pool: set rating_pool_id to ask to be rated"),
            ));
        };
        let pool = super::load_pool(conn, pool_id.0)?;
        let status = request_status(conn, caller, &pool, t.rating_status)?;
        let reason = automatic_reason(&pool, status);
        let by = (caller.user_id, now);
        let t = store_status(conn, &t, status, reason.as_deref(), None, by)?;
        let out = record(
            conn,
            &t,
            pool_id.0,
            status,
            reason.as_deref(),
            None,
            caller.user_id,
            now,
        )?;
        if status.feeds() {
            super::results_changed(conn, tournament_id)?;
        }
        Ok(out)
    })
}

/// A keeper of the pool (or an admin) accepts, refuses or withdraws a tournament that names the
/// pool. 409 on `tournament_id` for a tournament of another pool, on `rating_status` for a step
/// its status does not allow.
pub fn decide(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: PoolId,
    tournament_id: TournamentId,
    input: DecideRating,
    now: DateTime<Utc>,
) -> Result<RatingDecisionOut, ApiError> {
    let (pool_id, tournament_id) = (pool_id.0, tournament_id.0);
    let mut check = Check::new();
    let reason = input
        .reason
        .as_deref()
        .map(|r| check.text("reason", r, 500));
    if input.decision.needs_reason() && reason.is_none() {
        check.fail(
            "reason",
            "say why: a refusal or a withdrawal is told to the organiser",
        );
    }
    if let Some(at) = input.announced_at {
        if input.decision != Decision::Accept {
            check.fail("announced_at", "is recorded only when accepting");
        } else if at > now {
            check.fail("announced_at", "must not be in the future");
        }
        if reason.is_none() {
            check.fail("reason", "say where and when the tournament was announced");
        }
    }
    check.finish()?;
    crate::db::transaction(conn, |conn| {
        let pool = super::load_pool(conn, pool_id)?;
        require_keeper(conn, caller, pool_id)?;
        if input.announced_at.is_some() && !pool.league {
            return Err(ApiError::field(
                "announced_at",
                format!("rating pool {pool_id} is not a league: announcements do not count in it"),
            ));
        }
        // The tournament's row lock orders this decision with its result entries (which read
        // the status under a share lock): a result entered meanwhile is rated exactly once.
        let t = lock_tournament(conn, tournament_id)?;
        if t.rating_pool_id != Some(PoolId(pool_id)) {
            return Err(ApiError::conflict_at(
                "tournament_id",
                match t.rating_pool_id {
                    Some(other) => format!(
                        "tournament {tournament_id} asks to be rated in rating pool {other}, not in {pool_id}"
                    ),
                    None => format!("tournament {tournament_id} names no rating pool"),
                },
            ));
        }
        let current = t.rating_status.ok_or_else(|| {
            ApiError::Internal(format!(
                "tournament {tournament_id}: a pool without a status"
            ))
        })?;
        let next = acceptance::decide(current, input.decision).map_err(step_conflict)?;
        let t = store_status(
            conn,
            &t,
            next,
            reason.as_deref(),
            input.announced_at,
            (caller.user_id, now),
        )?;
        let out = record(
            conn,
            &t,
            pool_id,
            next,
            reason.as_deref(),
            input.announced_at,
            caller.user_id,
            now,
        )?;
        match input.decision {
            // Its games (and, in a league, its bonus) enter the list where they were played.
            Decision::Accept => super::results_changed(conn, tournament_id)?,
            // Its games leave the list the way a correction does.
            Decision::Withdraw => {
                super::tournament_left_pool(conn, TournamentId(tournament_id), PoolId(pool_id))?
            }
            // A pending request never fed the list.
            Decision::Refuse => {}
        }
        Ok(out)
    })
}

fn decision_out(r: DecisionRow) -> RatingDecisionOut {
    RatingDecisionOut {
        id: r.id.0,
        tournament_id: r.tournament_id.0,
        pool_id: r.pool_id.0,
        rating_status: r.rating_status,
        reason: r.reason,
        announced_at: r.announced_at,
        decided_by: r.decided_by.0,
        decided_at: r.decided_at,
        kind: r.kind.as_str().to_string(),
        field: r.field,
        old_value: r.old_value,
        new_value: r.new_value,
    }
}

/// A tournament's requests and decisions, oldest first (whoever may see the tournament).
pub fn tournament_decisions(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tournament_id: i64,
    page: &PageParams,
) -> Result<Page<RatingDecisionOut>, ApiError> {
    let (limit, offset) = page.resolve()?;
    load_visible(conn, caller, tournament_id)?;
    let tid = TournamentId(tournament_id);
    let total = stored::count_decisions(conn, tid)?;
    let rows = stored::decisions(conn, tid, limit, offset)?;
    Ok(Page {
        items: rows.into_iter().map(decision_out).collect(),
        total,
        limit,
        offset,
        next_cursor: None,
        total_exact: None,
    })
}

/// The sort keys of a pool's tournament: when its request was last decided (none first, as
/// PostgreSQL sorts NULL in a descending order) and its id, both descending.
#[derive(Debug, Serialize, Deserialize)]
struct PoolTournamentKey(Option<DateTime<Utc>>, i64);

/// The name pool tournament cursors are checked against.
const POOL_TOURNAMENTS: &str = "pool-tournaments";

/// The tournaments that ask to be rated in the pool (or were), newest request first, for its
/// keepers: who created each, its players and how far it has been played. Paged by keyset
/// (`cursor`) and counted to [`COUNT_CAP`].
pub fn pool_tournaments(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
    query: &PoolTournamentsQuery,
) -> Result<Page<PoolTournamentOut>, ApiError> {
    let status = query.rating_status;
    let scope = format!("{pool_id}|{status:?}");
    let (limit, start) = keyset_start::<PoolTournamentKey>(
        query.limit,
        query.offset,
        query.cursor.as_deref(),
        POOL_TOURNAMENTS,
        &scope,
    )?;
    super::require_pool_keeper(conn, caller, pool_id)?;
    let pool = PoolId(pool_id);
    let (offset, first, from) = match start {
        Start::Offset(o) => (o, true, PoolTournamentsStart::Offset(o)),
        Start::After(PoolTournamentKey(at, id)) => {
            (0, false, PoolTournamentsStart::After(at, TournamentId(id)))
        }
    };
    let rows = stored::naming_pool_page(conn, pool, status, from, limit + 1)?;
    let page = keyset_page(
        rows,
        limit,
        (offset, first),
        || {
            Ok(stored::count_naming_pool(
                conn,
                pool,
                status,
                COUNT_CAP + 1,
            )?)
        },
        POOL_TOURNAMENTS,
        &scope,
        |t| PoolTournamentKey(t.rating_decided_at, t.id.0),
        Ok,
    )?;
    pool_tournament_items(conn, page)
}

/// A page of a pool's tournaments with who created each, its confirmed players, completed
/// rounds and results (four queries for the page).
fn pool_tournament_items(
    conn: &mut PgConnection,
    page: Page<Tournament>,
) -> Result<Page<PoolTournamentOut>, ApiError> {
    let rows = &page.items;
    let ids: Vec<TournamentId> = rows.iter().map(|t| t.id).collect();
    let creators: Vec<UserId> = rows.iter().map(|t| t.created_by).collect();
    let creators = stored::usernames(conn, &creators)?;
    let players = stored::confirmed_players(conn, &ids)?;
    let completed = stored::completed_rounds(conn, &ids)?;
    let tables = stored::tables_with_results(conn, &ids)?;
    page.try_map(|t| {
        let username = creators
            .iter()
            .find(|c| c.0 == t.created_by)
            .map(|c| c.1.clone())
            .unwrap_or_default();
        Ok(PoolTournamentOut {
            tournament_id: t.id.0,
            status: t.status,
            rating_status: t.rating_status.ok_or_else(|| {
                ApiError::Internal(format!("tournament {}: a pool without a status", t.id))
            })?,
            created_by: UserRef {
                user_id: t.created_by.0,
                username,
            },
            players: players
                .iter()
                .filter(|p| p.0 == t.id)
                .map(|p| PlayerRef {
                    player_id: p.1 .0,
                    name: p.2.clone(),
                })
                .collect(),
            completed_rounds: completed.iter().find(|c| c.0 == t.id).map_or(0, |c| c.1),
            results: tables.iter().filter(|r| r.0 == t.id).count() as i64,
            name: t.name,
            starts_on: t.starts_on,
            ends_on: t.ends_on,
            rating_reason: t.rating_reason,
            rating_decided_by: t.rating_decided_by.map(|id| id.0),
            rating_decided_at: t.rating_decided_at,
            national_rank: t.national_rank,
            announced_at: t.announced_at,
        })
    })
}
