//! Calendars (issue 41 item 4): an iCalendar feed per tournament (its rounds with their times,
//! the self-scheduling deadlines, the self-scheduled games once agreed) and a private feed per
//! player (their games and deadlines in every tournament they play) behind an unguessable URL
//! the player rotates or revokes. Only the SHA-256 of the URL's token is stored. The feed
//! answers only while the player's account is enabled, and ends with a password reset
//! (`services::accounts::reset`).
//!
//! The text is RFC 5545: CRLF line ends, lines folded at 75 octets, TEXT values escaped, a
//! stable `UID` per event and a `DTSTAMP` (no `METHOD`, so it is when the event was last
//! revised: the round's publication, which keeps the feed the same from one read to the next).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::secrets::{new_secret, secret_hash};
use crate::auth::{Caller, MaybeCaller};
use crate::db::calendars as store;
use crate::db::ids::{PlayerId, TournamentId, UserId};
use crate::db::running::RoundRow;
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::services::access::load_visible;

/// Where the private feed is, shown once when it is made.
#[derive(Debug, Serialize, ToSchema)]
pub struct CalendarFeedOut {
    /// The feed's path (`/api/v1/calendars/{token}`): subscribe to it; anyone who has it sees
    /// the player's games, so rotate it (`POST` again) or revoke it (`DELETE`) when it leaks.
    #[schema(
        example = "/api/v1/calendars/cal_3f5a9c0d1e2b4a6f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f"
    )]
    pub path: String,
    /// The token alone (it is not stored; only its SHA-256 is).
    pub token: String,
}

/// One event of a feed.
struct Event {
    uid: String,
    stamp: DateTime<Utc>,
    start: DateTime<Utc>,
    summary: String,
    description: String,
}

/// A TEXT value escaped (RFC 5545 3.3.11): backslash, semicolon, comma, newline.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A content line folded at 75 octets (RFC 5545 3.1), never inside a character, ended by CRLF.
fn folded(line: &str, out: &mut String) {
    let mut used = 0;
    for c in line.chars() {
        if used + c.len_utf8() > 75 {
            out.push_str("\r\n ");
            used = 1;
        }
        out.push(c);
        used += c.len_utf8();
    }
    out.push_str("\r\n");
}

fn stamp(t: DateTime<Utc>) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

/// The calendar text of `events` named `name`.
fn calendar(name: &str, events: &[Event]) -> String {
    let mut out = String::new();
    for line in [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//tourney//calendars//EN",
        "CALSCALE:GREGORIAN",
    ] {
        folded(line, &mut out);
    }
    folded(&format!("X-WR-CALNAME:{}", escaped(name)), &mut out);
    for e in events {
        folded("BEGIN:VEVENT", &mut out);
        folded(&format!("UID:{}", e.uid), &mut out);
        folded(&format!("DTSTAMP:{}", stamp(e.stamp)), &mut out);
        folded(&format!("DTSTART:{}", stamp(e.start)), &mut out);
        folded(&format!("SUMMARY:{}", escaped(&e.summary)), &mut out);
        folded(
            &format!("DESCRIPTION:{}", escaped(&e.description)),
            &mut out,
        );
        folded("END:VEVENT", &mut out);
    }
    folded("END:VCALENDAR", &mut out);
    out
}

fn revised(r: &RoundRow) -> DateTime<Utc> {
    r.published_at.unwrap_or(r.created_at)
}

/// The round's time and its self-scheduling deadline, as events.
fn round_events(tid: i64, tname: &str, r: &RoundRow, out: &mut Vec<Event>) {
    if let Some(at) = r.played_at {
        out.push(Event {
            uid: format!("tournament-{tid}-round-{}@tourney", r.number),
            stamp: revised(r),
            start: at,
            summary: format!("{tname}: round {}", r.number),
            description: format!("Round {} of {tname} ({})", r.number, r.method),
        });
    }
    if let Some(until) = r.self_scheduled_until {
        out.push(Event {
            uid: format!("tournament-{tid}-round-{}-deadline@tourney", r.number),
            stamp: revised(r),
            start: until,
            summary: format!("{tname}: round {} deadline", r.number),
            description: format!(
                "The games of round {} of {tname} must be played by now",
                r.number
            ),
        });
    }
}

/// The game at a table of a round, once its time is agreed.
fn game_event(
    conn: &mut PgConnection,
    (tid, tname): (i64, &str),
    r: &RoundRow,
    table: u32,
    who: String,
) -> Result<Option<Event>, ApiError> {
    let agreed = crate::db::me::schedule_of(conn, r.id, table as i32)?.and_then(|g| g.agreed_time);
    Ok(agreed.map(|at| Event {
        uid: format!("tournament-{tid}-round-{}-table-{table}@tourney", r.number),
        stamp: revised(r),
        start: at,
        summary: format!("{tname}: round {}, table {table}", r.number),
        description: who,
    }))
}

fn names_at(seats: &[crate::domain::PlayerId], names: &HashMap<PlayerId, String>) -> String {
    seats
        .iter()
        .map(|p| names.get(p).cloned().unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" – ")
}

/// The feed of a tournament anyone may see (drafts only for their staff): its rounds with
/// their times, the self-scheduling deadlines and the self-scheduled games once agreed; and
/// whether it is public (not a draft).
pub fn tournament_feed(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
) -> Result<(bool, String), ApiError> {
    let t = load_visible(conn, caller, tid)?;
    // A draft is seen by its staff only: not for shared caches.
    let public = t.status != crate::domain::status::TournamentStatus::Draft;
    let names = crate::db::me::names_in(conn, &[TournamentId(tid)])?;
    let mut events = Vec::new();
    for r in crate::db::rounds::published_of(conn, TournamentId(tid))? {
        round_events(tid, &t.name, &r, &mut events);
        if r.self_scheduled_until.is_none() {
            continue;
        }
        for table in &r.draw.tables {
            let who = names_at(&table.seats, &names);
            events.extend(game_event(conn, (tid, &t.name), &r, table.number, who)?);
        }
    }
    Ok((public, calendar(&t.name, &events)))
}

/// The private feed of the token `token`: the player's games (at the round's time or the
/// agreed time) and the deadlines of their self-scheduled rounds, in every tournament they
/// play. An unknown or revoked token is 404, as a path that does not exist; so is the token of
/// a player whose account is disabled or erased (the same answer as a made-up token: nobody
/// learns that the feed exists), which works again once an admin enables the account.
pub fn player_feed(conn: &mut PgConnection, token: &str) -> Result<String, ApiError> {
    let hash = hex::encode(secret_hash(token));
    let me = store::player_of(conn, &hash)?
        .ok_or_else(|| ApiError::NotFound("no such calendar".into()))?;
    let entered = crate::db::me::entered(conn, me)?;
    let ids: Vec<TournamentId> = entered.iter().map(|(t, _)| *t).collect();
    let names = crate::db::me::names_in(conn, &ids)?;
    let mut events = Vec::new();
    for (tid, tname) in entered {
        for r in crate::db::rounds::published_of(conn, tid)? {
            let draw = &r.draw;
            let Some(table) = draw
                .tables
                .iter()
                .find(|t| t.seats.iter().any(|p| p.0 == me.0))
            else {
                continue;
            };
            let who = names_at(&table.seats, &names);
            let mut own = Vec::new();
            round_events(tid.0, &tname, &r, &mut own);
            for e in &mut own {
                e.description = format!("{}. Table {}: {who}", e.description, table.number);
            }
            events.extend(own);
            events.extend(game_event(conn, (tid.0, &tname), &r, table.number, who)?);
        }
    }
    Ok(calendar("My games", &events))
}

/// The caller's linked player, or 409 naming the reason.
fn my_player(conn: &mut PgConnection, caller: &Caller) -> Result<PlayerId, ApiError> {
    crate::db::me::player_of(conn, UserId(caller.user_id))?.ok_or_else(|| {
        ApiError::Conflict("no player is linked to this account, so it has no games to show".into())
    })
}

/// Makes the caller's private feed, or a new one in its place (the old URL answers 404 from
/// now on). One statement.
pub fn rotate_feed(
    conn: &mut PgConnection,
    caller: &Caller,
    now: DateTime<Utc>,
) -> Result<CalendarFeedOut, ApiError> {
    let me = my_player(conn, caller)?;
    let token = new_secret("cal_");
    store::replace(conn, me, &hex::encode(secret_hash(&token)), now)?;
    Ok(CalendarFeedOut {
        path: format!("/api/v1/calendars/{token}"),
        token,
    })
}

/// Revokes the caller's private feed (its URL answers 404); 404 when there is none. One
/// statement.
pub fn revoke_feed(conn: &mut PgConnection, caller: &Caller) -> Result<(), ApiError> {
    let me = my_player(conn, caller)?;
    if store::remove(conn, me)? == 0 {
        return Err(ApiError::NotFound("no calendar feed to revoke".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_long_lines_fold_at_75_octets_between_characters() {
        assert_eq!(escaped("a,b;c\\d\ne"), "a\\,b\\;c\\\\d\\ne");
        let mut out = String::new();
        let long = format!("SUMMARY:{}", "Ålesund, ".repeat(12));
        folded(&long, &mut out);
        let lines: Vec<&str> = out.split("\r\n").collect();
        assert!(lines.len() > 2, "{out:?}");
        assert_eq!(lines.last(), Some(&""), "ends with CRLF");
        for l in &lines[..lines.len() - 1] {
            assert!(l.len() <= 75, "{} octets: {l:?}", l.len());
        }
        assert!(lines[1..lines.len() - 1].iter().all(|l| l.starts_with(' ')));
        let unfolded = out.trim_end_matches("\r\n").replace("\r\n ", "");
        assert_eq!(unfolded, long);
    }
}
