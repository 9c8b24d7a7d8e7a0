//! `POST /tournament-imports`: an archive recreated here with new ids, in one transaction.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

pub(super) use super::checks::check_results;
use super::checks::{
    check_draws, check_envelope, check_players, check_references, check_types, known_ids,
};
use super::spec::{JsonIds, Kind, TableSpec, PENALTY_KEYS, PLAYER_KEYS, TABLES, TOURNAMENT};
use super::{ArchiveKeys, Row, TournamentArchive, Trust};
use crate::auth::{Caller, StaffRole};
use crate::db::archives::import::{self as store, Columns};
use crate::db::ids::{CaseId, PenaltyId, PoolId, TournamentId, UserId};
use crate::db::models::Tournament;
use crate::db::PgConnection;
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::seating::{Draw, DrawInput};
use crate::domain::PlayerId;
use crate::error::ApiError;
use crate::services::running::round_input::FROM_EARLIER_ROUNDS;

/// An archive to import, with how its people map onto this instance.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "archive": {"format": "tourney.tournament-archive", "version": 1,
                "exported_at": "2026-11-21T20:00:00Z", "digest": "sha256:...",
                "content": {"tournament": {"id": 12, "name": "Hyttetur"}, "players": [], "...": []}},
    "player_map": {"17": 4},
    "rating_pool_id": 1
}))]
pub struct ImportTournament {
    pub archive: TournamentArchive,
    /// The archive's player ids (as strings) mapped onto players here; the others are created
    /// (name, club, country).
    #[serde(default)]
    #[schema(example = json!({"17": 4}))]
    pub player_map: BTreeMap<String, i64>,
    /// The archive's user ids (as strings) mapped onto accounts here; the others are created
    /// disabled under a name of their own (`<username>.imported`; no password: nobody signs in
    /// as them until an admin sets one up). Accounts are never matched by username: the same
    /// name on two instances need not be the same person.
    #[serde(default)]
    pub user_map: BTreeMap<String, i64>,
    /// A rating pool here the tournament asks to be rated in: its acceptance rules apply
    /// (accepted at once in an open pool or for its keepers and admins, else pending).
    pub rating_pool_id: Option<i64>,
    /// The exporting instance's public key (64 hex digits), checked with that instance
    /// (`GET /api/v1/archive-key` there): an archive it signed imports although the key is not
    /// in `ARCHIVE_TRUSTED_KEYS` here.
    #[serde(default)]
    pub trust_key: Option<String>,
    /// Imports an archive without a signature (written before archives were signed); refused
    /// otherwise.
    #[serde(default)]
    pub accept_unsigned: bool,
}

impl ImportTournament {
    /// The trust this import's own fields add.
    pub fn trust(&self) -> Trust {
        Trust {
            key: self.trust_key.clone(),
            unsigned: self.accept_unsigned,
        }
    }
}

/// One archive id and the id it has here.
#[derive(Debug, Serialize, ToSchema)]
pub struct MappedId {
    pub archive_id: i64,
    pub id: i64,
    /// Created by the import (else mapped or matched).
    pub created: bool,
}

/// What an import made.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentImportOut {
    /// The new tournament.
    pub tournament_id: i64,
    /// Its rating status in the pool named (none without one).
    pub rating_status: Option<RatingStatus>,
    pub players: Vec<MappedId>,
    pub users: Vec<MappedId>,
}

type Maps = HashMap<Kind, HashMap<i64, i64>>;

pub(super) use store::{columns, next_id};

/// The archive's id mapped by `user` into this instance's id space.
fn map_given(
    conn: &mut PgConnection,
    field: &str,
    given: &BTreeMap<String, i64>,
    known: &HashSet<i64>,
    table: &str,
) -> Result<HashMap<i64, i64>, ApiError> {
    let mut out = HashMap::new();
    let mut taken = HashSet::new();
    for (key, &here) in given {
        let at = format!("{field}.{key}");
        if !taken.insert(here) {
            // Two of the archive's people would be one here: seated against themselves, or
            // one account both a referee and a judge of appeals against the referee.
            return Err(ApiError::field(
                at,
                format!(
                    "another of the archive's ids is mapped onto {table} row {here} already: two \
                     of its people cannot be one here"
                ),
            ));
        }
        let from = key
            .parse::<i64>()
            .ok()
            .filter(|id| known.contains(id))
            .ok_or_else(|| ApiError::field(&at, "not an id the archive holds"))?;
        if !store::exists(conn, table, here)? {
            return Err(ApiError::field(
                at,
                format!("there is no {table} row {here} here"),
            ));
        }
        out.insert(from, here);
    }
    Ok(out)
}

/// A username no account here has (case-insensitively) for an account an import creates:
/// `<name>.imported`, else `<name>.imported2`, ...
fn free_username(conn: &mut PgConnection, name: &str) -> Result<String, ApiError> {
    let base = format!("{name}.imported");
    let taken = store::usernames_from(conn, &base)?;
    let free = (1..)
        .map(|n| match n {
            1 => base.clone(),
            n => format!("{base}{n}"),
        })
        .find(|c| !taken.contains(&c.to_lowercase()));
    Ok(free.unwrap_or(base))
}

fn map_users(
    conn: &mut PgConnection,
    users: &[Row],
    given: HashMap<i64, i64>,
    out: &mut Vec<MappedId>,
) -> Result<HashMap<i64, i64>, ApiError> {
    let mut map = given;
    for row in users {
        let Some(from) = row.get("id").and_then(Value::as_i64) else {
            continue;
        };
        if let Some(&id) = map.get(&from) {
            out.push(MappedId {
                archive_id: from,
                id,
                created: false,
            });
            continue;
        }
        let name = row
            .get("username")
            .and_then(Value::as_str)
            .unwrap_or_default();
        // Never matched by username (issue 37 item 6): instance A's `admin` is not B's.
        let username = free_username(conn, name)?;
        let (id, created) = (store::insert_archived_user(conn, &username)?.0, true);
        map.insert(from, id);
        out.push(MappedId {
            archive_id: from,
            id,
            created,
        });
    }
    Ok(map)
}

pub(super) fn map_players(
    conn: &mut PgConnection,
    caller: &Caller,
    players: &[Row],
    given: HashMap<i64, i64>,
    out: &mut Vec<MappedId>,
) -> Result<HashMap<i64, i64>, ApiError> {
    let mut map = given;
    for row in players {
        let Some(from) = row.get("id").and_then(Value::as_i64) else {
            continue;
        };
        if let Some(&id) = map.get(&from) {
            out.push(MappedId {
                archive_id: from,
                id,
                created: false,
            });
            continue;
        }
        // Checked as `POST /players` checks them (`check_players`): stored as it stores them.
        let text = |k: &str| {
            row.get(k)
                .and_then(Value::as_str)
                .map(|v| v.trim().to_string())
        };
        let (name, club, country) = (
            text("name").unwrap_or_default(),
            text("club"),
            text("country").map(|c| c.to_ascii_uppercase()),
        );
        let who = (name.as_str(), club.as_deref(), country.as_deref());
        let id = store::insert_archived_player(conn, who, UserId(caller.user_id))?.0;
        map.insert(from, id);
        out.push(MappedId {
            archive_id: from,
            id,
            created: true,
        });
    }
    Ok(map)
}

/// Replaces the ids under `keys` in any JSON by `map`.
fn remap_keyed(v: &mut Value, keys: &[&str], map: &HashMap<i64, i64>) {
    fn all(v: &mut Value, map: &HashMap<i64, i64>) {
        match v {
            Value::Number(n) => {
                if let Some(new) = n.as_i64().and_then(|id| map.get(&id)) {
                    *v = Value::from(*new);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| all(i, map)),
            _ => {}
        }
    }
    match v {
        Value::Object(o) => {
            for (k, v) in o.iter_mut() {
                if keys.contains(&k.as_str()) {
                    all(v, map);
                } else {
                    remap_keyed(v, keys, map);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| remap_keyed(i, keys, map)),
        _ => {}
    }
}

fn remap_json(v: &mut Value, how: JsonIds, maps: &Maps) -> Result<(), ApiError> {
    let players = &maps[&Kind::Player];
    let rename = |p: PlayerId| PlayerId(players.get(&p.0).copied().unwrap_or(p.0));
    let bad = |e: serde_json::Error| ApiError::Internal(format!("archived draw: {e}"));
    match how {
        JsonIds::Keyed => {
            remap_keyed(v, PLAYER_KEYS, players);
            remap_keyed(v, PENALTY_KEYS, &maps[&Kind::Penalty]);
        }
        JsonIds::Draw => {
            let mut d: Draw = serde_json::from_value(v.take()).map_err(bad)?;
            d.remap_players(&rename);
            *v = serde_json::to_value(d).map_err(bad)?;
        }
        JsonIds::DrawInput => {
            let short = v
                .as_object_mut()
                .and_then(|o| o.remove(FROM_EARLIER_ROUNDS));
            let mut input: DrawInput = serde_json::from_value(v.take()).map_err(bad)?;
            input.remap_players(&rename);
            *v = serde_json::to_value(input).map_err(bad)?;
            if let (Some(marker), Some(o)) = (short, v.as_object_mut()) {
                o.insert(FROM_EARLIER_ROUNDS.into(), marker);
            }
        }
    }
    Ok(())
}

/// Gives the row its new id (recorded in `maps`) and renames what it names.
fn remap_row(
    conn: &mut PgConnection,
    spec: &TableSpec,
    at: &str,
    row: &Row,
    maps: &mut Maps,
) -> Result<Row, ApiError> {
    let mut row = row.clone();
    if let Some(kind) = spec.own {
        let from = row.get("id").and_then(Value::as_i64);
        let from = from.ok_or_else(|| ApiError::field(format!("{at}.id"), "missing"))?;
        let id = next_id(conn, spec.table)?;
        maps.entry(kind).or_default().insert(from, id);
        row.insert("id".into(), Value::from(id));
    }
    for (column, kind) in spec.refs {
        if let Some(v) = row.get_mut(*column).filter(|v| !v.is_null()) {
            let new = v.as_i64().and_then(|id| maps.get(kind)?.get(&id).copied());
            *v = Value::from(
                new.ok_or_else(|| ApiError::field(format!("{at}.{column}"), "unresolved"))?,
            );
        }
    }
    for (column, how) in spec.json {
        if let Some(v) = row.get_mut(*column).filter(|v| !v.is_null()) {
            remap_json(v, *how, maps)?;
        }
    }
    Ok(row)
}

pub(super) fn insert_row(
    conn: &mut PgConnection,
    spec: &TableSpec,
    at: &str,
    mut row: Row,
    cols: &Columns,
) -> Result<(), ApiError> {
    row.retain(|k, _| !cols.generated.contains(k));
    let cols = &cols.writable;
    if let Some(c) = cols.iter().find(|c| !row.contains_key(c.as_str())) {
        return Err(ApiError::field(
            format!("{at}.{c}"),
            "missing: the row is incomplete",
        ));
    }
    if let Some(k) = row.keys().find(|k| !cols.contains(k.as_str())) {
        return Err(ApiError::field(
            format!("{at}.{k}"),
            "not a column of this table here",
        ));
    }
    let mut list: Vec<&str> = cols.iter().map(String::as_str).collect();
    list.sort_unstable();
    store::insert_row(conn, spec.table, &list, Value::Object(row))
        .map_err(|e| ApiError::field(at, format!("cannot be stored: {e}")))?;
    Ok(())
}

/// The tournament's own row, renamed, owned by the importer and asking the pool named here.
fn tournament_row(
    conn: &mut PgConnection,
    caller: &Caller,
    archive: &TournamentArchive,
    maps: &mut Maps,
    (rating, now): (Option<Rating>, DateTime<Utc>),
) -> Result<Row, ApiError> {
    let at = "archive.content.tournament";
    let mut row = remap_row(conn, &TOURNAMENT, at, &archive.content.tournament, maps)?;
    let (pool, status, reason) = match rating {
        Some((p, s, r)) => (
            Value::from(p),
            serde_json::to_value(s).unwrap_or_default(),
            r,
        ),
        None => (Value::Null, Value::Null, None),
    };
    let decided = !pool.is_null();
    // `created_by` stays the archive's creator (mapped like every account): a league counts
    // one national-rank bonus per organiser and season, and the organiser is the creator.
    // A checked-out tournament's archive runs here: not read-only here.
    row.insert("checked_out_to".into(), Value::Null);
    row.insert("checked_out_at".into(), Value::Null);
    row.insert("rating_pool_id".into(), pool);
    row.insert("rating_status".into(), status);
    row.insert(
        "rating_reason".into(),
        reason.map(Value::from).unwrap_or_default(),
    );
    row.insert(
        "rating_decided_by".into(),
        if decided {
            Value::from(caller.user_id)
        } else {
            Value::Null
        },
    );
    row.insert(
        "rating_decided_at".into(),
        if decided {
            serde_json::to_value(now).unwrap_or_default()
        } else {
            Value::Null
        },
    );
    Ok(row)
}

/// The pool a new tournament asks, the status its rules give and why.
pub(super) type Rating = (i64, RatingStatus, Option<String>);

/// Where an archive's tournament goes: a new tournament (asking the pool named, with the
/// status its rules give, decided at the time given), or an existing one whose rows it
/// replaces (a check-in).
pub(super) enum Target {
    New(Option<Rating>, DateTime<Utc>),
    Existing(i64),
}

/// What [`write_archive`] made.
pub(super) struct Written {
    pub tid: i64,
    pub players: Vec<MappedId>,
    pub users: Vec<MappedId>,
}

/// The checks every archive passes before anything is written; returns its ids by kind. Its
/// results are checked apart ([`check_results`]: an import and a pool import right after, a
/// check-in once it knows the archive keeps the tournament's ruleset).
/// With `signer`, the archive's signature holds and its key is trusted; without, its signature
/// is not checked (a tournament inside a pool archive, covered by the pool's).
pub(super) fn checked(
    archive: &TournamentArchive,
    signer: Option<(&ArchiveKeys, &Trust)>,
) -> Result<super::checks::Known, ApiError> {
    check_envelope(archive)?;
    if let Some((keys, trust)) = signer {
        archive.check_signature(keys, trust)?;
    }
    super::sizes::check_sizes(&archive.content)?;
    check_players(&archive.content.players, "archive.content.players")?;
    let known = known_ids(&archive.content);
    check_references(&archive.content, &known)?;
    check_types(&archive.content)?;
    super::case_rows::check_cases(&archive.content)?;
    check_draws(&archive.content)?;
    Ok(known)
}

/// The columns of an existing tournament a check-in takes from the archive: all but its
/// identity, its owner, its pool and rating decision, what places it in a league (its national
/// rank and announcement date: changed here through a PATCH, which the league follows, never
/// by an archive), its check-out and its version.
const KEPT_ON_CHECK_IN: &[&str] = &[
    "id",
    "announced_at",
    "national_rank",
    "created_by",
    "created_at",
    "rating_pool_id",
    "rating_status",
    "rating_reason",
    "rating_decided_by",
    "rating_decided_at",
    "checked_out_to",
    "checked_out_at",
    "version",
    "updated_at",
];

fn update_tournament(conn: &mut PgConnection, tid: i64, row: Row) -> Result<(), ApiError> {
    let mut cols: Vec<String> = columns(conn, "tournaments")?
        .writable
        .into_iter()
        .filter(|c| !KEPT_ON_CHECK_IN.contains(&c.as_str()))
        .collect();
    cols.sort();
    if let Some(c) = cols.iter().find(|c| !row.contains_key(c.as_str())) {
        let at = format!("archive.content.tournament.{c}");
        return Err(ApiError::field(at, "missing: the row is incomplete"));
    }
    store::update_tournament(conn, TournamentId(tid), &cols, Value::Object(row)).map_err(|e| {
        ApiError::field(
            "archive.content.tournament",
            format!("cannot be stored: {e}"),
        )
    })?;
    Ok(())
}

/// Writes a checked archive's rows with new ids (inside the caller's transaction): players and
/// accounts mapped as given or created, the tournament new or `Target::Existing`'s.
pub(super) fn write_archive(
    conn: &mut PgConnection,
    caller: &Caller,
    archive: &TournamentArchive,
    known: &super::checks::Known,
    (player_map, user_map): (&BTreeMap<String, i64>, &BTreeMap<String, i64>),
    target: Target,
) -> Result<Written, ApiError> {
    let (mut users, mut players) = (Vec::new(), Vec::new());
    let mut maps: Maps = HashMap::new();
    let given = map_given(conn, "user_map", user_map, &known[&Kind::User], "users")?;
    let u = map_users(conn, &archive.content.users, given, &mut users)?;
    maps.insert(Kind::User, u);
    let given = map_given(
        conn,
        "player_map",
        player_map,
        &known[&Kind::Player],
        "players",
    )?;
    let p = map_players(conn, caller, &archive.content.players, given, &mut players)?;
    maps.insert(Kind::Player, p);
    maps.entry(Kind::Penalty).or_default();
    match target {
        Target::New(rating, now) => {
            let row = tournament_row(conn, caller, archive, &mut maps, (rating, now))?;
            let cols = columns(conn, "tournaments")?;
            insert_row(conn, &TOURNAMENT, "archive.content.tournament", row, &cols)?;
        }
        Target::Existing(tid) => {
            let from = archive.content.tournament.get("id").and_then(Value::as_i64);
            maps.entry(Kind::Tournament)
                .or_default()
                .extend(from.map(|f| (f, tid)));
            update_tournament(conn, tid, archive.content.tournament.clone())?;
        }
    }
    // A case names its penalty and a penalty its case: cases go in first without theirs.
    let mut case_penalties = Vec::new();
    for spec in TABLES {
        let cols = columns(conn, spec.table)?;
        let rows = archive
            .content
            .sections()
            .into_iter()
            .find(|(s, _)| *s == spec.section);
        for (i, row) in rows
            .map(|(_, r)| r.as_slice())
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let at = format!("archive.content.{}[{i}]", spec.section);
            let mut row = row.clone();
            if spec.table == "cases" {
                let penalty = row.insert("penalty_id".into(), Value::Null);
                let case = row.get("id").and_then(Value::as_i64);
                if let (Some(Value::Number(p)), Some(c)) = (penalty, case) {
                    case_penalties.extend(p.as_i64().map(|p| (c, p)));
                }
            }
            let row = remap_row(conn, spec, &at, &row, &mut maps)?;
            insert_row(conn, spec, &at, row, &cols)?;
        }
    }
    for (case, penalty) in case_penalties {
        let (case, penalty) = (maps[&Kind::Case][&case], maps[&Kind::Penalty][&penalty]);
        store::set_case_penalty(conn, CaseId(case), PenaltyId(penalty))?;
    }
    let tid = maps[&Kind::Tournament]
        .values()
        .next()
        .copied()
        .unwrap_or_default();
    let (t, me) = (TournamentId(tid), UserId(caller.user_id));
    store::appoint(conn, t, me, StaffRole::Organiser.as_str())?;
    Ok(Written {
        tid,
        players,
        users,
    })
}

/// Refuses an archive whose tournament the pool already rates or is asked to (a tournament
/// there with a round of the same seed commitment: an earlier import of the same archive, or
/// the original): its games would count twice. Commitments are SHA-256 digests of random
/// seeds, so equal ones mean the same round.
fn not_counted_yet(
    conn: &mut PgConnection,
    pool: i64,
    archive: &TournamentArchive,
) -> Result<(), ApiError> {
    let commitments: Vec<String> = archive
        .content
        .rounds
        .iter()
        .filter_map(|r| r.get("seed_commitment")?.as_str().map(str::to_string))
        .collect();
    match store::pool_tournament_with_rounds(conn, PoolId(pool), &commitments)? {
        Some((id, name)) => Err(ApiError::conflict_at(
            "rating_pool_id",
            format!(
                "the pool already holds this tournament (tournament {}, \"{}\", has the \
                 archive's rounds): its games would count twice",
                id, name
            ),
        )),
        None => Ok(()),
    }
}

/// Imports a tournament archive (admins): checks it whole (format, version, digest, signature
/// by a trusted key, every reference, every draw recomputed from its seed and input), then
/// recreates the tournament
/// with new ids in one transaction: players and accounts mapped as given or created, the
/// importer its organiser, the pool named here deciding its rating by its own rules.
pub fn import_tournament(
    conn: &mut PgConnection,
    caller: &Caller,
    input: ImportTournament,
    keys: &ArchiveKeys,
    now: DateTime<Utc>,
) -> Result<TournamentImportOut, ApiError> {
    caller.require_admin()?;
    let archive = &input.archive;
    let known = checked(archive, Some((keys, &input.trust())))?;
    check_results(&archive.content)?;
    crate::db::unit_of_work(conn, |conn| {
        let pool = match input.rating_pool_id {
            Some(id) => Some(crate::services::access::require_pool(conn, id)?),
            None => None,
        };
        let rating = match &pool {
            Some(p) => {
                not_counted_yet(conn, p.id.0, archive)?;
                let status = crate::services::ratings::request_status(conn, caller, p, None)?;
                let reason = crate::services::ratings::automatic_reason(p, status);
                Some((p.id.0, status, reason))
            }
            None => None,
        };
        let maps = (&input.player_map, &input.user_map);
        let target = Target::New(rating, now);
        let w = write_archive(conn, caller, archive, &known, maps, target)?;
        let t: Tournament = store::tournament(conn, TournamentId(w.tid))?;
        if let Some(p) = &pool {
            crate::services::ratings::request_recorded(conn, caller, &t, p, now)?;
            if t.rating_status == Some(RatingStatus::Accepted) {
                crate::services::ratings::rebuild_pool(conn, p.id.0)?;
            }
        }
        Ok(TournamentImportOut {
            tournament_id: w.tid,
            rating_status: t.rating_status,
            players: w.players,
            users: w.users,
        })
    })
}
