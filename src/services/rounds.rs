//! Rounds: drawing them from a committed seed, redrawing drafts, publishing, and reading them.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::models::Tournament;
use crate::db::running::{NewRound, NewWithdrawal, RoundDraw, RoundRow};
use crate::db::schema::{round_draws, rounds, tournaments, withdrawals};
use crate::domain::scoring::{Format, Points, Preset, Purpose, RoundKind, Ruleset};
use crate::domain::seating::{
    draw_round, Draw, DrawInput, PlayerEntry, SeatingMethod, Standing, Team,
};
use crate::domain::status::{RoundStatus, TournamentStatus};
use crate::domain::{DrawRng, PlayerId};
use crate::error::ApiError;
use crate::services::access::{load_for_staff, load_visible};
use crate::services::snapshot::{self as play, Snapshot, TeamMatchResult};

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
}

/// The options of the seating methods; each method accepts only its own (see `CreateRound`).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundOptions {
    /// `random`, `bridge`: plan this many rounds (this one included) so that players meet as
    /// many different opponents as possible; default: the rounds left of `planned_rounds`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 100)]
    pub rounds_remaining: Option<u32>,
    /// `random_seeded`, `fixed_seeded`: rated games a rating needs to count (default 5, seed 000).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 1000)]
    pub min_rated_games: Option<u32>,
    /// `bridge`: draw the final (placement groups spread over bridge groups, seed 001).
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_round: Option<bool>,
    /// `team_duplicate`: `best_of_3` (two teams) or `knockout` (default by the number of teams).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<TeamFormat>,
    /// `team_duplicate` best of 3: which game (1-3; default the round number).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 3)]
    pub game: Option<u32>,
}

/// How a team duplicate event is played (seed 002).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TeamFormat {
    /// Two teams play three games; pairs swap tables in game 2.
    BestOf3,
    /// A knockout between more than two teams.
    Knockout,
}

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
    let kind = RoundKind::parse(&r.kind).unwrap_or(RoundKind::Preliminary);
    Ruleset::for_tournament(&t.ruleset, &t.ruleset_overrides)
        .map(|rs| rs.round_weights.for_kind(kind).exact())
        .unwrap_or_else(|_| "1".into())
}

fn round_out(t: &Tournament, r: RoundRow, tables_with_results: Vec<i32>) -> RoundOut {
    let revealed = r.status != RoundStatus::Draft.as_str();
    RoundOut {
        number: r.number,
        kind: RoundKind::parse(&r.kind).unwrap_or(RoundKind::Preliminary),
        method: SeatingMethod::parse(&r.method).unwrap_or(SeatingMethod::Random),
        options: serde_json::from_value(r.options.clone()).unwrap_or_default(),
        effective_weight: effective_weight(t, &r),
        weight: r.weight,
        metadata: r.metadata,
        status: RoundStatus::parse(&r.status).unwrap_or(RoundStatus::Draft),
        seed_commitment: r.seed_commitment,
        seed: revealed.then_some(r.seed),
        draws_made: r.draw_count,
        draw: r.draw,
        tables_with_results,
        created_at: r.created_at,
        published_at: r.published_at,
        completed_at: r.completed_at,
    }
}

fn is_staff(conn: &mut PgConnection, caller: &MaybeCaller, tid: i64) -> Result<bool, ApiError> {
    match &caller.0 {
        Some(c) => c.has_any_role(
            conn,
            tid,
            &[
                StaffRole::Organiser,
                StaffRole::Referee,
                StaffRole::AppealsCommittee,
            ],
        ),
        None => Ok(false),
    }
}

/// A fresh seed and its commitment.
fn fresh_seed() -> ([u8; 32], String, String) {
    let seed: [u8; 32] = rand::random();
    let commitment = hex::encode(Sha256::digest(seed));
    (seed, DrawRng::seed_to_hex(&seed), commitment)
}

/// The players of a draw with their seeding strength: the organiser's seeding rating, else
/// the rating in the tournament's pool at the registration deadline (or now, without one).
fn player_entries(
    conn: &mut PgConnection,
    snap: &Snapshot,
    active: &[&crate::db::running::Registration],
) -> Result<Vec<PlayerEntry>, ApiError> {
    let pool_ratings = match snap.tournament.rating_pool_id {
        Some(pool) => {
            let ids: Vec<i64> = active.iter().map(|r| r.player_id).collect();
            let at = snap
                .tournament
                .registration_deadline
                .unwrap_or_else(Utc::now);
            crate::services::ratings::ratings_at(conn, pool, &ids, at)?
        }
        None => HashMap::new(),
    };
    Ok(active
        .iter()
        .map(|r| {
            let pooled = pool_ratings
                .get(&r.player_id)
                .filter(|(_, games)| *games > 0);
            (r, pooled)
        })
        .map(|(r, pooled)| PlayerEntry {
            id: PlayerId(r.player_id),
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
/// table size who continue) are recorded as opt-outs here.
fn draw_input(
    conn: &mut PgConnection,
    snap: &Snapshot,
    number: i32,
    kind: RoundKind,
    method: SeatingMethod,
    options: BTreeMap<String, serde_json::Value>,
    caller: &Caller,
) -> Result<DrawInput, ApiError> {
    let mut out = snap.out_of_play(number);
    // Knockout: only the winners (and byes) of the earlier rounds go on.
    if method == SeatingMethod::Knockout {
        out.extend(snap.eliminated_players(number)?);
    }
    // Team knockout: the teams knocked out so far sit out with their players.
    let knocked_out = snap.eliminated_teams(number)?;
    for t in snap
        .teams
        .iter()
        .filter(|t| knocked_out.contains(&(t.number as u32)))
    {
        out.extend([t.pair_a1, t.pair_a2, t.pair_b1, t.pair_b2]);
    }
    let mut active: Vec<&crate::db::running::Registration> = snap
        .confirmed()
        .into_iter()
        .filter(|r| !out.contains(&r.player_id))
        .collect();
    // Team matches are seated from the teams, not from a standings table. The final's
    // placement groups follow the qualification order ("(b) most high placements"); every other
    // round is seated by the seeding order ("(c) the previous game's points"), seed 000.
    let purpose = if method == SeatingMethod::FinalGroups || kind == RoundKind::Final {
        Purpose::Qualification
    } else {
        Purpose::Seeding
    };
    let standings = if number > 1 && snap.ruleset.format != Format::TeamDuplicate {
        let s = snap.standings(Some(number as u32 - 1), purpose)?;
        s.rows
            .iter()
            .map(|row| Standing {
                player: row.player,
                place: row.place,
                score: Some(row.tp.to_f64()),
            })
            .collect::<Vec<_>>()
    } else {
        Vec::new()
    };
    let place: HashMap<PlayerId, u32> = standings.iter().map(|s| (s.player, s.place)).collect();
    if kind == RoundKind::Voluntary {
        // The best multiple of the table size continue (domain.md section 3).
        active.sort_by_key(|r| {
            place
                .get(&PlayerId(r.player_id))
                .copied()
                .unwrap_or(u32::MAX)
        });
        let size = snap.tournament.table_size.max(1) as usize;
        let keep = active.len() / size * size;
        for r in active.split_off(keep) {
            diesel::insert_into(withdrawals::table)
                .values(NewWithdrawal {
                    tournament_id: snap.tournament.id,
                    player_id: r.player_id,
                    kind: "opt_out".into(),
                    from_round: number,
                    reason: Some(format!(
                        "not among the best multiple of {size} who continue"
                    )),
                    recorded_by: caller.user_id,
                })
                .execute(conn)?;
        }
    }
    let players = player_entries(conn, snap, &active)?;
    let active_ids: std::collections::HashSet<PlayerId> = players.iter().map(|p| p.id).collect();
    let previous = number
        .checked_sub(1)
        .and_then(|n| snap.round(n))
        .map(play::draw_of)
        .transpose()?;
    let mut players = players;
    if previous.is_some() {
        // Knockout seeds carry over from the first round's draw.
        let seeds: HashMap<PlayerId, u32> = snap
            .round(1)
            .map(play::draw_of)
            .transpose()?
            .map(|d| d.seeds.into_iter().collect())
            .unwrap_or_default();
        for p in &mut players {
            p.seed = seeds.get(&p.id).copied();
        }
    }
    let options = plan_length(snap, number, method, players.len(), options);
    let options = team_format(snap, method, options);
    Ok(DrawInput {
        round: number as u32,
        method,
        players,
        standings: standings
            .into_iter()
            .filter(|s| active_ids.contains(&s.player))
            .collect(),
        history: snap.history(number)?,
        options,
        plan: previous.and_then(|d| d.plan),
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
    if method == SeatingMethod::Bridge && snap.tournament.ruleset == Preset::BridgeAgricola.as_str()
    {
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

/// Draws with a fresh seed: (input JSON, draw JSON, seed hex, commitment).
fn make_draw(
    input: &DrawInput,
) -> Result<(serde_json::Value, serde_json::Value, String, String), ApiError> {
    let (seed, seed_hex, commitment) = fresh_seed();
    let mut rng = DrawRng::from_seed(seed);
    let draw = draw_round(input, &mut rng).map_err(|e| ApiError::field("method", e.to_string()))?;
    let to_json =
        |v: serde_json::Result<serde_json::Value>| v.map_err(|e| ApiError::Internal(e.to_string()));
    Ok((
        to_json(serde_json::to_value(input))?,
        to_json(serde_json::to_value(&draw))?,
        seed_hex,
        commitment,
    ))
}

fn tables_with_results(conn: &mut PgConnection, round_id: i64) -> Result<Vec<i32>, ApiError> {
    use crate::db::schema::results;
    Ok(results::table
        .filter(results::round_id.eq(round_id))
        .select(results::table_number)
        .distinct()
        .order(results::table_number)
        .load(conn)?)
}

/// Loads a round of a tournament the caller may see (drafts only for staff).
fn load_round(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(Tournament, RoundRow), ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let r: RoundRow = rounds::table
        .filter(rounds::tournament_id.eq(tid))
        .filter(rounds::number.eq(number))
        .select(RoundRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no round {number}")))?;
    if r.status == RoundStatus::Draft.as_str() && !is_staff(conn, caller, tid)? {
        return Err(ApiError::NotFound(format!("no round {number}")));
    }
    Ok((t, r))
}

/// A bridge round of kind `final` is the bridge final (seed 001: placement groups spread over
/// bridge groups), whether or not the option says so; `final: true` on another kind, or
/// `final: false` on the final, is refused rather than drawn as something standings would then
/// misread.
fn bridge_final_option(
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

/// Draws the next round (organisers): the draw comes from a fresh seed whose SHA-256 commitment is published with it.
pub fn create_round(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    input: CreateRound,
) -> Result<RoundOut, ApiError> {
    let kind = input.kind.unwrap_or(RoundKind::Preliminary);
    let weight = check_round_input(&input)?;
    conn.transaction(|conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        // One draw at a time per tournament.
        tournaments::table
            .find(tid)
            .select(tournaments::id)
            .for_update()
            .first::<i64>(conn)?;
        if t.status != TournamentStatus::RegistrationOpen.as_str()
            && t.status != TournamentStatus::Running.as_str()
        {
            return Err(ApiError::Conflict(format!(
                "rounds are drawn when registration is open or the tournament runs; it is {}",
                t.status
            )));
        }
        let snap = Snapshot::load(conn, t)?;
        if let Some(open) = snap
            .rounds
            .iter()
            .find(|r| r.status != RoundStatus::Completed.as_str())
        {
            return Err(ApiError::Conflict(format!(
                "round {} is not completed yet: every table needs a result first",
                open.number
            )));
        }
        let number = snap.rounds.len() as i32 + 1;
        if snap.tournament.ruleset == Preset::AshesLeague.as_str() {
            // Seed 004: at least 4 players, and a number of rounds that fits the field.
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
        }
        let options = bridge_final_option(input.method, kind, input.options.unwrap_or_default())?;
        let draw_in = draw_input(conn, &snap, number, kind, input.method, options, caller)?;
        let (input_json, draw_json, seed, commitment) = make_draw(&draw_in)?;
        let row: RoundRow = diesel::insert_into(rounds::table)
            .values(NewRound {
                tournament_id: tid,
                number,
                kind: play::kind_name(kind).into(),
                method: input.method.to_string(),
                // The options the draw used, defaults included (the plan's length).
                options: serde_json::to_value(&draw_in.options)
                    .map_err(|e| ApiError::Internal(e.to_string()))?,
                weight,
                metadata: serde_json::Value::Object(input.metadata.unwrap_or_default()),
                seed: seed.clone(),
                seed_commitment: commitment.clone(),
                draw_input: input_json.clone(),
                draw: draw_json.clone(),
                created_by: caller.user_id,
            })
            .returning(RoundRow::as_returning())
            .get_result(conn)?;
        diesel::insert_into(round_draws::table)
            .values(RoundDraw {
                round_id: row.id,
                attempt: 1,
                seed,
                seed_commitment: commitment,
                draw_input: input_json,
                draw: draw_json,
                drawn_by: caller.user_id,
                drawn_at: Utc::now(),
            })
            .execute(conn)?;
        if snap.tournament.status == TournamentStatus::RegistrationOpen.as_str() {
            diesel::update(tournaments::table.find(tid))
                .set((
                    tournaments::status.eq(TournamentStatus::Running.as_str()),
                    tournaments::version.eq(tournaments::version + 1),
                    tournaments::updated_at.eq(Utc::now()),
                ))
                .execute(conn)?;
        }
        Ok(round_out(&snap.tournament, row, Vec::new()))
    })
}

/// Draws a draft round again from a fresh seed (organisers); every attempt is kept.
pub fn redraw(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
) -> Result<RoundOut, ApiError> {
    conn.transaction(|conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let round: RoundRow = rounds::table
            .filter(rounds::tournament_id.eq(tid))
            .filter(rounds::number.eq(number))
            .select(RoundRow::as_select())
            .for_update()
            .first(conn)
            .optional()?
            .ok_or_else(|| ApiError::NotFound(format!("no round {number}")))?;
        if round.status != RoundStatus::Draft.as_str() {
            return Err(ApiError::Conflict(
                "a published round cannot be redrawn".into(),
            ));
        }
        // Same input as before (the field has not changed: the round is a draft).
        let input: DrawInput = serde_json::from_value(round.draw_input.clone())
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let (input_json, draw_json, seed, commitment) = make_draw(&input)?;
        let attempt = round.draw_count + 1;
        diesel::insert_into(round_draws::table)
            .values(RoundDraw {
                round_id: round.id,
                attempt,
                seed: seed.clone(),
                seed_commitment: commitment.clone(),
                draw_input: input_json,
                draw: draw_json.clone(),
                drawn_by: caller.user_id,
                drawn_at: Utc::now(),
            })
            .execute(conn)?;
        let row: RoundRow = diesel::update(rounds::table.find(round.id))
            .set((
                rounds::seed.eq(seed),
                rounds::seed_commitment.eq(commitment),
                rounds::draw.eq(draw_json),
                rounds::draw_count.eq(attempt),
                rounds::version.eq(rounds::version + 1),
            ))
            .returning(RoundRow::as_returning())
            .get_result(conn)?;
        Ok(round_out(&t, row, Vec::new()))
    })
}

/// Publishes a draft round (organisers): players see their tables and the seed is revealed.
pub fn publish(
    conn: &mut PgConnection,
    caller: &Caller,
    tid: i64,
    number: i32,
) -> Result<RoundOut, ApiError> {
    conn.transaction(|conn| {
        let t = load_for_staff(conn, caller, tid, &[StaffRole::Organiser])?;
        let round: RoundRow = rounds::table
            .filter(rounds::tournament_id.eq(tid))
            .filter(rounds::number.eq(number))
            .select(RoundRow::as_select())
            .for_update()
            .first(conn)
            .optional()?
            .ok_or_else(|| ApiError::NotFound(format!("no round {number}")))?;
        if round.status != RoundStatus::Draft.as_str() {
            return Err(ApiError::Conflict(format!(
                "round {number} is already published"
            )));
        }
        let row: RoundRow = diesel::update(rounds::table.find(round.id))
            .set((
                rounds::status.eq(RoundStatus::Published.as_str()),
                rounds::published_at.eq(Utc::now()),
                rounds::version.eq(rounds::version + 1),
            ))
            .returning(RoundRow::as_returning())
            .get_result(conn)?;
        crate::db::events::record(
            conn,
            tid,
            "round_published",
            serde_json::json!({"round": number, "seed_commitment": row.seed_commitment}),
        )?;
        Ok(round_out(&t, row, Vec::new()))
    })
}

/// The rounds of a tournament (drafts only for staff), and whether the list is public.
pub fn list_rounds(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
) -> Result<(bool, Vec<RoundOut>), ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let staff = is_staff(conn, caller, tid)?;
    let rows: Vec<RoundRow> = rounds::table
        .filter(rounds::tournament_id.eq(tid))
        .order(rounds::number)
        .select(RoundRow::as_select())
        .load(conn)?;
    let mut out = Vec::new();
    for r in rows {
        if r.status == RoundStatus::Draft.as_str() && !staff {
            continue;
        }
        let done = tables_with_results(conn, r.id)?;
        out.push(round_out(&t, r, done));
    }
    let vis = !staff;
    Ok((vis, out))
}

/// One round, and whether it is public.
pub fn read_round(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(bool, RoundOut), ApiError> {
    let (t, r) = load_round(conn, caller, tid, number)?;
    let vis = r.status != RoundStatus::Draft.as_str();
    let done = tables_with_results(conn, r.id)?;
    Ok((vis, round_out(&t, r, done)))
}

/// Every draw attempt of a round with its seed commitment (seeds revealed once published).
pub fn draw_records(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<Vec<DrawRecord>, ApiError> {
    let (_, r) = load_round(conn, caller, tid, number)?;
    let revealed = r.status != RoundStatus::Draft.as_str();
    let rows: Vec<RoundDraw> = round_draws::table
        .filter(round_draws::round_id.eq(r.id))
        .order(round_draws::attempt)
        .select(RoundDraw::as_select())
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|d| DrawRecord {
            attempt: d.attempt,
            seed_commitment: d.seed_commitment,
            seed: revealed.then_some(d.seed),
            input: revealed.then_some(d.draw_input),
            draw: d.draw,
            drawn_at: d.drawn_at,
        })
        .collect::<Vec<_>>())
}

/// A team round's matches, and whether they are public.
pub fn team_matches(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    number: i32,
) -> Result<(bool, Vec<TeamMatchResult>), ApiError> {
    let (t, r) = load_round(conn, caller, tid, number)?;
    let vis = r.status != RoundStatus::Draft.as_str();
    let snap = Snapshot::load(conn, t)?;
    Ok((vis, snap.team_matches(&r)?))
}
