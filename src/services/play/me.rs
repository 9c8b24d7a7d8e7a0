//! A player's own view (issue 18, item 4): the games of the player linked to the caller's
//! account, upcoming and past, and the tournaments the caller plays in or works for.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::db::me as store;
use crate::db::running::{ResultRow, RoundRow};
use crate::db::PgConnection;
use crate::domain::colours::Colour;
use crate::domain::status::TournamentStatus;
use crate::domain::{PlayerId, TournamentId, UserId};
use crate::error::ApiError;
use crate::services::running::colours::TableColours;

/// Someone at my table.
#[derive(Debug, Serialize, ToSchema)]
pub struct Opponent {
    pub player_id: i64,
    pub name: String,
    /// Their colour (Tantrix).
    pub colour: Option<Colour>,
}

/// One of my games.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyGame {
    pub tournament_id: i64,
    pub tournament_name: String,
    pub round: i32,
    pub table: i32,
    /// My seat (1 first).
    pub seat: i32,
    pub opponents: Vec<Opponent>,
    /// My colour (Tantrix).
    pub colour: Option<Colour>,
    /// The round's status: `published` (to be played) or `completed`.
    pub round_status: String,
    /// My score in the result in force, once entered.
    pub score: Option<i64>,
    /// Every seat's score in seat order, once entered.
    pub scores: Option<Vec<i64>>,
    /// When the result in force was entered.
    pub result_entered_at: Option<DateTime<Utc>>,
    /// A self-scheduled game's scheduling (see `/tables/{t}/schedule` for the thread).
    pub schedule: Option<MySchedule>,
}

/// Where the scheduling of a self-scheduled game stands.
#[derive(Debug, Serialize, ToSchema)]
pub struct MySchedule {
    /// `open`, `proposed`, `agreed` or `forfeited`.
    pub state: String,
    /// The round's deadline.
    pub deadline: DateTime<Utc>,
    pub proposed_by: Option<i64>,
    pub proposed_times: Vec<DateTime<Utc>>,
    pub agreed_time: Option<DateTime<Utc>>,
    /// Whose answer is awaited, and until when before the leader is told.
    pub waiting_on: Option<i64>,
    pub answer_by: Option<DateTime<Utc>>,
}

/// The scheduling of a game of a self-scheduled round, if it has any yet.
fn schedule_of(
    conn: &mut PgConnection,
    round: &RoundRow,
    table: i32,
) -> Result<Option<MySchedule>, ApiError> {
    let Some(deadline) = round.self_scheduled_until else {
        return Ok(None);
    };
    let row = store::schedule_of(conn, round.id, table)?;
    Ok(row.map(|g| MySchedule {
        state: g.state.as_str().to_string(),
        deadline,
        proposed_by: g.proposed_by.map(|p| p.0),
        proposed_times: g.proposed_times,
        agreed_time: g.agreed_time,
        waiting_on: g.waiting_on.map(|p| p.0),
        answer_by: g
            .waiting_since
            .filter(|_| g.waiting_on.is_some())
            .map(|s| s + crate::services::play::scheduling::ANSWER_WITHIN),
    }))
}

/// My games: those without a result yet, and those with one.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyGames {
    /// The player linked to the account (none: no games).
    pub player_id: Option<i64>,
    /// Games of published rounds without a result yet, oldest round first.
    pub upcoming: Vec<MyGame>,
    /// Games with a result, newest first.
    pub past: Vec<MyGame>,
}

/// The player linked to the caller's account.
fn my_player(conn: &mut PgConnection, caller: &Caller) -> Result<Option<i64>, ApiError> {
    Ok(store::player_of(conn, UserId(caller.user_id))?.map(|p| p.0))
}

/// The caller's games in every tournament their player is registered in (drafts of rounds and
/// of tournaments are not shown; with a limited key, only the tournaments it reaches).
pub fn my_games(conn: &mut PgConnection, caller: &Caller) -> Result<MyGames, ApiError> {
    let Some(me) = my_player(conn, caller)? else {
        return Ok(MyGames {
            player_id: None,
            upcoming: Vec::new(),
            past: Vec::new(),
        });
    };
    let mut entered = store::entered(conn, PlayerId(me))?;
    entered.retain(|(t, _)| caller.key_reaches_tournament(t.0));
    let (mut upcoming, mut past) = (Vec::new(), Vec::new());
    let ids: Vec<TournamentId> = entered.iter().map(|(t, _)| *t).collect();
    let names = store::names_in(conn, &ids)?;
    for (tid, tname) in entered {
        let played = crate::db::rounds::published_of(conn, tid)?;
        for round in played {
            let draw = &round.draw;
            let Some((seat, table)) = draw
                .tables
                .iter()
                .find_map(|t| t.seats.iter().position(|p| p.0 == me).map(|seat| (seat, t)))
            else {
                continue;
            };
            let colours: &[TableColours] = round.colours.as_deref().unwrap_or_default();
            let colour_of = |p: i64| {
                colours
                    .iter()
                    .find(|g| g.table == table.number)
                    .and_then(|g| g.players.iter().position(|x| *x == p).map(|i| g.colours[i]))
            };
            let result: Option<ResultRow> =
                crate::db::results::in_force_at(conn, round.id, table.number as i32)?;
            let scores: Option<Vec<(i64, i64)>> = result
                .as_ref()
                .map(|r| r.seats.iter().map(|s| (s.player.0, s.score)).collect());
            let game = MyGame {
                tournament_id: tid.0,
                tournament_name: tname.clone(),
                round: round.number,
                table: table.number as i32,
                seat: seat as i32 + 1,
                opponents: table
                    .seats
                    .iter()
                    .filter(|p| p.0 != me)
                    .map(|p| Opponent {
                        player_id: p.0,
                        name: names.get(p).cloned().unwrap_or_default(),
                        colour: colour_of(p.0),
                    })
                    .collect(),
                colour: colour_of(me),
                round_status: round.status.as_str().to_string(),
                score: scores
                    .as_ref()
                    .and_then(|s| s.iter().find(|(p, _)| *p == me).map(|(_, v)| *v)),
                scores: scores.as_ref().map(|s| {
                    table
                        .seats
                        .iter()
                        .filter_map(|p| s.iter().find(|(x, _)| *x == p.0).map(|(_, v)| *v))
                        .collect()
                }),
                result_entered_at: result.as_ref().map(|r| r.entered_at),
                schedule: schedule_of(conn, &round, table.number as i32)?,
            };
            if result.is_some() {
                past.push(game);
            } else {
                upcoming.push(game);
            }
        }
    }
    past.reverse();
    Ok(MyGames {
        player_id: Some(me),
        upcoming,
        past,
    })
}

/// A tournament I play in or work for.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyTournament {
    pub tournament_id: i64,
    pub name: String,
    pub game: String,
    pub status: String,
    pub starts_on: chrono::NaiveDate,
    /// My player's registration (`confirmed` or `waitlisted`), if registered.
    pub registration: Option<String>,
    /// My staff roles there (organiser, referee, appeals committee).
    pub roles: Vec<String>,
}

/// The tournaments where the caller's player is registered or the caller holds a staff role,
/// newest start first (drafts only where the caller is staff; with a limited key, only what
/// it reaches: `Caller::key_reaches_tournament`).
pub fn my_tournaments(
    conn: &mut PgConnection,
    caller: &Caller,
) -> Result<Vec<MyTournament>, ApiError> {
    let me = my_player(conn, caller)?;
    let registered = match me {
        Some(p) => store::registrations_of(conn, PlayerId(p))?,
        None => HashMap::new(),
    };
    let roles = store::roles_of(conn, UserId(caller.user_id))?;
    let ids: Vec<TournamentId> = registered.keys().chain(roles.keys()).copied().collect();
    Ok(store::tournaments_by_start(conn, &ids)?
        .into_iter()
        .filter(|t| {
            (t.status != TournamentStatus::Draft || roles.contains_key(&t.id))
                && caller.key_reaches_tournament(t.id.0)
        })
        .map(|t| MyTournament {
            tournament_id: t.id.0,
            name: t.name,
            game: t.game,
            status: t.status.as_str().to_string(),
            starts_on: t.starts_on,
            registration: registered.get(&t.id).map(|s| s.as_str().to_string()),
            roles: roles.get(&t.id).cloned().unwrap_or_default(),
        })
        .collect())
}
