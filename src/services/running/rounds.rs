//! Rounds: drawing them from a committed seed, redrawing drafts, publishing, and reading them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::models::Tournament;
use crate::db::rounds::{self as db_rounds, Lock, NewDraw};
use crate::db::running::{NewRound, RoundRow};
use crate::db::PgConnection;
use crate::domain::scoring::{Points, Preset, RoundKind};
use crate::domain::seating::{draw_round, Draw, DrawInput, SeatingError, SeatingMethod};
use crate::domain::status::{RoundStatus, TournamentStatus};
use crate::domain::{DrawRng, PoolId, RoundId, TournamentId, UserId};
use crate::error::ApiError;
use crate::services::access::{
    is_staff, load_for_staff, load_visible, load_visible_round as load_round,
};
use crate::services::ratings::TimeChange;
use crate::services::running::round_checks::{check_drawable, check_method, check_self_scheduled};
use crate::services::running::round_history::{self as round_withdrawal, RoundWithdrawal};
use crate::services::running::round_input::{bridge_final_option, draw_input, restored};
use crate::services::running::snapshot::{Snapshot, TeamMatchResult};
use crate::services::running::time_of_play;
use crate::services::validate::{Page, PageParams};

/// A round as shown.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundOut {
    pub number: i32,
    pub kind: RoundKind,
    pub method: SeatingMethod,
    /// The method options the round was drawn with (only the current method's names appear).
    pub options: RoundOptions,
    /// The weight set on the round as an exact decimal or fraction; absent = the ruleset's
    /// default for the kind (see `effective_weight`).
    #[schema(example = "5/4")]
    pub weight: Option<String>,
    /// The weight the round's TP are multiplied by: `weight` if set, else the ruleset's default
    /// for the kind (Agricola Norway: 1 for preliminary rounds, 5/4 for the final), exact.
    #[schema(example = "5/4")]
    pub effective_weight: String,
    /// Draft variant, card pool, time limit, ... as the organiser entered them.
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
    pub status: RoundStatus,
    /// SHA-256 (hex) of the seed of the current draw, published from the moment of the draw.
    pub seed_commitment: String,
    /// The seed (hex), revealed once the round is published.
    pub seed: Option<String>,
    /// How many draws were made (redraws while a draft).
    pub draws_made: i32,
    /// The draw: tables with seats (seat 1 first), starting players, bridge groups, byes,
    /// placement groups, team matches, and the draw report.
    #[schema(value_type = Draw)]
    pub draw: serde_json::Value,
    /// Tables that have a result.
    pub tables_with_results: Vec<i32>,
    pub created_at: DateTime<Utc>,
    pub published_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    /// When the round's games were played: the organiser's time if stated, else (once
    /// completed) the completion time held within the playing days. Ratings follow it.
    pub played_at: Option<DateTime<Utc>>,
    /// Whether `played_at` was stated by the organiser.
    pub played_at_stated: bool,
    /// Tantrix: each game's colours, decided when the round was drawn (seed 003, 5. Farben);
    /// empty in other formats.
    #[schema(value_type = Vec<crate::services::running::colours::TableColours>)]
    pub colours: serde_json::Value,
    /// A self-scheduled round's deadline (see `/tables/{t}/schedule`).
    pub self_scheduled_until: Option<DateTime<Utc>>,
    /// Draws of this round withdrawn before any result, oldest first (`POST .../withdraw`).
    /// When the last one is the current draw, the round is a draft to be drawn again.
    pub withdrawals: Vec<RoundWithdrawal>,
}

pub use crate::domain::seating::RoundOptions;

/// Create the next round. The `options` a method accepts are listed under each method in the
/// document's `CreateRound` variants; unknown names are refused with 422.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRound {
    /// `preliminary` (default), `final`, `voluntary` or `playoff`.
    pub kind: Option<RoundKind>,
    /// The seating method.
    pub method: SeatingMethod,
    /// Method options; unknown names are refused.
    pub options: Option<BTreeMap<String, serde_json::Value>>,
    /// The round's weight, e.g. `"1.25"` or `"5/4"`; absent = the ruleset's default.
    pub weight: Option<String>,
    /// Free metadata: draft variant, card pool, time limit.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// When the round is (or was) played, within the tournament's playing days; the order its
    /// games are rated in. Absent: the time its last result arrives, held within the playing
    /// days (a round entered after the event counts as played at 22:00 on its last day).
    pub played_at: Option<DateTime<Utc>>,
    /// Two-player formats: the players schedule their games themselves and must have played by
    /// this time (seed 003, rule 8); a player who does not answer a proposal is reported to the
    /// leader after 5 days and forfeits 2 days later; 48 hours before the deadline the leader
    /// is told of the games nobody has scheduled.
    pub self_scheduled_until: Option<DateTime<Utc>>,
}

/// Changes a round's time of play (organisers); `null` goes back to the derived time.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"played_at": "2027-03-06T13:00:00Z"}))]
pub struct UpdateRound {
    /// When the round was played, within the tournament's playing days; `null`: the time its
    /// last result arrived, held within the playing days. Ratings follow this time.
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub played_at: Option<Option<DateTime<Utc>>>,
    /// A self-scheduled round's deadline, moved later (the leader's answer to games nobody has
    /// scheduled, seed 003 rule 8.5): later than now and than the current deadline.
    pub self_scheduled_until: Option<DateTime<Utc>>,
}

/// One draw made for a round, with everything needed to recompute it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DrawRecord {
    pub attempt: i32,
    pub seed_commitment: String,
    /// Revealed once the round is published.
    pub seed: Option<String>,
    /// The seating engine's input, revealed with the seed: with the seed it recomputes `draw`.
    #[schema(value_type = Option<DrawInput>)]
    pub input: Option<serde_json::Value>,
    #[schema(value_type = Draw)]
    pub draw: serde_json::Value,
    pub drawn_at: DateTime<Utc>,
}

/// The weight a round's TP are multiplied by: its own, or the ruleset's default for its kind.
fn effective_weight(t: &Tournament, r: &RoundRow) -> String {
    if let Some(w) = r.weight.as_deref().and_then(|w| w.parse::<Points>().ok()) {
        return w.exact();
    }
    t.rules.ruleset.round_weights.for_kind(r.kind).exact()
}

pub(crate) fn round_out(
    t: &Tournament,
    r: RoundRow,
    tables_with_results: Vec<i32>,
) -> Result<RoundOut, ApiError> {
    let revealed = r.status != RoundStatus::Draft;
    let withdrawals = round_withdrawal::withdrawals_of(&r.metadata)?;
    let effective_weight = effective_weight(t, &r);
    Ok(RoundOut {
        number: r.number,
        kind: r.kind,
        method: r.method,
        options: r.options,
        effective_weight,
        weight: r.weight,
        metadata: round_withdrawal::shown_metadata(r.metadata),
        status: r.status,
        seed_commitment: r.seed_commitment,
        seed: revealed.then_some(r.seed),
        draws_made: r.draw_count,
        draw: stored_json(&r.draw)?,
        tables_with_results,
        created_at: r.created_at,
        published_at: r.published_at,
        completed_at: r.completed_at,
        played_at: r.played_at,
        played_at_stated: r.played_at_fixed,
        colours: stored_json(r.colours.as_deref().unwrap_or_default())?,
        self_scheduled_until: r.self_scheduled_until,
        withdrawals,
    })
}

/// A stored value as the answer shows it: its stored JSON form.
fn stored_json<T: Serialize + ?Sized>(value: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(value).map_err(|e| ApiError::Internal(e.to_string()))
}

/// A fresh seed and its commitment.
fn fresh_seed() -> ([u8; 32], String, String) {
    let seed: [u8; 32] = rand::random();
    let commitment = hex::encode(Sha256::digest(seed));
    (seed, DrawRng::seed_to_hex(&seed), commitment)
}

/// Draws with a fresh seed: (draw, seed hex, commitment).
fn make_draw(input: &DrawInput) -> Result<(Draw, String, String), ApiError> {
    let (seed, seed_hex, commitment) = fresh_seed();
    let mut rng = DrawRng::from_seed(seed);
    let draw = draw_round(input, &mut rng).map_err(|e| match &e {
        SeatingError::InvalidOption { option, .. } => {
            ApiError::field(format!("options.{option}"), e.to_string())
        }
        _ => ApiError::field("method", e.to_string()),
    })?;
    Ok((draw, seed_hex, commitment))
}

fn tables_with_results(conn: &mut PgConnection, round_id: i64) -> Result<Vec<i32>, ApiError> {
    Ok(crate::db::results::tables_with_results(
        conn,
        RoundId(round_id),
    )?)
}

/// The checks of a new round that need no database: its weight (a number or fraction from 0
/// to 100, stored exactly) and options the seating method knows. Returns the weight.
fn check_round_input(input: &CreateRound) -> Result<Option<String>, ApiError> {
    let weight = match &input.weight {
        Some(w) if w.chars().count() > 20 => {
            return Err(ApiError::field("weight", "must be at most 20 characters"))
        }
        Some(w) => {
            let p: Points = w
                .parse()
                .map_err(|_| ApiError::field("weight", "must be a number such as 1.25 or 5/4"))?;
            if p.is_negative() || p.to_f64() > 100.0 {
                return Err(ApiError::field("weight", "must be between 0 and 100"));
            }
            Some(p.exact())
        }
        None => None,
    };
    if input
        .metadata
        .as_ref()
        .is_some_and(|m| m.contains_key(round_withdrawal::KEY))
    {
        return Err(ApiError::field(
            format!("metadata.{}", round_withdrawal::KEY),
            "is kept by the service (the round's withdrawn draws); use another name",
        ));
    }
    for name in input.options.iter().flat_map(|o| o.keys()) {
        if !input.method.accepted_options().contains(&name.as_str()) {
            return Err(ApiError::field(
                format!("options.{name}"),
                format!("unknown option for method {}", input.method),
            ));
        }
    }
    Ok(weight)
}

/// The number of the round to draw: a withdrawn last round is drawn again in place (its
/// earlier draws and withdrawals stay with it); otherwise every round must be completed.
fn next_number(snap: &Snapshot) -> Result<(i32, Option<RoundRow>), ApiError> {
    let again = match snap.rounds.last() {
        Some(r) if round_withdrawal::is_withdrawn(r)? => Some(r.clone()),
        _ => None,
    };
    if let Some(open) = snap
        .rounds
        .iter()
        .find(|r| r.status != RoundStatus::Completed && again.as_ref().map(|a| a.id) != Some(r.id))
    {
        return Err(ApiError::Conflict(format!(
            "round {} is not completed yet: every table needs a result first",
            open.number
        )));
    }
    let number = again
        .as_ref()
        .map_or(snap.rounds.len() as i32 + 1, |r| r.number);
    Ok((number, again))
}

/// Seed 004: at least 4 players, and a number of rounds that fits the field.
fn check_ashes_league(snap: &Snapshot, number: i32) -> Result<(), ApiError> {
    if snap.tournament.ruleset != Preset::AshesLeague {
        return Ok(());
    }
    let players = snap.confirmed().len();
    let planned = snap.tournament.planned_rounds.max(0) as u32;
    crate::domain::seating::check_ashes_rounds(players, planned).map_err(|e| {
        ApiError::Conflict(format!(
            "an Ashes league tournament of {players} players: {e} (planned_rounds)"
        ))
    })?;
    if number as u32 > planned {
        return Err(ApiError::Conflict(format!(
            "all {planned} planned rounds are played"
        )));
    }
    Ok(())
}

/// Draws the next round (organisers): the draw comes from a fresh seed whose SHA-256 commitment is published with it.
/// A withdrawn last round is drawn again instead, with the method and options now given. `now`
/// is the time of the draw.
pub fn create_round(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: CreateRound,
    now: DateTime<Utc>,
) -> Result<RoundOut, ApiError> {
    let kind = input.kind.unwrap_or(RoundKind::Preliminary);
    crate::db::unit_of_work(conn, |conn| {
        // Who is asking comes first, then what the body means (issue 37, item 6).
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let weight = check_round_input(&input)?;
        // One draw at a time per tournament.
        db_rounds::lock_for_draw(conn, TournamentId(tid))?;
        check_drawable(&t, input.played_at)?;
        let snap = Snapshot::load(conn, t)?;
        check_method(input.method, &snap.ruleset)?;
        let (number, again) = next_number(&snap)?;
        check_self_scheduled(&snap.ruleset, input.self_scheduled_until, now)?;
        check_ashes_league(&snap, number)?;
        let options = bridge_final_option(input.method, kind, input.options.unwrap_or_default())?;
        let draw_in = draw_input(
            conn,
            &snap,
            number,
            kind,
            input.method,
            options,
            caller,
            now,
        )?;
        let (draw, seed, commitment) = make_draw(&draw_in)?;
        let colours =
            crate::services::running::colours::for_draw(conn, &snap.tournament, &draw, &seed)?;
        let earlier = again
            .as_ref()
            .map(|r| r.metadata.clone())
            .unwrap_or_default();
        let new = NewRound {
            tournament_id: TournamentId(tid),
            number,
            kind,
            method: input.method,
            // The options the draw used, defaults included (the plan's length).
            options: draw_in.options.clone(),
            weight,
            metadata: round_withdrawal::metadata_with_history(
                input.metadata.unwrap_or_default(),
                &earlier,
            ),
            seed: seed.clone(),
            seed_commitment: commitment.clone(),
            draw: draw.clone(),
            created_by: UserId(caller.user_id),
            played_at: input.played_at,
            played_at_fixed: input.played_at.is_some(),
            colours,
            self_scheduled_until: input.self_scheduled_until,
        };
        let row: RoundRow = match &again {
            Some(r) => db_rounds::draw_again(conn, r.id, new)?,
            None => db_rounds::insert(conn, new)?,
        };
        db_rounds::insert_draw(
            conn,
            NewDraw {
                round: row.id,
                attempt: row.draw_count,
                seed,
                seed_commitment: commitment,
                draw_input: draw_in,
                draw,
                drawn_by: UserId(caller.user_id),
            },
        )?;
        if snap.tournament.status == TournamentStatus::RegistrationOpen {
            db_rounds::mark_running(conn, TournamentId(tid), now)?;
        }
        round_out(&snap.tournament, row, Vec::new())
    })
}

/// Draws a draft round again from a fresh seed (organisers); every attempt is kept.
pub fn redraw(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
) -> Result<RoundOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let round = db_rounds::by_number(conn, tid, number, Lock::ForUpdate)?;
        if round.status != RoundStatus::Draft {
            return Err(ApiError::Conflict(
                "a published round cannot be redrawn".into(),
            ));
        }
        // Same input as before (the field has not changed: the round is a draft).
        check_method(
            round.method,
            &crate::services::running::snapshot::ruleset_of(&t)?,
        )?;
        let stored = db_rounds::stored_input(conn, &round)?;
        let mut input = restored(conn, &t, number, stored)?;
        // A fresh attempt is drawn by today's algorithm (issue 44); the earlier attempts keep
        // theirs in their stored inputs.
        input.algorithm = crate::domain::seating::SEATING_ALGORITHM;
        let (draw, seed, commitment) = make_draw(&input)?;
        let colours = crate::services::running::colours::for_draw(conn, &t, &draw, &seed)?;
        let attempt = round.draw_count + 1;
        db_rounds::insert_draw(
            conn,
            NewDraw {
                round: round.id,
                attempt,
                seed: seed.clone(),
                seed_commitment: commitment.clone(),
                draw_input: input,
                draw: draw.clone(),
                drawn_by: UserId(caller.user_id),
            },
        )?;
        let row = db_rounds::set_draw(
            conn,
            round.id,
            attempt,
            (seed, commitment),
            &draw,
            colours.as_deref(),
        )?;
        round_out(&t, row, Vec::new())
    })
}

/// Moves a self-scheduled round's deadline later (seed 003 rule 8.5: the leader's answer to
/// games nobody has scheduled). Runs inside the caller's transaction, with the round locked.
fn extend_deadline(
    conn: &mut PgConnection,
    round: &RoundRow,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<RoundRow, ApiError> {
    let Some(current) = round.self_scheduled_until else {
        return Err(ApiError::field(
            "self_scheduled_until",
            "only a self-scheduled round's deadline can be moved",
        ));
    };
    if round.status == RoundStatus::Completed {
        return Err(ApiError::conflict_at(
            "self_scheduled_until",
            "every game of the round has its result; there is nothing left to schedule",
        ));
    }
    if until <= now || until <= current {
        return Err(ApiError::field(
            "self_scheduled_until",
            format!("a deadline can only be extended: later than now and than {current}"),
        ));
    }
    Ok(db_rounds::set_deadline(conn, round.id, until)?)
}

/// Changes when a round was played (organisers). A completed round's games move to their new
/// place in the rating pool's time order, and the pool is recomputed from the earlier of the
/// two places (issue 14, item 20). Once a keeper accepted the tournament, moving a completed
/// round is for the pool's keepers: 409 naming `played_at` to an organiser alone, and kept in
/// its rating decisions either way (issue 37, item 3). A self-scheduled round's deadline can be
/// extended (`now` is the server's scheduling clock).
pub fn update_round(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
    input: UpdateRound,
    now: DateTime<Utc>,
) -> Result<RoundOut, ApiError> {
    let mut refused = None;
    let out = change_round(conn, caller, tid, number, input, now, &mut refused);
    if let Some((pool_id, change)) = refused {
        let changes = [change];
        crate::services::ratings::record_refused_attempt(
            conn,
            caller,
            TournamentId(tid),
            PoolId(pool_id),
            &changes,
            now,
        )?;
    }
    out
}

fn change_round(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
    input: UpdateRound,
    now: DateTime<Utc>,
    refused: &mut Option<(i64, TimeChange)>,
) -> Result<RoundOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let mut round = db_rounds::by_number(conn, tid, number, Lock::ForUpdate)?;
        if let Some(until) = input.self_scheduled_until {
            round = extend_deadline(conn, &round, until, now)?;
        }
        let Some(stated) = input.played_at else {
            let done = tables_with_results(conn, round.id.0)?;
            return round_out(&t, round, done);
        };
        if let Some(at) = stated {
            time_of_play::check_stated(&t, at)?;
        }
        let days = time_of_play::playing_days(&t)?;
        let played_at = stated.or_else(|| round.completed_at.map(|c| days.default_time_of_play(c)));
        let next = (played_at, stated.is_some());
        if let Some((pool_id, change, why)) =
            crate::services::ratings::held_round_time(conn, caller, &t, &round, next, refused)?
        {
            use crate::services::ratings::record_time_changes;
            record_time_changes(
                conn,
                caller,
                TournamentId(tid),
                PoolId(pool_id),
                &[change],
                false,
                why,
                now,
            )?;
        }
        let row = db_rounds::set_played_at(conn, round.id, played_at, stated.is_some())?;
        if row.status == RoundStatus::Completed && row.played_at != round.played_at {
            crate::services::ratings::round_results_changed(conn, TournamentId(tid), row.id)?;
        }
        let done = tables_with_results(conn, row.id.0)?;
        round_out(&t, row, done)
    })
}

/// Publishes a draft round (organisers) at `now`: players see their tables and the seed is
/// revealed.
pub fn publish(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
    now: DateTime<Utc>,
) -> Result<RoundOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let round = db_rounds::by_number(conn, tid, number, Lock::ForUpdate)?;
        if round.status != RoundStatus::Draft {
            return Err(ApiError::Conflict(format!(
                "round {number} is already published"
            )));
        }
        if round_withdrawal::is_withdrawn(&round)? {
            return Err(ApiError::conflict_at(
                "round",
                format!(
                    "round {number}'s draw was withdrawn: draw it again (POST .../rounds with a \
                     method, or .../redraw) before publishing"
                ),
            ));
        }
        let row = db_rounds::publish(conn, round.id, now)?;
        crate::db::events::record(
            conn,
            tid,
            crate::domain::events::TournamentEvent::RoundPublished(
                crate::domain::events::RoundPublishedPayload {
                    round: number,
                    seed_commitment: row.seed_commitment.clone(),
                },
            ),
        )?;
        round_out(&t, row, Vec::new())
    })
}

/// A page of the rounds of a tournament (drafts only for staff; read in SQL), and whether the
/// list is public.
pub fn list_rounds(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    params: &PageParams,
) -> Result<(bool, Page<RoundOut>), ApiError> {
    crate::db::snapshot(conn, |conn| list_rounds_at_once(conn, caller, tid, params))
}

fn list_rounds_at_once(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    params: &PageParams,
) -> Result<(bool, Page<RoundOut>), ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let staff = is_staff(conn, caller, tid)?;
    let page = Page::read(
        conn,
        params,
        |c| db_rounds::list_count(c, TournamentId(tid), staff),
        |c, limit, offset| db_rounds::list_page(c, TournamentId(tid), staff, limit, offset),
    )?;
    let page = page.try_map(|r| {
        let done = tables_with_results(conn, r.id.0)?;
        round_out(&t, r, done)
    })?;
    let vis = !staff;
    Ok((vis, page))
}

/// One round, and whether it is public. Read as of one instant: its status and how many of its
/// tables have a result are of the same commit.
pub fn read_round(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(bool, RoundOut), ApiError> {
    crate::db::snapshot(conn, |conn| read_round_at_once(conn, caller, tid, number))
}

fn read_round_at_once(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(bool, RoundOut), ApiError> {
    let (t, r) = load_round(conn, caller, tid, number)?;
    let vis = r.status != RoundStatus::Draft;
    let done = tables_with_results(conn, r.id.0)?;
    Ok((vis, round_out(&t, r, done)?))
}

/// Every draw attempt of a round with its seed commitment (seeds revealed once published).
pub fn draw_records(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
    params: &PageParams,
) -> Result<Page<DrawRecord>, ApiError> {
    let (t, r) = load_round(conn, caller, tid, number)?;
    let revealed = r.status != RoundStatus::Draft;
    // Attempts published before a withdrawal stay public: players saw them.
    let published = round_withdrawal::published_attempts(&r)?;
    let page = Page::read(
        conn,
        params,
        |c| db_rounds::draws_count(c, r.id),
        |c, limit, offset| db_rounds::draws_page(c, r.id, limit, offset),
    )?;
    page.try_map(|d| {
        let revealed = revealed || published.contains(&d.attempt);
        let input = if revealed {
            let full = restored(conn, &t, number, d.draw_input)?;
            Some(serde_json::to_value(full).map_err(|e| ApiError::Internal(e.to_string()))?)
        } else {
            None
        };
        Ok(DrawRecord {
            attempt: d.attempt,
            seed_commitment: d.seed_commitment,
            seed: revealed.then_some(d.seed),
            input,
            draw: stored_json(&d.draw)?,
            drawn_at: d.drawn_at,
        })
    })
}

/// A team round's matches, and whether they are public.
pub fn team_matches(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(bool, Vec<TeamMatchResult>), ApiError> {
    let (t, r) = load_round(conn, caller, tid, number)?;
    let vis = r.status != RoundStatus::Draft;
    let snap = Snapshot::load(conn, t)?;
    Ok((vis, snap.team_matches(&r)?))
}
