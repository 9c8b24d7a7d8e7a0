//! Registrations: sign-ups, the waitlist and teams.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::models::Tournament;
use crate::db::running::{NewRegistration, Registration, TeamRow};
use crate::db::schema::{players, registrations, rounds, teams};
use crate::domain::colours::Choices;
use crate::domain::scoring::Preset;
use crate::domain::status::RegistrationStatus;
use crate::domain::status::TournamentStatus;
use crate::domain::{PlayerId, TournamentId};
use crate::error::ApiError;
use crate::services::access::{load_for_staff, load_visible, lock_tournament};
use crate::services::validate::{Check, Page, PageParams};

/// How many registrations make a confirmable block: the table size for table games (domain.md
/// section 2), 1 for the two-player formats, whose pairings give a bye to an odd player out
/// (Ashes: a bye scores as a win, seed 004; Tantrix round robin: a bye per round for odd
/// fields, seed 003). See docs/decisions/registration.md.
pub fn confirmation_block(t: &Tournament) -> i32 {
    match t.ruleset {
        Preset::Tantrix | Preset::AshesLeague => 1,
        Preset::AgricolaNorway | Preset::BridgeAgricola | Preset::TeamDuplicate2v2 => {
            t.table_size.max(1)
        }
    }
}

/// Re-derives confirmed / waitlisted for the live registrations of an open tournament: the
/// first `floor(n / block) * block` in registration order are confirmed, `block` being
/// [`confirmation_block`] (domain.md section 2: 17 registered at tables of 4 gives 16
/// confirmed, 1 waiting). Runs inside the caller's transaction.
pub fn rebalance_registrations(
    conn: &mut PgConnection,
    tournament_id: i64,
    block: i32,
) -> Result<(), ApiError> {
    let live: Vec<(i64, RegistrationStatus)> = registrations::table
        .filter(registrations::tournament_id.eq(tournament_id))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select((registrations::id, registrations::status))
        .load(conn)?;
    let size = block.max(1) as usize;
    let confirmed = live.len() / size * size;
    let (mut confirm, mut waitlist) = (Vec::new(), Vec::new());
    for (i, (id, status)) in live.iter().enumerate() {
        let (want, ids) = if i < confirmed {
            (RegistrationStatus::Confirmed, &mut confirm)
        } else {
            (RegistrationStatus::Waitlisted, &mut waitlist)
        };
        if *status != want {
            ids.push(*id);
        }
    }
    let changes = [
        (RegistrationStatus::Confirmed, confirm),
        (RegistrationStatus::Waitlisted, waitlist),
    ];
    for (status, ids) in changes.into_iter().filter(|(_, ids)| !ids.is_empty()) {
        diesel::update(registrations::table.filter(registrations::id.eq_any(ids)))
            .set(registrations::status.eq(status))
            .execute(conn)?;
    }
    Ok(())
}

/// A registration as shown.
#[derive(Debug, Serialize, ToSchema)]
pub struct RegistrationOut {
    pub player_id: i64,
    pub player_name: String,
    /// `confirmed` or `waitlisted` (cancelled registrations are not listed).
    #[schema(value_type = crate::domain::status::RegistrationStatus, example = "confirmed")]
    pub status: String,
    /// 1-based place in registration order among the live registrations.
    pub position: i64,
    /// The rating used to seed the player, when the organiser set one.
    pub seeding_rating: Option<f64>,
    /// Rated games behind `seeding_rating`.
    pub seeding_rated_games: i32,
    pub registered_at: DateTime<Utc>,
    /// Tantrix: the player's first and second colour choice, if stated.
    pub colours: Option<Choices>,
}

/// A registration's stored colour choices.
pub fn choices_of(r: &crate::db::running::Registration) -> Option<Choices> {
    Some(Choices {
        first: r.colour_first?,
        second: r.colour_second?,
    })
}

/// 422 for a first and second choice of the same colour.
fn check_colours(check: &mut Check, colours: Option<Choices>) {
    if let Some(c) = colours {
        check.ensure(
            c.first != c.second,
            "colours.second",
            "the second choice must differ from the first",
        );
    }
}

/// Register a player.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"player_id": 17, "seeding_rating": 1612.5, "seeding_rated_games": 12}))]
pub struct Register {
    /// The player to register. Players register themselves (their account is linked to the
    /// player); organisers may register anyone.
    pub player_id: i64,
    /// Seeding rating (organisers only), e.g. twice the lobby rating in Tantrix.
    #[schema(minimum = 0, maximum = 10000)]
    pub seeding_rating: Option<f64>,
    /// Rated games behind the seeding rating (organisers only).
    #[schema(minimum = 0, maximum = 100000)]
    pub seeding_rated_games: Option<i32>,
    /// Tantrix: the player's first and second colour choice (seed 003, 5. Farben).
    pub colours: Option<Choices>,
}

/// Change a registration's seeding (organisers) or colour choices (the player or organisers).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seeding_rating": 1650.0, "seeding_rated_games": 14}))]
pub struct UpdateRegistration {
    /// Organisers only; sent together with `seeding_rated_games` (either absent: unchanged).
    #[schema(minimum = 0, maximum = 10000)]
    pub seeding_rating: Option<f64>,
    #[schema(minimum = 0, maximum = 100000)]
    pub seeding_rated_games: Option<i32>,
    /// Tantrix colour choices (absent: unchanged); they count from the next round drawn.
    pub colours: Option<Choices>,
}

fn check_seeding(check: &mut Check, rating: Option<f64>, games: Option<i32>) {
    if let Some(r) = rating {
        check.ensure(
            r.is_finite() && (0.0..=10000.0).contains(&r),
            "seeding_rating",
            "must be between 0 and 10000",
        );
    }
    if let Some(g) = games {
        check.range("seeding_rated_games", g.into(), 0, 100_000);
    }
}

fn list_out(conn: &mut PgConnection, tid: i64) -> Result<Vec<RegistrationOut>, ApiError> {
    Ok(live_rows(conn, tid, i64::MAX, 0)?
        .into_iter()
        .enumerate()
        .map(|(i, row)| registration_out(row, i as i64 + 1))
        .collect())
}

/// `limit` live registrations of a tournament after the first `offset`, in order of id.
fn live_rows(
    conn: &mut PgConnection,
    tid: i64,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<(Registration, String)>> {
    registrations::table
        .inner_join(players::table)
        .filter(registrations::tournament_id.eq(tid))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select((Registration::as_select(), players::name))
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// How many live registrations a tournament has (with `id` at most `upto`: a position).
fn count_live(conn: &mut PgConnection, tid: i64, upto: i64) -> QueryResult<i64> {
    registrations::table
        .filter(registrations::tournament_id.eq(tid))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .filter(registrations::id.le(upto))
        .count()
        .get_result(conn)
}

fn registration_out((r, name): (Registration, String), position: i64) -> RegistrationOut {
    let colours = choices_of(&r);
    RegistrationOut {
        player_id: r.player_id,
        player_name: name,
        status: r.status.as_str().to_string(),
        position,
        seeding_rating: r.seeding_rating,
        seeding_rated_games: r.seeding_rated_games,
        registered_at: r.registered_at,
        colours,
    }
}

/// Registration is open: the tournament takes registrations and no round is drawn yet.
fn ensure_open(
    conn: &mut PgConnection,
    t: &Tournament,
    is_organiser: bool,
) -> Result<(), ApiError> {
    let drawn: bool = diesel::select(diesel::dsl::exists(
        rounds::table.filter(rounds::tournament_id.eq(t.id)),
    ))
    .get_result(conn)?;
    if drawn {
        return Err(ApiError::Conflict(
            "registration closed when the first round was drawn; record a withdrawal instead"
                .into(),
        ));
    }
    let open = t.status == TournamentStatus::RegistrationOpen
        || (is_organiser && t.status == TournamentStatus::Draft);
    if !open {
        return Err(ApiError::Conflict(format!(
            "the tournament is {} and takes no registrations",
            t.status.as_str()
        )));
    }
    if !is_organiser && t.registration_deadline.is_some_and(|d| d < Utc::now()) {
        return Err(ApiError::Conflict(
            "the registration deadline has passed".into(),
        ));
    }
    Ok(())
}

/// Whether the caller's account is linked to the player.
fn is_own_player(
    conn: &mut PgConnection,
    caller: &Caller,
    player_id: i64,
) -> Result<bool, ApiError> {
    Ok(diesel::select(diesel::dsl::exists(
        players::table
            .filter(players::id.eq(player_id))
            .filter(players::user_id.eq(caller.user_id)),
    ))
    .get_result(conn)?)
}

/// A team of the 2v2 duplicate format.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamOut {
    pub number: i32,
    pub name: String,
    /// Pair A (players A1, A2).
    pub pair_a: [i64; 2],
    /// Pair B (players B1, B2).
    pub pair_b: [i64; 2],
}

/// Register a team of four with its A and B pairs (organisers). Its players are registered
/// too.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Trondheim 1", "pair_a": [11, 12], "pair_b": [13, 14]}))]
pub struct CreateTeam {
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    pub pair_a: [i64; 2],
    pub pair_b: [i64; 2],
}

fn team_out(t: TeamRow) -> TeamOut {
    TeamOut {
        number: t.number,
        name: t.name,
        pair_a: [t.pair_a1, t.pair_a2],
        pair_b: [t.pair_b1, t.pair_b2],
    }
}

/// A page of the registrations of a tournament (read in SQL), and whether anyone may see
/// them (not a draft).
pub fn list_registrations(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    id: i64,
    params: &PageParams,
) -> Result<(bool, Page<RegistrationOut>), ApiError> {
    let t = load_visible(conn, caller, id)?;
    let vis = t.status != TournamentStatus::Draft;
    let page = Page::read(
        conn,
        params,
        |c| count_live(c, id, i64::MAX),
        |c, limit, offset| live_rows(c, id, limit, offset),
    )?;
    let first = page.offset;
    let mut i = 0;
    let page = page.try_map(|row| {
        i += 1;
        Ok::<_, ApiError>(registration_out(row, first + i))
    })?;
    Ok((vis, page))
}

/// One live registration of a tournament, and whether it is public.
pub fn read_registration(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    id: i64,
    player_id: i64,
) -> Result<(bool, RegistrationOut), ApiError> {
    let t = load_visible(conn, caller, id)?;
    let public = t.status != TournamentStatus::Draft;
    let row: Option<(Registration, String)> = registrations::table
        .inner_join(players::table)
        .filter(registrations::tournament_id.eq(id))
        .filter(registrations::player_id.eq(player_id))
        .filter(registrations::status.ne(RegistrationStatus::Cancelled))
        .order(registrations::id)
        .select((Registration::as_select(), players::name))
        .first(conn)
        .optional()?;
    let row =
        row.ok_or_else(|| ApiError::NotFound(format!("player {player_id} is not registered")))?;
    let position = count_live(conn, id, row.0.id)?;
    Ok((public, registration_out(row, position)))
}

/// Registers a player (the player themselves, or an organiser for anyone); the first full tables are confirmed, the rest waitlisted.
pub fn register(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: Register,
) -> Result<RegistrationOut, ApiError> {
    conn.transaction(|conn| {
        let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), id)?;
        // Confirmation depends on every live registration: one change at a time.
        lock_tournament(conn, id)?;
        let organiser = caller.has_any_role(conn, id, &[StaffRole::Organiser])?;
        if !organiser {
            if !is_own_player(conn, caller, input.player_id)? {
                return Err(ApiError::Forbidden(
                    "players register themselves; organisers register anyone".into(),
                ));
            }
            if input.seeding_rating.is_some() || input.seeding_rated_games.is_some() {
                return Err(ApiError::Forbidden(
                    "only an organiser sets a seeding rating".into(),
                ));
            }
        }
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        check_seeding(&mut check, input.seeding_rating, input.seeding_rated_games);
        check_colours(&mut check, input.colours);
        check.finish()?;
        let exists: bool =
            diesel::select(diesel::dsl::exists(players::table.find(input.player_id)))
                .get_result(conn)?;
        if !exists {
            return Err(ApiError::field(
                "player_id",
                format!("there is no player {}", input.player_id),
            ));
        }
        ensure_open(conn, &t, organiser)?;
        diesel::insert_into(registrations::table)
            .values(NewRegistration {
                tournament_id: id,
                player_id: input.player_id,
                status: RegistrationStatus::Waitlisted,
                seeding_rating: input.seeding_rating,
                seeding_rated_games: input.seeding_rated_games.unwrap_or(0),
                registered_by: caller.user_id,
                colour_first: input.colours.map(|c| c.first),
                colour_second: input.colours.map(|c| c.second),
            })
            .execute(conn)
            .map_err(|e| match e {
                diesel::result::Error::DatabaseError(
                    diesel::result::DatabaseErrorKind::UniqueViolation,
                    _,
                ) => {
                    ApiError::Conflict(format!("player {} is already registered", input.player_id))
                }
                other => other.into(),
            })?;
        crate::services::running::registrations::rebalance_registrations(
            conn,
            id,
            crate::services::running::registrations::confirmation_block(&t),
        )?;
        list_out(conn, id)?
            .into_iter()
            .find(|r| r.player_id == input.player_id)
            .ok_or_else(|| ApiError::Internal("the new registration vanished".into()))
    })
}

/// Changes a registration's seeding rating (organisers) or colour choices (the player or
/// organisers).
pub fn update_registration(
    conn: &mut PgConnection,
    caller: &Caller,
    id: TournamentId,
    player_id: PlayerId,
    input: UpdateRegistration,
) -> Result<Vec<RegistrationOut>, ApiError> {
    let (id, player_id) = (id.0, player_id.0);
    let seeding = input.seeding_rating.is_some() || input.seeding_rated_games.is_some();
    conn.transaction(|conn| {
        load_visible(conn, &MaybeCaller(Some(caller.clone())), id)?;
        let organiser = caller.has_any_role(conn, id, &[StaffRole::Organiser])?;
        if !organiser && (seeding || !is_own_player(conn, caller, player_id)?) {
            return Err(ApiError::Forbidden(
                "organisers change registrations; players change their own colour choices".into(),
            ));
        }
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        check_seeding(&mut check, input.seeding_rating, input.seeding_rated_games);
        check_colours(&mut check, input.colours);
        check.finish()?;
        let target = registrations::table
            .filter(registrations::tournament_id.eq(id))
            .filter(registrations::player_id.eq(player_id))
            .filter(registrations::status.ne(RegistrationStatus::Cancelled));
        let live: i64 = target.count().get_result(conn)?;
        if live == 0 {
            return Err(ApiError::NotFound(format!(
                "player {player_id} is not registered"
            )));
        }
        if seeding {
            diesel::update(target)
                .set((
                    registrations::seeding_rating.eq(input.seeding_rating),
                    registrations::seeding_rated_games.eq(input.seeding_rated_games.unwrap_or(0)),
                ))
                .execute(conn)?;
        }
        if let Some(c) = input.colours {
            diesel::update(target)
                .set((
                    registrations::colour_first.eq(c.first),
                    registrations::colour_second.eq(c.second),
                ))
                .execute(conn)?;
        }
        list_out(conn, id)
    })
}

/// Cancels a registration before the first round (the player or an organiser).
pub fn cancel_registration(
    conn: &mut PgConnection,
    caller: &Caller,
    id: TournamentId,
    player_id: PlayerId,
) -> Result<Vec<RegistrationOut>, ApiError> {
    let (id, player_id) = (id.0, player_id.0);
    conn.transaction(|conn| {
        let t = load_visible(conn, &MaybeCaller(Some(caller.clone())), id)?;
        // Confirmation depends on every live registration: one change at a time.
        lock_tournament(conn, id)?;
        let organiser = caller.has_any_role(conn, id, &[StaffRole::Organiser])?;
        if !organiser && !is_own_player(conn, caller, player_id)? {
            return Err(ApiError::Forbidden(
                "only the player or an organiser may cancel".into(),
            ));
        }
        let drawn: bool = diesel::select(diesel::dsl::exists(
            rounds::table.filter(rounds::tournament_id.eq(id)),
        ))
        .get_result(conn)?;
        if drawn {
            return Err(ApiError::Conflict(
                "the tournament has started; record a withdrawal instead".into(),
            ));
        }
        let n = diesel::update(
            registrations::table
                .filter(registrations::tournament_id.eq(id))
                .filter(registrations::player_id.eq(player_id))
                .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
        )
        .set((
            registrations::status.eq(RegistrationStatus::Cancelled),
            registrations::cancelled_at.eq(Utc::now()),
        ))
        .execute(conn)?;
        if n == 0 {
            return Err(ApiError::NotFound(format!(
                "player {player_id} is not registered"
            )));
        }
        crate::services::running::registrations::rebalance_registrations(
            conn,
            id,
            crate::services::running::registrations::confirmation_block(&t),
        )?;
        list_out(conn, id)
    })
}

/// A team tournament's teams.
pub fn list_teams(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    id: i64,
    params: &PageParams,
) -> Result<Page<TeamOut>, ApiError> {
    load_visible(conn, caller, id)?;
    let page = Page::read(
        conn,
        params,
        |c| {
            teams::table
                .filter(teams::tournament_id.eq(id))
                .count()
                .get_result(c)
        },
        |c, limit, offset| {
            teams::table
                .filter(teams::tournament_id.eq(id))
                .order((teams::number, teams::id))
                .select(TeamRow::as_select())
                .limit(limit)
                .offset(offset)
                .load(c)
        },
    )?;
    page.try_map(|row| Ok(team_out(row)))
}

/// Creates a team of two pairs (organisers); its members are registered.
pub fn create_team(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: CreateTeam,
) -> Result<TeamOut, ApiError> {
    conn.transaction(|conn| {
        let t = load_for_staff(conn, caller, id, &[StaffRole::Organiser])?;
        // Who is asking first, then the body (issue 37, item 6).
        let mut check = Check::new();
        let name = check.text("name", &input.name, 100);
        let members = [
            input.pair_a[0],
            input.pair_a[1],
            input.pair_b[0],
            input.pair_b[1],
        ];
        let distinct: std::collections::HashSet<i64> = members.iter().copied().collect();
        check.ensure(
            distinct.len() == 4,
            "pair_b",
            "a team has four different players",
        );
        check.finish()?;
        lock_tournament(conn, id)?;
        match t.ruleset {
            Preset::TeamDuplicate2v2 => {}
            Preset::AgricolaNorway
            | Preset::BridgeAgricola
            | Preset::Tantrix
            | Preset::AshesLeague => {
                return Err(ApiError::Conflict(
                    "teams belong to team_duplicate_2v2 tournaments".into(),
                ))
            }
        }
        ensure_open(conn, &t, true)?;
        let known: i64 = players::table
            .filter(players::id.eq_any(members))
            .count()
            .get_result(conn)?;
        if known != 4 {
            return Err(ApiError::field("pair_a", "every member must be a player"));
        }
        let existing: Vec<TeamRow> = teams::table
            .filter(teams::tournament_id.eq(id))
            .select(TeamRow::as_select())
            .load(conn)?;
        if existing.iter().any(|e| {
            [e.pair_a1, e.pair_a2, e.pair_b1, e.pair_b2]
                .iter()
                .any(|p| distinct.contains(p))
        }) {
            return Err(ApiError::Conflict("a player is already in a team".into()));
        }
        let number = existing.iter().map(|e| e.number).max().unwrap_or(0) + 1;
        let row: TeamRow = diesel::insert_into(teams::table)
            .values(TeamRow {
                id: 0,
                tournament_id: id,
                number,
                name,
                pair_a1: members[0],
                pair_a2: members[1],
                pair_b1: members[2],
                pair_b2: members[3],
                created_at: Utc::now(),
            })
            .returning(TeamRow::as_returning())
            .get_result(conn)?;
        for p in members {
            let live: bool = diesel::select(diesel::dsl::exists(
                registrations::table
                    .filter(registrations::tournament_id.eq(id))
                    .filter(registrations::player_id.eq(p))
                    .filter(registrations::status.ne(RegistrationStatus::Cancelled)),
            ))
            .get_result(conn)?;
            if !live {
                diesel::insert_into(registrations::table)
                    .values(NewRegistration {
                        tournament_id: id,
                        player_id: p,
                        status: RegistrationStatus::Waitlisted,
                        seeding_rating: None,
                        seeding_rated_games: 0,
                        registered_by: caller.user_id,
                        colour_first: None,
                        colour_second: None,
                    })
                    .execute(conn)?;
            }
        }
        crate::services::running::registrations::rebalance_registrations(
            conn,
            id,
            crate::services::running::registrations::confirmation_block(&t),
        )?;
        Ok(team_out(row))
    })
}
