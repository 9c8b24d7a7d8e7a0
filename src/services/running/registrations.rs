//! Registrations: sign-ups, the waitlist and teams.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db;
use crate::db::ids::RegistrationId;
use crate::db::models::Tournament;
use crate::db::registrations::NewTeam;
use crate::db::running::{NewRegistration, Registration, TeamRow};
use crate::db::PgConnection;
use crate::domain::colours::Choices;
use crate::domain::scoring::Preset;
use crate::domain::status::RegistrationStatus;
use crate::domain::status::TournamentStatus;
use crate::domain::{PlayerId, TournamentId, UserId};
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
    let live: Vec<(RegistrationId, RegistrationStatus)> =
        db::registrations::live_statuses(conn, TournamentId(tournament_id))?;
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
        db::registrations::set_status(conn, &ids, status)?;
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

/// A registration's seeding rating (0-10000) and rated games (0-100000), as the registration
/// routes take them (a tournament archive's registrations are held to it too).
pub fn check_seeding(check: &mut Check, rating: Option<f64>, games: Option<i32>) {
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
    Ok(
        db::registrations::live_page(conn, TournamentId(tid), i64::MAX, 0)?
            .into_iter()
            .enumerate()
            .map(|(i, row)| registration_out(row, i as i64 + 1))
            .collect(),
    )
}

fn registration_out((r, name): (Registration, String), position: i64) -> RegistrationOut {
    let colours = choices_of(&r);
    RegistrationOut {
        player_id: r.player_id.0,
        player_name: name,
        status: r.status.as_str().to_string(),
        position,
        seeding_rating: r.seeding_rating,
        seeding_rated_games: r.seeding_rated_games,
        registered_at: r.registered_at,
        colours,
    }
}

/// Registration is open: the tournament takes registrations and no round is drawn yet; for a
/// player, the registration deadline has not passed at `now`.
fn ensure_open(
    conn: &mut PgConnection,
    t: &Tournament,
    is_organiser: bool,
    now: Option<DateTime<Utc>>,
) -> Result<(), ApiError> {
    let drawn = db::rounds::any_drawn(conn, t.id)?;
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
    let late = now.is_some_and(|now| t.registration_deadline.is_some_and(|d| d < now));
    if !is_organiser && late {
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
    Ok(db::players::is_users(
        conn,
        PlayerId(player_id),
        UserId(caller.user_id),
    )?)
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
        |c| db::registrations::count_live(c, TournamentId(id)),
        |c, limit, offset| db::registrations::live_page(c, TournamentId(id), limit, offset),
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
    id: TournamentId,
    player_id: PlayerId,
) -> Result<(bool, RegistrationOut), ApiError> {
    let t = load_visible(conn, caller, id.0)?;
    let public = t.status != TournamentStatus::Draft;
    let row: Option<(Registration, String)> =
        db::registrations::live_of_player(conn, id, player_id)?;
    let row =
        row.ok_or_else(|| ApiError::NotFound(format!("player {player_id} is not registered")))?;
    let position = db::registrations::position(conn, id, row.0.id)?;
    Ok((public, registration_out(row, position)))
}

/// Registers a player (the player themselves, or an organiser for anyone); the first full tables are confirmed, the rest waitlisted.
pub fn register(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: Register,
    now: DateTime<Utc>,
) -> Result<RegistrationOut, ApiError> {
    crate::db::unit_of_work(conn, |conn| {
        load_visible(conn, &MaybeCaller(Some(caller.clone())), id)?;
        // Confirmation depends on every live registration: one change at a time. The status,
        // deadline and table size are judged on the row as locked, not as read before the
        // lock (a change committed meanwhile, such as registration closing, holds).
        let t = lock_tournament(conn, id)?;
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
        if !organiser && t.ruleset == Preset::TeamDuplicate2v2 {
            // Seed 002: a team registers its four players with their pairs; a player alone
            // would be in no team, and a team event is drawn from its teams.
            return Err(ApiError::conflict_at(
                "player_id",
                "a team_duplicate_2v2 tournament takes teams of four, not players alone: the \
                 organiser registers your team with its A and B pairs",
            ));
        }
        let exists = db::players::exists(conn, PlayerId(input.player_id))?;
        if !exists {
            return Err(ApiError::field(
                "player_id",
                format!("there is no player {}", input.player_id),
            ));
        }
        ensure_open(conn, &t, organiser, Some(now))?;
        let inserted = db::registrations::insert_new(
            conn,
            NewRegistration {
                tournament_id: TournamentId(id),
                player_id: PlayerId(input.player_id),
                status: RegistrationStatus::Waitlisted,
                seeding_rating: input.seeding_rating,
                seeding_rated_games: input.seeding_rated_games.unwrap_or(0),
                registered_by: UserId(caller.user_id),
                colour_first: input.colours.map(|c| c.first),
                colour_second: input.colours.map(|c| c.second),
            },
        )?;
        if !inserted {
            return Err(ApiError::Conflict(format!(
                "player {} is already registered",
                input.player_id
            )));
        }
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
    crate::db::transaction(conn, |conn| {
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
        let (t, p) = (TournamentId(id), PlayerId(player_id));
        if !db::registrations::is_live(conn, t, p)? {
            return Err(ApiError::NotFound(format!(
                "player {player_id} is not registered"
            )));
        }
        if seeding {
            let games = input.seeding_rated_games.unwrap_or(0);
            db::registrations::set_seeding(conn, t, p, (input.seeding_rating, games))?;
        }
        if let Some(c) = input.colours {
            db::registrations::set_colours(conn, t, p, (c.first, c.second))?;
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
    now: DateTime<Utc>,
) -> Result<Vec<RegistrationOut>, ApiError> {
    let (id, player_id) = (id.0, player_id.0);
    crate::db::transaction(conn, |conn| {
        load_visible(conn, &MaybeCaller(Some(caller.clone())), id)?;
        // Confirmation depends on every live registration: one change at a time (judged on the
        // row as locked).
        let t = lock_tournament(conn, id)?;
        let organiser = caller.has_any_role(conn, id, &[StaffRole::Organiser])?;
        if !organiser && !is_own_player(conn, caller, player_id)? {
            return Err(ApiError::Forbidden(
                "only the player or an organiser may cancel".into(),
            ));
        }
        if db::rounds::any_drawn(conn, TournamentId(id))? {
            return Err(ApiError::Conflict(
                "the tournament has started; record a withdrawal instead".into(),
            ));
        }
        if !organiser {
            refuse_leaving_a_team(conn, id, player_id)?;
        }
        let n = db::registrations::cancel(conn, TournamentId(id), PlayerId(player_id), now)?;
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

/// 409 on `player_id` when the player is in a team of the tournament: a team member alone
/// does not leave it (the team would be drawn short a player); the organiser changes it.
fn refuse_leaving_a_team(conn: &mut PgConnection, id: i64, player_id: i64) -> Result<(), ApiError> {
    let teams: Vec<TeamRow> = db::registrations::teams_of(conn, TournamentId(id))?;
    let team = teams.iter().find(|t| t.members().contains(&player_id));
    match team {
        Some(t) => Err(ApiError::conflict_at(
            "player_id",
            format!(
                "player {player_id} plays in team {} ({}): only the organiser cancels a team \
                 member's registration",
                t.number, t.name
            ),
        )),
        None => Ok(()),
    }
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
        |c| db::registrations::count_teams(c, TournamentId(id)),
        |c, limit, offset| db::registrations::teams_page(c, TournamentId(id), limit, offset),
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
    crate::db::transaction(conn, |conn| {
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
        ensure_open(conn, &t, true, None)?;
        let known = db::players::count_existing(conn, &members.map(PlayerId))?;
        if known != 4 {
            return Err(ApiError::field("pair_a", "every member must be a player"));
        }
        let existing: Vec<TeamRow> = db::registrations::teams_of(conn, TournamentId(id))?;
        if existing
            .iter()
            .any(|e| e.members().iter().any(|p| distinct.contains(p)))
        {
            return Err(ApiError::Conflict("a player is already in a team".into()));
        }
        let number = existing.iter().map(|e| e.number).max().unwrap_or(0) + 1;
        let row: TeamRow = db::registrations::insert_team(
            conn,
            NewTeam {
                tournament_id: TournamentId(id),
                number,
                name,
                pair_a1: PlayerId(members[0]),
                pair_a2: PlayerId(members[1]),
                pair_b1: PlayerId(members[2]),
                pair_b2: PlayerId(members[3]),
            },
        )?;
        for p in members {
            if !db::registrations::is_live(conn, TournamentId(id), PlayerId(p))? {
                db::registrations::insert(
                    conn,
                    NewRegistration {
                        tournament_id: TournamentId(id),
                        player_id: PlayerId(p),
                        status: RegistrationStatus::Waitlisted,
                        seeding_rating: None,
                        seeding_rated_games: 0,
                        registered_by: UserId(caller.user_id),
                        colour_first: None,
                        colour_second: None,
                    },
                )?;
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
