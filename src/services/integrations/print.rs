//! What the print-ready pages show (issue 41, item 1): a round's result slips with their table
//! codes, for the tournament's organisers and referees only (the codes let anyone holding them
//! report a result). The pairings and the standings for the wall are the public embeds' data
//! (`services::integrations::embed`).

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::table_codes::HallKeys;
use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::ids::UserId;
use crate::db::rounds::Lock;
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::domain::scoring::Ruleset;
use crate::domain::status::RoundStatus;
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::integrations::embed::{self, Seat};
use crate::services::running::snapshot::ruleset_of;

/// How long a link to the slips opens them.
pub const LINK_VALID: Duration = Duration::minutes(30);

/// Who asks for the slips: a signed-in caller, or a browser with a link an organiser took.
pub enum SlipsAccess {
    Caller(Caller),
    /// `?until=…&by=…&key=…` of a link from [`slips_link`] (`by`: the account that took it;
    /// absent in a link from before links named it, which opens nothing).
    Link {
        until: i64,
        by: Option<i64>,
        key: String,
    },
    Nobody,
}

/// One table's slip.
pub struct Slip {
    pub table: u32,
    /// The players in seat order.
    pub seats: Vec<Seat>,
    /// The table code, as printed.
    pub code: String,
}

/// The slips of a round.
pub struct SlipsPage {
    pub tournament: String,
    pub round: i32,
    pub ruleset: Ruleset,
    pub slips: Vec<Slip>,
}

/// A link that opens a round's slips in a browser for a while (no token in a printed page's
/// address bar).
#[derive(Debug, Serialize, ToSchema)]
pub struct SlipsLink {
    /// The page's path and query (on this service's host).
    #[schema(example = "/print/tournaments/12/rounds/3/slips?until=1795000000&by=7&key=3f2a…")]
    pub path: String,
    pub expires_at: DateTime<Utc>,
}

fn staff_round(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
) -> Result<RoundRow, ApiError> {
    let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)?;
    caller.require_role(conn, t.id.0, &[StaffRole::Organiser, StaffRole::Referee])?;
    // The codes write results: a key that may only read does not get them (nor a link).
    if !caller.may_write_results() {
        return Err(ApiError::Forbidden(
            "the slips carry the table codes, with which results are reported and confirmed: \
             this API key has no `results:write` (or `tournaments:write`) scope"
                .into(),
        ));
    }
    let round = crate::db::rounds::by_number(conn, t.id.0, number, Lock::None)?;
    published(&round)?;
    Ok(round)
}

/// Whether the account `by` may still take a link to tournament `tid`'s slips: enabled, not
/// erased, and an organiser or referee of it (or an admin) now.
fn taker_may_still(conn: &mut PgConnection, by: i64, tid: i64) -> Result<bool, ApiError> {
    let Some((user_id, username, is_admin)) =
        crate::db::accounts::enabled_name_and_admin(conn, UserId(by))?
    else {
        return Ok(false);
    };
    let taker = Caller {
        user_id: user_id.0,
        username,
        is_admin,
        key: None,
        password_at: None,
    };
    taker.has_any_role(conn, tid, &[StaffRole::Organiser, StaffRole::Referee])
}

fn published(round: &RoundRow) -> Result<(), ApiError> {
    if round.status == RoundStatus::Draft {
        return Err(ApiError::conflict_at(
            "round",
            format!(
                "round {} is a draft: publish it before printing its slips",
                round.number
            ),
        ));
    }
    Ok(())
}

/// A link to a round's slips, valid [`LINK_VALID`] from `now` while the caller may still take
/// one (organisers and referees; with an API key, one that may write results).
pub fn slips_link(
    conn: &mut PgConnection,
    keys: &HallKeys,
    caller: &Caller,
    tid: i64,
    number: i32,
    now: DateTime<Utc>,
) -> Result<SlipsLink, ApiError> {
    let round = staff_round(conn, caller, tid, number)?;
    let expires_at = now + LINK_VALID;
    let (until, by) = (expires_at.timestamp(), caller.user_id);
    Ok(SlipsLink {
        path: format!(
            "/print/tournaments/{tid}/rounds/{number}/slips?until={until}&by={by}&key={}",
            keys.slips_key(round.id.0, round.draw_count, by, until)
        ),
        expires_at,
    })
}

/// A published round's slips with their codes: for the tournament's organisers and referees
/// (with an API key, one that may write results), or a link one of them took that has not
/// expired, while its taker may still take it (401 for nobody, 403 for anyone else).
pub fn slips(
    conn: &mut PgConnection,
    keys: &HallKeys,
    access: SlipsAccess,
    tid: i64,
    number: i32,
    now: DateTime<Utc>,
) -> Result<SlipsPage, ApiError> {
    let round = match access {
        SlipsAccess::Nobody => {
            return Err(ApiError::Unauthorized(
                "the slips carry the table codes: sign in as an organiser or referee, or open \
                 a link from GET /api/v1/tournaments/{id}/rounds/{n}/slips-link"
                    .into(),
            ))
        }
        SlipsAccess::Caller(caller) => staff_round(conn, &caller, tid, number)?,
        SlipsAccess::Link { until, by, key } => {
            let t = load_visible(conn, &MaybeCaller(None), tid)?;
            let round = crate::db::rounds::by_number(conn, t.id.0, number, Lock::None)?;
            let unknown = || ApiError::Forbidden("this link does not open these slips".into());
            let by = by.ok_or_else(unknown)?;
            if !keys.is_slips_key(round.id.0, round.draw_count, by, until, &key) {
                return Err(unknown());
            }
            if until <= now.timestamp() {
                return Err(ApiError::Forbidden(
                    "this link has expired: take a new one".into(),
                ));
            }
            // The link carries its taker's standing: it opens nothing once that account is
            // disabled, erased or no longer staff here, and says no more than a wrong link.
            if !taker_may_still(conn, by, t.id.0)? {
                return Err(unknown());
            }
            published(&round)?;
            round
        }
    };
    let t = crate::db::tournaments::by_id(conn, crate::domain::TournamentId(tid))?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {tid}")))?;
    let ruleset = ruleset_of(&t)?;
    let slips = embed::seating(
        conn,
        &round.draw,
        round.colours.as_deref().unwrap_or_default(),
    )?
    .into_iter()
    .map(|(table, seats)| Slip {
        table,
        seats,
        code: keys.table_code(round.id.0, round.draw_count, table as i32),
    })
    .collect();
    Ok(SlipsPage {
        tournament: t.name,
        round: round.number,
        ruleset,
        slips,
    })
}
