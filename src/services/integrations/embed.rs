//! What the embeddable pages show (issue 17, item 4): public standings, a round's seating and a
//! page of a rating list, read as the anonymous public reads them.

use std::collections::HashMap;

use crate::auth::MaybeCaller;
use crate::db::ids::PlayerId;
use crate::db::PgConnection;
use crate::domain::colours::Colour;
use crate::domain::scoring::Purpose;
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::ratings::leaderboard::{load_board, BoardQuery};
use crate::services::running::colours::TableColours;
use crate::services::running::standings::{standings_of, StandingOut};

/// The standings page.
pub struct StandingsPage {
    pub tournament: String,
    pub after_round: u32,
    pub rows: Vec<StandingOut>,
}

/// The public standings after the last completed round.
pub fn standings(conn: &mut PgConnection, tid: i64) -> Result<StandingsPage, ApiError> {
    let t = load_visible(conn, &MaybeCaller(None), tid)?;
    let name = t.name.clone();
    let table = standings_of(conn, t, None, Purpose::Final)?;
    Ok(StandingsPage {
        tournament: name,
        after_round: table.out.after_round,
        rows: table.out.rows,
    })
}

/// One seat of the seating page.
pub struct Seat {
    pub player_id: i64,
    pub name: String,
    pub colour: Option<Colour>,
    pub starts: bool,
}

/// The seating page.
pub struct RoundPage {
    pub tournament: String,
    pub round: i32,
    /// (table number, seats in seat order).
    pub tables: Vec<(u32, Vec<Seat>)>,
}

/// A published round's seating (404 for a draft, as the JSON round answers the public).
pub fn round(conn: &mut PgConnection, tid: i64, number: i32) -> Result<RoundPage, ApiError> {
    let t = load_visible(conn, &MaybeCaller(None), tid)?;
    let (public, r) =
        crate::services::running::rounds::read_round(conn, &MaybeCaller(None), tid, number)?;
    if !public {
        return Err(ApiError::NotFound(format!("no round {number}")));
    }
    let draw: crate::domain::seating::Draw = serde_json::from_value(r.draw)
        .map_err(|e| ApiError::Internal(format!("stored draw: {e}")))?;
    let colours: Vec<TableColours> = serde_json::from_value(r.colours)
        .map_err(|e| ApiError::Internal(format!("stored colours of round {number}: {e}")))?;
    let tables = seating(conn, &draw, &colours)?;
    Ok(RoundPage {
        tournament: t.name,
        round: r.number,
        tables,
    })
}

/// One line of the rating list page.
pub struct ListLine {
    pub rank: u32,
    pub name: String,
    pub club: Option<String>,
    pub country: Option<String>,
    pub rating: f64,
    pub games: i64,
    /// Fewer rated games than the pool's threshold (listed only when asked for).
    pub provisional: bool,
}

/// The rating list page.
pub struct ListPage {
    pub pool: String,
    pub total: i64,
    pub lines: Vec<ListLine>,
}

/// A page of a pool's leaderboard in rank order: the players the JSON leaderboard lists by
/// default (the pool's threshold of rated games), or with `provisional` everyone, those under
/// the threshold marked.
pub fn leaderboard(
    conn: &mut PgConnection,
    pool: i64,
    limit: i64,
    offset: i64,
    provisional: bool,
) -> Result<ListPage, ApiError> {
    let board = load_board(conn, pool)?;
    let min_games = board.default_threshold();
    let page = board.page(&BoardQuery {
        threshold: if provisional { 0 } else { min_games },
        country: None,
        club: None,
        limit,
        offset,
        after: None,
    });
    Ok(ListPage {
        pool: board.pool.name.clone(),
        total: page.total,
        lines: page
            .items
            .into_iter()
            .map(|(rank, row)| ListLine {
                rank,
                name: row.name.clone(),
                club: row.club.clone(),
                country: row.country.clone(),
                rating: row.rating,
                games: row.games,
                provisional: row.games < min_games,
            })
            .collect(),
    })
}

/// A round's tables with their players' names, colours and starting players, in table order
/// (the embedded round, and the printed pairings and slips).
pub(super) fn seating(
    conn: &mut PgConnection,
    draw: &crate::domain::seating::Draw,
    colours: &[TableColours],
) -> Result<Vec<(u32, Vec<Seat>)>, ApiError> {
    let ids: Vec<PlayerId> = draw
        .tables
        .iter()
        .flat_map(|t| t.seats.iter().copied())
        .collect();
    let names: HashMap<PlayerId, String> = crate::db::players::names_of(conn, &ids)?;
    Ok(draw
        .tables
        .iter()
        .map(|table| {
            let game = colours.iter().find(|g| g.table == table.number);
            let seats = table
                .seats
                .iter()
                .map(|p| Seat {
                    player_id: p.0,
                    name: names.get(p).cloned().unwrap_or_default(),
                    colour: game.and_then(|g| {
                        g.players
                            .iter()
                            .position(|x| *x == p.0)
                            .map(|i| g.colours[i])
                    }),
                    starts: table.starting_player == Some(*p),
                })
                .collect();
            (table.number, seats)
        })
        .collect())
}
